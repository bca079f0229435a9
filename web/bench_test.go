package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// operatorLedger opens a fresh ledger in a temp folder with the operator olga; it is closed
// when the benchmark ends.
func operatorLedger(b *testing.B) *ledger.Store {
	b.Helper()
	ctx := context.Background()
	st, err := ledger.Open(ctx, b.TempDir(), ledger.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if _, err := st.AddUserWithPassword(ctx, "system", "olga", ledger.RoleOperator, opPassword); err != nil {
		b.Fatal(err)
	}
	return st
}

// serveOperator signs olga in and serves st over loopback; it returns the server and her
// session cookie.
func serveOperator(b *testing.B, st *ledger.Store) (*httptest.Server, *http.Cookie) {
	b.Helper()
	sess, err := st.SignIn(context.Background(), "olga", opPassword)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(New(Config{Ledger: st}))
	b.Cleanup(srv.Close)
	return srv, &http.Cookie{Name: sessionCookie, Value: sess.ID}
}

// BenchmarkPages measures whole pages over loopback for a signed-in operator, with a batch
// of 50 claims in the ledger.
func BenchmarkPages(b *testing.B) {
	ctx := context.Background()
	st, err := ledger.Open(ctx, b.TempDir(), ledger.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if _, err := st.AddUserWithPassword(ctx, "system", "olga", ledger.RoleOperator, opPassword); err != nil {
		b.Fatal(err)
	}
	var paste strings.Builder
	for i := range 50 {
		fmt.Fprintf(&paste, "Claim %d: Fact number %d holds for case %d.\nSource: https://site%d.example/page\nQuote: \"a quote long enough to look for %d\"\n\n", i+1, i, i, i%10, i)
	}
	res, err := evidence.ParseResearch(paste.String())
	if err != nil {
		b.Fatal(err)
	}
	batch, err := st.ImportResearch(ctx, "user:olga", []byte(paste.String()), res)
	if err != nil {
		b.Fatal(err)
	}
	sess, err := st.SignIn(ctx, "olga", opPassword)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(New(Config{Ledger: st}))
	defer srv.Close()
	cookie := &http.Cookie{Name: sessionCookie, Value: sess.ID}
	form := url.Values{"text": {paste.String()}, "csrf": {csrfToken(sess.ID)}}.Encode()
	for _, tt := range []struct{ name, method, path, body string }{
		{"preview-50-claims", "POST", "/paste/preview", form},
		{"batch-50-claims", "GET", "/batches/" + batch.ID, ""},
		{"claims-50", "GET", "/claims", ""},
		{"claim", "GET", "/claims/" + batch.Claims[0].ID, ""},
	} {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				req, _ := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
				req.AddCookie(cookie)
				if tt.body != "" {
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				}
				resp, err := srv.Client().Do(req)
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("%s %s: %d", tt.method, tt.path, resp.StatusCode)
				}
			}
		})
	}
}

// BenchmarkClaimsFirstPage100k measures the first page of /claims and /api/claims on a
// ledger of 100,000 claims (100 batches of 1,000), against the same request on a ledger of
// 50 claims, the floor, measured in the same run (the ratio is the metric "x-floor"); also a
// filter no claim matches (the whole list is read to find none) and a page from the middle.
func BenchmarkClaimsFirstPage100k(b *testing.B) {
	type ledgerCase struct {
		srv    *httptest.Server
		cookie *http.Cookie
		token  string
		ids    []string
	}
	open := func(batches, n int) ledgerCase {
		st := operatorLedger(b)
		token, err := st.AddUser(context.Background(), "system", "arno", ledger.RoleAuditor)
		if err != nil {
			b.Fatal(err)
		}
		ids := importClaims(b, st, batches, n)
		srv, cookie := serveOperator(b, st)
		return ledgerCase{srv: srv, cookie: cookie, token: token, ids: ids}
	}
	get := func(b *testing.B, lc ledgerCase, path string) {
		req, _ := http.NewRequest("GET", lc.srv.URL+path, nil)
		req.AddCookie(lc.cookie)
		req.Header.Set("Authorization", "Bearer "+lc.token)
		resp, err := lc.srv.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
	}
	small, big := open(1, 50), open(100, 1000)
	for _, path := range []string{"/claims", "/api/claims", "/claims?status=reported&strength=none", "/api/claims?status=found_at_source", "/api/claims?after=middle"} {
		name := strings.NewReplacer("/", "", "?", "-", "&", "-", "=", "").Replace(path)
		bigPath, smallPath := path, path
		if strings.HasSuffix(path, "middle") {
			bigPath = strings.Replace(path, "middle", big.ids[len(big.ids)/2], 1)
			smallPath = strings.Replace(path, "middle", small.ids[len(small.ids)/2], 1)
		}
		var floor float64
		b.Run(name+"-floor-50", func(b *testing.B) {
			for b.Loop() {
				get(b, small, smallPath)
			}
			floor = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		})
		b.Run(name+"-100k", func(b *testing.B) {
			for b.Loop() {
				get(b, big, bigPath)
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(per/1e6, "ms/page")
			if floor > 0 {
				b.ReportMetric(per/floor, "x-floor")
			}
		})
	}
}
