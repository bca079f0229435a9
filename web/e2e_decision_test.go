package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"evidenceledger/evidence"
	"evidenceledger/gate"
	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// TestBrowserContradictionDecided: a claim whose figure is not its quote's ("500 whales"
// against "300 individual animals") is found at its source, but the consistency check opens
// a contradiction; a person resolves it in the browser as contradicted; the claim page, the
// hand-off report (page, Markdown, JSON), POST /api/gate and the gate of `ledger gate` all
// say the claim may not be used, and the audit replays the decision.
func TestBrowserContradictionDecided(t *testing.T) {
	ctx := context.Background()
	st, err := ledger.Open(ctx, t.TempDir(), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	page, err := os.ReadFile("testdata/decision/survey.html")
	if err != nil {
		t.Fatal(err)
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/survey" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	t.Cleanup(site.Close)
	checker := verify.NewChecker(loopbackFetch())
	jobs := verify.NewJobs(st, checker, 2)
	t.Cleanup(jobs.Close)
	const setupToken = "e2e-first-run-token-decision-0123456789"
	app := httptest.NewServer(New(Config{Ledger: st, Jobs: jobs, SetupToken: setupToken}))
	t.Cleanup(app.Close)

	// The research, imported and checked as any batch is.
	const text = "500 whales were counted off Maui in the 2024 survey."
	surveyURL := strings.Replace(site.URL, "127.0.0.1", "whales.test", 1) + "/survey"
	claims := []evidence.Claim{{Text: text, Status: evidence.StatusReported,
		Citations: []evidence.Citation{{URL: surveyURL, Quote: "300 individual animals were counted off Maui", Status: evidence.StatusReported}}}}
	b, err := st.ImportResearch(ctx, "user:olga", []byte(text), evidence.Research{Claims: claims})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verify.RunBatch(ctx, st, checker, "user:olga", b.ID, false, 1, nil); err != nil {
		t.Fatal(err)
	}
	c, err := st.Claim(ctx, b.Claims[0].ID)
	if err != nil || c.Status != evidence.StatusFound || len(c.Citations[0].OpenSeams) != 1 ||
		len(c.Citations[0].Consistency) != 1 || c.Citations[0].Consistency[0].Kind != evidence.MismatchFigure || c.Citations[0].Consistency[0].Claim != "500" {
		t.Fatalf("after the check the claim is %+v (%v); want found_at_source with a figure seam on 500", c, err)
	}
	seam := c.Citations[0].OpenSeams[0]
	var token string // the operator's API token, shown at first run
	gate := func(want string) {
		t.Helper()
		// POST /api/gate, as an agent's hook asks it.
		body, _ := json.Marshal(map[string]string{"text": text})
		req, _ := http.NewRequest("POST", app.URL+"/api/gate", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var d gate.Decision
		if err := json.Unmarshal(raw, &d); err != nil || resp.StatusCode != 200 {
			t.Fatalf("POST /api/gate: %d %s", resp.StatusCode, raw)
		}
		if d.Allow || len(d.Claims) != 1 || !strings.Contains(strings.Join(d.Claims[0].Reasons, "; "), want) {
			t.Fatalf("POST /api/gate: %s; want it blocked because %q", raw, want)
		}
		// `ledger gate` decides with the same reader of the ledger.
		if d, err := gate.Evaluate(ctx, gate.StoreLedger(st), text, gate.Options{}); err != nil || d.Allow || !strings.Contains(strings.Join(d.Claims[0].Reasons, "; "), want) {
			t.Fatalf("the gate: %+v %v; want it blocked because %q", d, err, want)
		}
	}

	br := startChromium(t)
	br.do("open the first-run link",
		chromedp.Navigate(app.URL+"/setup?token="+setupToken),
		chromedp.WaitVisible(chromedp.CSS(`input[name="name"]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name="name"]`), "vera"),
		chromedp.SendKeys(chromedp.CSS(`input[name="password"]`), opPassword),
		chromedp.SendKeys(chromedp.CSS(`input[name="password2"]`), opPassword),
		chromedp.Click(chromedp.CSS(`form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS("#api-token")),
	)
	token = br.text("#api-token")
	gate("open seam " + seam + " waits for a person")

	// The claim page, while the seam is open.
	br.do("open the claim", chromedp.Navigate(app.URL+"/claims/"+c.ID), chromedp.WaitVisible(chromedp.CSS("#hand-on")))
	if got := br.text("#hand-on"); got != "May not be used: waiting for a person." {
		t.Fatalf("the claim page before the decision says %q", got)
	}
	if got := br.text("ul.consistency"); !strings.Contains(got, "the claim says “500” where neither the quote nor the page's words around it give that figure (the quote gives “300”)") {
		t.Fatalf("the claim page does not show the figure: %q", got)
	}

	// The seam: the contradiction's three decisions, none chosen; the person chooses
	// contradicted, with a reason.
	sel := "article#seam-" + seam
	br.do("open the seams", chromedp.Navigate(app.URL+"/seams"), chromedp.WaitVisible(chromedp.CSS(sel)))
	if got := eval[[]string](br, `Array.from(document.querySelectorAll("`+sel+` input[name=decision]"), i => i.value + (i.checked ? " checked" : ""))`); strings.Join(got, ",") != "contradicted,stands,cannot_tell" {
		t.Fatalf("the seam offers %v", got)
	}
	br.shot("13-contradiction-seam")
	// The form is not sent without a decision: the browser holds it back.
	br.do("try to resolve without a decision",
		chromedp.SendKeys(chromedp.CSS(sel+` textarea[name="reason"]`), "The survey counted 300 animals; the claim's 500 is not on the page."),
		chromedp.Click(chromedp.CSS(sel+` button`)),
	)
	if !eval[bool](br, `document.querySelector("`+sel+` form") !== null && !document.querySelector("`+sel+` form").checkValidity()`) {
		t.Fatal("the seam form can be sent without a decision")
	}
	br.do("resolve it as contradicted",
		chromedp.Click(chromedp.CSS(sel+` input[name="decision"][value="contradicted"]`)),
		chromedp.Click(chromedp.CSS(sel+` button`)),
		chromedp.WaitVisible(chromedp.CSS(sel+" .decided")),
	)
	if got := br.text(sel + " .decided"); !strings.Contains(got, "by user:vera: contradicted (the claim is contradicted: it is never used)") || !eval[bool](br, `location.pathname === "/seams"`) {
		t.Fatalf("the resolved seam says %q", got)
	}
	br.shot("14-contradiction-resolved")

	// The claim page says it may not be used, and who decided what.
	br.do("open the claim again", chromedp.Navigate(app.URL+"/claims/"+c.ID), chromedp.WaitVisible(chromedp.CSS("#decisions")))
	if got := br.text("#hand-on"); got != "May not be used: a person found it contradicted." || !eval[bool](br, `document.querySelector("#hand-on").classList.contains("bad")`) {
		t.Fatalf("the claim page after the decision says %q", got)
	}
	if got := br.text("#decision-" + seam); !strings.Contains(got, "user:vera resolved contradiction seam "+seam) || !strings.Contains(got, "contradicted: the claim is contradicted, and never used") || !strings.Contains(got, "the claim's 500 is not on the page") {
		t.Fatalf("the claim page's decision: %q", got)
	}
	if got := br.text(".claim-text + p .status"); got != "found_at_source" {
		t.Fatalf("the claim's status is %q; the quote is still on the page", got)
	}
	br.shot("15-claim-contradicted")

	// The hand-off report: nothing may be used, and why.
	br.do("open the report", chromedp.Navigate(app.URL+"/batches/"+b.ID+"/report"), chromedp.WaitVisible(chromedp.CSS("#report-summary")))
	if got := br.text("#report-summary"); got != "0 may be used; 1 may not." {
		t.Fatalf("report summary %q", got)
	}
	if got := br.text("#withheld-reasons"); got != "1 a person found it contradicted." {
		t.Fatalf("withheld reasons %q", got)
	}
	if got := br.text("#withheld-" + c.ID + " li.decision.contradicted"); !strings.Contains(got, "Decided by user:vera") || !strings.Contains(got, "contradicted") {
		t.Fatalf("the report's decision: %q", got)
	}
	if eval[int](br, `document.querySelectorAll(".report-claim.usable").length`) != 0 {
		t.Fatal("the report lists a usable claim")
	}
	br.shot("16-report-contradicted")
	for format, want := range map[string][]string{
		"md":   {"## May be used (0)", "**a person found it contradicted**", "on contradiction seam `" + seam + "`: **contradicted**"},
		"json": {`"usable": []`, `"withheld": "a person found it contradicted"`, `"standing": "contradicted"`},
	} {
		got, err := chromedp.Run(br.ctx, chromedp.Evaluate[string](`fetch(location.pathname + "?format=`+format+`").then(r => r.text())`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("fetch the %s report: %v", format, err)
		}
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Fatalf("the %s report lacks %q:\n%s", format, w, got)
			}
		}
	}

	// The gate: blocked, whatever is asked.
	gate("a person found it contradicted (seam " + seam + ")")
	if rep, err := st.Audit(ctx); err != nil || !rep.OK {
		t.Fatalf("audit after the decision: %+v %v", rep, err)
	}
	br.noExceptions()
}
