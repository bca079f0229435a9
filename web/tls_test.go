package web

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"evidenceledger/ledger"
)

// TestSessionCookieNamesAndHSTS: over TLS the session cookie is __Host- prefixed (Secure,
// Path=/, no Domain, which browsers require of that prefix) and every answer carries
// Strict-Transport-Security; without TLS the cookie's name carries the port and there is no
// HSTS; a cookie of another port's server is not a session here.
func TestSessionCookieNamesAndHSTS(t *testing.T) {
	ctx := context.Background()
	st, err := ledger.Open(ctx, t.TempDir(), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.AddUserWithPassword(ctx, "system", "olga", ledger.RoleOperator, opPassword); err != nil {
		t.Fatal(err)
	}
	signIn := func(t *testing.T, srv *httptest.Server) (*http.Client, *http.Response) {
		t.Helper()
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Transport: srv.Client().Transport, Jar: jar}
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		resp, err := c.PostForm(srv.URL+"/signin", url.Values{"name": {"olga"}, "password": {opPassword}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-in: %d", resp.StatusCode)
		}
		return c, resp
	}
	t.Run("TLS", func(t *testing.T) {
		srv := httptest.NewTLSServer(New(Config{Ledger: st, TLS: true, Port: "443"}))
		t.Cleanup(srv.Close)
		c, resp := signIn(t, srv)
		cookie := resp.Header.Get("Set-Cookie")
		for _, want := range []string{"__Host-ledger_session=", "Secure", "Path=/", "HttpOnly", "SameSite=Lax"} {
			if !strings.Contains(cookie, want) {
				t.Errorf("Set-Cookie %q lacks %s", cookie, want)
			}
		}
		if strings.Contains(strings.ToLower(cookie), "domain=") {
			t.Errorf("a __Host- cookie with a Domain: %q", cookie)
		}
		for _, path := range []string{"/healthz", "/signin", "/audit", "/api/keys"} {
			r, err := c.Get(srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			r.Body.Close()
			if got := r.Header.Get("Strict-Transport-Security"); got != "max-age=63072000" {
				t.Errorf("%s: Strict-Transport-Security %q", path, got)
			}
			if path == "/audit" && r.StatusCode != http.StatusOK {
				t.Errorf("the __Host- session does not sign in: %d", r.StatusCode)
			}
		}
	})
	t.Run("plain http", func(t *testing.T) {
		srv := httptest.NewServer(New(Config{Ledger: st, Port: "8080"}))
		t.Cleanup(srv.Close)
		c, resp := signIn(t, srv)
		cookie := resp.Header.Get("Set-Cookie")
		if !strings.HasPrefix(cookie, "ledger_session_8080=") {
			t.Errorf("Set-Cookie %q: want the port in the name", cookie)
		}
		r, err := c.Get(srv.URL + "/audit")
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusOK || r.Header.Get("Strict-Transport-Security") != "" {
			t.Errorf("/audit: %d, HSTS %q", r.StatusCode, r.Header.Get("Strict-Transport-Security"))
		}
		// The same session id under another port's cookie name is no session here.
		id := strings.TrimPrefix(strings.SplitN(cookie, ";", 2)[0], "ledger_session_8080=")
		req, _ := http.NewRequest("GET", srv.URL+"/audit", nil)
		req.Header.Set("Cookie", "ledger_session_9090="+id)
		plain := &http.Client{}
		plain.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		r, err = plain.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusSeeOther {
			t.Errorf("another port's cookie signed in: %d", r.StatusCode)
		}
	})
}
