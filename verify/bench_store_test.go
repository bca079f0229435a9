package verify_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// BenchmarkCheck1000Citations checks a batch of 1,000 citations spread over 20 loopback
// hosts end to end: each page a real corpus page (ebb-org.html, 40 KB), both verifiers, the
// adjudicator, and one commit per citation (the page, citation.checked) to a real SQLite
// ledger. 3 in 4 quotes are on the page, which is served with its Content-Length, as a
// static page is. Each round imports a new batch with the timer stopped.
func BenchmarkCheck1000Citations(b *testing.B) {
	page := verify.ReadCorpusPage(b, "ebb-org.html")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(page)))
		w.Write(page)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	const n, hosts = 1000, 20
	claims := make([]evidence.Claim, n)
	for i := range claims {
		quote := "Software Freedom Conservancy"
		if i%4 == 3 {
			quote = "a sentence that the page never held"
		}
		claims[i] = claimOf(claimLabel(i)+".", fmt.Sprintf("http://h%d.test:%s/post/%d", i%hosts, u.Port(), i), quote)
	}
	store, _ := openStore(b)
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		batch := importClaims(b, store, claims...)
		checker := verify.NewChecker(verify.LoopbackFetchConfig())
		b.StartTimer()
		outs, err := verify.RunBatch(ctx, store, checker, "system", batch.ID, false, verify.DefaultWorkers, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if len(outs) != n {
			b.Fatalf("%d outcomes, want %d", len(outs), n)
		}
		cs, err := store.Claims(ctx, ledger.ClaimFilter{Batch: batch.ID, Status: evidence.StatusFound})
		if err != nil {
			b.Fatal(err)
		}
		if len(cs) != n/4*3 {
			b.Fatalf("%d claims found at their source, want %d", len(cs), n/4*3)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "citations/s")
}

// corpusCites returns n (page, quote, found) citations over the 40 corpus pages, n/40 per
// page, cycling through each page's quotes of testdata/quotes/corpus.jsonl (found ones and
// altered ones that are on neither extractor's text).
func corpusCites(tb testing.TB, n int) (pages []string, quotes []string, found []bool) {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "quotes", "corpus.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	type q struct {
		Page, Quote string
		Found       bool
	}
	byPage := map[string][]q{}
	var order []string
	for line := range strings.SplitSeq(strings.TrimSpace(string(raw)), "\n") {
		var c q
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			tb.Fatal(err)
		}
		if _, ok := byPage[c.Page]; !ok {
			order = append(order, c.Page)
		}
		byPage[c.Page] = append(byPage[c.Page], c)
	}
	if len(order) != 40 {
		tb.Fatalf("%d corpus pages with quotes, want 40", len(order))
	}
	for i := range n {
		p := order[i%40]
		c := byPage[p][(i/40)%len(byPage[p])]
		pages, quotes, found = append(pages, p), append(quotes, c.Quote), append(found, c.Found)
	}
	return pages, quotes, found
}

// peakHeap samples the bytes of live heap objects every millisecond until stop is closed and
// returns the highest value seen.
func peakHeap(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// BenchmarkCheckCorpus checks 1,000 citations of the 40 real corpus pages end to end (both
// verifiers, the adjudicator, one commit per citation to a real SQLite ledger), in one run:
//
//   - 40-pages: 25 citations per page, each page at one URL, so a run fetches each page once
//     per verifier and matches 25 quotes against one capture;
//   - 1000-urls: the same pages and quotes, each citation at a URL of its own.
//
// It reports citations/s, requests per distinct URL (robots.txt not counted) and the peak of
// live heap during the run (peak-MB). CITATIONS in the environment changes the count (say
// CITATIONS=10000 for the memory bound of a long run).
func BenchmarkCheckCorpus(b *testing.B) {
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("CITATIONS")); err == nil && v >= 40 {
		n = v / 40 * 40
	}
	pages, quotes, found := corpusCites(b, n)
	bodies := map[string][]byte{}
	for _, p := range pages {
		if bodies[p] == nil {
			bodies[p] = verify.ReadCorpusPage(b, p)
		}
	}
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		requests.Add(1)
		body := bodies[strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")[0]]
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	for _, shape := range []string{"40-pages", "1000-urls"} {
		b.Run(shape, func(b *testing.B) {
			claims := make([]evidence.Claim, n)
			urls := map[string]bool{}
			wantFound := 0
			for i := range claims {
				link := fmt.Sprintf("http://h%d.test:%s/%s", i%20, u.Port(), pages[i])
				if shape == "1000-urls" {
					link += fmt.Sprintf("/%d", i)
				}
				urls[link] = true
				claims[i] = claimOf(claimLabel(i)+".", link, quotes[i])
				if found[i] {
					wantFound++
				}
			}
			store, _ := openStore(b)
			ctx := context.Background()
			var peak uint64
			requests.Store(0)
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				batch := importClaims(b, store, claims...)
				checker := verify.NewChecker(verify.LoopbackFetchConfig())
				runtime.GC()
				stop := make(chan struct{})
				sampled := peakHeap(stop)
				b.StartTimer()
				outs, err := verify.RunBatch(ctx, store, checker, "system", batch.ID, false, verify.DefaultWorkers, nil)
				b.StopTimer()
				close(stop)
				peak = max(peak, <-sampled)
				if err != nil {
					b.Fatal(err)
				}
				if len(outs) != n {
					b.Fatalf("%d outcomes, want %d", len(outs), n)
				}
				cs, err := store.Claims(ctx, ledger.ClaimFilter{Batch: batch.ID, Status: evidence.StatusFound})
				if err != nil {
					b.Fatal(err)
				}
				if len(cs) != wantFound {
					b.Fatalf("%d claims found at their source, want %d", len(cs), wantFound)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "citations/s")
			b.ReportMetric(float64(requests.Load())/float64(len(urls)*b.N), "requests/url")
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
		})
	}
}
