package verify_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// The store is what the checker records into.
var _ verify.CheckStore = (*ledger.Store)(nil)

// openStore opens a ledger in a fresh directory and returns it with the directory.
// waitJob waits for the job to end, however long the machine takes (the test binary's
// -timeout bounds it), and returns its last status.
func waitJob(t *testing.T, jobs *verify.Jobs, id string) verify.JobStatus {
	t.Helper()
	for {
		st, ok := jobs.Wait(t.Context(), id, verify.MaxWait)
		if !ok {
			t.Fatalf("no job %s", id)
		}
		if st.State == verify.JobDone || st.State == verify.JobFailed {
			return st
		}
	}
}

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

// claimOf builds a claim from its text and (url, quote) pairs.
func claimOf(text string, urlQuotes ...string) evidence.Claim {
	c := evidence.Claim{Text: text, Status: evidence.StatusReported}
	for i := 0; i+1 < len(urlQuotes); i += 2 {
		c.Citations = append(c.Citations, evidence.Citation{URL: urlQuotes[i], Quote: urlQuotes[i+1], Status: evidence.StatusReported})
	}
	return c
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

// checkedEvents returns, for each citation, how many citation.checked events name it, and
// the types of every event after seq.
func checkedEvents(t testing.TB, s *ledger.Store, after int64) (map[string]int, []string) {
	t.Helper()
	perCitation := map[string]int{}
	var types []string
	for {
		evs, err := s.Events(context.Background(), after, ledger.MaxEventsPage)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) == 0 {
			return perCitation, types
		}
		for _, e := range evs {
			types = append(types, e.Type)
			if e.Type == "citation.checked" {
				var p struct{ Citation string }
				if err := json.Unmarshal(e.Payload, &p); err != nil {
					t.Fatal(err)
				}
				perCitation[p.Citation]++
			}
			after = e.Seq
		}
	}
}

func headSeq(t testing.TB, s *ledger.Store) int64 {
	t.Helper()
	rep := auditHolds(t, s)
	return rep.Events
}

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

