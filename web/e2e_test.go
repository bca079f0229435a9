package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// chromiumPath is Debian's Chromium, which .ci/run installs.
const chromiumPath = "/usr/bin/chromium"

// screenshotDir is where the browser test saves one PNG per step: e2e-screenshots/ at the
// repository's root (ignored by git), or the folder E2E_SCREENSHOTS names, relative to the
// root. `E2E_SCREENSHOTS=docs/screenshots go test ./web -run Browser` refreshes the pictures that
// README.md shows.
func screenshotDir() string {
	d := os.Getenv("E2E_SCREENSHOTS")
	if d == "" {
		d = "e2e-screenshots"
	}
	if filepath.IsAbs(d) {
		return d
	}
	return filepath.Join("..", d)
}

// e2eBrowser is a headless Chromium with a fresh profile, driven through chromedp.
type e2eBrowser struct {
	t   *testing.T
	ctx context.Context
	mu  sync.Mutex
	// exceptions collects uncaught script errors, console errors and the browser's error
	// messages (CSP violations, failed loads, invalid patterns) of every page.
	exceptions []string
}

// startChromium starts the browser; a missing browser fails the test, it does not skip it.
func startChromium(t *testing.T) *e2eBrowser {
	t.Helper()
	if _, err := exec.LookPath(chromiumPath); err != nil {
		t.Fatalf("the browser test needs Chromium at %s (apt-get install chromium; .ci/run does it): %v", chromiumPath, err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	b := &e2eBrowser{t: t, ctx: ctx}
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	go func() {
		for ev, err := range chromedp.Events(ctx, runtime.ExceptionThrown) {
			if err != nil {
				return
			}
			b.record("uncaught: " + (&chromedp.ExceptionError{ExceptionDetails: ev.ExceptionDetails}).Error())
		}
	}()
	// Console errors of the pages' scripts, and the browser's own errors: a CSP violation, a
	// resource that failed to load, an invalid pattern attribute.
	go func() {
		for ev, err := range chromedp.Events(ctx, runtime.ConsoleAPICalled) {
			if err != nil {
				return
			}
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				b.record("console." + string(ev.Type) + ": " + strings.Join(args, " "))
			}
		}
	}()
	go func() {
		for ev, err := range chromedp.Events(ctx, cdplog.EntryAdded) {
			if err != nil {
				return
			}
			if e := ev.Entry; e != nil && (e.Level == cdplog.EntryLevelError || strings.Contains(e.Text, "Pattern attribute") || strings.Contains(e.Text, "Content Security Policy")) {
				b.record(fmt.Sprintf("browser %s %s: %s (%s)", e.Source, e.Level, e.Text, e.URL))
			}
		}
	}()
	return b
}

// record keeps a console error or exception of the pages.
func (b *e2eBrowser) record(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.exceptions = append(b.exceptions, msg)
}

// do runs steps and fails the test with what was being done.
func (b *e2eBrowser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// text returns the visible text of the first element matching css.
func (b *e2eBrowser) text(css string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(css)))
	if err != nil {
		b.t.Fatalf("read %s: %v", css, err)
	}
	return s
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](b *e2eBrowser, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// cookie returns the browser's cookie of that name for the current page; a missing cookie
// fails the test.
func (b *e2eBrowser) cookie(name string) *network.Cookie {
	b.t.Helper()
	res, err := chromedp.Run(b.ctx, func(ctx context.Context, t *chromedp.Target) (network.GetCookiesResult, error) {
		return cdp.Call(ctx, t, network.GetCookies, network.GetCookiesParams{})
	})
	if err != nil {
		b.t.Fatalf("read the cookies: %v", err)
	}
	for _, c := range res.Cookies {
		if c.Name == name {
			return c
		}
	}
	b.t.Fatalf("the browser holds no cookie %s", name)
	return nil
}

// progressView is what the batch page shows of a check.
type progressView struct {
	Running  bool     `json:"running"`  // "Checking: N of M citation(s) done."
	Finished bool     `json:"finished"` // "Check done: N of M citation(s) checked."
	Done     int      `json:"done"`     // N
	Total    int      `json:"total"`    // M
	Statuses []string `json:"statuses"` // each claim's first citation status, in table order
	SamePage bool     `json:"samePage"` // the document was not reloaded since the check started
}

func (v progressView) String() string {
	state := "other"
	switch {
	case v.Running:
		state = "checking"
	case v.Finished:
		state = "done"
	}
	if !v.SamePage {
		state += " (reloaded)"
	}
	return fmt.Sprintf("%s %d/%d %v", state, v.Done, v.Total, v.Statuses)
}

// readProgress reads the progress line by its words, not its class: while htmx settles a
// swap, the new element briefly carries the old one's class.
const readProgress = `(() => {
	const p = document.querySelector("#job-progress");
	const text = p ? p.textContent : "";
	const n = text.match(/(\d+) of (\d+) citation/);
	return {
		running: text.startsWith("Checking:"),
		finished: text.startsWith("Check done:"),
		done: n ? Number(n[1]) : -1,
		total: n ? Number(n[2]) : -1,
		statuses: Array.from(document.querySelectorAll(".claim-table tbody tr"),
			tr => (tr.querySelector("td:nth-child(4) .status") || {textContent: ""}).textContent),
		samePage: window.e2eSamePage === true,
	};
})()`

// watchProgress reads the batch page every 20 ms, appends each state that differs from the
// last one to seen, and returns the first state for which want holds. It waits as long as
// that takes (the test binary's -timeout bounds it; the held pages keep the state from
// moving past the awaited one), and fails the test, listing the states seen, when the page
// shows something else than the batch's claims.
func (b *e2eBrowser) watchProgress(seen *[]progressView, want func(progressView) bool) progressView {
	b.t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		v := eval[progressView](b, readProgress)
		if n := len(*seen); n == 0 || fmt.Sprint((*seen)[n-1]) != fmt.Sprint(v) {
			*seen = append(*seen, v)
		}
		if len(v.Statuses) < 4 {
			b.t.Fatalf("the batch page shows %d claims, want 4: %v", len(v.Statuses), *seen)
		}
		if want(v) {
			return v
		}
		<-tick.C
	}
}

