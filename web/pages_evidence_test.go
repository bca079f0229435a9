package web

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// hostilePaste has markup in a claim and in a quote; both must be shown as text.
const hostilePaste = `Claim 1: The Bardo museum <script>alert(1)</script> reopened to visitors in 2016.
Source: http://museum.example/news/reopening
Quote: the museum reopened "><img src=x onerror=alert(1)> to visitors this week

Claim 2: Tourism accounts for roughly 7% of Tunisia's GDP.
Source: https://data.bank.example/country/tunisia
Quote: "tourism accounts for roughly 7 percent of the economy"

Claim 3: TaskRabbit was acquired by IKEA in 2017.
Link: N/A
`

// rawMarkup must never appear in a page: it would run or load.
var rawMarkup = []string{"<script>alert(1)</script>", `<img src=x onerror=alert(1)>`, "<img src=x"}

func assertNoRawMarkup(t *testing.T, where, body string) {
	t.Helper()
	for _, raw := range rawMarkup {
		if strings.Contains(body, raw) {
			t.Fatalf("%s: the raw markup %q reached the HTML", where, raw)
		}
	}
}

// commitPaste previews text and commits it as the preview page's form would; it returns the
// batch id.
func commitPaste(t *testing.T, b *browser, text string) string {
	t.Helper()
	p := b.post("/paste/preview", url.Values{"text": {text}})
	if p.status != 200 {
		t.Fatalf("preview: %d %s", p.status, p.body)
	}
	sha := regexp.MustCompile(`name="sha256" value="([0-9a-f]{64})"`).FindStringSubmatch(p.body)
	if sha == nil {
		t.Fatalf("no commit form in the preview: %s", p.body)
	}
	p = b.post("/paste", url.Values{"text": {text}, "sha256": {sha[1]}})
	loc := p.header.Get("Location")
	if p.status != http.StatusSeeOther || !strings.HasPrefix(loc, "/batches/b_") {
		t.Fatalf("commit: %d %q %s", p.status, loc, p.body)
	}
	return strings.TrimPrefix(loc, "/batches/")
}

