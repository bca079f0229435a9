package verify

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"evidenceledger/evidence"
)

// BenchmarkRunBatch1000Citations checks 1,000 citations spread over 20 loopback hosts, each
// page a real corpus page (ebb-org.html, 40 KB), through both verifiers and the adjudicator,
// recording into the in-memory store of the tests. It measures fetching, extraction,
// matching and adjudication without the ledger's commits.
func BenchmarkRunBatch1000Citations(b *testing.B) {
	page := readCorpusPage(b, "ebb-org.html")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	const n, hosts = 1000, 20
	targets := make([]evidence.CheckTarget, n)
	for i := range targets {
		quote := "Software Freedom Conservancy"
		if i%4 == 3 {
			quote = "a sentence that the page never held"
		}
		targets[i] = evidence.CheckTarget{
			ClaimID: fmt.Sprintf("c_%016x", i), CitationID: fmt.Sprintf("ct_%016x", i),
			URL:   fmt.Sprintf("http://h%d.test:%s/post/%d", i%hosts, u.Port(), i),
			Quote: quote,
		}
	}
	b.ResetTimer()
	for b.Loop() {
		store := &batchStore{batch: "b_bench", targets: targets, checks: map[string]int{}}
		outs, err := RunBatch(context.Background(), store, NewChecker(testFetchConfig()), "system", store.batch, false, DefaultWorkers, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(outs) != n || len(store.checks) != n {
			b.Fatalf("%d outcomes, %d recorded, want %d", len(outs), len(store.checks), n)
		}
		found := 0
		for _, o := range outs {
			if o.Checked.Status == evidence.StatusFound {
				found++
			}
		}
		if found != n/4*3 {
			b.Fatalf("%d citations found, want %d", found, n/4*3)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "citations/s")
}