// shot saves a full-page PNG in screenshotDir.
func (b *e2eBrowser) shot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := screenshotDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// noExceptions fails the test when a page threw or logged an error to the console.
func (b *e2eBrowser) noExceptions() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.exceptions) > 0 {
		b.t.Fatalf("the pages threw or logged errors: %s", strings.Join(b.exceptions, "; "))
	}
}

// e2eResearch cites pages of the local sites: claim 1's quote is on its page, claim 2's page
// changes between fetches (the verifiers split: a disagreement seam), claim 3's quote is
// not on its page, and claim 4 has no source of record.
const e2eResearch = `Claim 1: Nintendo's Super Mario Run came to the iPhone first.
Source: http://games.test:{{port}}/msn
Quote: "Nintendo and Apple shocked the world"

Claim 2: The Bardo museum attack was condemned.
Source: http://news.test:{{port}}/changing/wapo-1
Quote: "condemned the attack and said"

Claim 3: The French surveillance bill was withdrawn.
Source: http://monde.test:{{port}}/lemonde-1
Quote: "the government withdrew the surveillance bill"

Claim 4: Super Mario Run will never come to Android.
Link: N/A
`

func TestBrowserWalkthrough(t *testing.T) {
	ctx := context.Background()
	st, err := ledger.Open(ctx, t.TempDir(), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	site := newCorpusSite(t)
	jobs := verify.NewJobs(st, verify.NewChecker(loopbackFetch()), 2)
	t.Cleanup(jobs.Close)
	const setupToken = "e2e-first-run-token-0123456789abcdef"
	app := httptest.NewServer(New(Config{Ledger: st, Jobs: jobs, SetupToken: setupToken}))
	t.Cleanup(app.Close)

	b := startChromium(t)

	// First run: the one-time link creates the first operator, who is then signed in.
	b.do("open the first-run link",
		chromedp.Navigate(app.URL+"/setup?token="+setupToken),
		chromedp.WaitVisible(chromedp.CSS(`input[name="name"]`)),
	)
	// The name's pattern is a valid expression for the browser, so it checks names.
	if !eval[bool](b, `(() => { const i = document.querySelector('input[name="name"]'); i.value = "no spaces"; const bad = i.validity.patternMismatch; i.value = "o.l_g-a"; const ok = !i.validity.patternMismatch; i.value = ""; return bad && ok; })()`) {
		t.Fatal("the setup form's name pattern does not check names in the browser")
	}
	b.do("fill the first-run form",
		chromedp.SendKeys(chromedp.CSS(`input[name="name"]`), "olga"),
		chromedp.SendKeys(chromedp.CSS(`input[name="password"]`), opPassword),
		chromedp.SendKeys(chromedp.CSS(`input[name="password2"]`), opPassword),
	)
	b.shot("01-first-run")
	b.do("create the operator", chromedp.Click(chromedp.CSS(`form button[type="submit"]`)), chromedp.WaitVisible(chromedp.CSS("#api-token")))
	if _, err := st.Authenticate(ctx, b.text("#api-token")); err != nil {
		t.Fatalf("the token shown at first run does not work: %v", err)
	}

	// Sign out and in again, as a returning user would.
	b.do("sign out", chromedp.Click(chromedp.CSS(`form.who button`)), chromedp.WaitVisible(chromedp.CSS(`input[name="password"]`)))
	b.do("sign in",
		chromedp.SendKeys(chromedp.CSS(`input[name="name"]`), "olga"),
		chromedp.SendKeys(chromedp.CSS(`input[name="password"]`), opPassword),
	)
	b.shot("02-sign-in")
	b.do("submit sign-in", chromedp.Click(chromedp.CSS(`form.narrow button`)), chromedp.WaitVisible(chromedp.CSS("header nav")))
	if h := b.text("h1"); h != "Batches" {
		t.Fatalf("after sign-in the operator lands on %q", h)
	}
	// The session cookie is Secure, yet came back over plain http: 127.0.0.1 is a secure context.
	if c := b.cookie(sessionCookie); !c.Secure || !c.HTTPOnly {
		t.Fatalf("session cookie in the browser: Secure %v, HttpOnly %v", c.Secure, c.HTTPOnly)
	}

	// Paste: the preview arrives in place (htmx), then the commit records the batch.
	research := strings.ReplaceAll(e2eResearch, "{{port}}", site.port)
	b.do("paste research",
		chromedp.Navigate(app.URL+"/paste"),
		chromedp.WaitVisible(chromedp.CSS("#paste-text")),
		chromedp.SetValue(chromedp.CSS("#paste-text"), research),
		chromedp.Click(chromedp.CSS("#preview-button")),
		chromedp.WaitVisible(chromedp.CSS("#commit-button")),
	)
	if got := b.text("#preview h2"); got != "Preview: 4 claim(s), 3 URL(s), 1 citation(s) that cannot be checked" {
		t.Fatalf("preview heading %q", got)
	}
	if !eval[bool](b, `location.pathname === "/paste"`) {
		t.Fatal("the preview replaced the page instead of arriving in place")
	}
	if eval[int](b, `document.querySelectorAll("style").length`) != 0 {
		t.Fatal("a <style> element was injected; the CSP would block it")
	}
	b.shot("03-paste-preview")
	// An edit after the preview is not dropped: the commit is refused in words and the text
	// as it now is, is previewed again in place.
	eval[bool](b, `(document.querySelector("#paste-text").value += "\n", true)`)
	b.do("commit an edited text",
		chromedp.Click(chromedp.CSS("#commit-button")),
		chromedp.WaitVisible(chromedp.CSS("#preview .problem")),
	)
	if got := b.text("#preview .problem"); !strings.HasPrefix(got, "Not committed: the text was changed after its preview.") || !eval[bool](b, `location.pathname === "/paste"`) {
		t.Fatalf("commit of an edited text: %q at %s", got, eval[string](b, "location.pathname"))
	}
	b.do("commit", chromedp.Click(chromedp.CSS("#commit-button")), chromedp.WaitVisible(chromedp.CSS("#check-button")))
	b.shot("04-batch")

	// Check: the statuses arrive in place while the job runs, then the polling stops. Every
	// page is held until the batch page has shown the check's start, and claim 3's until it
	// has shown a state between the start and the end, so the browser sees each whatever
	// the machine's speed.
	releaseFirst := site.hold("msn", "wapo-1")
	releaseLast := site.hold("lemonde-1")
	eval[bool](b, `window.e2eSamePage = true`)
	b.do("start the check", chromedp.Click(chromedp.CSS("#check-button")), chromedp.WaitVisible(chromedp.CSS("#job-progress progress")))
	var seen []progressView
	b.watchProgress(&seen, func(v progressView) bool { return v.Running && v.Done == 0 })
	releaseFirst()
	mid := b.watchProgress(&seen, func(v progressView) bool {
		return v.Running && 0 < v.Done && v.Done < v.Total &&
			v.Statuses[0] == "found_at_source" && v.Statuses[2] == "reported"
	})
	b.shot("05-checking")
	releaseLast()
	end := b.watchProgress(&seen, func(v progressView) bool { return v.Finished })
	if !mid.SamePage || !end.SamePage {
		t.Fatalf("the page was reloaded while the check ran; its states: %v", seen)
	}
	if seen[0].Done != 0 || seen[0].Statuses[0] != "reported" {
		t.Fatalf("the first state shown was not the start of the check: %v", seen)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].Done < seen[i-1].Done {
			t.Fatalf("the done count went back: %v", seen)
		}
	}
	if end.Done != end.Total || end.Statuses[2] != "not_found" {
		t.Fatalf("the check ended with claim 3 %q, want all done and not_found: %v", end.Statuses[2], seen)
	}
	t.Logf("states the batch page showed while checking: %v", seen)
	// Claim 1 found, 3 not found, 2 waiting for a person, 4 not checkable: the summary
	// says plainly that most were not confirmed, and why.
	if got := b.text("#job-progress"); got != "Check done: 4 of 4 citation(s) checked, but most could not be confirmed: only 1 of 3 checkable citation(s) found at their source." {
		t.Fatalf("job progress %q", got)
	}
	// The class settles after the swap (htmx keeps the old one for a moment): wait for it.
	b.do("see the check's line in red", chromedp.WaitVisible(chromedp.CSS("#job-progress.verdict.bad")))
	if got := b.text("#check-summary"); !strings.Contains(got, "1 not_found: the quote is not on the page") || !strings.Contains(got, "1 waiting for a person") || !strings.Contains(got, "1 cannot be checked") {
		t.Fatalf("check summary %q", got)
	}
	if got := b.text("#batch-counts"); !strings.Contains(got, "1 found at source, 1 not found, 0 unreachable, 2 reported") || !strings.Contains(got, "1 open seam(s)") {
		t.Fatalf("counts after the check: %q", got)
	}
	if !strings.HasPrefix(eval[string](b, "location.pathname"), "/batches/b_") {
		t.Fatal("the check left the batch page")
	}
	b.shot("06-checked")

	// Read: the found claim with its verdicts side by side and the matched words marked.
	b.do("open the found claim", chromedp.Click(chromedp.CSS(".claim-table tbody tr:nth-child(1) a")), chromedp.WaitVisible(chromedp.CSS(".verdict-card")))
	if n := eval[int](b, `document.querySelectorAll(".verdict-card").length`); n != 2 {
		t.Fatalf("%d verdicts side by side, want 2", n)
	}
	if got := b.text(".excerpt mark"); !strings.EqualFold(strings.Join(strings.Fields(got), " "), "Nintendo and Apple shocked the world") {
		t.Fatalf("marked words %q", got)
	}
	if got := b.text(".residual"); !strings.Contains(got, "does not show that the claim is true") {
		t.Fatalf("residual risk %q", got)
	}
	b.shot("07-claim")
	claimURL := eval[string](b, "location.href")
	raw := eval[string](b, `document.querySelector("a.stored-raw").href`)
	b.do("open the stored page's text", chromedp.Click(chromedp.CSS("a.stored-text")), chromedp.WaitVisible(chromedp.CSS("#text-dom pre")))
	for _, v := range []string{"dom", "tokens"} {
		if got := b.text("#match-" + v); !strings.EqualFold(strings.Join(strings.Fields(got), " "), "Nintendo and Apple shocked the world") {
			t.Fatalf("the %s text marks %q", v, got)
		}
	}
	b.do("go to the match", chromedp.Click(chromedp.CSS(`a[href="#match-dom"]`)))
	b.shot("11-stored-text")
	b.do("open the raw bytes", chromedp.Navigate(raw))
	if ct := eval[string](b, "document.contentType"); ct != "text/plain" {
		t.Fatalf("the stored page opened as %q", ct)
	}
	// The claim that is not on its page: a closest passage, if any, is boxed as not a match.
	b.do("back to the batch", chromedp.Navigate(claimURL), chromedp.WaitVisible(chromedp.CSS(".verdict-card")))
	batchPath := eval[string](b, `document.querySelector('a[href^="/batches/"]').getAttribute("href")`)
	b.do("open the claim not found", chromedp.Navigate(app.URL+batchPath), chromedp.Click(chromedp.CSS(".claim-table tbody tr:nth-child(3) a")), chromedp.WaitVisible(chromedp.CSS(".verdict-card")))
	if eval[int](b, `document.querySelectorAll(".excerpt mark").length`) != 0 {
		t.Fatal("the claim whose quote is not on its page shows marked words")
	}
	if eval[bool](b, `document.querySelector(".not-a-match") !== null`) && !strings.HasPrefix(b.text(".not-a-match-label"), "Not a match.") {
		t.Fatalf("the closest passage is not labelled: %q", b.text(".not-a-match"))
	}

	// Seams: the page that changed between fetches split the verifiers; a person decides.
	b.do("open the seams", chromedp.Navigate(app.URL+"/seams"), chromedp.WaitVisible(chromedp.CSS("article.seam")))
	if kind := b.text("article.seam h2"); !strings.Contains(kind, "disagreement") {
		t.Fatalf("seam %q", kind)
	}
	if n := eval[int](b, `document.querySelectorAll("article.seam .verdict-card").length`); n != 3 {
		t.Fatalf("%d verdicts in the disagreement, want 3", n)
	}
	b.shot("08-seams")
	if eval[bool](b, `document.querySelector('article.seam input[name="decision"]:checked') !== null`) {
		t.Fatal("the seam form preselects a decision")
	}
	b.do("resolve the seam",
		chromedp.Click(chromedp.CSS(`article.seam input[name="decision"][value="found_at_source"]`)),
		chromedp.SendKeys(chromedp.CSS(`article.seam textarea[name="reason"]`), "Opened by hand: the page carries the quote in its second paragraph."),
		chromedp.Click(chromedp.CSS(`article.seam button`)),
		chromedp.WaitVisible(chromedp.CSS("article.seam .verdict.ok")),
	)
	if got := b.text("article.seam .verdict.ok"); !strings.Contains(got, "by user:olga: found_at_source") || !eval[bool](b, `location.pathname === "/seams"`) {
		t.Fatalf("resolved row %q", got)
	}
	b.shot("09-seam-resolved")

	// The hand-off report: the claim found and the claim a person decided may be used; the
	// others are listed with why; it ends with the chain head.
	b.do("open the report", chromedp.Navigate(app.URL+batchPath+"/report"), chromedp.WaitVisible(chromedp.CSS("#report-summary")))
	if got := b.text("#report-summary"); got != "2 may be used; 2 may not." {
		t.Fatalf("report summary %q", got)
	}
	if got := b.text("#withheld-reasons"); got != "1 not found at its source; 1 not checked at its source." {
		t.Fatalf("withheld reasons %q", got)
	}
	if n := eval[int](b, `document.querySelectorAll(".report-claim.usable blockquote.excerpt").length`); n != 1 {
		t.Fatalf("%d usable excerpts, want 1 (the other claim's status is the person's decision)", n)
	}
	if got := b.text(".report-claim.usable:nth-of-type(2) .note"); !strings.Contains(got, "Opened by hand") {
		t.Fatalf("the claim a person decided does not say so: %q", got)
	}
	head := b.text("#report-head")
	b.shot("12-report")
	md, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`fetch(location.pathname + "?format=md").then(r => r.text())`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("fetch the Markdown report: %v", err)
	}
	if !strings.HasPrefix(md, "# Hand-off report: batch b_") || !strings.Contains(md, head) {
		t.Fatalf("the Markdown report: %.200q", md)
	}
	b.do("open the printable report", chromedp.Navigate(app.URL+batchPath+"/report?format=html"), chromedp.WaitVisible(chromedp.CSS("#report-summary")))
	// Its inline style sheet applies (allowed by its hash): the cards have their border.
	if w := eval[string](b, `getComputedStyle(document.querySelector(".report-claim")).borderLeftWidth`); w != "4px" {
		t.Fatalf("the printable report's style sheet did not apply: border %q", w)
	}

	// Audit: recompute the chain and see it hold.
	b.do("run the audit",
		chromedp.Navigate(app.URL+"/audit"),
		chromedp.WaitVisible(chromedp.CSS("#run-audit")),
		chromedp.Click(chromedp.CSS("#run-audit")),
		chromedp.WaitVisible(chromedp.CSS("#audit-verdict")),
	)
	if got := b.text("#audit-verdict"); got != "The chain holds." {
		t.Fatalf("audit: %q", got)
	}
	if got := b.text("#audit-result"); !regexp.MustCompile(`UTC in \d+(\.\d)? (ms|s)\b`).MatchString(got) {
		t.Fatalf("audit duration not in human units: %q", got)
	}
	b.shot("10-audit")
	b.noExceptions()
}
