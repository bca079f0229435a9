package verify

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
	"evidenceledger/fetch/fetchtest"
)

// The rendering verifier's tests run in a real headless Chromium, one browser for the whole
// package (testRenderer); a missing Chromium fails them.

var shared struct {
	once sync.Once
	r    *Renderer
}

// testRenderer returns the package's one rendering verifier, scripts on, started by the
// first rendering; it fails the test when no Chromium is installed.
func testRenderer(t testing.TB) *Renderer {
	t.Helper()
	if _, err := FindChromium(""); err != nil {
		t.Fatalf("the rendering verifier's tests need Chromium (apt-get install chromium; .ci/run does it): %v", err)
	}
	shared.once.Do(func() { shared.r = NewRenderer(RenderConfig{Scripts: true}) })
	return shared.r
}

// renderSite serves testdata/render at /render/, and /private/hide.css, which its
// robots.txt disallows. It counts every request but those for robots.txt.
type renderSite struct {
	*httptest.Server
	hits    atomic.Int64
	mu      sync.Mutex
	byPath  map[string]int
	sitePre string // "http://render.test:PORT"
}

func newRenderSite(t testing.TB) *renderSite {
	t.Helper()
	s := &renderSite{byPath: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("User-agent: *\nDisallow: /private/\n"))
			return
		}
		s.hits.Add(1)
		s.mu.Lock()
		s.byPath[r.URL.Path]++
		s.mu.Unlock()
		name := strings.TrimPrefix(r.URL.Path, "/render/")
		if r.URL.Path == "/private/hide.css" {
			name = "hide.css"
		}
		body, err := os.ReadFile(filepath.Join("..", "testdata", "render", filepath.Base(name)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		switch {
		case strings.HasSuffix(name, ".css"):
			w.Header().Set("Content-Type", "text/css")
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		w.Write(body)
	}))
	t.Cleanup(s.Close)
	u, _ := url.Parse(s.URL)
	s.sitePre = "http://render.test:" + u.Port()
	return s
}

func (s *renderSite) path(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byPath[p]
}

func renderChecker(t testing.TB, r *Renderer) *Checker {
	t.Helper()
	return NewChecker(fetchtest.Config()).WithRenderer(r)
}