// TestCheckBatchEndToEnd imports research into a real ledger, checks it against loopback
// pages and reads the result back through the read model, the events and the audit.
func TestCheckBatchEndToEnd(t *testing.T) {
	ctx := context.Background()
	site := verify.NewLoopbackSite(t)
	store, dir := openStore(t)
	quote := "the registry counted 4,812 companies"
	b := importClaims(t, store,
		claimOf("The registry counted 4,812 companies in 2025.", site.At("a.test", "/report"), quote),
		claimOf("The registry published a fabricated survey.", site.At("a.test", "/survey-2025"), "the survey covered every company"),
		claimOf("A site that does not exist says so.", "https://nowhere.example/about", "a sentence from a site that is not there"),
		claimOf("The registry counted 9,999 companies.", site.At("a.test", "/report"), "the registry counted 9,999 companies"),
		claimOf("The minister resigned on Tuesday.", site.At("b.test", "/flip"), "The minister resigned on Tuesday"),
		claimOf("The chair posted that growth continues.", site.At("walled.test", "/posts/1"), "We expect growth to continue"),
		claimOf("Growth will continue.", "", "We expect growth to continue"),
	)
	before := headSeq(t, store)

	outs, err := verify.RunBatch(ctx, store, verify.NewChecker(verify.LoopbackFetchConfig()), "system", b.ID, false, verify.DefaultWorkers, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 7 || !outs[6].Halted {
		t.Fatalf("%d outcomes; the one without a URL halted: %v", len(outs), len(outs) == 7 && outs[6].Halted)
	}

	cits := map[string]ledger.CitationView{}
	claims := map[string]ledger.ClaimView{}
	for _, c := range b.Claims {
		v, err := store.Claim(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		claims[c.Text] = v
		cits[c.Text] = v.Citations[0]
	}
	tests := []struct {
		desc, claim string
		status      evidence.Status
		document    bool // a page was stored
		seam        evidence.SeamKind
		note        string
	}{
		{"supported quote", "The registry counted 4,812 companies in 2025.", evidence.StatusFound, true, "", "registry counted"},
		{"fabricated URL (404)", "The registry published a fabricated survey.", evidence.StatusNotFound, true, "", evidence.NoteAbsent + ": the server answered 404"},
		{"unresolvable host", "A site that does not exist says so.", evidence.StatusNotFound, false, "", evidence.NoteAbsent + ": the host nowhere.example does not exist"},
		{"quote not on the page", "The registry counted 9,999 companies.", evidence.StatusNotFound, true, "", "not"},
		{"page that changes between requests", "The minister resigned on Tuesday.", evidence.StatusReported, true, evidence.SeamDisagreement, "disagree"},
		{"login-walled host", "The chair posted that growth continues.", evidence.StatusReported, false, evidence.SeamManual, "person must open"},
		{"no URL", "Growth will continue.", evidence.StatusReported, false, "", evidence.NoteNoSource},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			ct := cits[tt.claim]
			if ct.Status != tt.status || !strings.Contains(ct.Note, tt.note) {
				t.Errorf("status %s, note %q; want %s and a note saying %q", ct.Status, ct.Note, tt.status, tt.note)
			}
			if (ct.Document != nil) != tt.document {
				t.Errorf("document %+v, want stored: %v", ct.Document, tt.document)
			}
			if tt.status != evidence.StatusFound && ct.Excerpt != "" {
				t.Errorf("excerpt %q for a quote that was not found", ct.Excerpt)
			}
			if tt.seam == "" && len(ct.OpenSeams) != 0 {
				t.Errorf("open seams %v, want none", ct.OpenSeams)
			}
			if tt.seam != "" {
				if len(ct.OpenSeams) != 1 {
					t.Fatalf("open seams %v, want one %s seam", ct.OpenSeams, tt.seam)
				}
				seam, err := store.Seam(ctx, ct.OpenSeams[0])
				if err != nil || seam.Kind != tt.seam || seam.OpenedBy != "system" {
					t.Errorf("seam %+v (%v), want %s opened by system", seam, err, tt.seam)
				}
			}
			if tt.claim != "Growth will continue." && (ct.Adjudication == nil || ct.Adjudication.ResidualRisk == "") {
				t.Errorf("adjudication %+v, want one with a residual-risk statement", ct.Adjudication)
			}
		})
	}

	found := cits["The registry counted 4,812 companies in 2025."]
	if !strings.Contains(found.Excerpt, "In 2025 the registry counted") || !strings.Contains(found.Excerpt, "4,500") {
		t.Errorf("excerpt %q does not quote the page's own words with context", found.Excerpt)
	}
	if c := claims["The registry counted 4,812 companies in 2025."]; c.Status != evidence.StatusFound || c.Strength != evidence.StrengthLow || found.Strength != evidence.StrengthLow {
		t.Errorf("claim %s/%s, want found_at_source with low strength (one lead)", c.Status, c.Strength)
	}
	body, err := store.Blob(ctx, found.Document.SHA256)
	if err != nil || !bytes.Equal(body, []byte(verify.ReportHTML)) {
		t.Errorf("the stored page is %q (%v), want the served bytes", body, err)
	}
	if len(found.Verdicts) != 2 || found.Verdicts[0].Verifier != verify.NameDOM || found.Verdicts[1].Verifier != verify.NameTokens || !found.Adjudication.Agree {
		t.Errorf("verdicts %+v, adjudication %+v", found.Verdicts, found.Adjudication)
	}
	if split := cits["The minister resigned on Tuesday."]; len(split.Verdicts) != 3 || !split.Adjudication.Escalated || split.Adjudication.Decision != "" {
		t.Errorf("split: verdicts %+v, adjudication %+v; want three verdicts, escalated, no decision", split.Verdicts, split.Adjudication)
	}
	if walled := cits["The chair posted that growth continues."]; len(walled.Verdicts) != 0 || site.Requests("walled.test") != 0 {
		t.Errorf("login wall: %d verdicts, %d requests reached the server; want none", len(walled.Verdicts), site.Requests("walled.test"))
	}

	perCitation, types := checkedEvents(t, store, before)
	if len(perCitation) != 6 {
		t.Errorf("citation.checked events name %d citations, want 6 (all but the one without a URL)", len(perCitation))
	}
	for id, n := range perCitation {
		if n != 1 {
			t.Errorf("citation %s has %d citation.checked events, want 1", id, n)
		}
	}
	if got := strings.Count(strings.Join(types, " "), "seam.opened"); got != 2 || len(types) != 8 {
		t.Errorf("events %v, want 6 citation.checked and 2 seam.opened", types)
	}

	// A person resolves the login-walled citation: it is found, and strength follows.
	walled := cits["The chair posted that growth continues."]
	seam, err := store.ResolveSeam(ctx, "user:olga", walled.OpenSeams[0], string(evidence.StatusFound), "I signed in and read the post: the sentence is there.")
	if err != nil {
		t.Fatal(err)
	}
	if seam.ResolvedBy != "user:olga" || seam.State != evidence.SeamResolved {
		t.Errorf("seam %+v, want resolved by user:olga", seam)
	}
	c, _ := store.Claim(ctx, walled.Claim)
	if c.Status != evidence.StatusFound || c.Strength != evidence.StrengthLow || c.Citations[0].Status != evidence.StatusFound || !strings.Contains(c.Citations[0].Note, "user:olga") {
		t.Errorf("after the resolution: claim %s/%s, citation %+v", c.Status, c.Strength, c.Citations[0])
	}

	// Nothing is left to check; the audit holds and its replay rebuilds the check tables.
	if left, err := store.CitationsToCheck(ctx, b.ID, false); err != nil || len(left) != 1 || left[0].URL != "" {
		t.Errorf("left to check: %+v (%v), want only the citation without a URL", left, err)
	}
	auditHolds(t, store)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "ledger.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("UPDATE verdicts SET verdict = 'supported' WHERE verdict = 'not_found'"); err != nil {
		t.Fatal(err)
	}
	rep, err := store.Audit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	named := false
	for _, p := range rep.Problems {
		named = named || p.Table == "verdicts"
	}
	if rep.OK || !named {
		t.Errorf("after a verdict was changed through SQL the audit says ok=%v, problems %+v; want the verdicts table named", rep.OK, rep.Problems)
	}
}

// batchOf imports n checkable citations of path spread over three hosts of site, plus one
// without a URL.
// claimLabel names claim i in letters ("Claim a", "Claim b", …, "Claim ba"): a number in a
// claim is a figure the consistency check looks for on the page.
func claimLabel(i int) string {
	s := ""
	for {
		s = string(rune('a'+i%26)) + s
		if i /= 26; i == 0 {
			return "Claim " + s
		}
	}
}

func batchOf(t testing.TB, store *ledger.Store, site *verify.LoopbackSite, n int, path string) ledger.Batch {
	t.Helper()
	hosts := []string{"a.test", "b.test", "c.test"}
	var claims []evidence.Claim
	for i := range n {
		claims = append(claims, claimOf(claimLabel(i)+": the registry counted 4,812 companies.", site.At(hosts[i%len(hosts)], path), "the registry counted 4,812 companies"))
	}
	claims = append(claims, claimOf("A claim with no link.", "", "a quote with no link at all"))
	return importClaims(t, store, claims...)
}