func TestPastePreviewAndCommit(t *testing.T) {
	f := newPageFixture(t, "")
	b := f.browser(t)
	b.signIn("olga", opPassword)

	if p := b.get("/paste"); p.status != 200 || !strings.Contains(p.body, `<textarea id="paste-text" name="text"`) {
		t.Fatalf("paste form: %d", p.status)
	}
	// Without JS the preview is a whole page that keeps the text in the text area.
	p := b.post("/paste/preview", url.Values{"text": {strings.ReplaceAll(hostilePaste, "\n", "\r\n")}})
	if p.status != 200 || !strings.Contains(p.body, "<html") || !strings.Contains(p.body, "Preview: 3 claim(s), 2 URL(s), 1 citation(s) that cannot be checked") {
		t.Fatalf("preview page: %d %s", p.status, p.body)
	}
	for _, want := range []string{
		"The Bardo museum &lt;script&gt;alert(1)&lt;/script&gt; reopened",
		"&#34;&gt;&lt;img src=x onerror=alert(1)&gt; to visitors",
		evidence.NoteNoSource,
		"http://museum.example/news/reopening",
		"Commit as a batch",
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("preview lacks %q", want)
		}
	}
	assertNoRawMarkup(t, "preview page", p.body)
	// The commit button belongs to the form of the text box, so the text committed is the
	// text in the box, never a hidden copy that an edit would not reach; the preview's hash
	// comes along, of the text with LF line ends as the preview read it.
	form := p.body[strings.Index(p.body, `<form method="post" action="/paste/preview"`):]
	form = form[:strings.Index(form, "</form>")]
	for _, want := range []string{`<textarea id="paste-text" name="text"`, `id="commit-button" formaction="/paste"`, `name="sha256" value="` + textHash(hostilePaste) + `"`} {
		if !strings.Contains(form, want) {
			t.Errorf("the form of the text box lacks %s", want)
		}
	}
	if strings.Contains(p.body, `<input type="hidden" name="text"`) {
		t.Error("the page carries a hidden copy of the text")
	}
	// With htmx the answer is the fragment alone.
	p = b.post("/paste/preview", url.Values{"text": {hostilePaste}}, "HX-Request", "true")
	if p.status != 200 || strings.Contains(p.body, "<html") || !strings.HasPrefix(strings.TrimSpace(p.body), `<section id="preview">`) {
		t.Fatalf("preview fragment: %d %s", p.status, p.body)
	}
	assertNoRawMarkup(t, "preview fragment", p.body)

	refused := []struct {
		desc   string
		form   url.Values
		status int
		want   string
	}{
		{"empty paste", url.Values{"text": {"  \n"}}, 422, "The text area is empty"},
		{"broken JSON", url.Values{"text": {`{"claims": [{"text": "x"`}}, 422, "research cannot be read"},
	}
	for _, tt := range refused {
		t.Run(tt.desc, func(t *testing.T) {
			p := b.post("/paste/preview", tt.form)
			if p.status != tt.status || !strings.Contains(p.body, tt.want) || strings.Contains(p.body, "Commit as a batch") {
				t.Fatalf("%d %s", p.status, p.body)
			}
		})
	}
	// With htmx a paste that cannot be read is a problem in the fragment's words, with 200,
	// so the page logs no console error.
	if p := b.post("/paste/preview", url.Values{"text": {"  \n"}}, "HX-Request", "true"); p.status != 200 || !strings.Contains(p.body, `<p class="problem">The text area is empty`) || strings.Contains(p.body, "Commit as a batch") {
		t.Fatalf("htmx preview of an empty paste: %d %s", p.status, p.body)
	}
	// A form larger than any paste may be is refused before it is read.
	if p := b.post("/paste/preview", url.Values{"text": {strings.Repeat("%", maxPageForm/3+1)}}); p.status != http.StatusRequestEntityTooLarge || !strings.Contains(p.body, "paste less at once") {
		t.Fatalf("huge form: %d", p.status)
	}
	// A text that differs from its preview is not committed.
	before, _ := f.store.Batches(context.Background())
	p = b.post("/paste", url.Values{"text": {hostilePaste + "\nClaim 4: added after the preview.\nSource: https://x.example/a\nQuote: \"added after the preview\"\n"}, "sha256": {textHash(hostilePaste)}})
	if p.status != http.StatusConflict || !strings.Contains(p.body, "Not committed: the text was changed after its preview.") || !strings.Contains(p.body, "Preview: 4 claim(s)") {
		t.Fatalf("commit of a changed text: %d %s", p.status, p.body)
	}
	p = b.post("/paste", url.Values{"text": {"  "}, "sha256": {textHash(hostilePaste)}}, "HX-Request", "true")
	if p.status != http.StatusOK || strings.Contains(p.body, "<html") || !strings.Contains(p.body, "the text as it is now cannot be read: The text area is empty") {
		t.Fatalf("htmx commit of a text emptied after its preview: %d %s", p.status, p.body)
	}
	if after, _ := f.store.Batches(context.Background()); len(after) != len(before) {
		t.Fatal("a changed text was committed")
	}

	// With htmx a commit sends the browser to the batch.
	p = b.post("/paste", url.Values{"text": {"Claim: The registry counted 4,812 companies.\nSource: https://registry.example/r\nQuote: the registry counted 4,812 companies\n"},
		"sha256": {textHash("Claim: The registry counted 4,812 companies.\nSource: https://registry.example/r\nQuote: the registry counted 4,812 companies\n")}}, "HX-Request", "true")
	if p.status != 200 || !strings.HasPrefix(p.header.Get("HX-Redirect"), "/batches/b_") {
		t.Fatalf("htmx commit: %d %v", p.status, p.header)
	}

	id := commitPaste(t, b, strings.ReplaceAll(hostilePaste, "\n", "\r\n"))
	batch, err := f.store.Batch(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	paste, err := f.store.Blob(context.Background(), batch.Paste)
	if err != nil || string(paste) != hostilePaste {
		t.Fatalf("committed paste %q, %v; want the previewed text", paste, err)
	}
	if batch.Actor != "user:olga" || len(batch.Claims) != 3 {
		t.Fatalf("batch %+v", batch)
	}
	p = b.get("/batches/" + id)
	if p.status != 200 || !strings.Contains(p.body, "3 claim(s), 3 citation(s)") || !strings.Contains(p.body, "&lt;script&gt;") {
		t.Fatalf("batch page: %d %s", p.status, p.body)
	}
	assertNoRawMarkup(t, "batch page", p.body)
	p = b.get("/claims/" + batch.Claims[0].ID)
	if p.status != 200 || !strings.Contains(p.body, "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;") || !strings.Contains(p.body, "Open contradiction") {
		t.Fatalf("claim page: %d %s", p.status, p.body)
	}
	assertNoRawMarkup(t, "claim page", p.body)
	if !strings.Contains(p.body, `href="http://museum.example/news/reopening" rel="noopener noreferrer"`) {
		t.Error("the citation's URL is not a noopener noreferrer link")
	}
}

