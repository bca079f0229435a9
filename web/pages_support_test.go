package web

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"evidenceledger/evidence"
)

// The claim page, the batch page and the API show the support judgement and the
// consistency mismatches of a check recorded in a real ledger, escaped.
func TestSupportShown(t *testing.T) {
	ctx := context.Background()
	f := newPageFixture(t, "")
	b, err := f.store.ImportResearch(ctx, "user:olga", []byte("paste"), evidence.Research{Claims: []evidence.Claim{{
		Text: "Tourism made up 51 percent of GDP.", Status: evidence.StatusReported,
		Citations: []evidence.Citation{{URL: "https://news.example/tunisia", Quote: "accounting for 15 percent of its gross domestic product", Status: evidence.StatusReported}}}}})
	if err != nil {
		t.Fatal(err)
	}
	claim := b.Claims[0]
	ct := claim.Citations[0]
	evidenceSentence := `Tourism is critical, accounting for 15 percent of its GDP <script>alert(1)</script>.`
	checked := evidence.Checked{
		Citation: ct.ID, Claim: claim.ID, Status: evidence.StatusFound,
		Note: "found on the page", Excerpt: "Tourism is critical, accounting for 15 percent of its gross domestic product in 2013",
		Verdicts: []evidence.CheckVerdict{}, Adjudication: evidence.Adjudication{Agree: true, Decision: evidence.VerdictSupported, ResidualRisk: "words only"},
		Consistency: []evidence.Mismatch{{Kind: evidence.MismatchPercentage, Claim: "51 percent", Page: "15 percent"}},
		Support: &evidence.Support{Verdict: evidence.VerdictContradicted, DecidedBy: evidence.SupportByCode,
			Judgements: []evidence.SupportJudgement{
				{Verifier: "model-a", Model: "cheap", Verdict: evidence.VerdictContradicted, AccuracyEstimate: 88, Reasoning: "15, not 51.", Evidence: []string{evidenceSentence}},
				{Verifier: "model-b", Model: "cheap", Verdict: evidence.VerdictContradicted, AccuracyEstimate: 80, Reasoning: "The figure differs.", Evidence: []string{evidenceSentence}},
			},
			Calls: []evidence.ModelCall{
				{Tier: "verifier", Role: "model-a", Model: "cheap", PromptTokens: 410, CompletionTokens: 60, LatencyMS: 900, Attempts: 1, Outcome: "ok"},
				{Tier: "verifier", Role: "model-b", Model: "cheap", PromptTokens: 390, CompletionTokens: 50, LatencyMS: 800, Attempts: 2, Outcome: "ok"},
			},
			ResidualRisk: evidence.SupportResidualRisk},
	}
	seam := &evidence.SeamOpened{Seam: "s_00000000000000aa", Kind: evidence.SeamContradiction, Summary: "the claim says 51 percent, the page 15 percent",
		Claims: []string{claim.ID}, Citations: []string{ct.ID}}
	if err := f.store.RecordCheck(ctx, "system", checked, nil, nil, nil, seam); err != nil {
		t.Fatal(err)
	}
	br := f.browser(t)
	br.signIn("arno", auPassword)
	p := br.get("/claims/" + claim.ID)
	for _, want := range []string{
		"the claim says “51 percent” where the quote says “15 percent”",
		`Support: <span class="status contradicted">contradicted</span>, both model verifiers agree (no adjudicator call)`,
		"model-a <span class=\"hint\">cheap</span>",
		"accuracy estimate 88/100",
		"&lt;script&gt;alert(1)&lt;/script&gt;",
		"2 model call(s): 800 prompt and 110 completion tokens, 1700 ms.",
		"verifier model-b (cheap): 390+50 tokens, 800 ms, 2 attempt(s), ok",
		"two models can both be wrong",
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the claim page lacks %q", want)
		}
	}
	assertNoRawMarkup(t, "claim page", p.body)
	p = br.get("/batches/" + b.ID)
	for _, want := range []string{`id="model-totals">Model tier: 2 call(s), 800 prompt and 110 completion tokens, 1700 ms in all.`, `support: contradicted`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the batch page lacks %q", want)
		}
	}

	token, err := f.store.AddUser(ctx, "system", "ada", "auditor")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, f.srv.URL+"/api/claims/"+claim.ID, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/claims/%s: %d %s", claim.ID, resp.StatusCode, raw)
	}
	for _, want := range []string{`"support":{"verdict":"contradicted","decided_by":"code"`, `"consistency":[{"kind":"percentage","claim":"51 percent","page":"15 percent"}]`, `"totals":{"calls":2,"prompt_tokens":800,"completion_tokens":110,"latency_ms":1700}`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the claim's JSON lacks %s: %s", want, raw)
		}
	}
}
