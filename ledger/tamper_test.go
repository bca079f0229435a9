package ledger

import (
	"context"
	"testing"

	"evidenceledger/evidence"
)

// TestAuditFindsTamperedSupportAndKeys changes one row of each audited table that
// TestAuditFindsTampering does not reach, behind the program's back, and checks that the
// audit names that table: the model tier's supports, support_judgements and model_calls,
// and the keys projection.
func TestAuditFindsTamperedSupportAndKeys(t *testing.T) {
	tests := []struct{ table, tamper string }{
		{"supports", "UPDATE supports SET verdict = 'supported' WHERE verdict = 'contradicted'"},
		{"supports", "UPDATE supports SET prompt_tokens = prompt_tokens + 1"},
		{"support_judgements", "UPDATE support_judgements SET reasoning = 'The page says so.' WHERE ordinal = 1"},
		{"model_calls", "UPDATE model_calls SET model = 'another-model' WHERE ordinal = 0"},
		{"keys", "UPDATE keys SET at = '2020-01-01T00:00:00.000Z' WHERE seq = (SELECT min(seq) FROM keys)"},
	}
	for _, tt := range tests {
		t.Run(tt.table+": "+tt.tamper, func(t *testing.T) {
			s, dir := ledgerWithSupport(t)
			res, err := rawDB(t, dir).Exec(tt.tamper)
			if err != nil {
				t.Fatal(err)
			}
			if n, err := res.RowsAffected(); err != nil || n != 1 {
				t.Fatalf("the tamper changed %d rows (%v), want one", n, err)
			}
			rep, err := s.Audit(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK {
				t.Fatal("the audit passed a tampered ledger")
			}
			named := false
			for _, p := range rep.Problems {
				named = named || p.Table == tt.table
			}
			if !named {
				t.Errorf("the audit's problems name no %s: %+v", tt.table, rep.Problems)
			}
		})
	}
}

// ledgerWithSupport makes a ledger holding one check of a citation with the model tier's
// judgement (two judgements by the verifiers, an adjudication, a model call), a key
// rotation, and an audit that holds.
func ledgerWithSupport(t *testing.T) (*Store, string) {
	t.Helper()
	s, dir := openTest(t)
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "system", []byte("p"), research(claim("One.", "https://a.example/", "the registry counted 4,812 companies")))
	if err != nil {
		t.Fatal(err)
	}
	c := b.Claims[0]
	ct := c.Citations[0]
	ch, body := foundCheck(c.ID, ct.ID, ct.URL)
	ch.Support = supportOf(evidence.VerdictContradicted, evidence.SupportByAdjudicator)
	ch.Support.Escalated = true
	second := ch.Support.Judgements[0]
	second.Verifier, second.Verdict = "model-b", evidence.VerdictContradicted
	ch.Support.Judgements = append(ch.Support.Judgements, second)
	ch.Support.Adjudication = &evidence.SupportAdjudication{Model: "big", Verdict: evidence.VerdictContradicted, Confidence: 70}
	seam := &evidence.SeamOpened{Seam: newID("s_"), Kind: evidence.SeamContradiction, Summary: "the claim against the page", Claims: []string{c.ID}, Citations: []string{ct.ID}}
	if err := s.RecordCheck(ctx, "system", ch, body, nil, nil, seam); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RotateKey(ctx); err != nil {
		t.Fatal(err)
	}
	flushed(t, s)
	mustAuditOK(t, s)
	for _, table := range []string{"supports", "support_judgements", "model_calls", "keys"} {
		var n int
		if err := s.rdb.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil || n == 0 {
			t.Fatalf("%s has %d rows (%v): the tamper test would change nothing", table, n, err)
		}
	}
	return s, dir
}
