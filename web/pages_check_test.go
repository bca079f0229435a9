package web

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// checkPages is a page server with real check jobs over saved real pages on loopback.
// waitJob waits for the job to end, however long the machine takes (the test binary's
// -timeout bounds it), and returns its last status.
func waitJob(t *testing.T, jobs *verify.Jobs, id string) verify.JobStatus {
	t.Helper()
	for {
		st, ok := jobs.Wait(t.Context(), id, verify.MaxWait)
		if !ok {
			t.Fatalf("no job %s", id)
		}
		if st.State == verify.JobDone || st.State == verify.JobFailed {
			return st
		}
	}
}

func checkPages(t *testing.T) (pageFixture, *verify.Jobs, corpusSite) {
	t.Helper()
	ctx := context.Background()
	st, err := ledger.Open(ctx, t.TempDir(), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, u := range []struct{ name, role, pw string }{{"olga", ledger.RoleOperator, opPassword}, {"arno", ledger.RoleAuditor, auPassword}} {
		if _, err := st.AddUserWithPassword(ctx, "system", u.name, u.role, u.pw); err != nil {
			t.Fatal(err)
		}
	}
	site := newCorpusSite(t)
	jobs := verify.NewJobs(st, verify.NewChecker(loopbackFetch()), 2)
	t.Cleanup(jobs.Close)
	srv := httptest.NewServer(New(Config{Ledger: st, Jobs: jobs}))
	t.Cleanup(srv.Close)
	return pageFixture{srv: srv, store: st}, jobs, site
}

func TestCheckProgress(t *testing.T) {
	f, jobs, site := checkPages(t)
	b := f.browser(t)
	b.signIn("olga", opPassword)
	// 002's text holds a literal "<img>" (decoded from &lt;img&gt;); it must stay text.
	paste := strings.NewReplacer("{{port}}", site.port).Replace(`Claim 1: The Fetch API reports the destination of an image request.
Source: http://hacks.test:{{port}}/002
Quote: "if the request is from an <img>tag in the controlled document"

Claim 2: The Bardo museum attack was condemned.
Source: http://news.test:{{port}}/wapo-1
Quote: "condemned the attack and said"
`)
	id := commitPaste(t, b, paste)
	// Both pages are held until the page of the running check has been read.
	release := site.hold("002", "wapo-1")

	p := b.get("/batches/" + id)
	if !strings.Contains(p.body, `id="check-button"`) || strings.Contains(p.body, `hx-trigger="every 1s"`) {
		t.Fatalf("batch page before the check: %s", p.body)
	}
	// Without JS: a plain post starts the job and the page follows it.
	p = b.post("/batches/"+id+"/check", url.Values{})
	loc := p.header.Get("Location")
	m := regexp.MustCompile(`^/batches/` + id + `\?job=(\S+)$`).FindStringSubmatch(loc)
	if p.status != http.StatusSeeOther || m == nil {
		t.Fatalf("start the check: %d %q %s", p.status, loc, p.body)
	}
	p = b.get(loc)
	for _, want := range []string{`<noscript><meta http-equiv="refresh" content="2"></noscript>`, `hx-trigger="every 1s"`, `<progress max="2"`, "Checking: "} {
		if !strings.Contains(p.body, want) {
			t.Errorf("page of a running check lacks %q", want)
		}
	}
	if strings.Contains(p.body, `id="check-button"`) {
		t.Error("the check button is offered while the check runs")
	}
	// The htmx poll answers the fragment alone.
	p = b.get(loc, "HX-Request", "true")
	if !strings.HasPrefix(strings.TrimSpace(p.body), `<section id="progress"`) || strings.Contains(p.body, "<html") {
		t.Fatalf("progress fragment: %s", p.body)
	}
	release()
	if st := waitJob(t, jobs, m[1]); st.State != verify.JobDone {
		t.Fatalf("job: %+v", st)
	}
	p = b.get(loc, "HX-Request", "true")
	if strings.Contains(p.body, "hx-trigger") || !strings.Contains(p.body, "Check done: 2 of 2 citation(s) checked; every checkable citation found at its source.") || !strings.Contains(p.body, "2 found at source") ||
		!strings.Contains(p.body, `class="verdict ok" id="job-progress"`) || !strings.Contains(p.body, "<strong>2 of 2 citation(s) found at their source.</strong>") {
		t.Fatalf("fragment of a finished check still polls or lacks the result: %s", p.body)
	}
	if p = b.get(loc); strings.Contains(p.body, "http-equiv=\"refresh\"") {
		t.Fatal("the page of a finished check still refreshes itself")
	}

	// The claim page: verdicts, the page's own words with the quote marked, never as markup.
	batch, _ := f.store.Batch(context.Background(), id)
	p = b.get("/claims/" + batch.Claims[0].ID)
	for _, want := range []string{"<mark>", "&lt;img&gt;tag in the controlled document", `class="card verdict-card"`, "does not show that the claim is true", `href="/documents/`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("claim page lacks %q", want)
		}
	}
	if strings.Contains(p.body, "<img>") {
		t.Fatal("page text reached the claim page as markup")
	}
	sha := regexp.MustCompile(`href="/documents/([0-9a-f]{64})"`).FindStringSubmatch(p.body)
	if sha == nil {
		t.Fatal("no link to the stored page")
	}
	doc := b.get("/documents/" + sha[1])
	if doc.status != 200 || !strings.Contains(doc.body, "<html") || doc.header.Get("Content-Type") != "text/plain; charset=utf-8" || doc.header.Get("Content-Security-Policy") != "sandbox; default-src 'none'" {
		t.Fatalf("stored page: %d %v", doc.status, doc.header)
	}
	// The stored page as the text each verifier read, the quote marked in each, page text
	// never as markup.
	link := regexp.MustCompile(`href="(/documents/` + sha[1] + `/text\?claim=c_[0-9a-f]{16}&amp;citation=ct_[0-9a-f]{16})"`).FindStringSubmatch(p.body)
	if link == nil {
		t.Fatal("no link to the stored page's text")
	}
	tv := b.get(html.UnescapeString(link[1]))
	for _, want := range []string{`<mark id="match-dom">`, `<mark id="match-tokens">`, "The text the dom verifier read", "The text the tokens verifier read",
		"&lt;img&gt;tag in the controlled document", `id="raw-link" href="/documents/` + sha[1] + `"`} {
		if tv.status != 200 || !strings.Contains(tv.body, want) {
			t.Errorf("stored text view lacks %q: %d", want, tv.status)
		}
	}
	main := tv.body[strings.Index(tv.body, "<main>"):]
	if strings.Contains(main, "<img") || strings.Contains(main, "<script") {
		t.Error("page markup reached the stored text view")
	}
	for _, bad := range []struct {
		path   string
		status int
	}{
		{"/documents/" + sha[1] + "/text?claim=" + batch.Claims[0].ID + "&citation=ct_0000000000000000", 404},
		{"/documents/" + strings.Repeat("0", 64) + "/text", 404},
		{"/documents/nothex/text", 400},
	} {
		if got := b.get(bad.path); got.status != bad.status {
			t.Errorf("%s: %d, want %d", bad.path, got.status, bad.status)
		}
	}
	if plain := b.get("/documents/" + sha[1] + "/text"); plain.status != 200 || strings.Contains(plain.body, "<mark") {
		t.Errorf("the text view without a citation: %d, marks %v", plain.status, strings.Contains(plain.body, "<mark"))
	}

	// With htmx the check answers the progress fragment and puts the job in the address bar.
	p = b.post("/batches/"+id+"/check", url.Values{"recheck": {"on"}}, "HX-Request", "true")
	if p.status != 200 || !strings.HasPrefix(strings.TrimSpace(p.body), `<section id="progress"`) || !strings.HasPrefix(p.header.Get("HX-Push-Url"), "/batches/"+id+"?job=") {
		t.Fatalf("htmx check: %d %v %s", p.status, p.header, p.body)
	}
	if p = b.get("/batches/" + id + "?job=j_unknown"); !strings.Contains(p.body, "no longer known") {
		t.Fatal("an unknown job is not explained")
	}
}

