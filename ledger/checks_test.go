package ledger

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"evidenceledger/evidence"
)

const page = "<p>In 2025 the registry counted 4,812 companies.</p>"

// foundCheck is a citation.checked payload for a quote found on page, as the checker drafts it.
func foundCheck(claim, citation, url string) (evidence.Checked, []byte) {
	body := []byte(page)
	sum := sha256.Sum256(body)
	h := hex.EncodeToString(sum[:])
	return evidence.Checked{
		Citation: citation, Claim: claim, Status: evidence.StatusFound,
		Note: "found at the source: “the registry counted 4,812 companies”", Excerpt: "In 2025 the registry counted 4,812 companies.", Tier: "exact",
		Document: &evidence.Document{SHA256: h, URL: url, FinalURL: url, FetchedAt: "2026-11-30T10:00:00.123Z",
			HTTPStatus: 200, ContentType: "text/html", IP: "93.184.215.14", Hops: []evidence.Hop{{URL: url, Status: 200, IP: "93.184.215.14"}}},
		Verdicts: []evidence.CheckVerdict{
			{VerifierResult: evidence.VerifierResult{Verifier: "dom", Verdict: evidence.VerdictSupported, AccuracyEstimate: 98, Reasoning: "found"}, Document: h},
			{VerifierResult: evidence.VerifierResult{Verifier: "tokens", Verdict: evidence.VerdictSupported, AccuracyEstimate: 98, Reasoning: "found"}, Document: h},
		},
		Adjudication: evidence.Adjudication{Agree: true, Decision: evidence.VerdictSupported, ResidualRisk: "The words were on the page; nothing more."},
	}, body
}

// splitCheck is a check whose verifiers split, with the disagreement seam it opens.
func splitCheck(claim, citation string) (evidence.Checked, *evidence.SeamOpened) {
	seam := &evidence.SeamOpened{Seam: newID("s_"), Kind: evidence.SeamDisagreement, Summary: "The verifiers split.", Claims: []string{claim}, Citations: []string{citation}}
	return evidence.Checked{
		Citation: citation, Claim: claim, Status: evidence.StatusReported, Note: "the verifiers disagree",
		Verdicts: []evidence.CheckVerdict{
			{VerifierResult: evidence.VerifierResult{Verifier: "dom", Verdict: evidence.VerdictSupported, AccuracyEstimate: 98, Reasoning: "found"}},
			{VerifierResult: evidence.VerifierResult{Verifier: "tokens", Verdict: evidence.VerdictNotFound, AccuracyEstimate: 90, Reasoning: "not found"}},
			{VerifierResult: evidence.VerifierResult{Verifier: "third", Verdict: "maybe", AccuracyEstimate: 300}, Problem: "verdict \"maybe\" is not one of the four"},
		},
		Adjudication: evidence.Adjudication{Escalated: true, ResidualRisk: "Nothing is decided until a person looks."},
	}, seam
}

