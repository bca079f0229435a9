package verify

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"evidenceledger/fetch"
)

// BenchmarkRenderPhases renders each of the 40 corpus pages once in one tab, asking for all
// the page's corpus quotes in one evaluation, and reports where a rendering's time goes, in
// milliseconds per page: load (navigation, the capture answered through request
// interception, parsing to DOMContentLoaded and two animation frames), sight (render.js)
// and release (back to about:blank). It is the profile the rendering verifier's
// performance work starts from (docs/matching.md, "Rendering figures").
func BenchmarkRenderPhases(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "quotes", "corpus.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	byPage := map[string][][]string{}
	var order []string
	for line := range strings.SplitSeq(strings.TrimSpace(string(raw)), "\n") {
		var c struct{ Page, Quote string }
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			b.Fatal(err)
		}
		if _, ok := byPage[c.Page]; !ok {
			order = append(order, c.Page)
		}
		byPage[c.Page] = append(byPage[c.Page], []string{c.Quote})
	}
	pages := make([]*fetch.Result, len(order))
	for i, p := range order {
		pages[i] = &fetch.Result{FinalURL: "http://corpus.test/" + p, ContentType: "text/html; charset=utf-8", Body: readCorpusPage(b, p)}
	}
	r := NewRenderer(RenderConfig{})
	defer r.Close()
	bctx, err := r.start()
	if err != nil {
		b.Fatalf("the benchmark needs Chromium: %v", err)
	}
	var loadT, sightT, releaseT time.Duration
	b.ResetTimer()
	for range b.N {
		for i, pg := range pages {
			tb, err := r.acquire(context.Background(), bctx)
			if err != nil {
				b.Fatal(err)
			}
			tb.mu.Lock()
			tb.cur = newAnswers(pg, false)
			tb.mu.Unlock()
			t0 := time.Now()
			if err := load(tb.ctx, pg.FinalURL); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			arg, err := json.Marshal(byPage[order[i]])
			if err != nil {
				b.Fatal(err)
			}
			out, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]sight](sightJS+"("+string(arg)+")"))
			if err != nil {
				b.Fatal(err)
			}
			if len(out) != len(byPage[order[i]]) {
				b.Fatalf("%s: %d answers for %d quotes", order[i], len(out), len(byPage[order[i]]))
			}
			t2 := time.Now()
			r.release(tb, true)
			loadT += t1.Sub(t0)
			sightT += t2.Sub(t1)
			releaseT += time.Since(t2)
		}
	}
	per := float64(b.N * len(pages))
	b.ReportMetric(float64(loadT.Milliseconds())/per, "load-ms/page")
	b.ReportMetric(float64(sightT.Milliseconds())/per, "sight-ms/page")
	b.ReportMetric(float64(releaseT.Milliseconds())/per, "release-ms/page")
}
