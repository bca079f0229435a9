package ledger

import (
	"context"
	"errors"
	"testing"

	"evidenceledger/evidence"
)

// foundClaim imports one claim with one citation, finds the citation by hand and opens a
// contradiction between the claim and its citation's page, as the consistency check does.
func foundClaim(t *testing.T, s *Store, text string) (ClaimView, SeamView) {
	t.Helper()
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "system", []byte(text), research(claim(text, "https://whales.example/count", "300 individual animals were counted")))
	if err != nil {
		t.Fatal(err)
	}
	c := b.Claims[0]
	markFound(t, s, c.Citations[0].ID, evidence.StatusFound)
	seam, err := s.OpenSeam(ctx, "system", SeamRequest{Kind: evidence.SeamContradiction,
		Summary: "The claim says “500” where the quote says “300”.", Claims: []string{c.ID}, Citations: []string{c.Citations[0].ID}})
	if err != nil {
		t.Fatal(err)
	}
	return c, seam
}

// A claim a person found contradicted is never handed on: the resolution's standing is
// recorded in the event, applied to the claim, listed in the hand-off report, and kept
// whatever is decided on the claim later. The audit replays it.
func TestContradictedClaimIsWithheld(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	c, seam := foundClaim(t, s, "500 whales were counted.")
	if h, _ := s.HandOff(ctx, c.Batch); len(h.Withheld) != 1 || h.Withheld[0].Withheld != evidence.WithheldSeam {
		t.Fatalf("with the seam open: %+v", h.Withheld)
	}
	r, err := s.ResolveSeam(ctx, "user:vera", seam.ID, string(evidence.DecisionContradicted), "The page counts 300.")
	if err != nil || r.Standing != evidence.StandingContradicted || r.Decision != "contradicted" {
		t.Fatalf("resolve: %+v %v", r, err)
	}
	got, _ := s.Claim(ctx, c.ID)
	if got.Status != evidence.StatusFound || got.Standing != evidence.StandingContradicted || len(got.Decisions) != 2 ||
		got.Decisions[1].Seam != seam.ID || got.Decisions[1].ResolvedBy != "user:vera" || got.Decisions[1].Reason != "The page counts 300." ||
		got.Decisions[1].Standing != evidence.StandingContradicted || got.Decisions[0].Kind != evidence.SeamManual {
		t.Fatalf("claim after the decision: %+v", got)
	}
	h, err := s.HandOff(ctx, c.Batch)
	if err != nil || len(h.Usable) != 0 || len(h.Withheld) != 1 || h.Withheld[0].Withheld != evidence.WithheldContradicted ||
		h.Withheld[0].Standing != evidence.StandingContradicted || h.WithheldBy[evidence.WithheldContradicted] != 1 || len(h.Withheld[0].Decisions) != 2 {
		t.Fatalf("hand-off: %+v %v", h, err)
	}
	var payload string
	if err := s.rdb.QueryRowContext(ctx, "SELECT payload FROM events ORDER BY seq DESC LIMIT 1").Scan(&payload); err != nil {
		t.Fatal(err)
	}
	if want := `{"decision":"contradicted","reason":"The page counts 300.","seam":"` + seam.ID + `","standing":"contradicted"}`; payload != want {
		t.Fatalf("payload %s; want %s", payload, want)
	}
	// A later seam found to stand does not lift it.
	later, err := s.OpenSeam(ctx, "system", SeamRequest{Kind: evidence.SeamContradiction, Summary: "Again.", Claims: []string{c.ID}, Citations: []string{c.Citations[0].ID}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ResolveSeam(ctx, "user:olga", later.ID, string(evidence.DecisionStands), "It looks fine to me."); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Claim(ctx, c.ID); got.Standing != evidence.StandingContradicted || len(got.Decisions) != 3 {
		t.Fatalf("after a later decision: %+v", got)
	}
	mustAuditOK(t, s)
}

// Every decision of every kind gives the claim the standing evidence.DecisionEffect says, and
// the hand-off the reason evidence.HandOn gives for it.
func TestDecisionsGovernTheClaim(t *testing.T) {
	tests := []struct {
		kind     evidence.SeamKind
		decision evidence.Decision
		standing evidence.Standing
		withheld evidence.Withheld
	}{
		{evidence.SeamContradiction, evidence.DecisionContradicted, evidence.StandingContradicted, evidence.WithheldContradicted},
		{evidence.SeamContradiction, evidence.DecisionStands, evidence.StandingClear, evidence.HandOnOK},
		{evidence.SeamContradiction, evidence.DecisionCannotTell, evidence.StandingUnsettled, evidence.WithheldUnsettled},
		{evidence.SeamAbsence, evidence.DecisionEstablished, evidence.StandingClear, evidence.HandOnOK},
		{evidence.SeamAbsence, evidence.DecisionNotEstablished, evidence.StandingUnsettled, evidence.WithheldUnsettled},
		{evidence.SeamAbsence, evidence.DecisionCannotTell, evidence.StandingUnsettled, evidence.WithheldUnsettled},
		{evidence.SeamManual, evidence.DecisionNotFound, evidence.StandingClear, evidence.WithheldNotFound},
		{evidence.SeamDisagreement, evidence.DecisionFound, evidence.StandingClear, evidence.HandOnOK},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind)+" "+string(tt.decision), func(t *testing.T) {
			s, _ := openTest(t)
			ctx := context.Background()
			b, err := s.ImportResearch(ctx, "system", []byte("p"), research(claim("Acme employs 40 people.", "https://acme.example/about", "Acme employs 40 people in Leeds")))
			if err != nil {
				t.Fatal(err)
			}
			c := b.Claims[0]
			req := SeamRequest{Kind: tt.kind, Summary: "A question.", Claims: []string{c.ID}}
			switch tt.kind {
			case evidence.SeamManual, evidence.SeamDisagreement:
				req.Claims, req.Citations = nil, []string{c.Citations[0].ID}
			case evidence.SeamContradiction:
				req.Citations = []string{c.Citations[0].ID}
				markFound(t, s, c.Citations[0].ID, evidence.StatusFound)
			default:
				markFound(t, s, c.Citations[0].ID, evidence.StatusFound)
			}
			seam, err := s.OpenSeam(ctx, "system", req)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.ResolveSeam(ctx, "user:vera", seam.ID, string(tt.decision), "I looked."); err != nil {
				t.Fatal(err)
			}
			got, _ := s.Claim(ctx, c.ID)
			h, _ := s.HandOff(ctx, c.Batch)
			all := append(h.Usable, h.Withheld...)
			if got.Standing != tt.standing || len(all) != 1 || all[0].Withheld != tt.withheld {
				t.Fatalf("standing %q, hand-off %+v; want %q and %q", got.Standing, all, tt.standing, tt.withheld)
			}
			mustAuditOK(t, s)
		})
	}
}

