package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"evidenceledger/ledger"
)

// pageFixture is a server with an operator and an auditor who both have passwords.
type pageFixture struct {
	srv   *httptest.Server
	store *ledger.Store
}

const (
	opPassword = "olga's long password"
	auPassword = "arno's long password"
)

func newPageFixture(t *testing.T, setupToken string) pageFixture {
	t.Helper()
	ctx := context.Background()
	st, err := ledger.Open(ctx, t.TempDir(), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if setupToken == "" {
		if _, err := st.AddUserWithPassword(ctx, "system", "olga", ledger.RoleOperator, opPassword); err != nil {
			t.Fatal(err)
		}
		if _, err := st.AddUserWithPassword(ctx, "system", "arno", ledger.RoleAuditor, auPassword); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(New(Config{Ledger: st, SetupToken: setupToken}))
	t.Cleanup(srv.Close)
	return pageFixture{srv: srv, store: st}
}

// browser is a cookie-keeping client that does not follow redirects.
type browser struct {
	t      *testing.T
	base   string
	client *http.Client
	csrf   string
}

func (f pageFixture) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: f.srv.URL, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// page is one answer.
type page struct {
	status int
	body   string
	header http.Header
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([A-Za-z0-9_-]+)"`)

func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if m := csrfInput.FindSubmatch(body); m != nil {
		b.csrf = string(m[1])
	}
	return page{resp.StatusCode, string(body), resp.Header}
}

func (b *browser) get(path string, hdr ...string) page {
	b.t.Helper()
	req, _ := http.NewRequest("GET", b.base+path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return b.do(req)
}

// post sends a form; the session's CSRF token is added unless the form has a "csrf" entry.
func (b *browser) post(path string, form url.Values, hdr ...string) page {
	b.t.Helper()
	if _, ok := form["csrf"]; !ok && b.csrf != "" {
		form.Set("csrf", b.csrf)
	}
	req, _ := http.NewRequest("POST", b.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return b.do(req)
}

func (b *browser) signIn(name, password string) {
	b.t.Helper()
	p := b.post("/signin", url.Values{"name": {name}, "password": {password}, "next": {"/audit"}})
	if p.status != http.StatusSeeOther {
		b.t.Fatalf("sign in as %s: %d %s", name, p.status, p.body)
	}
	b.get("/audit") // picks up the CSRF token
}

func TestSignInAndOut(t *testing.T) {
	f := newPageFixture(t, "")
	b := f.browser(t)

	p := b.get("/audit?run=1")
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/signin?next=%2Faudit%3Frun%3D1" {
		t.Fatalf("a page without a session: %d %q", p.status, p.header.Get("Location"))
	}
	p = b.get("/audit", "HX-Request", "true")
	if p.status != http.StatusUnauthorized || !strings.HasPrefix(p.header.Get("HX-Redirect"), "/signin?next=") {
		t.Fatalf("an htmx request without a session: %d %v", p.status, p.header)
	}
	p = b.get("/signin?next=/audit")
	if p.status != 200 || !strings.Contains(p.body, `name="next" value="/audit"`) {
		t.Fatalf("sign-in form: %d %s", p.status, p.body)
	}

	refused := []struct{ desc, name, password string }{
		{"wrong password", "olga", "OLGA'S LONG PASSWORD"},
		{"unknown name", "mallory", opPassword},
		{"empty form", "", ""},
	}
	for _, tt := range refused {
		t.Run(tt.desc, func(t *testing.T) {
			p := b.post("/signin", url.Values{"name": {tt.name}, "password": {tt.password}})
			if p.status != http.StatusUnauthorized || !strings.Contains(p.body, "The name or the password is wrong") || p.header.Get("Set-Cookie") != "" {
				t.Fatalf("%d %v %s", p.status, p.header, p.body)
			}
		})
	}

	p = b.post("/signin", url.Values{"name": {"olga"}, "password": {opPassword}, "next": {"//evil.example/x"}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/" {
		t.Fatalf("sign-in with a foreign next: %d %q", p.status, p.header.Get("Location"))
	}
	cookie := p.header.Get("Set-Cookie")
	for _, want := range []string{"ledger_session=", "HttpOnly", "Secure", "SameSite=Lax", "Path=/"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("session cookie %q lacks %s", cookie, want)
		}
	}
	// The Secure cookie comes back over http://127.0.0.1: a loopback host is a secure context.
	p = b.get("/audit")
	if p.status != 200 || !strings.Contains(p.body, "olga") || b.csrf == "" {
		t.Fatalf("audit page after sign-in: %d", p.status)
	}
	p = b.post("/signout", url.Values{})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/signin" || !strings.Contains(p.header.Get("Set-Cookie"), "Max-Age=0") {
		t.Fatalf("sign out: %d %v", p.status, p.header)
	}
	if p = b.get("/audit"); p.status != http.StatusSeeOther {
		t.Fatalf("audit after sign-out: %d", p.status)
	}
}

// TestEveryCookieIsSecure sends every kind of request that sets a cookie, over plain http to
// 127.0.0.1 (and once behind a proxy that says https), and checks each Set-Cookie's attributes.
func TestEveryCookieIsSecure(t *testing.T) {
	const setupToken = "the-one-time-setup-token"
	stale := "ledger_session=stale-or-forged-session-id"
	tests := []struct {
		desc     string
		setup    string // the fixture's first-run token; empty for a ledger with users
		signedIn bool
		method   string
		path     string
		form     url.Values
		header   []string // name, value pairs
		status   int
	}{
		{"sign-in", "", false, "POST", "/signin", url.Values{"name": {"olga"}, "password": {opPassword}}, nil, http.StatusSeeOther},
		{"sign-in behind an https proxy", "", false, "POST", "/signin", url.Values{"name": {"olga"}, "password": {opPassword}},
			[]string{"X-Forwarded-Proto", "https"}, http.StatusSeeOther},
		{"sign-out", "", true, "POST", "/signout", url.Values{}, nil, http.StatusSeeOther},
		{"first run signs the new operator in", setupToken, false, "POST", "/setup",
			url.Values{"token": {setupToken}, "name": {"olga"}, "password": {opPassword}, "password2": {opPassword}}, nil, http.StatusCreated},
		{"a page with a stale session clears it", "", false, "GET", "/batches", nil, []string{"Cookie", stale}, http.StatusSeeOther},
		{"an htmx request with a stale session clears it", "", false, "GET", "/batches", nil,
			[]string{"Cookie", stale, "HX-Request", "true"}, http.StatusUnauthorized},
		{"a post with a stale session clears it", "", false, "POST", "/paste", url.Values{"text": {"x"}}, []string{"Cookie", stale}, http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			b := newPageFixture(t, tt.setup).browser(t)
			if tt.signedIn {
				b.signIn("olga", opPassword)
			}
			var p page
			if tt.method == "GET" {
				p = b.get(tt.path, tt.header...)
			} else {
				p = b.post(tt.path, tt.form, tt.header...)
			}
			if p.status != tt.status {
				t.Fatalf("status %d, want %d: %s", p.status, tt.status, p.body)
			}
			lines := p.header.Values("Set-Cookie")
			if len(lines) == 0 {
				t.Fatal("no cookie was set")
			}
			for _, line := range lines {
				c, err := http.ParseSetCookie(line)
				if err != nil {
					t.Fatalf("Set-Cookie %q: %v", line, err)
				}
				if !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" {
					t.Errorf("Set-Cookie %q: want Secure, HttpOnly, SameSite=Lax, Path=/", line)
				}
			}
		})
	}
}