func TestAuditorsReadOnly(t *testing.T) {
	f := newPageFixture(t, "")
	op := f.browser(t)
	op.signIn("olga", opPassword)
	id := commitPaste(t, op, hostilePaste)
	batch, _ := f.store.Batch(context.Background(), id)

	au := f.browser(t)
	au.signIn("arno", auPassword)
	writes := []struct {
		desc, method, path string
		form               url.Values
	}{
		{"paste form", "GET", "/paste", nil},
		{"preview", "POST", "/paste/preview", url.Values{"text": {hostilePaste}}},
		{"commit", "POST", "/paste", url.Values{"text": {hostilePaste}, "sha256": {textHash(hostilePaste)}}},
		{"open a seam", "POST", "/seams", url.Values{"kind": {"absence"}, "claim": {batch.Claims[0].ID}, "summary": {"x"}}},
		{"resolve a seam", "POST", "/seams/s_0000000000000000/resolve", url.Values{"decision": {"x"}, "reason": {"y"}}},
		{"classify a source", "POST", "/sources/bank.example/classify", url.Values{"class": {"primary"}}},
	}
	for _, tt := range writes {
		t.Run(tt.desc, func(t *testing.T) {
			var p page
			if tt.method == "GET" {
				p = au.get(tt.path)
			} else {
				p = au.post(tt.path, tt.form)
			}
			if p.status != http.StatusForbidden || !strings.Contains(p.body, "only operators may change things") {
				t.Fatalf("%d %s", p.status, p.body)
			}
		})
	}
	reads := []string{"/batches", "/batches/" + id, "/claims", "/claims/" + batch.Claims[1].ID, "/seams", "/sources", "/audit"}
	for _, path := range reads {
		p := au.get(path)
		if p.status != 200 {
			t.Errorf("auditor GET %s: %d", path, p.status)
		}
		if strings.Contains(p.body, `method="post" action="/seams`) || strings.Contains(p.body, "/classify") {
			t.Errorf("auditor GET %s shows a write form", path)
		}
	}
	// Pages without a session redirect to sign-in; posts without one are 401.
	anon := f.browser(t)
	for _, path := range reads {
		if p := anon.get(path); p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/signin?next=") {
			t.Errorf("anonymous GET %s: %d", path, p.status)
		}
	}
	if p := anon.post("/paste/preview", url.Values{"text": {hostilePaste}}); p.status != http.StatusUnauthorized {
		t.Errorf("anonymous preview: %d", p.status)
	}
}

