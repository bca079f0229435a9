package web

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// foundClaim imports one claim and makes its citation found_at_source through a manual seam
// that an operator resolves.
func foundClaim(t *testing.T, f fixture) {
	t.Helper()
	ctx := context.Background()
	body := []byte(`{"claims":[{"text":"Acme was founded in 1999.","citations":[{"url":"https://acme.example/about","quote":"Acme was founded in 1999 in Leeds"}]}]}`)
	_, res, err := evidence.ReadRequest(body)
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

// TestGateRouteCheck: {"check": true} imports and checks a cited claim on the spot with the
// server's checker, records it as the operator who asked, and gates on the result.
func TestGateRouteCheck(t *testing.T) {
	f, at, _ := checkFixture(t)
	// The same store, served with a checker for the gate.
	srv := httptest.NewServer(New(Config{Ledger: f.store, Checker: verify.NewChecker(loopbackFetch()), CheckWorkers: 2}))
	t.Cleanup(srv.Close)
	g := fixture{srv: srv, store: f.store, operator: f.operator, auditor: f.auditor}
	text := func(quote string) string {
		b, _ := json.Marshal(map[string]any{"check": true, "text": "- Use tabs.\n- The registry counted 4,812 companies ([report](" + at("a.test", "/report") + ")): “" + quote + "”.\n"})
		return string(b)
	}
	status, body := g.send(t, "POST", "/api/gate", g.auditor, "application/json", []byte(text("the registry counted 4,812 companies")))
	if status != 403 || !strings.Contains(string(body), "only operators") {
		t.Fatalf("an auditor asking for a check: %d %s; want 403", status, body)
	}
	status, body = g.send(t, "POST", "/api/gate", g.operator, "application/json", []byte(text("the registry counted 4,812 companies")))
	var d struct {
		Allow    bool `json:"allow"`
		NotGated []struct {
			Kind string `json:"kind"`
		} `json:"not_gated"`
		Claims []struct {
			Checked string   `json:"checked"`
			Reasons []string `json:"reasons"`
		} `json:"claims"`
	}
	if err := json.Unmarshal(body, &d); status != 200 || err != nil || !d.Allow || len(d.Claims) != 1 || d.Claims[0].Checked == "" || len(d.NotGated) != 1 || d.NotGated[0].Kind != "instruction" {
		t.Fatalf("checked on the spot: %d %s; want allowed", status, body)
	}
	b, err := f.store.Batch(context.Background(), d.Claims[0].Checked)
	if err != nil || b.Actor != "user:olga" || b.Counts.ClaimsByStatus[evidence.StatusFound] != 1 {
		t.Fatalf("the gate's batch: %+v %v; want one found claim recorded by the operator", b, err)
	}
	status, body = g.send(t, "POST", "/api/gate", g.operator, "application/json", []byte(text("the registry counted 9,999 companies")))
	if status != 200 || !strings.Contains(string(body), `"allow":false`) || !strings.Contains(string(body), "it is not_found") {
		t.Fatalf("a quote not on its page: %d %s; want blocked as not_found", status, body)
	}
	// A memory file mixing instructions with a verified, an unverified, a mixed (a found
	// citation beside a fabricated one) and a sourceless claim.
	mixed := "# Memory\n\n- Always cite the registry.\n- The user prefers short answers.\n\n" +
		"- The registry counted 4,812 companies ([registry](" + at("a.test", "/report") + ")): “the registry counted 4,812 companies”.\n" +
		"- The registry counted 9,999 companies ([registry](" + at("b.test", "/report") + ")): “the registry counted 9,999 companies”.\n" +
		"- The registry grew ([registry](" + at("a.test", "/report") + "), [registry](" + at("c.test", "/report") + ")): “up from 4,500 the year before”, “the registry grew by 7,000 companies”.\n" +
		"- The registry has 12 staff.\n"
	req, _ := json.Marshal(map[string]any{"text": mixed, "check": true})
	status, body = g.send(t, "POST", "/api/gate", g.operator, "application/json", req)
	var md struct {
		Allow  bool `json:"allow"`
		Claims []struct {
			Text    string   `json:"text"`
			Allow   bool     `json:"allow"`
			Reasons []string `json:"reasons"`
			Next    []string `json:"next"`
		} `json:"claims"`
		NotGated []struct{ Kind string } `json:"not_gated"`
	}
	if err := json.Unmarshal(body, &md); status != 200 || err != nil || md.Allow || len(md.Claims) != 4 || len(md.NotGated) != 3 {
		t.Fatalf("the mixed file: %d %s", status, body)
	}
	for i, want := range []string{"", "it is not_found", "a fabricated citation beside a found one is a fabrication", "no source of record"} {
		c := md.Claims[i]
		if c.Allow != (want == "") || !strings.Contains(strings.Join(c.Reasons, " "), want) || (!c.Allow && len(c.Next) == 0) {
			t.Errorf("claim %d %q: allow %v, reasons %q, next %q; want %q", i, c.Text, c.Allow, c.Reasons, c.Next, want)
		}
	}
	// Without a checker, a check cannot be done: 503, and nothing is recorded.
	status, body = f.send(t, "POST", "/api/gate", f.operator, "application/json", []byte(text("the registry counted 4,812 companies in 2025")))
	if status != 503 {
		t.Fatalf("no checker: %d %s; want 503", status, body)
	}
}
