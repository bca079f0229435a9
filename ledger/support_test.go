package ledger

import (
	"context"
	"errors"
	"strings"
	"testing"

	"evidenceledger/evidence"
)

func supportOf(verdict evidence.Verdict, by string) *evidence.Support {
	return &evidence.Support{Verdict: verdict, DecidedBy: by,
		Judgements:   []evidence.SupportJudgement{{Verifier: "model-a", Model: "m", Verdict: evidence.VerdictSupported, AccuracyEstimate: 90, Reasoning: "r", Evidence: []string{"In 2025 the registry counted 4,812 companies."}}},
		Calls:        []evidence.ModelCall{{Tier: evidence.TierVerifier, Role: "model-a", Model: "m", PromptTokens: 10, CompletionTokens: 5, LatencyMS: 3, Attempts: 1, Outcome: "ok"}},
		ResidualRisk: evidence.SupportResidualRisk}
}

// A check with a support judgement and consistency mismatches is projected into every
// table of 0005_support and rebuilt by the replay; a judgement that does not fit is refused and
// records nothing.
func TestRecordCheckWithSupport(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "system", []byte("p"), research(claim("One.", "https://a.example/", "the registry counted 4,812 companies")))
	if err != nil {
		t.Fatal(err)
	}
	c := b.Claims[0]
	ct := c.Citations[0]
	tests := []struct {
		desc   string
		change func(*evidence.Support)
		words  string
	}{
		{"a verdict a model may not give", func(s *evidence.Support) { s.Verdict = evidence.VerdictUnreachable }, "support verdict"},
		{"a decision without its decider", func(s *evidence.Support) { s.DecidedBy = "" }, "names who decided"},
		{"an unknown decider", func(s *evidence.Support) { s.DecidedBy = "oracle" }, "code or adjudicator"},
		{"no residual risk", func(s *evidence.Support) { s.ResidualRisk = "" }, "residual-risk"},
		{"a call of an unknown tier", func(s *evidence.Support) { s.Calls[0].Tier = "cheap" }, "model call 1"},
		{"negative tokens", func(s *evidence.Support) { s.Calls[0].PromptTokens = -1 }, "model call 1"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			n, head := chainState(t, s)
			ch, body := foundCheck(c.ID, ct.ID, ct.URL)
			ch.Support = supportOf(evidence.VerdictSupported, evidence.SupportByCode)
			tt.change(ch.Support)
			err := s.RecordCheck(ctx, "system", ch, body, nil, nil, nil)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.words) {
				t.Fatalf("err = %v, want ErrInvalid saying %q", err, tt.words)
			}
			if n2, head2 := chainState(t, s); n2 != n || head2 != head {
				t.Fatal("a refused check changed the chain")
			}
		})
	}
	ch, body := foundCheck(c.ID, ct.ID, ct.URL)
	ch.Support = supportOf(evidence.VerdictContradicted, evidence.SupportByAdjudicator)
	ch.Support.Escalated = true
	ch.Support.Adjudication = &evidence.SupportAdjudication{Model: "big", Verdict: evidence.VerdictContradicted, Confidence: 70}
	ch.Consistency = []evidence.Mismatch{{Kind: evidence.MismatchNumber, Claim: "4,821 companies", Page: "4,812 companies"}}
	seam := &evidence.SeamOpened{Seam: newID("s_"), Kind: evidence.SeamContradiction, Summary: "the claim against the page", Claims: []string{c.ID}, Citations: []string{ct.ID}}
	if err := s.RecordCheck(ctx, "system", ch, body, nil, nil, seam); err != nil {
		t.Fatal(err)
	}
	v, err := s.Claim(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := v.Citations[0]
	if got.Support == nil || got.Support.Verdict != evidence.VerdictContradicted || got.Support.Adjudication == nil || got.Support.Adjudication.Model != "big" ||
		got.Support.Totals != (ModelTotals{Calls: 1, PromptTokens: 10, CompletionTokens: 5, LatencyMS: 3}) || len(got.Consistency) != 1 || len(got.OpenSeams) != 1 {
		t.Fatalf("citation view %+v, support %+v", got, got.Support)
	}
	if rep, err := s.Audit(ctx); err != nil || !rep.OK {
		t.Fatalf("audit: %+v, %v", rep, err)
	}
	// A contradiction about one citation names no other citation.
	bad := &evidence.SeamOpened{Seam: newID("s_"), Kind: evidence.SeamContradiction, Summary: "x", Claims: []string{c.ID, c.ID}}
	if err := checkSeamShape(seamOpened{Seam: bad.Seam, Kind: bad.Kind, Summary: bad.Summary, Claims: bad.Claims}); err == nil {
		t.Error("a contradiction naming one claim twice passed")
	}
	if err := checkSeamShape(seamOpened{Seam: newID("s_"), Kind: evidence.SeamContradiction, Summary: "x", Claims: []string{c.ID}}); err == nil {
		t.Error("a contradiction about one claim and no citation passed")
	}
}