func TestListsFilter(t *testing.T) {
	f := newPageFixture(t, "")
	b := f.browser(t)
	b.signIn("olga", opPassword)
	id := commitPaste(t, b, hostilePaste)
	tests := []struct {
		desc, path string
		status     int
		want, not  string
	}{
		{"all batches", "/batches", 200, id, ""},
		{"batches with reported claims", "/batches?status=reported", 200, id, ""},
		{"batches with found claims", "/batches?status=found_at_source", 200, "No batch matches the filter", id},
		{"batches with strong claims", "/batches?strength=high", 200, "No batch matches the filter", id},
		{"batches with claims of no strength", "/batches?strength=none", 200, id, ""},
		{"bad status", "/batches?status=true", 400, "status &#34;true&#34;: want one of", ""},
		{"all claims", "/claims", 200, "TaskRabbit", ""},
		{"claims of the batch", "/claims?batch=" + id + "&status=reported", 200, "Tourism accounts", ""},
		{"claims found", "/claims?status=found_at_source", 200, "No claim matches the filter", "TaskRabbit"},
		{"claims of another batch", "/claims?batch=b_0000000000000000", 200, "No claim", "TaskRabbit"},
		{"bad strength", "/claims?strength=strong", 400, "strength &#34;strong&#34;", ""},
		{"unknown batch", "/batches/b_0000000000000000", 404, "not found", ""},
		{"unknown claim", "/claims/c_nothing", 404, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			p := b.get(tt.path)
			if p.status != tt.status || !strings.Contains(p.body, tt.want) || (tt.not != "" && strings.Contains(p.body, tt.not)) {
				t.Fatalf("%d, want %d with %q and without %q:\n%s", p.status, tt.status, tt.want, tt.not, p.body)
			}
		})
	}
}

