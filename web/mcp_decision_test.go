package web

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// TestMCPClaimSaysAPersonsDecision: a claim found at its source that a person then found
// contradicted keeps the status found_at_source in the tools' answers, but says it is not
// usable and why, so that an agent reading claim_status never takes it for usable.
func TestMCPClaimSaysAPersonsDecision(t *testing.T) {
	f, site := mcpFixture(t)
	cs, err := mcpClient(t, f, f.operator, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "check_claims", Arguments: map[string]any{"claims": mcpClaims(site.port)[1:2]}})
	if err != nil || res.IsError {
		t.Fatalf("check_claims: %v %s", err, resultText(res))
	}
	var ans CheckAnswer
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &ans)
	if len(ans.Claims) != 1 || !ans.Claims[0].Usable || ans.Claims[0].Withheld != evidence.HandOnOK {
		t.Fatalf("the found claim before any decision: %s", b)
	}
	c := ans.Claims[0]
	ctx := context.Background()
	sm, err := f.store.OpenSeam(ctx, "user:olga", ledger.SeamRequest{Kind: evidence.SeamContradiction, Summary: "another source says it was praised", Claims: []string{c.ID}, Citations: []string{c.Citations[0].ID}})
	if err != nil {
		t.Fatal(err)
	}
	var open CheckAnswer
	if res := call(t, cs, "claim_status", map[string]any{"claim": c.ID}, &open); res.IsError || len(open.Claims) != 1 || open.Claims[0].Usable || open.Claims[0].Withheld != evidence.WithheldSeam {
		t.Fatalf("claim_status with a seam open: %s", resultText(res))
	}
	if _, err := f.store.ResolveSeam(ctx, "user:olga", sm.ID, "contradicted", "the museum's own statement says otherwise"); err != nil {
		t.Fatal(err)
	}
	var after CheckAnswer
	if res := call(t, cs, "claim_status", map[string]any{"claim": c.ID}, &after); res.IsError || len(after.Claims) != 1 {
		t.Fatalf("claim_status: %s", resultText(res))
	}
	got := after.Claims[0]
	if got.Status != evidence.StatusFound || got.Usable || got.Withheld != evidence.WithheldContradicted || got.Standing != evidence.StandingContradicted {
		t.Fatalf("claim_status after the decision: %+v", got)
	}
}