func TestCheckRefusals(t *testing.T) {
	f, _, site := checkPages(t)
	op := f.browser(t)
	op.signIn("olga", opPassword)
	id := commitPaste(t, op, "Claim: A fact.\nSource: http://news.test:"+site.port+"/wapo-1\nQuote: \"condemned the attack and said\"\n")
	au := f.browser(t)
	au.signIn("arno", auPassword)
	if p := au.post("/batches/"+id+"/check", url.Values{}); p.status != http.StatusForbidden {
		t.Fatalf("auditor starts a check: %d", p.status)
	}
	if p := au.get("/batches/" + id); strings.Contains(p.body, "check-button") {
		t.Fatal("an auditor is offered the check button")
	}
	if p := op.post("/batches/b_0000000000000000/check", url.Values{}); p.status != http.StatusNotFound {
		t.Fatalf("check of an unknown batch: %d %s", p.status, p.body)
	}
	// A server built without check jobs says so.
	g := newPageFixture(t, "")
	b := g.browser(t)
	b.signIn("olga", opPassword)
	id = commitPaste(t, b, "Claim: A fact.\nSource: http://news.test/x\nQuote: \"condemned the attack and said\"\n")
	if p := b.get("/batches/" + id); strings.Contains(p.body, "check-button") {
		t.Fatal("the check button is offered by a server that cannot check")
	}
	if p := b.post("/batches/"+id+"/check", url.Values{}); p.status != http.StatusServiceUnavailable {
		t.Fatalf("check without jobs: %d", p.status)
	}
}