// recordFoundAndSplit records two checks of c: its first citation found at its source, its
// second split between the verifiers, with the disagreement seam it opens (returned).
func recordFoundAndSplit(t testing.TB, s *Store, c ClaimView) *evidence.SeamOpened {
	t.Helper()
	ctx := context.Background()
	ch, body := foundCheck(c.ID, c.Citations[0].ID, c.Citations[0].URL)
	if err := s.RecordCheck(ctx, "system", ch, body, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	split, seam := splitCheck(c.ID, c.Citations[1].ID)
	if err := s.RecordCheck(ctx, "system", split, nil, nil, nil, seam); err != nil {
		t.Fatal(err)
	}
	return seam
}

// eventTypes lists the types of the events after seq, in order.
func eventTypesAfter(t testing.TB, s *Store, after int64) []string {
	t.Helper()
	evs, err := s.Events(context.Background(), after, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

func TestRecordCheckCommitsOneEventAndProjects(t *testing.T) {
	s, dir := openTest(t)
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "user:olga", []byte("p"), research(
		claim("The registry counted 4,812 companies.", "https://registry.example/report", "the registry counted 4,812 companies", "https://press.example/a", "the registry counted 4,812 companies")))
	if err != nil {
		t.Fatal(err)
	}
	c := b.Claims[0]
	ct0, ct1 := c.Citations[0], c.Citations[1]
	head, _ := chainState(t, s)

	ch, body := foundCheck(c.ID, ct0.ID, ct0.URL)
	if err := s.RecordCheck(ctx, "system", ch, body, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := eventTypesAfter(t, s, head); strings.Join(got, ",") != "citation.checked" {
		t.Fatalf("events recorded: %v, want one citation.checked", got)
	}
	stored, err := s.Blob(ctx, ch.Document.SHA256)
	if err != nil || !bytes.Equal(stored, body) {
		t.Fatalf("stored page %q (%v), want the body", stored, err)
	}
	v, err := s.Claim(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := v.Citations[0]
	if v.Status != evidence.StatusFound || v.Strength != evidence.StrengthLow || got.Strength != evidence.StrengthLow {
		t.Errorf("claim %s/%s, citation strength %s; want found_at_source, low (a lead only)", v.Status, v.Strength, got.Strength)
	}
	if got.Status != evidence.StatusFound || got.Note != ch.Note || got.Excerpt != ch.Excerpt {
		t.Errorf("citation %s %q %q", got.Status, got.Note, got.Excerpt)
	}
	if d := got.Document; d == nil || d.SHA256 != ch.Document.SHA256 || d.URL != ct0.URL || d.FinalURL != ct0.URL || d.FetchedAt != ch.Document.FetchedAt {
		t.Errorf("document %+v", got.Document)
	}
	if len(got.Verdicts) != 2 || got.Verdicts[0].Verifier != "dom" || got.Verdicts[1].Document != ch.Document.SHA256 || got.Verdicts[1].AccuracyEstimate != 98 {
		t.Errorf("verdicts %+v", got.Verdicts)
	}
	if a := got.Adjudication; a == nil || !a.Agree || a.Escalated || a.Decision != evidence.VerdictSupported || a.ResidualRisk == "" {
		t.Errorf("adjudication %+v", got.Adjudication)
	}
	if other := v.Citations[1]; other.Document != nil || other.Adjudication != nil || len(other.Verdicts) != 0 {
		t.Errorf("the unchecked citation carries check details: %+v", other)
	}

	// A split on the other citation: the seam opens in the same transaction.
	head, _ = chainState(t, s)
	split, seam := splitCheck(c.ID, ct1.ID)
	if err := s.RecordCheck(ctx, "system", split, nil, nil, nil, seam); err != nil {
		t.Fatal(err)
	}
	if got := eventTypesAfter(t, s, head); strings.Join(got, ",") != "citation.checked,seam.opened" {
		t.Fatalf("events recorded: %v", got)
	}
	v, _ = s.Claim(ctx, c.ID)
	if got := v.Citations[1]; got.Status != evidence.StatusReported || len(got.OpenSeams) != 1 || got.OpenSeams[0] != seam.Seam ||
		got.Document != nil || len(got.Verdicts) != 3 || got.Verdicts[2].Problem == "" || got.Adjudication.Decision != "" || !got.Adjudication.Escalated {
		t.Errorf("split citation %+v", got)
	}

	// Re-checking appends; the read model shows the latest check, history stays.
	nf := ch
	nf.Status, nf.Note, nf.Excerpt, nf.Tier = evidence.StatusNotFound, "not on the page", "", ""
	nf.Adjudication.Decision = evidence.VerdictNotFound
	if err := s.RecordCheck(ctx, "user:olga", nf, body, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	v, _ = s.Claim(ctx, c.ID)
	if v.Status == evidence.StatusFound || v.Strength != "" || v.Citations[0].Excerpt != "" || v.Citations[0].Adjudication.Decision != evidence.VerdictNotFound {
		t.Errorf("after the recheck: claim %s/%q, citation %+v", v.Status, v.Strength, v.Citations[0])
	}
	var checks, docs int
	db := rawDB(t, dir)
	if err := db.QueryRow("SELECT count(*), (SELECT count(*) FROM documents) FROM checks WHERE citation = ?", ct0.ID).Scan(&checks, &docs); err != nil {
		t.Fatal(err)
	}
	if checks != 2 || docs != 2 {
		t.Errorf("%d checks and %d documents of the rechecked citation, want 2 and 2 (the same body described twice)", checks, docs)
	}
	mustAuditOK(t, s)
}

func TestRecordCheckRefusalsRecordNothing(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "system", []byte("p"), research(
		claim("One.", "https://a.example/", "quote of enough length"), claim("Two.", "https://b.example/", "quote of enough length")))
	if err != nil {
		t.Fatal(err)
	}
	c0, c1 := b.Claims[0], b.Claims[1]
	ct := c0.Citations[0]
	good, body := foundCheck(c0.ID, ct.ID, ct.URL)
	tests := []struct {
		desc   string
		change func(ch *evidence.Checked, body *[]byte, seam **evidence.SeamOpened)
		want   error
		words  string
	}{
		{"body does not hash to the document", func(_ *evidence.Checked, b *[]byte, _ **evidence.SeamOpened) { *b = []byte("other bytes") }, ErrInvalid, "hashes to"},
		{"body without a document", func(ch *evidence.Checked, _ *[]byte, _ **evidence.SeamOpened) { ch.Document = nil }, ErrInvalid, "without a document"},
		{"status off the list", func(ch *evidence.Checked, _ *[]byte, _ **evidence.SeamOpened) { ch.Status = "verified" }, ErrInvalid, "status"},
		{"decision off the list", func(ch *evidence.Checked, _ *[]byte, _ **evidence.SeamOpened) { ch.Adjudication.Decision = "probably" }, ErrInvalid, "decision"},
		{"no residual risk", func(ch *evidence.Checked, _ *[]byte, _ **evidence.SeamOpened) { ch.Adjudication.ResidualRisk = "  " }, ErrInvalid, "residual-risk"},
		{"bad citation id", func(ch *evidence.Checked, _ *[]byte, _ **evidence.SeamOpened) { ch.Citation = "ct_1" }, ErrInvalid, "citation id"},
		{"verdict document not a hash", func(ch *evidence.Checked, _ *[]byte, _ **evidence.SeamOpened) { ch.Verdicts[0].Document = "abc" }, ErrInvalid, "verdict 1"},
		{"unknown citation", func(ch *evidence.Checked, _ *[]byte, _ **evidence.SeamOpened) { ch.Citation = "ct_0000000000000000" }, ErrNotFound, "does not exist"},
		{"claim is not the citation's", func(ch *evidence.Checked, _ *[]byte, _ **evidence.SeamOpened) { ch.Claim = c1.ID }, ErrNotFound, "belongs to claim"},
		{"seam about another citation", func(_ *evidence.Checked, _ *[]byte, s **evidence.SeamOpened) {
			*s = &evidence.SeamOpened{Seam: newID("s_"), Kind: evidence.SeamManual, Summary: "x", Citations: []string{c1.Citations[0].ID}}
		}, ErrInvalid, "about the checked citation"},
		{"seam of an unknown kind", func(_ *evidence.Checked, _ *[]byte, s **evidence.SeamOpened) {
			*s = &evidence.SeamOpened{Seam: newID("s_"), Kind: "hunch", Summary: "x", Citations: []string{ct.ID}}
		}, ErrInvalid, "seam kind"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			n, head := chainState(t, s)
			ch := good
			ch.Verdicts = append([]evidence.CheckVerdict{}, good.Verdicts...)
			doc := *good.Document
			ch.Document = &doc
			bd := body
			var seam *evidence.SeamOpened
			tt.change(&ch, &bd, &seam)
			err := s.RecordCheck(ctx, "system", ch, bd, nil, nil, seam)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.words) {
				t.Fatalf("err = %v, want %v saying %q", err, tt.want, tt.words)
			}
			if n2, head2 := chainState(t, s); n2 != n || head2 != head {
				t.Fatalf("a refused check changed the chain: %d events, was %d", n2, n)
			}
		})
	}
	v, _ := s.Claim(ctx, c0.ID)
	if v.Citations[0].Status != evidence.StatusReported || v.Citations[0].Adjudication != nil {
		t.Errorf("a refused check changed the citation: %+v", v.Citations[0])
	}
}

func TestCitationsToCheck(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "system", []byte("p"), research(
		claim("One.", "https://a.example/1", "quote of enough length", "https://a.example/2", "quote of enough length"),
		claim("No source.", "", "a quote with no link to it"),
		claim("Three.", "https://c.example/3", "quote of enough length")))
	if err != nil {
		t.Fatal(err)
	}
	ids := func(ts []evidence.CheckTarget) string {
		var out []string
		for _, t := range ts {
			out = append(out, t.URL)
		}
		return strings.Join(out, " ")
	}
	all := "https://a.example/1 https://a.example/2  https://c.example/3"
	got, err := s.CitationsToCheck(ctx, b.ID, false)
	if err != nil || ids(got) != all {
		t.Fatalf("before any check: %q (%v), want every citation in research order", ids(got), err)
	}
	if got[0].ClaimID != b.Claims[0].ID || got[0].ClaimText != "One." || got[0].Quote != "quote of enough length" || got[0].CitationID != b.Claims[0].Citations[0].ID {
		t.Errorf("target %+v", got[0])
	}
	recordFoundAndSplit(t, s, b.Claims[0])
	unreachable := evidence.Checked{
		Citation: b.Claims[2].Citations[0].ID, Claim: b.Claims[2].ID, Status: evidence.StatusUnreachable, Note: "the page cannot be read: the server answered 503",
		Verdicts: []evidence.CheckVerdict{
			{VerifierResult: evidence.VerifierResult{Verifier: "dom", Verdict: evidence.VerdictUnreachable, AccuracyEstimate: 80, Reasoning: "503"}},
			{VerifierResult: evidence.VerifierResult{Verifier: "tokens", Verdict: evidence.VerdictUnreachable, AccuracyEstimate: 80, Reasoning: "503"}},
		},
		Adjudication: evidence.Adjudication{Agree: true, Decision: evidence.VerdictUnreachable, ResidualRisk: "Nothing could be read."},
	}
	if err := s.RecordCheck(ctx, "system", unreachable, nil, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		desc    string
		recheck bool
		want    string
	}{
		{"checked and split citations are done; the one without a URL and the unreachable one stay", false, " https://c.example/3"},
		{"a recheck takes every citation", true, all},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			got, err := s.CitationsToCheck(ctx, b.ID, tt.recheck)
			if err != nil || ids(got) != tt.want {
				t.Fatalf("%q (%v), want %q", ids(got), err, tt.want)
			}
		})
	}
	_, err = s.CitationsToCheck(ctx, "b_0000000000000000", false)
	if !errors.Is(err, ErrNotFound) || !errors.Is(err, evidence.ErrNoBatch) {
		t.Fatalf("unknown batch: %v, want ErrNotFound and evidence.ErrNoBatch", err)
	}
}