func TestSecurityHeadersAndStatic(t *testing.T) {
	f := newPageFixture(t, "")
	b := f.browser(t)
	p := b.get("/signin")
	want := map[string]string{
		"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
		"X-Content-Type-Options":  "nosniff",
		"X-Frame-Options":         "DENY",
		"Referrer-Policy":         "no-referrer",
		"Cache-Control":           "no-store",
	}
	for k, v := range want {
		if got := p.header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if strings.Contains(p.body, "<script>") || strings.Contains(p.body, "style=") || strings.Contains(p.body, " on") && regexp.MustCompile(` on[a-z]+=`).MatchString(p.body) {
		t.Error("the page has inline script, inline style or an event handler attribute")
	}
	if !strings.Contains(p.body, `"includeIndicatorStyles":false`) {
		t.Error("htmx is not told to leave out its inline indicator style")
	}
	m := regexp.MustCompile(`src="(/static/htmx\.min\.js\?v=[0-9a-f]{16})"`).FindStringSubmatch(p.body)
	if m == nil {
		t.Fatal("no hashed htmx URL in the page")
	}
	js := b.get(m[1])
	vendored, _ := staticFS.ReadFile("static/htmx.min.js")
	if js.status != 200 || js.body != string(vendored) || js.header.Get("Cache-Control") != "public, max-age=31536000, immutable" || !strings.HasPrefix(js.header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("htmx: %d %v", js.status, js.header)
	}
	if stale := b.get("/static/htmx.min.js?v=0000"); stale.header.Get("Cache-Control") != "no-cache" {
		t.Errorf("a stale version is cached: %q", stale.header.Get("Cache-Control"))
	}
	for _, path := range []string{"/static/nothing.js", "/static/update-htmx.sh", "/static/htmx.min.js.sha256"} {
		if p := b.get(path); p.status != 404 {
			t.Errorf("GET %s: %d", path, p.status)
		}
	}
	if p := b.get("/no/such/page"); p.status != 404 || !strings.Contains(p.body, "there is no page at /no/such/page") {
		t.Errorf("unknown page: %d", p.status)
	}
}

func TestAuditPage(t *testing.T) {
	f := newPageFixture(t, "")
	b := f.browser(t)
	b.signIn("arno", auPassword)
	p := b.get("/audit")
	if p.status != 200 || !strings.Contains(p.body, "Not run yet") || !strings.Contains(p.body, "Ed25519") {
		t.Fatalf("audit page: %d %s", p.status, p.body)
	}
	// An auditor cannot paste: the menu offers no link that would answer 403.
	if strings.Contains(p.body, `href="/paste"`) {
		t.Error("an auditor's menu links to /paste, which refuses auditors")
	}
	if q := b.get("/paste"); q.status != 403 {
		t.Errorf("GET /paste as an auditor: %d, want 403", q.status)
	}
	p = b.get("/audit?run=1")
	if !strings.Contains(p.body, "The chain holds.") || !strings.Contains(p.body, `<dd id="audit-events">3</dd>`) || !strings.Contains(p.body, "<html") ||
		!strings.Contains(p.body, `<dd id="audit-kind">full: every signature verified`) || !strings.Contains(p.body, `<dd id="audit-last-full">this one</dd>`) {
		t.Fatalf("audit run without JS: %s", p.body)
	}
	p = b.get("/audit?run=1", "HX-Request", "true")
	if !strings.HasPrefix(strings.TrimSpace(p.body), `<section id="audit-result"`) || strings.Contains(p.body, "<html") || !strings.Contains(p.body, "The chain holds.") {
		t.Fatalf("audit fragment: %s", p.body)
	}
	if !strings.Contains(p.header.Get("Vary"), "HX-Request") {
		t.Error("answers that differ by HX-Request do not say Vary: HX-Request")
	}
}

func TestCSRF(t *testing.T) {
	f := newPageFixture(t, "")
	b := f.browser(t)
	b.signIn("olga", opPassword)
	tests := []struct {
		desc string
		form url.Values
		hdr  []string
		want int
	}{
		{"no token", url.Values{"csrf": {""}}, nil, http.StatusForbidden},
		{"wrong token", url.Values{"csrf": {"AAAA" + b.csrf[4:]}}, nil, http.StatusForbidden},
		{"token of another session", url.Values{"csrf": {csrfToken("another session")}}, nil, http.StatusForbidden},
		{"cross-site browser post with the right token", url.Values{}, []string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden},
		{"post from a foreign origin with the right token", url.Values{}, []string{"Origin", "http://evil.example"}, http.StatusForbidden},
		{"token in the htmx header", url.Values{"csrf": {""}}, []string{"X-CSRF-Token", b.csrf}, http.StatusSeeOther},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			p := b.post("/signout", tt.form, tt.hdr...)
			if p.status != tt.want {
				t.Fatalf("%d %s", p.status, p.body)
			}
			if tt.want == http.StatusForbidden && !strings.Contains(p.body, "refused") && !strings.Contains(p.body, "security token") {
				t.Fatalf("refusal does not say why: %s", p.body)
			}
		})
	}
	// The forged posts did not end the session; the last, valid one did.
	if p := b.get("/audit"); p.status != http.StatusSeeOther {
		t.Fatalf("after the valid sign-out: %d", p.status)
	}
	// A cross-site sign-in post (login CSRF) is refused too.
	p := b.post("/signin", url.Values{"name": {"olga"}, "password": {opPassword}}, "Sec-Fetch-Site", "cross-site")
	if p.status != http.StatusForbidden || p.header.Get("Set-Cookie") != "" {
		t.Fatalf("cross-site sign-in: %d", p.status)
	}
}

