package verify_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"

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
		claims[i] = claimOf(fmt.Sprintf("Claim %d.", i), fmt.Sprintf("http://h%d.test:%s/post/%d", i%hosts, u.Port(), i), quote)
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
