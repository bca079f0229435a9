package model

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"evidenceledger/evidence"
	"evidenceledger/fetch/fetchtest"
	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// The model tier recorded into a real ledger, through verify.RunBatch as the binary runs it.

// openStore opens a new ledger in a temporary folder, closed when the test ends.
func openStore(t testing.TB) (*ledger.Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := ledger.Open(context.Background(), dir, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

// importClaim records one claim with one citation as a batch, as user:olga.
func importClaim(t testing.TB, s *ledger.Store, text, url, quote string) ledger.Batch {
	t.Helper()
	c := evidence.Claim{Text: text, Status: evidence.StatusReported,
		Citations: []evidence.Citation{{URL: url, Quote: quote, Status: evidence.StatusReported}}}
	return importClaims(t, s, c)
}

// importClaims records claims as one batch, as user:olga.
func importClaims(t testing.TB, s *ledger.Store, claims ...evidence.Claim) ledger.Batch {
	t.Helper()
	var paste strings.Builder
	for _, c := range claims {
		fmt.Fprintf(&paste, "Claim: %s\n", c.Text)
		for _, ct := range c.Citations {
			fmt.Fprintf(&paste, "Source: %s\nQuote: %s\n", ct.URL, ct.Quote)
		}
	}
	b, err := s.ImportResearch(context.Background(), "user:olga", []byte(paste.String()), evidence.Research{Claims: claims})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// auditHolds fails the test unless the ledger's audit holds, and returns its report.
func auditHolds(t testing.TB, s *ledger.Store) ledger.Report {
	t.Helper()
	rep, err := s.Audit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK {
		t.Fatalf("the audit does not hold: %+v", rep.Problems)
	}
	return rep
}

// eventTypes returns the types of every event after seq, in order.
func eventTypes(t testing.TB, s *ledger.Store, after int64) []string {
	t.Helper()
	var types []string
	for {
		evs, err := s.Events(context.Background(), after, ledger.MaxEventsPage)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) == 0 {
			return types
		}
		for _, e := range evs {
			types = append(types, e.Type)
			after = e.Seq
		}
	}
}

// TestModelTierRecordedAndReplayed checks a batch with the model tier on into a real
// ledger: the support judgement is recorded in the check's own event, read back on the
// claim and the batch with its calls and totals, and rebuilt by the audit's replay, which
// names a judgement changed behind the program's back.
func TestModelTierRecordedAndReplayed(t *testing.T) {
	ctx := context.Background()
	site := newPageServer(t)
	store, dir := openStore(t)
	chat := newChatServer(t, func(req chatSeen, n int) chatAnswer {
		if strings.Contains(req.User, "down from") {
			return chatAnswer{Content: verdictJSON("contradicted", 80, "The page says up.", reportSentence)}
		}
		return chatAnswer{Content: verdictJSON("supported", 90, "The page gives the count.", reportSentence)}
	})
	models, err := New(Config{Verifier: chat.Endpoint("cheap"), Timeout: time.Hour}, fetchtest.Config())
	if err != nil {
		t.Fatal(err)
	}
	checker := verify.NewChecker(fetchtest.Config()).WithModels(models)
	claim := func(text, url string) evidence.Claim {
		return evidence.Claim{Text: text, Status: evidence.StatusReported,
			Citations: []evidence.Citation{{URL: url, Quote: "the registry counted 4,812 companies", Status: evidence.StatusReported}}}
	}
	b := importClaims(t, store,
		claim("The registry counted 4,812 companies in 2025.", site.At("a.test", "/report")),
		claim("The registry counted 4,812 companies in 2025, down from the year before.", site.At("b.test", "/report")))
	before := auditHolds(t, store).Events
	if _, err := verify.RunBatch(ctx, store, checker, "user:olga", b.ID, false, 2, nil); err != nil {
		t.Fatal(err)
	}
	types := eventTypes(t, store, before)
	if strings.Join(types, ",") != "citation.checked,citation.checked,seam.opened" && strings.Join(types, ",") != "citation.checked,seam.opened,citation.checked" {
		t.Errorf("events %v: want one citation.checked per citation and one seam", types)
	}
	got, err := store.Batch(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	first, second := got.Claims[0].Citations[0], got.Claims[1].Citations[0]
	if s := first.Support; s == nil || s.Verdict != evidence.VerdictSupported || s.DecidedBy != "code" || len(s.Judgements) != 2 || len(s.Calls) != 2 || s.Totals.Calls != 2 || s.Totals.PromptTokens == 0 {
		t.Fatalf("first citation's support = %+v", first.Support)
	}
	if first.Support.Judgements[0].Evidence[0] != reportSentence {
		t.Errorf("evidence = %v", first.Support.Judgements[0].Evidence)
	}
	if s := second.Support; s == nil || s.Verdict != evidence.VerdictContradicted || len(second.OpenSeams) != 1 {
		t.Fatalf("second citation: support %+v, open seams %v: want contradicted and a contradiction seam", s, second.OpenSeams)
	}
	if first.Status != evidence.StatusFound || second.Status != evidence.StatusFound {
		t.Errorf("statuses %s, %s: the quote status is the quote check's", first.Status, second.Status)
	}
	if m := got.Models; m == nil || m.Calls != 4 || m.PromptTokens != first.Support.Totals.PromptTokens+second.Support.Totals.PromptTokens {
		t.Errorf("batch totals %+v", got.Models)
	}
	seams, err := store.Seams(ctx, "open")
	if err != nil {
		t.Fatal(err)
	}
	if len(seams) != 1 || seams[0].Kind != evidence.SeamContradiction || !strings.Contains(seams[0].Summary, reportSentence) {
		t.Errorf("open seams %+v: want the contradiction quoting the page", seams)
	}
	auditHolds(t, store)

	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "ledger.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("UPDATE support_judgements SET verdict = 'supported' WHERE verdict = 'contradicted'"); err != nil {
		t.Fatal(err)
	}
	rep, err := store.Audit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	named := false
	for _, p := range rep.Problems {
		named = named || p.Table == "support_judgements"
	}
	if rep.OK || !named {
		t.Errorf("after a judgement was changed through SQL the audit says ok=%v, problems %+v", rep.OK, rep.Problems)
	}
}

// A paraphrase: the quote is not on the page, the tier finds the page supports the claim,
// a disagreement seam offers the page's sentences, and a person who resolves it
// found_at_source makes them the citation's excerpt; the replay agrees.
func TestParaphraseAcceptedThroughASeam(t *testing.T) {
	ctx := context.Background()
	site := newPageServer(t)
	store, _ := openStore(t)
	chat := newChatServer(t, func(chatSeen, int) chatAnswer {
		return chatAnswer{Content: verdictJSON("supported", 85, "The page gives the count in other words.", reportSentence)}
	})
	models, err := New(Config{Verifier: chat.Endpoint("cheap"), Timeout: time.Hour}, fetchtest.Config())
	if err != nil {
		t.Fatal(err)
	}
	b := importClaim(t, store, "The registry counted 4,812 companies in 2025.", site.At("a.test", "/report"), "the registry recorded four thousand eight hundred firms")
	if _, err := verify.RunBatch(ctx, store, verify.NewChecker(fetchtest.Config()).WithModels(models), "system", b.ID, false, 1, nil); err != nil {
		t.Fatal(err)
	}
	c, err := store.Claim(ctx, b.Claims[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	ct := c.Citations[0]
	if ct.Status != evidence.StatusNotFound || ct.Support == nil || ct.Support.Verdict != evidence.VerdictSupported || len(ct.OpenSeams) != 1 || ct.Excerpt != "" {
		t.Fatalf("citation %+v: want not_found, supported, one open seam, no excerpt", ct)
	}
	if !strings.Contains(ct.Note, reportSentence) {
		t.Errorf("note %q does not offer the page's sentence", ct.Note)
	}
	if _, err := store.ResolveSeam(ctx, "user:olga", ct.OpenSeams[0], "found_at_source", "the page says it in its own words"); err != nil {
		t.Fatal(err)
	}
	c, _ = store.Claim(ctx, c.ID)
	if ct := c.Citations[0]; ct.Status != evidence.StatusFound || ct.Excerpt != reportSentence || c.Status != evidence.StatusFound {
		t.Errorf("after the resolution: citation %s with excerpt %q, claim %s", ct.Status, ct.Excerpt, c.Status)
	}
	auditHolds(t, store)
}
