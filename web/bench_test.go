package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

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
