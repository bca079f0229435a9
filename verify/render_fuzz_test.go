package verify

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
	"evidenceledger/match"
)

// fuzzSentence is the sentence every seed page of testdata/render/fuzz holds, hidden in one
// of the ways a page hides text or drawn where a reader sees it.
const fuzzSentence = "The mayor accepted the money from the developer"

// FuzzRenderFoundIsSeen fuzzes an HTML page and a quote, seeded from testdata/render/fuzz
// (a sentence hidden by display, visibility, font size, opacity, colour, position, clipping,
// scaling, a covering box, its container, a closed <details>, or drawn plainly). Whenever
// the code matcher finds the quote in the text the CSS-applying extractor reads from the
// page, the rendering verifier, in real Chromium, is asked whether the matched span is
// drawn where a reader sees it; when it says it is not, the whole check (both verifiers,
// the rendering, the adjudicator) of the page served on loopback must not sign
// found_at_source. All inputs share one browser (testRenderer).
func FuzzRenderFoundIsSeen(f *testing.F) {
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "render", "fuzz", "*.html"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seeds in testdata/render/fuzz: %v", err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, fuzzSentence)
		f.Add(b, "accepted the money")
	}
	r := testRenderer(f)
	var (
		mu   sync.Mutex
		page []byte
		n    atomic.Int64
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/robots.txt" {
			http.NotFound(w, req)
			return
		}
		mu.Lock()
		body := page
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(body)
	}))
	defer srv.Close()
	port := func() string { u, _ := url.Parse(srv.URL); return u.Port() }()
	f.Fuzz(func(t *testing.T, doc []byte, quote string) {
		const ct = "text/html; charset=utf-8"
		text, err := fetch.ExtractDOM(doc, ct)
		if err != nil {
			return // no text to match in
		}
		pt := match.NewPageText(text.Body).InLanguage(text.Lang)
		m, err := pt.Match(quote)
		if err != nil || !m.Found {
			return
		}
		p := &fetch.Result{FinalURL: "http://fuzz.test/page", ContentType: ct, Body: doc, Status: 200}
		out, err := r.render(context.Background(), sightJob{page: p, parts: [][]string{matchedParts(text.Body, m)}})
		if err != nil {
			if errors.Is(err, errNoBrowser) {
				t.Fatal(err)
			}
			t.Fatalf("the page the extractor reads did not render: %v\n%s", err, doc)
		}
		if out[0].Seen {
			return
		}
		// The extractor's style rules and the rendering disagree: the combined check must
		// side with the rendering.
		mu.Lock()
		page = doc
		mu.Unlock()
		c := renderChecker(t, r)
		u := fmt.Sprintf("http://fuzz.test:%s/page%d", port, n.Add(1))
		res, err := c.Check(context.Background(), evidence.CheckTarget{
			ClaimID: "c_0000000000000001", ClaimText: "A claim.", CitationID: "ct_0000000000000001", URL: u, Quote: quote,
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Checked.Status == evidence.StatusFound {
			t.Fatalf("the rendering does not show %q (%s), yet the check signs found_at_source (%s)\n%s", quote, out[0].Why, res.Checked.Note, doc)
		}
	})
}
