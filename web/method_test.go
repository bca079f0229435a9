package web

import (
	"net/url"
	"strings"
	"testing"
)

// TestWrongMethod checks that a path answered for other methods gives 405 with an Allow
// header, on the API and on the pages, and that an unknown path stays a 404.
func TestWrongMethod(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		desc, method, path string
		status             int
		allow              string
	}{
		{"API write route read with GET", "GET", "/api/research", 405, "POST"},
		{"API read route posted to", "POST", "/api/audit", 405, "GET"},
		{"API route with a path value", "DELETE", "/api/claims/c_0000000000000000", 405, "GET"},
		{"API route that takes both", "PUT", "/api/seams", 405, "GET, POST"},
		{"unknown API path", "GET", "/api/nothing", 404, ""},
		{"page posted to", "POST", "/audit", 405, "GET"},
		{"form route read with GET", "GET", "/signout", 405, "POST"},
		{"unknown page", "POST", "/no/such/page", 404, ""},
	} {
		t.Run(tt.desc, func(t *testing.T) {
			status, body, h := f.do(t, tt.method, tt.path, "Bearer "+f.operator)
			if status != tt.status || h.Get("Allow") != tt.allow {
				t.Fatalf("%s %s: %d, Allow %q; want %d, Allow %q (%s)", tt.method, tt.path, status, h.Get("Allow"), tt.status, tt.allow, body)
			}
			if tt.status == 405 && !strings.Contains(string(body), "use "+strings.ReplaceAll(tt.allow, ", ", " or ")) {
				t.Errorf("the answer does not say which method to use: %s", body)
			}
		})
	}
}

// TestMultipartFormRefused checks that a form sent as multipart/form-data (the pages never
// send one) is refused with 415 and told how to send it, not taken for a forged request.
func TestMultipartFormRefused(t *testing.T) {
	f := newPageFixture(t, "")
	b := f.browser(t)
	b.signIn("olga", opPassword)
	for _, path := range []string{"/paste", "/signin"} {
		p := b.post(path, url.Values{"text": {"x"}}, "Content-Type", "multipart/form-data; boundary=xyz")
		if p.status != 415 || !strings.Contains(p.body, "application/x-www-form-urlencoded") {
			t.Errorf("POST %s as multipart: %d %s", path, p.status, p.body)
		}
	}
}