func TestFirstRunSetup(t *testing.T) {
	f := newPageFixture(t, "the-one-time-setup-token")
	b := f.browser(t)
	if p := b.get("/setup?token=wrong"); p.status != http.StatusForbidden || !strings.Contains(p.body, "first-run link is not valid") {
		t.Fatalf("wrong token: %d %s", p.status, p.body)
	}
	if p := b.get("/setup?token=the-one-time-setup-token"); p.status != 200 || !strings.Contains(p.body, "create the first operator") {
		t.Fatalf("setup form: %d", p.status)
	}
	tests := []struct {
		desc           string
		name, pw1, pw2 string
		status         int
		want           string
	}{
		{"passwords differ", "olga", opPassword, opPassword + "x", 400, "The two passwords differ"},
		{"password too short", "olga", "short", "short", 400, "use at least 10"},
		{"bad name", "ol ga", opPassword, opPassword, 400, "a name is 1 to 64 letters"},
		{"markup in the name is shown as text", `"><img src=x onerror=alert(1)>`, opPassword, opPassword, 400, "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;"},
		{"created", "olga", opPassword, opPassword, 201, "Your API token"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			p := b.post("/setup", url.Values{"token": {"the-one-time-setup-token"}, "name": {tt.name}, "password": {tt.pw1}, "password2": {tt.pw2}})
			if p.status != tt.status || !strings.Contains(p.body, tt.want) {
				t.Fatalf("%d, want %d with %q: %s", p.status, tt.status, tt.want, p.body)
			}
			if strings.Contains(p.body, "<img src=x") {
				t.Fatal("raw markup from the form reached the page")
			}
		})
	}
	tok := regexp.MustCompile(`evl_[A-Za-z0-9_-]{43}`).FindString(b.get("/audit").body)
	if tok != "" {
		t.Fatal("the API token is shown again after setup")
	}
	if p := b.get("/audit"); p.status != 200 || !strings.Contains(p.body, "olga") {
		t.Fatalf("the new operator is not signed in: %d", p.status)
	}
	if p := b.post("/setup", url.Values{"token": {"the-one-time-setup-token"}, "name": {"eve"}, "password": {opPassword}, "password2": {opPassword}}); p.status != http.StatusForbidden {
		t.Fatalf("second use of the setup token: %d", p.status)
	}
	// Without a token configured, setup is closed even on a ledger with no user.
	g := newPageFixture(t, "")
	if p := g.browser(t).get("/setup?token="); p.status != http.StatusForbidden {
		t.Fatalf("setup without a token: %d", p.status)
	}
}