func TestAuditReplaysChecks(t *testing.T) {
	tamper := []struct {
		desc, sql, table string
	}{
		{"verdict changed", "UPDATE verdicts SET verdict = 'supported', accuracy_estimate = 99 WHERE verdict = 'not_found'", "verdicts"},
		{"verdict removed", "DELETE FROM verdicts WHERE rowid = (SELECT min(rowid) FROM verdicts)", "verdicts"},
		{"check decided behind the program's back", "UPDATE checks SET decision = 'supported', status = 'found_at_source' WHERE decision = ''", "checks"},
		{"document pointed at another body", "UPDATE documents SET sha256 = replace(sha256, substr(sha256, 1, 1), 'f')", "documents"},
		{"latest check rewound", "UPDATE citations SET last_check = NULL WHERE last_check IS NOT NULL", "citations"},
	}
	for _, tt := range tamper {
		t.Run(tt.desc, func(t *testing.T) {
			s, dir := openTest(t)
			ctx := context.Background()
			mixedWorkload(t, s)
			b, err := s.ImportResearch(ctx, "system", []byte("p"), research(
				claim("One.", "https://a.example/1", "quote of enough length", "https://a.example/2", "quote of enough length")))
			if err != nil {
				t.Fatal(err)
			}
			seam := recordFoundAndSplit(t, s, b.Claims[0])
			if _, err := s.ResolveSeam(ctx, "user:vera", seam.Seam, "found_at_source", "I read the page: the sentence is there."); err != nil {
				t.Fatal(err)
			}
			mustAuditOK(t, s)
			mustTamperBeCaught(t, s, dir, tt.sql, tt.table)
		})
	}
}