// TestCheckSummaryBanner: the line a finished check ends with is green only when every
// checkable citation was found, red when most were not (or none could be checked), amber in
// between, and the summary counts the others by reason.
func TestCheckSummaryBanner(t *testing.T) {
	f, jobs, site := checkPages(t)
	b := f.browser(t)
	b.signIn("olga", opPassword)
	// Each citation on its own host: the checker's fetcher allows only a few requests of one
	// URL, and it serves every check of the test.
	found := func(i int) string {
		return fmt.Sprintf("Claim: The Bardo museum attack was condemned (%d).\nSource: http://found%d.test:%s/wapo-1\nQuote: \"condemned the attack and said\"\n\n", i, i, site.port)
	}
	missing := func(i int) string {
		return fmt.Sprintf("Claim: Fact %d.\nSource: http://missing%d.test:%s/wapo-1\nQuote: \"a sentence number %d that the page never held\"\n\n", i, i, site.port, i)
	}
	for _, tt := range []struct {
		desc, paste, class string
		words              []string
	}{
		{"none checkable", "Claim: Growth will continue.\nLink: N/A\n", "bad", []string{"but none could be", "1 cannot be checked"}},
		{"most not found", found(1) + missing(1) + missing(2), "bad", []string{"but most could not be confirmed: only 1 of 3 checkable citation(s)", "2 <span class=\"status not_found\">not_found</span>: the quote is not on the page"}},
		{"some not found", found(2) + found(3) + missing(3), "warn", []string{"; 2 of 3 checkable citation(s) found at their source.", "<strong>2 of 3 citation(s) found at their source.</strong> The others:"}},
	} {
		t.Run(tt.desc, func(t *testing.T) {
			id := commitPaste(t, b, tt.paste)
			p := b.post("/batches/"+id+"/check", url.Values{})
			loc := p.header.Get("Location")
			job := regexp.MustCompile(`job=(j_[0-9a-f]+)`).FindStringSubmatch(loc)
			if p.status != http.StatusSeeOther || job == nil {
				t.Fatalf("check: %d %q", p.status, loc)
			}
			if st := waitJob(t, jobs, job[1]); st.State != verify.JobDone {
				t.Fatalf("job: %+v", st)
			}
			p = b.get(loc)
			if !strings.Contains(p.body, `class="verdict `+tt.class+`" id="job-progress">Check done: `) {
				t.Errorf("the check's line is not %s:\n%s", tt.class, p.body[strings.Index(p.body, "<section id=\"progress\""):])
			}
			for _, w := range tt.words {
				if !strings.Contains(p.body, w) {
					t.Errorf("the batch page lacks %q", w)
				}
			}
		})
	}
}