func TestSeamsPages(t *testing.T) {
	ctx := context.Background()
	f := newPageFixture(t, "")
	b := f.browser(t)
	b.signIn("olga", opPassword)
	id := commitPaste(t, b, hostilePaste)
	batch, _ := f.store.Batch(ctx, id)
	c1, c2, c3 := batch.Claims[0], batch.Claims[1], batch.Claims[2]

	// From the claim page: a contradiction with another claim, and an absence.
	p := b.post("/seams", url.Values{"kind": {"contradiction"}, "claim": {c1.ID}, "others": {c2.ID + ", " + c1.ID}, "summary": {"Both cannot be true <b>at once</b>"}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/claims/"+c1.ID {
		t.Fatalf("open contradiction: %d %s", p.status, p.body)
	}
	if p = b.post("/seams", url.Values{"kind": {"absence"}, "claim": {c3.ID}, "summary": {"No primary source names the buyer"}}); p.status != http.StatusSeeOther {
		t.Fatalf("record absence: %d %s", p.status, p.body)
	}
	bad := []struct {
		desc string
		form url.Values
		want int
	}{
		{"contradiction with no other claim", url.Values{"kind": {"contradiction"}, "claim": {c1.ID}, "others": {""}, "summary": {"x"}}, 400},
		{"contradiction with an unknown claim", url.Values{"kind": {"contradiction"}, "claim": {c1.ID}, "others": {"c_0000000000000000"}, "summary": {"x"}}, 404},
		{"absence without a summary", url.Values{"kind": {"absence"}, "claim": {c1.ID}, "summary": {" "}}, 400},
		{"a kind people do not open here", url.Values{"kind": {"disagreement"}, "claim": {c1.ID}, "summary": {"x"}}, 400},
	}
	for _, tt := range bad {
		t.Run(tt.desc, func(t *testing.T) {
			if p := b.post("/seams", tt.form); p.status != tt.want {
				t.Fatalf("%d, want %d: %s", p.status, tt.want, p.body)
			}
		})
	}
	// A manual seam, as the checker opens for a login-walled host.
	manual, err := f.store.OpenSeam(ctx, "system", ledger.SeamRequest{Kind: evidence.SeamManual, Summary: "the host needs a login; open it by hand", Citations: []string{c2.Citations[0].ID}})
	if err != nil {
		t.Fatal(err)
	}

	p = b.get("/seams")
	for _, want := range []string{
		"Both cannot be true &lt;b&gt;at once&lt;/b&gt;",
		"The Bardo museum &lt;script&gt;", "Tourism accounts for roughly 7%",
		"No primary source names the buyer",
		`<a href="https://data.bank.example/country/tunisia" rel="noopener noreferrer" target="_blank"`,
		`<input type="radio" name="decision" value="contradicted" required> <strong>contradicted</strong>: the claim is contradicted: it is never used</label>`,
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("seams page lacks %q", want)
		}
	}
	assertNoRawMarkup(t, "seams page", p.body)
	// No decision is chosen for the person: the kind's decisions are offered, none checked,
	// one required.
	if !strings.Contains(p.body, `<input type="radio" name="decision" value="found_at_source" required> <strong>found_at_source</strong>: the quote is on the page</label>`) ||
		!strings.Contains(p.body, `<input type="radio" name="decision" value="not_established"> <strong>not_established</strong>`) ||
		regexp.MustCompile(`name="decision"[^>]*checked`).MatchString(p.body) || strings.Contains(p.body, `<input name="decision"`) {
		t.Error("the seam form does not offer the kind's decisions, or preselects one")
	}
	if p := b.post("/seams/"+manual.ID+"/resolve", url.Values{"decision": {""}, "reason": {"sent without choosing"}}); p.status != http.StatusBadRequest {
		t.Errorf("a resolution without a decision: %d", p.status)
	}
	if n := strings.Count(p.body, `<article class="card seam"`); n != 3 {
		t.Fatalf("%d open seams shown, want 3", n)
	}

	// Resolving with htmx swaps in the resolved row.
	p = b.post("/seams/"+manual.ID+"/resolve", url.Values{"decision": {"found_at_source"}, "reason": {"Opened by hand; the quote is in the second paragraph."}}, "HX-Request", "true")
	if p.status != 200 || strings.Contains(p.body, "<html") || !strings.HasPrefix(strings.TrimSpace(p.body), `<article class="card seam" id="seam-`+manual.ID+`"`) ||
		!strings.Contains(p.body, `by user:olga: <strong class="decision">found_at_source</strong> (the quote is on the page)`) || strings.Contains(p.body, "<form") {
		t.Fatalf("resolve fragment: %d %s", p.status, p.body)
	}
	if c, _ := f.store.Claim(ctx, c2.ID); c.Status != evidence.StatusFound {
		t.Fatalf("after the manual decision the claim is %s", c.Status)
	}
	// Errors of an htmx post go to the messages box.
	p = b.post("/seams/"+manual.ID+"/resolve", url.Values{"decision": {"not_found"}, "reason": {"again"}}, "HX-Request", "true")
	if p.status != http.StatusConflict || p.header.Get("HX-Retarget") != "#messages" || !strings.Contains(p.body, `<p class="problem">`) || strings.Contains(p.body, "<html") {
		t.Fatalf("resolving twice: %d %v %s", p.status, p.header, p.body)
	}
	seams, _ := f.store.Seams(ctx, evidence.SeamOpen)
	var absence ledger.SeamView
	for _, sm := range seams {
		if sm.Kind == evidence.SeamAbsence {
			absence = sm
		}
	}
	if p = b.post("/seams/"+absence.ID+"/resolve", url.Values{"decision": {"not_established"}, "reason": {""}}); p.status != http.StatusBadRequest {
		t.Fatalf("resolve without a reason: %d", p.status)
	}
	// A decision that is not of the kind's set is refused.
	if p = b.post("/seams/"+absence.ID+"/resolve", url.Values{"decision": {"accepted as unknown"}, "reason": {"No registry lists it."}}); p.status != http.StatusBadRequest {
		t.Fatalf("resolve with a free-text decision: %d", p.status)
	}
	// Without JS, resolving redirects to the list.
	if p = b.post("/seams/"+absence.ID+"/resolve", url.Values{"decision": {"not_established"}, "reason": {"No registry lists it."}}); p.status != http.StatusSeeOther || p.header.Get("Location") != "/seams" {
		t.Fatalf("resolve without JS: %d", p.status)
	}
	p = b.get("/seams?state=resolved")
	if strings.Count(p.body, `<article class="card seam"`) != 2 || !strings.Contains(p.body, "No registry lists it.") ||
		!strings.Contains(p.body, `<strong class="decision">not_established</strong> (no source of record states it: the claim is not used)`) {
		t.Fatalf("resolved seams: %s", p.body)
	}
	if p = b.get("/seams?state=closed"); p.status != 400 {
		t.Fatalf("bad state: %d", p.status)
	}
	if rep, err := f.store.Audit(ctx); err != nil || !rep.OK {
		t.Fatalf("audit after the page actions: %+v %v", rep, err)
	}
}