func checkOne(t *testing.T, c *Checker, u, quote string) evidence.Checked {
	t.Helper()
	out, err := c.Check(context.Background(), evidence.CheckTarget{
		ClaimID: "c_0000000000000001", ClaimText: "A claim.", CitationID: "ct_0000000000000001", URL: u, Quote: quote,
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Halted {
		t.Fatalf("halted: %s", out.Note)
	}
	return out.Checked
}

// TestRenderConfirmsWhatAReaderSees checks quotes on pages whose style sheets hide some of
// their text: covered by an opaque box (only layout shows it), pushed off the page by a flex
// row and a transform, hidden by display:none in a linked sheet, and a sheet robots.txt
// disallows (never fetched, so the browser must not apply it either: the text it would hide
// is found). The visible sentences of each page are found and confirmed.
func TestRenderConfirmsWhatAReaderSees(t *testing.T) {
	r := testRenderer(t)
	site := newRenderSite(t)
	c := renderChecker(t, r)
	cases := []struct {
		desc, page, quote string
		found             bool
		why               string // in the note of a quote not found
	}{
		{"covered: the visible sentence", "covered.html", "The council approved the budget for the coming year", true, ""},
		{"covered: the sentence under an opaque box", "covered.html", "The mayor accepted the money from the developer", false, "covered by <div class=\"lid\">"},
		{"off-canvas: the visible sentence", "offcanvas.html", "Ferries run every hour between the islands", true, ""},
		{"off-canvas: the sentence pushed off the page", "offcanvas.html", "The harbour master resigned over the dredging contract", false, "outside the page"},
		{"a linked sheet's display:none", "sheet-hidden.html", "The treasurer admitted the figures had been altered", false, ""},
		{"a linked sheet: the visible sentence", "sheet-hidden.html", "The budget was approved by a narrow majority", true, ""},
		{"a sheet robots.txt disallows is applied by nobody", "robots-sheet.html", "The reading room stays closed for repairs", true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			ch := checkOne(t, c, site.sitePre+"/render/"+tc.page, tc.quote)
			if got := ch.Status == evidence.StatusFound; got != tc.found {
				t.Fatalf("status %s (%s), want found %v", ch.Status, ch.Note, tc.found)
			}
			if tc.found {
				if strings.Contains(ch.Note, evidence.NoteStyleOnly) || strings.Contains(ch.Adjudication.ResidualRisk, evidence.RiskStyleOnly) {
					t.Errorf("a rendered page's note or risk says visibility rests on the style rules alone: %q / %q", ch.Note, ch.Adjudication.ResidualRisk)
				}
				for _, v := range ch.Verdicts {
					if !strings.Contains(v.Reasoning, "drawn where a reader sees them") {
						t.Errorf("%s's reasoning does not say the rendering confirmed the words: %s", v.Verifier, v.Reasoning)
					}
				}
				return
			}
			if ch.Status != evidence.StatusNotFound {
				t.Errorf("status %s, want not_found", ch.Status)
			}
			if tc.why != "" && (!strings.HasPrefix(ch.Note, evidence.NoteUnseen) || !strings.Contains(ch.Note, tc.why)) {
				t.Errorf("note %q does not say %q: %q", ch.Note, evidence.NoteUnseen, tc.why)
			}
		})
	}
	if n := site.path("/private/hide.css"); n != 0 {
		t.Errorf("the sheet robots.txt disallows was requested %d times", n)
	}
	if n := r.Stray()["render.test"] + r.Stray()["127.0.0.1"]; n != 0 {
		t.Errorf("the browser tried to send %d requests of its own to the site", n)
	}
}

// TestRenderMakesNoRequestOfItsOwn renders a capture whose page links a fetched sheet, a
// sheet robots.txt disallows and an image: while the rendering runs, the site gets no
// request and the browser opens no connection.
func TestRenderMakesNoRequestOfItsOwn(t *testing.T) {
	r := testRenderer(t)
	site := newRenderSite(t)
	v := withRender(NewDOMVerifier(fetchtest.Config()), r).(*QuoteVerifier)
	for _, page := range []string{"covered.html", "robots-sheet.html", "scripted.html"} {
		u := site.sitePre + "/render/" + page
		c := v.Capture(context.Background(), u)
		if c.FetchErr != nil {
			t.Fatal(c.FetchErr)
		}
		hits, stray := site.hits.Load(), r.Stray()["render.test"]
		quote := map[string]string{
			"covered.html":      "The meeting closed at nine o'clock after a short debate",
			"robots-sheet.html": "The library will open on Sundays from the first of March",
			"scripted.html":     "The turnout reached sixty-two percent in the northern district",
		}[page]
		rep := v.Judge(context.Background(), evidence.CheckTarget{URL: u, Quote: quote}, c)
		if rep.Result.Verdict != evidence.VerdictSupported || rep.Render == nil || rep.Render.Sight != evidence.SightSeen {
			t.Errorf("%s: %s (%s), want supported and seen", page, rep.Result.Verdict, rep.Note)
		}
		if d := site.hits.Load() - hits; d != 0 {
			t.Errorf("%s: the site got %d requests while the page was rendered", page, d)
		}
		if d := r.Stray()["render.test"] - stray; d != 0 {
			t.Errorf("%s: the browser tried %d requests of its own to the site", page, d)
		}
	}
}

// TestRenderScriptsOn checks a page whose text only a script draws: with scripts on, a
// sentence the script draws is found (both verifiers, each on its own capture), one it
// draws at opacity 0 is not, and one it does not draw is not found. Without a renderer the
// page stays unreachable.
func TestRenderScriptsOn(t *testing.T) {
	r := testRenderer(t)
	site := newRenderSite(t)
	c := renderChecker(t, r)
	u := site.sitePre + "/render/scripted.html"
	ch := checkOne(t, c, u, "The turnout reached sixty-two percent in the northern district")
	if ch.Status != evidence.StatusFound || !strings.Contains(ch.Note, "as its scripts draw it") {
		t.Errorf("the sentence the script draws: %s (%s), want found_at_source as its scripts draw it", ch.Status, ch.Note)
	}
	if ch.Excerpt == "" || !strings.Contains(ch.Excerpt, "sixty-two percent") {
		t.Errorf("excerpt %q", ch.Excerpt)
	}
	ch = checkOne(t, c, u, "The count was stopped twice during the night")
	if ch.Status != evidence.StatusNotFound {
		t.Errorf("the sentence drawn at opacity 0: %s (%s), want not_found", ch.Status, ch.Note)
	}
	ch = checkOne(t, c, u, "The turnout fell to a record low in the south")
	if ch.Status != evidence.StatusNotFound {
		t.Errorf("a sentence the script does not draw: %s (%s), want not_found", ch.Status, ch.Note)
	}
	ch = checkOne(t, NewChecker(fetchtest.Config()), u, "The turnout reached sixty-two percent in the northern district")
	if ch.Status != evidence.StatusUnreachable {
		t.Errorf("without a renderer: %s (%s), want unreachable", ch.Status, ch.Note)
	}
	off := NewRenderer(RenderConfig{})
	t.Cleanup(func() { off.Close() })
	ch = checkOne(t, NewChecker(fetchtest.Config()).WithRenderer(off), u, "The turnout reached sixty-two percent in the northern district")
	if ch.Status != evidence.StatusUnreachable {
		t.Errorf("with scripts off: %s (%s), want unreachable", ch.Status, ch.Note)
	}
}

// TestRenderChromiumAbsent points the renderer at a binary that does not exist: the check
// still runs, and a found quote's note and residual risk say that its visibility rests on
// the style rules alone.
func TestRenderChromiumAbsent(t *testing.T) {
	site := newRenderSite(t)
	r := NewRenderer(RenderConfig{Binary: filepath.Join(t.TempDir(), "no-chromium")})
	t.Cleanup(func() { r.Close() })
	if _, err := r.Available(); err == nil {
		t.Fatal("a binary that does not exist is available")
	}
	c := NewChecker(fetchtest.Config()).WithRenderer(r)
	ch := checkOne(t, c, site.sitePre+"/render/covered.html", "The council approved the budget for the coming year")
	if ch.Status != evidence.StatusFound {
		t.Fatalf("status %s (%s), want found_at_source", ch.Status, ch.Note)
	}
	if !strings.Contains(ch.Note, evidence.NoteStyleOnly) || !strings.Contains(ch.Note, "no-chromium") {
		t.Errorf("note %q does not say that visibility rests on the style rules alone, and why", ch.Note)
	}
	if !strings.Contains(ch.Adjudication.ResidualRisk, evidence.RiskStyleOnly) {
		t.Errorf("residual risk %q does not say it", ch.Adjudication.ResidualRisk)
	}
	// What only layout shows is then not caught: the covered sentence and the one pushed off
	// the page are found (so the style rules alone miss both).
	for _, q := range []struct{ page, quote string }{
		{"covered.html", "The mayor accepted the money from the developer"},
		{"offcanvas.html", "The harbour master resigned over the dredging contract"},
	} {
		ch = checkOne(t, c, site.sitePre+"/render/"+q.page, q.quote)
		if ch.Status != evidence.StatusFound || !strings.Contains(ch.Note, evidence.NoteStyleOnly) {
			t.Errorf("%s without a browser: %s (%s)", q.page, ch.Status, ch.Note)
		}
	}
}

// sightCase is a page, and a sentence of it that the browser must find seen or not.
type sightCase struct {
	desc, html, part string
	seen             bool
}

// TestRenderSight asks the browser directly about one sentence hidden in each way the
// rendering verifier knows (and the same sentence drawn plainly beside look-alikes a reader
// does see), whatever the extractors' style rules make of them.
func TestRenderSight(t *testing.T) {
	r := testRenderer(t)
	const s = "The mayor accepted the money from the developer"
	page := func(body string) string {
		return `<!doctype html><html><head><meta charset="utf-8"><style>body{font:16px serif;background:#fff;color:#111}</style></head><body><p>Some other text of the page, drawn as usual.</p>` + body + `</body></html>`
	}
	cases := []sightCase{
		{"plain", page(`<p>` + s + `.</p>`), s, true},
		{"split over elements", page(`<p>The <b>mayor</b> accepted <a href="#">the money</a> from the developer.</p>`), s, true},
		{"soft hyphen and NBSP", page(`<p>The may&shy;or accepted the&nbsp;money from the developer.</p>`), s, true},
		{"inside q", page(`<p><q>` + s + `</q></p>`), s, true},
		{"grey but readable", page(`<p style="color:#999">` + s + `.</p>`), s, true},
		{"below the fold", page(`<div style="height:5000px"></div><p>` + s + `.</p>`), s, true},
		{"in a scrolling box", page(`<div style="height:60px;overflow:auto"><div style="height:800px"></div><p>` + s + `.</p></div>`), s, true},
		{"under a transparent link overlay", page(`<div style="position:relative"><p>` + s + `.</p><a href="#" style="position:absolute;inset:0"></a></div>`), s, true},
		{"open shadow root", page(`<div><template shadowrootmode="open"><p>` + s + `.</p></template></div>`), s, true},
		{"a hidden copy and a visible one", page(`<p style="display:none">` + s + `.</p><p>` + s + `.</p>`), s, true},
		{"font-size:0", page(`<p style="font-size:0">` + s + `.</p>`), s, false},
		{"font-size:2px", page(`<p style="font-size:2px">` + s + `.</p>`), s, false},
		{"opacity:0", page(`<p style="opacity:0">` + s + `.</p>`), s, false},
		{"opacity on an ancestor", page(`<div style="opacity:0.05"><p>` + s + `.</p></div>`), s, false},
		{"color:transparent", page(`<p style="color:transparent">` + s + `.</p>`), s, false},
		{"text-fill transparent", page(`<p style="-webkit-text-fill-color:transparent">` + s + `.</p>`), s, false},
		{"white on white", page(`<p style="color:#fff">` + s + `.</p>`), s, false},
		{"white on a white box", page(`<div style="background:#fafafa"><p style="color:#fff">` + s + `.</p></div>`), s, false},
		{"left:-9999px", page(`<p style="position:absolute;left:-9999px">` + s + `.</p>`), s, false},
		{"height:0;overflow:hidden", page(`<div style="height:0;overflow:hidden"><p>` + s + `.</p></div>`), s, false},
		{"overflow:hidden, scrolled out", page(`<div style="height:40px;overflow:hidden"><div style="height:400px"></div><p>` + s + `.</p></div>`), s, false},
		{"clip-path:inset(100%)", page(`<p style="clip-path:inset(100%)">` + s + `.</p>`), s, false},
		{"transform:scale(0)", page(`<p style="transform:scale(0)">` + s + `.</p>`), s, false},
		{"transform:scale(0.1)", page(`<p style="transform:scale(0.1)">` + s + `.</p>`), s, false},
		{"visibility:hidden", page(`<p style="visibility:hidden">` + s + `.</p>`), s, false},
		{"visibility:collapse", page(`<table><tr style="visibility:collapse"><td>` + s + `.</td></tr></table>`), s, false},
		{"content-visibility:hidden", page(`<div style="content-visibility:hidden"><p>` + s + `.</p></div>`), s, false},
		{"display:none in a style block", page(`<style>.x{display:/**/none}</style><p class="x">` + s + `.</p>`), s, false},
		{"closed dialog", page(`<dialog><p>` + s + `.</p></dialog>`), s, false},
		{"closed details", page(`<details><summary>More</summary><p>` + s + `.</p></details>`), s, false},
		{"covered by an opaque box", page(`<div style="position:relative"><p>` + s + `.</p><div style="position:absolute;inset:0;background:#fff"></div></div>`), s, false},
		{"covered by a later fixed box", page(`<p>` + s + `.</p><div style="position:fixed;inset:0;background:#fff"></div>`), s, false},
		{"behind its container", page(`<div style="background:#fff"><p style="position:relative;z-index:-1">` + s + `.</p></div>`), s, false},
		{"off the top by a transform", page(`<p style="transform:translateY(-2000px)">` + s + `.</p>`), s, false},
		{"hidden until found", page(`<div hidden="until-found"><p>` + s + `.</p></div>`), s, false},
		{"not on the page at all", page(`<p>The mayor refused the money from the developer.</p>`), s, false},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			p := &fetch.Result{FinalURL: "http://sight.test/page", ContentType: "text/html; charset=utf-8", Body: []byte(tc.html), Status: 200}
			out, err := r.render(context.Background(), sightJob{page: p, parts: [][]string{{tc.part}}})
			if err != nil {
				t.Fatal(err)
			}
			if out[0].Seen != tc.seen {
				t.Errorf("seen %v (%s), want %v", out[0].Seen, out[0].Why, tc.seen)
			}
			if !tc.seen && out[0].Why == "" {
				t.Error("no reason given for words not seen")
			}
		})
	}
}