// TestFirstRunRace posts the first-run form eight times at once with the same token, each
// with its own name: exactly one post creates an operator, the others are refused, and the
// chain holds one user.added. Under -race it also watches the setup state's locking.
func TestFirstRunRace(t *testing.T) {
	const token = "the-one-time-setup-token"
	f := newPageFixture(t, token)
	const n = 8
	statuses := make([]int, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			form := url.Values{"token": {token}, "name": {fmt.Sprintf("operator%d", i)}, "password": {opPassword}, "password2": {opPassword}}
			resp, err := f.srv.Client().PostForm(f.srv.URL+"/setup", form)
			if err != nil {
				errs[i] = err
				return
			}
			resp.Body.Close()
			statuses[i] = resp.StatusCode
		})
	}
	wg.Wait()
	created := 0
	for i, st := range statuses {
		if errs[i] != nil {
			t.Fatalf("post %d: %v", i, errs[i])
		}
		switch st {
		case http.StatusCreated:
			created++
		case http.StatusForbidden:
		default:
			t.Fatalf("post %d answered %d, want 201 or 403 (all: %v)", i, st, statuses)
		}
	}
	if created != 1 {
		t.Fatalf("%d posts created an operator, want exactly 1 (statuses %v)", created, statuses)
	}
	events, err := f.store.Events(context.Background(), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	added := 0
	for _, e := range events {
		if e.Type == "user.added" {
			added++
		}
	}
	if added != 1 {
		t.Fatalf("the chain holds %d user.added events, want 1", added)
	}
}

func TestExpiredSession(t *testing.T) {
	ctx := context.Background()
	var offset atomic.Int64
	st, err := ledger.Open(ctx, t.TempDir(), ledger.Options{Now: func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.AddUserWithPassword(ctx, "system", "olga", ledger.RoleOperator, opPassword); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New(Config{Ledger: st}))
	t.Cleanup(srv.Close)
	b := pageFixture{srv: srv, store: st}.browser(t)
	b.signIn("olga", opPassword)
	if p := b.get("/audit"); p.status != 200 {
		t.Fatalf("fresh session: %d", p.status)
	}
	offset.Store(int64(ledger.SessionTTL + time.Second))
	p := b.get("/audit")
	if p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/signin") || !strings.Contains(p.header.Get("Set-Cookie"), "Max-Age=0") {
		t.Fatalf("expired session: %d %v", p.status, p.header)
	}
	if p := b.post("/signout", url.Values{}); p.status != http.StatusUnauthorized || !strings.Contains(p.body, "sign in again") {
		t.Fatalf("post with an expired session: %d %s", p.status, p.body)
	}
}
