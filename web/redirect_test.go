package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
)

// testOrigin is the origin the redirect tests resolve Locations against.
var testOrigin = &url.URL{Scheme: "http", Host: "127.0.0.1:8080", Path: "/signin"}

// browserResolve resolves a Location header value the way a browser does (the WHATWG URL
// parser's rules that matter for where it goes), independently of localPath: leading and
// trailing C0 controls and spaces are stripped, tabs and newlines removed anywhere, a
// backslash read as a slash (http is a special scheme), and two or more leading slashes
// start an authority whatever follows them. The rest is net/url's resolution against the
// origin. It returns the resolved URL, or nil when the browser would not navigate.
func browserResolve(loc string) *url.URL {
	loc = strings.TrimFunc(loc, func(r rune) bool { return r <= ' ' })
	loc = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(loc)
	loc = strings.ReplaceAll(loc, `\`, "/")
	if regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`).MatchString(loc) {
		// A scheme of its own: even http: is taken as leaving when it names a host; count
		// every scheme as another origin, which is stricter than any browser.
		u, err := url.Parse(loc)
		if err != nil {
			return nil
		}
		return u
	}
	if strings.HasPrefix(loc, "//") {
		loc = testOrigin.Scheme + "://" + strings.TrimLeft(loc, "/")
	}
	u, err := url.Parse(loc)
	if err != nil {
		return nil
	}
	return testOrigin.ResolveReference(u)
}

func sameOrigin(u *url.URL) bool {
	return u != nil && u.Scheme == testOrigin.Scheme && u.Host == testOrigin.Host && u.User == nil
}

// redirectLocation answers a sign-in redirect to safeNext(next) and returns its Location.
func redirectLocation(t *testing.T, next string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, testOrigin.String(), nil)
	seeOther(rec, req, safeNext(next))
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("redirect answered %d", rec.Code)
	}
	return rec.Header().Get("Location")
}

func TestSafeNext(t *testing.T) {
	tests := []struct {
		desc, next, want string
	}{
		{"a page", "/audit", "/audit"},
		{"a page with a query", "/audit?run=1", "/audit?run=1"},
		{"a claim with a fragment", "/claims/c_0123456789abcdef#ct_0123456789abcdef", "/claims/c_0123456789abcdef#ct_0123456789abcdef"},
		{"percent-encoded slashes stay in the path", "/%2F%2Fevil.example", "/%2F%2Fevil.example"},
		{"empty", "", "/"},
		{"scheme-relative", "//evil.example/path", "/"},
		{"backslash after the slash", `/\evil.example`, "/"},
		{"backslash later", `/a\..\..\\evil.example`, "/"},
		{"tab between slashes (browsers drop it)", "/\t/evil.example", "/"},
		{"newline between slashes", "/\n/evil.example", "/"},
		{"carriage return between slashes", "/\r/evil.example", "/"},
		{"header injection", "/x\r\nSet-Cookie: a=1", "/"},
		{"leading space", " /leading-space", "/"},
		{"leading tab before scheme-relative", "\t//evil.example", "/"},
		{"absolute URL", "https://evil.example/", "/"},
		{"javascript", "javascript:alert(1)", "/"},
		{"relative path", "audit", "/"},
		{"NUL", "/\x00/evil.example", "/"},
		{"DEL", "/\x7f", "/"},
		{"non-ASCII", "/\u3002evil.example", "/"},
		{"full-width solidus", "/\uff0fevil.example", "/"},
		{"over the length limit", "/" + strings.Repeat("a", maxNext), "/"},
		{"at the length limit", "/" + strings.Repeat("a", maxNext-1), "/" + strings.Repeat("a", maxNext-1)},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			if got := safeNext(tt.next); got != tt.want {
				t.Fatalf("safeNext(%q) = %q; want %q", tt.next, got, tt.want)
			}
			if loc := redirectLocation(t, tt.next); !sameOrigin(browserResolve(loc)) {
				t.Fatalf("next %q answers Location %q, which a browser follows to %v", tt.next, loc, browserResolve(loc))
			}
		})
	}
}

// TestBrowserResolveOracle checks that the oracle itself sees the attacks of the table as
// leaving the origin, so the fuzz test could find them if localPath let them through.
func TestBrowserResolveOracle(t *testing.T) {
	for _, loc := range []string{"//evil.example", "/\t/evil.example", `/\evil.example`, "\\\\evil.example", " //evil.example", "///evil.example", "https://evil.example", "/\n/evil.example"} {
		if sameOrigin(browserResolve(loc)) {
			t.Errorf("oracle resolves %q to this origin", loc)
		}
	}
	for _, loc := range []string{"/", "/audit?run=1", "/%2F%2Fevil.example", "/a/../b"} {
		if !sameOrigin(browserResolve(loc)) {
			t.Errorf("oracle resolves %q away from this origin", loc)
		}
	}
}

// FuzzSafeNext checks, with a browser's reading of the Location as the oracle, that the
// sign-in redirect never leaves this server, and that a target it accepts is kept as given.
func FuzzSafeNext(f *testing.F) {
	data, err := os.ReadFile("../testdata/web/next.txt")
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f.Add(line)
		if u, err := url.QueryUnescape(line); err == nil {
			f.Add(u)
		}
	}
	f.Fuzz(func(t *testing.T, next string) {
		got := safeNext(next)
		if got != "/" && got != next {
			t.Fatalf("safeNext(%q) = %q: an accepted target must be kept as given", next, got)
		}
		loc := redirectLocation(t, next)
		if strings.ContainsAny(loc, "\r\n") {
			t.Fatalf("next %q puts a line break into Location %q", next, loc)
		}
		if u := browserResolve(loc); !sameOrigin(u) {
			t.Fatalf("next %q answers Location %q, which a browser follows to %v", next, loc, u)
		}
	})
}