func TestSourcesPage(t *testing.T) {
	f := newPageFixture(t, "")
	b := f.browser(t)
	b.signIn("olga", opPassword)
	commitPaste(t, b, hostilePaste)
	p := b.get("/sources")
	if p.status != 200 || !strings.Contains(p.body, "<code>bank.example</code>") || !strings.Contains(p.body, "<code>museum.example</code>") {
		t.Fatalf("sources: %d %s", p.status, p.body)
	}
	p = b.post("/sources/bank.example/classify", url.Values{"class": {"primary"}, "publisher": {"Bank <of> Examples"}}, "HX-Request", "true")
	if p.status != 200 || !strings.HasPrefix(strings.TrimSpace(p.body), `<tr id="bank.example">`) || !strings.Contains(p.body, "Bank &lt;of&gt; Examples") || !strings.Contains(p.body, "by user:olga") {
		t.Fatalf("classify fragment: %d %s", p.status, p.body)
	}
	if p = b.post("/sources/bank.example/classify", url.Values{"class": {"gospel"}}); p.status != 400 {
		t.Fatalf("bad class: %d", p.status)
	}
	if p = b.post("/sources/nowhere.example/classify", url.Values{"class": {"lead"}}); p.status != 404 {
		t.Fatalf("unknown source: %d", p.status)
	}
	if p = b.post("/sources/museum.example/classify", url.Values{"class": {"semi"}}); p.status != http.StatusSeeOther {
		t.Fatalf("classify without JS: %d", p.status)
	}
}

func TestStoredDocumentIsInert(t *testing.T) {
	f := newPageFixture(t, "")
	b := f.browser(t)
	b.signIn("olga", opPassword)
	id := commitPaste(t, b, hostilePaste)
	batch, _ := f.store.Batch(context.Background(), id)
	p := b.get("/documents/" + batch.Paste)
	if p.status != 200 || p.body != hostilePaste {
		t.Fatalf("stored body: %d %q", p.status, p.body)
	}
	for k, v := range map[string]string{"Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox; default-src 'none'"} {
		if got := p.header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if p = b.get("/documents/" + strings.Repeat("0", 64)); p.status != 404 {
		t.Errorf("unknown document: %d", p.status)
	}
	if p = b.get("/documents/not-a-hash"); p.status != 400 {
		t.Errorf("malformed hash: %d", p.status)
	}
}

func TestHighlight(t *testing.T) {
	tests := []struct {
		desc, excerpt, quote string
		want                 string // marked parts in [brackets]
	}{
		{"exact words", "before the museum reopened today after", "the museum reopened", "before [the museum reopened] today after"},
		{"folded quotes and a sentence-initial capital", "He said “Fake News” twice.", `he said "Fake News"`, "[He said “Fake News”] twice."},
		{"ellipsis marks each part", "one two three four five six seven eight nine", "two three four … seven eight nine", "one [two three four] five six [seven eight nine]"},
		{"markup in the page stays text", `a <script>x</script> tag <b>here</b> and more words`, "<b>here</b> and more", `a <script>x</script> tag [<b>here</b> and more] words`},
		{"no match leaves the excerpt unmarked", "nothing to see here at all", "something else entirely", "nothing to see here at all"},
		{"empty excerpt", "", "anything at all here", ""},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			var got strings.Builder
			for _, s := range highlight(tt.excerpt, tt.quote) {
				if s.Mark {
					got.WriteString("[" + s.Text + "]")
				} else {
					got.WriteString(s.Text)
				}
			}
			if got.String() != tt.want {
				t.Fatalf("got %q, want %q", got.String(), tt.want)
			}
		})
	}
}
