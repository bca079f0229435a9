package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkBatchPage10k measures the batch page and its progress poll (the htmx fragment
// the page polls every second while a check runs) on a batch of 10,000 claims, against the
// same requests on a batch of 50 claims, the floor, in the same run (the ratio is the metric
// "x-floor"). The page shows one page of claims and counts over the whole batch.
func BenchmarkBatchPage10k(b *testing.B) {
	type batchCase struct {
		srv    *httptest.Server
		cookie *http.Cookie
		batch  string
	}
	open := func(n int) batchCase {
		st := operatorLedger(b)
		importClaims(b, st, 1, n)
		bs, err := st.Batches(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		srv, cookie := serveOperator(b, st)
		return batchCase{srv: srv, cookie: cookie, batch: bs[0].ID}
	}
	get := func(b *testing.B, bc batchCase, query string, htmx bool) {
		req, _ := http.NewRequest("GET", bc.srv.URL+"/batches/"+bc.batch+query, nil)
		req.AddCookie(bc.cookie)
		if htmx {
			req.Header.Set("HX-Request", "true")
		}
		resp, err := bc.srv.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("GET /batches/%s%s: %d", bc.batch, query, resp.StatusCode)
		}
	}
	small, big := open(50), open(10000)
	for _, tt := range []struct {
		name, query string
		htmx        bool
	}{
		{"page", "", false},
		{"poll", "?job=j_0123456789abcdef", true},
	} {
		var floor float64
		b.Run(tt.name+"-floor-50", func(b *testing.B) {
			for b.Loop() {
				get(b, small, tt.query, tt.htmx)
			}
			floor = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		})
		b.Run(tt.name+"-10k", func(b *testing.B) {
			for b.Loop() {
				get(b, big, tt.query, tt.htmx)
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(per/1e6, "ms/page")
			if floor > 0 {
				b.ReportMetric(per/floor, "x-floor")
			}
		})
	}
}
