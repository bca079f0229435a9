package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
)

// sheetSite is a site that serves the pages and style sheets given, and counts the
// requests for each path.
type sheetSite struct {
	*site
	mu   sync.Mutex
	hits map[string]int
}

func newSheetSite(t *testing.T, robots string, files map[string]string) *sheetSite {
	t.Helper()
	var rob http.HandlerFunc
	if robots != "" {
		rob = robotsText(robots)
	}
	s := &sheetSite{site: newSite(t, rob), hits: map[string]int{}}
	for path, body := range files {
		s.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			s.mu.Lock()
			s.hits[path]++
			s.mu.Unlock()
			switch {
			case strings.HasPrefix(body, "redirect:"):
				http.Redirect(w, r, strings.TrimPrefix(body, "redirect:"), http.StatusFound)
				return
			case strings.HasSuffix(path, ".css"):
				w.Header().Set("Content-Type", "text/css")
			case strings.HasSuffix(path, ".txt"):
				w.Header().Set("Content-Type", "text/plain")
			default:
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
			}
			fmt.Fprint(w, body)
		})
	}
	return s
}

func (s *sheetSite) hit(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// sheetPage is a page whose sentence the linked or imported sheets may hide.
func sheetPage(head, body string) string {
	return `<!doctype html><html><head>` + head + `</head><body><p>Seen by all.</p>` + body + `</body></html>`
}

// fetchRead fetches u and reads it with both extractors.
func fetchRead(t *testing.T, f *Fetcher, u string) (*Result, []Text, []error) {
	t.Helper()
	res, err := f.Fetch(context.Background(), u)
	if err != nil {
		t.Fatalf("fetch %s: %v", u, err)
	}
	var texts []Text
	var errs []error
	for _, x := range extractors {
		txt, err := res.Extract(x.fn)
		if err != nil && !errors.Is(err, ErrTruncated) {
			t.Fatalf("%s: %v", x.name, err)
		}
		texts, errs = append(texts, txt), append(errs, err)
	}
	return res, texts, errs
}

func TestFetchAppliesLinkedSheets(t *testing.T) {
	s := newSheetSite(t, "User-agent: *\nDisallow: /closed/\n", map[string]string{
		"/page":              sheetPage(`<link rel="stylesheet" href="/css/site.css"><link rel=stylesheet href="/closed/x.css"><link rel="stylesheet" href="/css/plain.txt">`, `<p class="a">`+hiddenSentence+`.</p><p class="b">Sentence b.</p><p class="c">Sentence c.</p>`),
		"/css/site.css":      ".a { display: none }",
		"/closed/x.css":      ".b { display: none }",
		"/css/plain.txt":     ".c { display: none }",
		"/moved":             sheetPage(`<link rel="stylesheet" href="/css/old.css"><link rel="stylesheet" href="/css/to-closed.css">`, `<p class="a">`+hiddenSentence+`.</p><p class="b">Sentence b.</p>`),
		"/css/old.css":       "redirect:/css/site.css",
		"/css/to-closed.css": "redirect:/closed/x.css",
	})
	f := New(testConfig())
	base := "http://" + s.host("site.test")

	res, texts, _ := fetchRead(t, f, base+"/page")
	for i, txt := range texts {
		if strings.Contains(txt.Body, "mayor accepted") {
			t.Errorf("%s: the linked sheet is not applied: %q", extractors[i].name, txt.Body)
		}
		if !strings.Contains(txt.Body, "Sentence b.") {
			t.Errorf("%s: a sheet robots.txt closes is applied: %q", extractors[i].name, txt.Body)
		}
		if !strings.Contains(txt.Body, "Sentence c.") {
			t.Errorf("%s: a sheet served as text/plain is applied: %q", extractors[i].name, txt.Body)
		}
	}
	if s.hit("/closed/x.css") != 0 {
		t.Error("a sheet robots.txt closes was requested")
	}
	if len(res.Sheets) != 3 || res.Sheets[0].Err != nil || KindOf(res.Sheets[1].Err) != KindRobots || KindOf(res.Sheets[2].Err) != KindUnsupportedType {
		t.Fatalf("sheets = %+v", res.Sheets)
	}
	if h := res.Sheets[0].Hops; len(h) != 1 || h[0].Status != 200 {
		t.Errorf("the sheet's hops = %+v", h)
	}
	// Read alone, the body does not know the sheet.
	if txt, _ := ExtractDOM(res.Body, res.ContentType); !strings.Contains(txt.Body, hiddenSentence) {
		t.Errorf("read alone, the page applies a sheet it cannot know: %q", txt.Body)
	}

	// A redirect is followed and checked hop by hop, as for a page.
	res, texts, _ = fetchRead(t, f, base+"/moved")
	for i, txt := range texts {
		if strings.Contains(txt.Body, "mayor accepted") || !strings.Contains(txt.Body, "Sentence b.") {
			t.Errorf("%s: body = %q", extractors[i].name, txt.Body)
		}
	}
	if len(res.Sheets) != 2 || res.Sheets[0].FinalURL != base+"/css/site.css" || len(res.Sheets[0].Hops) != 2 || KindOf(res.Sheets[1].Err) != KindRobots {
		t.Errorf("sheets = %+v", res.Sheets)
	}
}

func TestFetchSheetAddressGuard(t *testing.T) {
	s := newSheetSite(t, "", map[string]string{
		"/page": sheetPage(`<link rel="stylesheet" href="http://evil.test/x.css">`, `<p class="a">`+hiddenSentence+`.</p>`),
	})
	cfg := testConfig()
	cfg.Resolver = testResolver{evil: netip.MustParseAddr("10.0.0.7")}
	res, texts, _ := fetchRead(t, New(cfg), "http://"+s.host("site.test")+"/page")
	if len(res.Sheets) != 1 || KindOf(res.Sheets[0].Err) != KindBlockedAddress {
		t.Fatalf("sheets = %+v", res.Sheets)
	}
	for i, txt := range texts {
		if !strings.Contains(txt.Body, hiddenSentence) {
			t.Errorf("%s: body = %q", extractors[i].name, txt.Body)
		}
	}
}

// TestFetchSheetImports: @import is followed one level deep, from <style> elements and
// linked sheets; an imported sheet's own imports are neither fetched nor applied.
func TestFetchSheetImports(t *testing.T) {
	s := newSheetSite(t, "", map[string]string{
		"/page": sheetPage(`<style>@import url("/css/a.css"); .z{color:red}</style><link rel="stylesheet" href="/css/l.css">`,
			`<p class="a">`+hiddenSentence+`.</p><p class="l">Hidden by an import of a link.</p><p class="b">Sentence b.</p>`),
		"/css/a.css":  `@charset "utf-8"; @import "b.css"; .a { display: none }`,
		"/css/b.css":  `.b { display: none }`,
		"/css/l.css":  `@import url(l2.css) screen; .x { color: red }`,
		"/css/l2.css": `.l { display: none }`,
	})
	res, texts, _ := fetchRead(t, New(testConfig()), "http://"+s.host("site.test")+"/page")
	for i, txt := range texts {
		if strings.Contains(txt.Body, "mayor accepted") || strings.Contains(txt.Body, "Hidden by an import") || !strings.Contains(txt.Body, "Sentence b.") {
			t.Errorf("%s: body = %q", extractors[i].name, txt.Body)
		}
	}
	if s.hit("/css/b.css") != 0 {
		t.Error("an import of an imported sheet was fetched")
	}
	if len(res.Sheets) != 3 {
		t.Errorf("sheets = %+v", res.Sheets)
	}
}

// TestFetchSheetLimits: MaxSheets sheets are fetched and applied; the next is not fetched,
// and the text comes with ErrTruncated. A sheet of MaxSheetBytes is read whole; a longer
// one is cut, applied as far as it goes, with ErrTruncated.
func TestFetchSheetLimits(t *testing.T) {
	files := map[string]string{}
	links := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `<link rel="stylesheet" href="/css/%d.css">`, i)
			files[fmt.Sprintf("/css/%d.css", i)] = fmt.Sprintf(".s%d { display: none }", i)
		}
		return b.String()
	}
	atLimit := links(MaxSheets)
	pastLimit := links(MaxSheets + 1)
	last := fmt.Sprintf("s%d", MaxSheets-1)
	files["/at"] = sheetPage(atLimit, `<p class="`+last+`">`+hiddenSentence+`.</p>`)
	files["/past"] = sheetPage(pastLimit, fmt.Sprintf(`<p class="s%d">Sentence past.</p>`, MaxSheets))
	big := ".big { display: none }"
	files["/css/exact.css"] = big + strings.Repeat(" ", MaxSheetBytes-len(big))
	files["/css/long.css"] = big + strings.Repeat(" ", MaxSheetBytes-len(big)) + ".cut { display: none }"
	files["/exact"] = sheetPage(`<link rel="stylesheet" href="/css/exact.css">`, `<p class="big">`+hiddenSentence+`.</p>`)
	files["/long"] = sheetPage(`<link rel="stylesheet" href="/css/long.css">`, `<p class="big">`+hiddenSentence+`.</p><p class="cut">Sentence cut.</p>`)
	s := newSheetSite(t, "", files)
	f := New(testConfig())
	base := "http://" + s.host("site.test")

	res, texts, errs := fetchRead(t, f, base+"/at")
	for i := range texts {
		if errs[i] != nil || strings.Contains(texts[i].Body, "mayor accepted") {
			t.Errorf("%s at the limit: %q, %v", extractors[i].name, texts[i].Body, errs[i])
		}
	}
	if len(res.Sheets) != MaxSheets {
		t.Errorf("%d sheets at the limit", len(res.Sheets))
	}

	res, texts, errs = fetchRead(t, f, base+"/past")
	if n := len(res.Sheets); n != MaxSheets+1 || !res.Sheets[n-1].Capped {
		t.Fatalf("past the limit: %d sheets, the last %+v", n, res.Sheets[n-1])
	}
	if s.hit(fmt.Sprintf("/css/%d.css", MaxSheets)) != 0 {
		t.Error("a sheet past the limit was requested")
	}
	for i := range texts {
		if !errors.Is(errs[i], ErrTruncated) || !strings.Contains(texts[i].Body, "Sentence past.") {
			t.Errorf("%s past the limit: %q, %v", extractors[i].name, texts[i].Body, errs[i])
		}
	}

	res, texts, errs = fetchRead(t, f, base+"/exact")
	for i := range texts {
		if errs[i] != nil || res.Sheets[0].Truncated || strings.Contains(texts[i].Body, "mayor accepted") {
			t.Errorf("%s, a sheet of MaxSheetBytes: %q, %v", extractors[i].name, texts[i].Body, errs[i])
		}
	}
	res, texts, errs = fetchRead(t, f, base+"/long")
	for i := range texts {
		if !errors.Is(errs[i], ErrTruncated) || !res.Sheets[0].Truncated || strings.Contains(texts[i].Body, "mayor accepted") || !strings.Contains(texts[i].Body, "Sentence cut.") {
			t.Errorf("%s, a sheet past MaxSheetBytes: %q, %v", extractors[i].name, texts[i].Body, errs[i])
		}
	}
}