// The resolution and its effect on the claim commit in one transaction: when the claim
// cannot be updated, the event is not recorded either and the seam stays open.
func TestDecisionCommitsWithItsEvent(t *testing.T) {
	s, dir := openTest(t)
	ctx := context.Background()
	c, seam := foundClaim(t, s, "500 whales were counted.")
	n0, h0 := chainState(t, s)
	db := rawDB(t, dir)
	if _, err := db.Exec(`CREATE TRIGGER refuse_standing BEFORE UPDATE OF standing ON claims
		WHEN NEW.standing != OLD.standing BEGIN SELECT RAISE(ABORT, 'standing refused'); END`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ResolveSeam(ctx, "user:vera", seam.ID, string(evidence.DecisionContradicted), "The page counts 300."); err == nil {
		t.Fatal("the resolution was recorded though its effect failed")
	}
	if _, err := db.Exec("DROP TRIGGER refuse_standing"); err != nil {
		t.Fatal(err)
	}
	if n, h := chainState(t, s); n != n0 || h != h0 {
		t.Fatalf("the chain moved from %d to %d events", n0, n)
	}
	if got, _ := s.Seam(ctx, seam.ID); got.State != evidence.SeamOpen {
		t.Fatalf("seam %+v; want it open", got)
	}
	if got, _ := s.Claim(ctx, c.ID); got.Standing != evidence.StandingClear {
		t.Fatalf("claim %+v", got)
	}
	if _, err := s.ResolveSeam(ctx, "user:vera", seam.ID, string(evidence.DecisionContradicted), "The page counts 300."); err != nil {
		t.Fatal(err)
	}
	mustAuditOK(t, s)
}

// A seam.resolved recorded with a standing that is not its decision's is refused, and so is
// one whose decision is not of its kind; a resolution recorded before decisions were fixed
// (free text, no standing) still replays, with no effect unless its text is a decision.
func TestResolvedPayloads(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	c, seam := foundClaim(t, s, "500 whales were counted.")
	clear, unsettled := evidence.StandingClear, evidence.StandingUnsettled
	refused := []seamResolved{
		{Seam: seam.ID, Decision: "contradicted", Reason: "r", Standing: &clear},
		{Seam: seam.ID, Decision: "cannot_tell", Reason: "r", Standing: &clear},
		{Seam: seam.ID, Decision: "stands", Reason: "r", Standing: &unsettled},
		{Seam: seam.ID, Decision: "the page says 300", Reason: "r", Standing: &clear},
		{Seam: seam.ID, Decision: "found_at_source", Reason: "r", Standing: &clear},
	}
	n0, h0 := chainState(t, s)
	for _, p := range refused {
		if _, err := s.recordDrafts(ctx, "system", Draft{Type: typeSeamResolved, Payload: p}); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: %v; want ErrInvalid", p, err)
		}
	}
	if n, h := chainState(t, s); n != n0 || h != h0 {
		t.Fatal("refused resolutions changed the chain")
	}
	legacy := seamResolved{Seam: seam.ID, Decision: "the first is right", Reason: "The filing says so."}
	if _, err := s.recordDrafts(ctx, "system", Draft{Type: typeSeamResolved, Payload: legacy}); err != nil {
		t.Fatalf("a resolution recorded before decisions were fixed: %v", err)
	}
	if got, _ := s.Claim(ctx, c.ID); got.Standing != evidence.StandingClear || len(got.Decisions) != 2 || got.Decisions[1].Decision != "the first is right" {
		t.Fatalf("after a free-text resolution: %+v", got)
	}
	c2, seam2 := foundClaim(t, s, "600 whales were counted.")
	if _, err := s.recordDrafts(ctx, "system", Draft{Type: typeSeamResolved, Payload: seamResolved{Seam: seam2.ID, Decision: "contradicted", Reason: "r"}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Claim(ctx, c2.ID); got.Standing != evidence.StandingContradicted {
		t.Fatalf("a free-text resolution that reads contradicted: %+v", got)
	}
	mustAuditOK(t, s)
}
