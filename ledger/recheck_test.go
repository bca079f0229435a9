package ledger

import (
	"context"
	"strings"
	"testing"

	"evidenceledger/evidence"
)

// loginWalledCheck is a check of a citation on a login-walled host, as the checker drafts it:
// nothing fetched, status reported, a manual seam.
func loginWalledCheck(claim, citation string) (evidence.Checked, *evidence.SeamOpened) {
	seam := &evidence.SeamOpened{Seam: newID("s_"), Kind: evidence.SeamManual, Summary: "A person must open the page.", Claims: []string{claim}, Citations: []string{citation}}
	return evidence.Checked{
		Citation: citation, Claim: claim, Status: evidence.StatusReported,
		Note: "login-walled host, never fetched: a person must open it (seam " + seam.Seam + ")", Verdicts: []evidence.CheckVerdict{},
		Adjudication: evidence.Adjudication{ResidualRisk: "Nothing was fetched; nothing is known until a person looks."},
	}, seam
}

// notFoundCheck is a check in which both verifiers agree that the quote is not on the page.
func notFoundCheck(claim, citation, url string) (evidence.Checked, []byte) {
	ch, body := foundCheck(claim, citation, url)
	ch.Status, ch.Note, ch.Excerpt, ch.Tier = evidence.StatusNotFound, "the quote is not on the page", "", ""
	for i := range ch.Verdicts {
		ch.Verdicts[i].Verdict = evidence.VerdictNotFound
	}
	ch.Adjudication.Decision = evidence.VerdictNotFound
	return ch, body
}

// TestRecheckNeverOverwritesAPersonSilently: a re-check appends its check, but where a person
// decided a citation's status through a seam, a re-check that learns nothing (a login wall)
// leaves the decision standing, and one that disagrees with it opens a disagreement seam and
// leaves the citation reported until a person decides again.
func TestRecheckNeverOverwritesAPersonSilently(t *testing.T) {
	type recheck func(c ClaimView) (evidence.Checked, []byte, *evidence.SeamOpened)
	walled := func(c ClaimView) (evidence.Checked, []byte, *evidence.SeamOpened) {
		ch, seam := loginWalledCheck(c.ID, c.Citations[0].ID)
		return ch, nil, seam
	}
	found := func(c ClaimView) (evidence.Checked, []byte, *evidence.SeamOpened) {
		ch, body := foundCheck(c.ID, c.Citations[0].ID, c.Citations[0].URL)
		return ch, body, nil
	}
	notFound := func(c ClaimView) (evidence.Checked, []byte, *evidence.SeamOpened) {
		ch, body := notFoundCheck(c.ID, c.Citations[0].ID, c.Citations[0].URL)
		return ch, body, nil
	}
	tests := []struct {
		desc       string
		first      recheck // the check that opens the seam a person resolves
		decision   evidence.Status
		again      recheck
		wantStatus evidence.Status
		wantSeam   evidence.SeamKind // the kind of the seam left open; "" for none
		wantNote   string
	}{
		{"manual seam resolved found, recheck hits the login wall again: the decision stands, no new seam",
			walled, evidence.StatusFound, walled, evidence.StatusFound, "", "decision of user:olga (seam"},
		{"manual seam resolved not_found, recheck hits the login wall again: the decision stands",
			walled, evidence.StatusNotFound, walled, evidence.StatusNotFound, "", "decision of user:olga (seam"},
		{"person decided found, recheck finds the quote gone: reported and a disagreement seam",
			walled, evidence.StatusFound, notFound, evidence.StatusReported, evidence.SeamDisagreement, "user:olga decided found_at_source"},
		{"person decided not_found, recheck finds the quote: not promoted to evidence silently",
			walled, evidence.StatusNotFound, found, evidence.StatusReported, evidence.SeamDisagreement, "user:olga decided not_found"},
		{"person decided found, recheck agrees: found, no seam",
			walled, evidence.StatusFound, found, evidence.StatusFound, "", "found at the source"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			s, _ := openTest(t)
			ctx := context.Background()
			b, err := s.ImportResearch(ctx, "system", []byte("p"), research(
				claim("One.", "https://walled.example/1", "quote of enough length")))
			if err != nil {
				t.Fatal(err)
			}
			c := b.Claims[0]
			ch, body, seam := tt.first(c)
			if err := s.RecordCheck(ctx, "system", ch, body, nil, nil, seam); err != nil {
				t.Fatal(err)
			}
			if _, err := s.ResolveSeam(ctx, "user:olga", seam.Seam, string(tt.decision), "I opened the page myself."); err != nil {
				t.Fatal(err)
			}
			head := mustAuditOK(t, s).Events
			ch, body, seam = tt.again(c)
			if err := s.RecordCheck(ctx, "system", ch, body, nil, nil, seam); err != nil {
				t.Fatal(err)
			}
			types := eventTypesAfter(t, s, int64(head))
			if len(types) == 0 || types[0] != typeCitationChecked {
				t.Fatalf("events after the recheck %v: want the citation.checked appended", types)
			}
			got, err := s.Claim(ctx, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			cit := got.Citations[0]
			if cit.Status != tt.wantStatus || !strings.Contains(cit.Note, tt.wantNote) {
				t.Errorf("citation %s with note %q; want %s with %q in the note", cit.Status, cit.Note, tt.wantStatus, tt.wantNote)
			}
			open, err := s.Seams(ctx, evidence.SeamOpen)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.wantSeam == "" && len(open) != 0:
				t.Errorf("open seams %+v; want none", open)
			case tt.wantSeam != "" && (len(open) != 1 || open[0].Kind != tt.wantSeam || !strings.Contains(open[0].Summary, "user:olga")):
				t.Errorf("open seams %+v; want one %s seam naming the person", open, tt.wantSeam)
			}
			mustAuditOK(t, s)
		})
	}
}