// TestCSSLimits: the CSS of a page is parsed up to maxCSSBytes and maxSelectors; at the
// limit all of it applies, past it the rest does not and the text comes with ErrTruncated.
func TestCSSLimits(t *testing.T) {
	rule := ".hide { display: none }"
	bytesPage := func(n int) []byte {
		return []byte(`<style>` + rule + strings.Repeat(" ", n-len(rule)) + `</style><p>Seen.</p><p class="hide">` + hiddenSentence + `</p>`)
	}
	selectorsPage := func(n int) []byte {
		var b strings.Builder
		b.WriteString("<style>")
		for i := range n - 1 {
			fmt.Fprintf(&b, ".c%d,", i)
		}
		b.WriteString(".hide { display: none }</style><p>Seen.</p><p class=\"hide\">" + hiddenSentence + "</p>")
		return []byte(b.String())
	}
	for _, tc := range []struct {
		desc    string
		body    []byte
		cut     bool
		visible bool
	}{
		{"CSS of maxCSSBytes", bytesPage(maxCSSBytes), false, false},
		{"CSS past maxCSSBytes", bytesPage(maxCSSBytes + 1), true, true},
		{"maxSelectors selectors", selectorsPage(maxSelectors), false, false},
		{"more than maxSelectors selectors", selectorsPage(maxSelectors + 1), true, true},
	} {
		for _, x := range extractors {
			t.Run(tc.desc+"/"+x.name, func(t *testing.T) {
				got, err := x.fn(tc.body, "text/html")
				if errors.Is(err, ErrTruncated) != tc.cut || err != nil && !errors.Is(err, ErrTruncated) {
					t.Fatalf("error = %v, want cut %v", err, tc.cut)
				}
				if strings.Contains(got.Body, hiddenSentence) != tc.visible {
					t.Errorf("body = %q", got.Body)
				}
			})
		}
	}
}