// TestRenderRootAndBodyNeverHidden: a page that hides its root or body until a script runs
// (frame-busting, fade-ins), or fades its text in, is read as a reader with scripts sees it,
// as the extractors' style rules read it; a paragraph hidden inside it is still hidden.
func TestRenderRootAndBodyNeverHidden(t *testing.T) {
	r := testRenderer(t)
	const s = "The mayor accepted the money from the developer"
	cases := []sightCase{
		{"html{display:none}", `<!doctype html><style>html{display:none}</style><p>` + s + `.</p>`, s, true},
		{"body{visibility:hidden}", `<!doctype html><style>body{visibility:hidden}</style><p>` + s + `.</p>`, s, true},
		{"body{opacity:0} with a transition", `<!doctype html><style>body{opacity:0;transition:opacity 5s}</style><p>` + s + `.</p>`, s, true},
		{"a fade-in animation", `<!doctype html><style>@keyframes in{from{opacity:0}to{opacity:1}} p{animation:in 30s}</style><p>` + s + `.</p>`, s, true},
		{"hidden inside a hidden body", `<!doctype html><style>body{visibility:hidden}.x{display:none}</style><p class="x">` + s + `.</p>`, s, false},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			p := &fetch.Result{FinalURL: "http://sight.test/page", ContentType: "text/html; charset=utf-8", Body: []byte(tc.html), Status: 200}
			out, err := r.render(context.Background(), sightJob{page: p, parts: [][]string{{tc.part}}})
			if err != nil {
				t.Fatal(err)
			}
			if out[0].Seen != tc.seen {
				t.Errorf("seen %v (%s), want %v", out[0].Seen, out[0].Why, tc.seen)
			}
		})
	}
}