// TestDecisionIsAColumnNotANote: whether a person's decision stands is kept in
// citations.decided_by_seam, set by the resolution and cleared by the next check, not read
// back from note text: a check whose note reads like a person's decision is not taken for
// one.
func TestDecisionIsAColumnNotANote(t *testing.T) {
	s, dir := openTest(t)
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "system", []byte("p"), research(claim("One.", "https://walled.example/1", "quote of enough length")))
	if err != nil {
		t.Fatal(err)
	}
	c := b.Claims[0]
	ch, seam := loginWalledCheck(c.ID, c.Citations[0].ID)
	if err := s.RecordCheck(ctx, "system", ch, nil, nil, nil, seam); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ResolveSeam(ctx, "user:olga", seam.Seam, string(evidence.StatusFound), "I opened the page myself."); err != nil {
		t.Fatal(err)
	}
	decided := func() string {
		var v *string
		if err := rawDB(t, dir).QueryRow("SELECT decided_by_seam FROM citations WHERE id = ?", c.Citations[0].ID).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if v == nil {
			return ""
		}
		return *v
	}
	if got := decided(); got != seam.Seam {
		t.Fatalf("after the resolution decided_by_seam = %q; want %s", got, seam.Seam)
	}
	// A check that agrees, with a note that copies the decision's words.
	agree, body := foundCheck(c.ID, c.Citations[0].ID, c.Citations[0].URL)
	agree.Note = "decided by user:olga (seam " + seam.Seam + "): I opened the page myself."
	if err := s.RecordCheck(ctx, "system", agree, body, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := decided(); got != "" {
		t.Fatalf("after a check decided_by_seam = %q; want none: code set the status last", got)
	}
	gone, body := notFoundCheck(c.ID, c.Citations[0].ID, c.Citations[0].URL)
	if err := s.RecordCheck(ctx, "system", gone, body, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	got, err := s.Claim(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st := got.Citations[0].Status; st != evidence.StatusNotFound {
		t.Fatalf("a re-check after a check (not a person) set the status: %s; want not_found", st)
	}
	mustAuditOK(t, s)
}