// TestFetchSheetFailures: a sheet that does not exist is left out, as a browser leaves it
// out; one the server fails to give (5xx) cuts the styles short: the text comes with
// ErrTruncated, since a reader's browser would most likely have had it.
func TestFetchSheetFailures(t *testing.T) {
	s := newSheetSite(t, "", map[string]string{
		"/gone":    sheetPage(`<link rel="stylesheet" href="/css/none.css">`, `<p>`+hiddenSentence+`.</p>`),
		"/failing": sheetPage(`<link rel="stylesheet" href="/css/busy.css">`, `<p>`+hiddenSentence+`.</p>`),
	})
	s.mux.HandleFunc("/css/busy.css", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	})
	f := New(testConfig())
	base := "http://" + s.host("site.test")
	res, _, errs := fetchRead(t, f, base+"/gone")
	if KindOf(res.Sheets[0].Err) != KindGone || errs[0] != nil || errs[1] != nil {
		t.Errorf("a missing sheet: %+v, %v", res.Sheets, errs)
	}
	res, texts, errs := fetchRead(t, f, base+"/failing")
	for i := range texts {
		if KindOf(res.Sheets[0].Err) != KindHTTPStatus || !errors.Is(errs[i], ErrTruncated) || !strings.Contains(texts[i].Body, hiddenSentence) {
			t.Errorf("%s, a failing sheet: %+v, %q, %v", extractors[i].name, res.Sheets, texts[i].Body, errs[i])
		}
	}
}
