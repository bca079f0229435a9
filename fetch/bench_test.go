package fetch

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func BenchmarkExtractLargest(b *testing.B) {
	body := readCorpus(b, "yahoo-3.html")
	for _, x := range extractors {
		b.Run(x.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := x.fn(body, "text/html"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExtractCorpus reads every page of the corpus once per iteration, with each
// extractor: the cost of a check's text extraction over real pages, style sheets included.
func BenchmarkExtractCorpus(b *testing.B) {
	var pages [][]byte
	total := 0
	for _, p := range corpusPages(b) {
		body, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, body)
		total += len(body)
	}
	for _, x := range extractors {
		b.Run(x.name, func(b *testing.B) {
			b.SetBytes(int64(total))
			b.ReportAllocs()
			for b.Loop() {
				for _, body := range pages {
					if _, err := x.fn(body, "text/html"); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkFetch500 fetches 500 pages spread over 20 loopback hosts, without politeness
// delay, each with the two style sheets it links (20 KB each), and reports pages per second
// and the peak heap in use.
func BenchmarkFetch500(b *testing.B) {
	const hosts, pages = 20, 500
	body := readCorpus(b, "wikipedia.html")
	sheet := []byte(strings.Repeat(".mw-body { color: #202122 } .noprint { display: none }\n", 400))
	var sites []*site
	for range hosts {
		s := newSite(b, robotsText("User-agent: *\nDisallow: /private\n"))
		s.mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(body)
		})
		// The page links two style sheets there.
		s.mux.HandleFunc("/w/load.php", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/css")
			w.Write(sheet)
		})
		sites = append(sites, s)
	}
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
				runtime.ReadMemStats(&ms)
				for p := peak.Load(); ms.HeapInuse > p && !peak.CompareAndSwap(p, ms.HeapInuse); p = peak.Load() {
				}
			}
		}
	}()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		cfg := testConfig()
		cfg.Concurrency = 16
		f := New(cfg)
		var wg sync.WaitGroup
		sem := make(chan struct{}, 32)
		for i := range pages {
			s := sites[i%hosts]
			u := fmt.Sprintf("http://%s/page/%d", s.host(fmt.Sprintf("h%d.test", i%hosts)), i)
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				if _, err := f.Fetch(context.Background(), u); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
	}
	elapsed := time.Since(start)
	close(stop)
	b.ReportMetric(float64(pages*b.N)/elapsed.Seconds(), "pages/s")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
}
