package verify

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"evidenceledger/fetch"
)

func TestZZDebug(t *testing.T) {
	r := testRenderer(t)
	ents, _ := os.ReadDir(corpusPages)
	for _, e := range ents[:12] {
		name := e.Name()
		body := readCorpusPage(t, name)
		p := &fetch.Result{FinalURL: "http://h.test/" + name, ContentType: "text/html; charset=utf-8", Body: body, Status: 200}
		bctx, _ := r.start()
		tb, err := r.acquire(context.Background(), bctx)
		if err != nil {
			t.Fatal(err)
		}
		tb.mu.Lock()
		tb.cur = newAnswers(p, false)
		tb.mu.Unlock()
		t0 := time.Now()
		chromedp.Do(tb.ctx, chromedp.Navigate(p.FinalURL))
		t1 := time.Now()
		out, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]sight](sightJS+`([["the"],["and the"]])`))
		t2 := time.Now()
		t.Logf("%s %dKB: navigate %v, sight %v %v %v", name, len(body)>>10, t1.Sub(t0), t2.Sub(t1), err, len(out))
		r.release(tb, true)
	}
}
