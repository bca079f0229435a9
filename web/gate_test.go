package web

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// foundClaim imports one claim and makes its citation found_at_source through a manual seam
// that an operator resolves.
func foundClaim(t *testing.T, f fixture) {
	t.Helper()
	ctx := context.Background()
	body := []byte(`{"claims":[{"text":"Acme was founded in 1999.","citations":[{"url":"https://acme.example/about","quote":"Acme was founded in 1999 in Leeds"}]}]}`)
	res, err := evidence.ParseRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.store.ImportResearch(ctx, "user:olga", body, res)
	if err != nil {
		t.Fatal(err)
	}
	seam, err := f.store.OpenSeam(ctx, "user:olga", ledger.SeamRequest{Kind: evidence.SeamManual, Summary: "a person reads the page", Citations: []string{b.Claims[0].Citations[0].ID}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.ResolveSeam(ctx, "user:olga", seam.ID, "found_at_source", "read the page by hand"); err != nil {
		t.Fatal(err)
	}
}

func TestGateRoute(t *testing.T) {
	f := newFixture(t)
	foundClaim(t, f)
	tests := []struct {
		desc, token, body string
		status            int
		want              string
	}{
		{"found claim, auditor may ask", f.auditor, `{"text":"Acme was founded in 1999."}`, 200, `"allow":true`},
		{"found claim, operator", f.operator, `{"text":"acme was founded in 1999.","min_strength":"low"}`, 200, `"allow":true`},
		{"min strength above the claim's", f.auditor, `{"text":"Acme was founded in 1999.","min_strength":"high"}`, 200, "below the minimum high"},
		{"claim without source", f.auditor, `{"text":"Acme was sold in 2021."}`, 200, `"allow":false`},
		{"empty text", f.auditor, `{"text":""}`, 200, `"note":"the text states nothing`},
		{"no token", "", `{"text":"Acme was founded in 1999."}`, 401, "Authorization"},
		{"no text member", f.auditor, `{"txt":"x"}`, 400, "unknown field"},
		{"text missing", f.auditor, `{}`, 400, `no \"text\"`},
		{"unknown strength", f.auditor, `{"text":"x","min_strength":"strong"}`, 400, "want low, medium or high"},
		{"not JSON", f.auditor, `Acme`, 400, "not {"},
		{"two objects", f.auditor, `{"text":"a"}{"text":"b"}`, 400, "one object"},
		{"control characters", f.auditor, `{"text":"a\u0001b"}`, 415, "control character"},
		{"body far over the limit", f.auditor, `{"text":"` + strings.Repeat("a", 3<<20) + `"}`, 413, "more than 2097152 bytes; ask about it in smaller pieces"},
		{"text just over the limit", f.auditor, `{"text":"` + strings.Repeat("a", 2<<20+1) + `"}`, 413, "more than 2097152 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			status, body := f.send(t, "POST", "/api/gate", tt.token, "application/json", []byte(tt.body))
			if status != tt.status || !strings.Contains(string(body), tt.want) {
				t.Fatalf("%d %s; want %d with %s", status, body, tt.status, tt.want)
			}
			if status == 200 {
				var d struct {
					Allow        *bool             `json:"allow"`
					Claims       []json.RawMessage `json:"claims"`
					ResidualRisk string            `json:"residual_risk"`
				}
				if err := json.Unmarshal(body, &d); err != nil || d.Allow == nil || d.Claims == nil || d.ResidualRisk == "" {
					t.Fatalf("answer %s: want allow, claims and residual_risk", body)
				}
			}
		})
	}
}
