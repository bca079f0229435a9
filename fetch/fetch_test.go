package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// testResolver maps every name ending in ".test" to 127.0.0.1 and "evil.test" to a chosen
// address, standing in for DNS.
type testResolver struct{ evil netip.Addr }

func (r testResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	switch {
	case host == "evil.test" && r.evil.IsValid():
		return []netip.Addr{r.evil}, nil
	case strings.HasSuffix(host, ".test"):
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

// testConfig is a Config for loopback servers: no politeness delay, short timeouts.
func testConfig() Config {
	return Config{
		Allow:        loopback,
		MinDelay:     -1,
		HopTimeout:   2 * time.Second,
		TotalTimeout: 5 * time.Second,
		Resolver:     testResolver{},
	}
}

// site is a test server with a robots.txt and pages.
type site struct {
	*httptest.Server
	mux          *http.ServeMux
	requests     atomic.Int32 // every request, robots.txt included
	robotsHits   atomic.Int32
	inFlight     atomic.Int32
	peakInFlight atomic.Int32
	newConns     atomic.Int32
}

// newSite starts a server on 127.0.0.1 whose robots.txt is served by robots (nil: 404).
func newSite(t testing.TB, robots http.HandlerFunc) *site {
	t.Helper()
	return newSiteAt(t, "127.0.0.1:0", robots)
}

// newSiteAt starts a site listening on addr (host:port).
func newSiteAt(t testing.TB, addr string, robots http.HandlerFunc) *site {
	t.Helper()
	s := &site{mux: http.NewServeMux()}
	s.mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		s.robotsHits.Add(1)
		if robots == nil {
			http.NotFound(w, r)
			return
		}
		robots(w, r)
	})
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		n := s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		for p := s.peakInFlight.Load(); n > p && !s.peakInFlight.CompareAndSwap(p, n); p = s.peakInFlight.Load() {
		}
		s.mux.ServeHTTP(w, r)
	}))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen on %s: %v", addr, err)
	}
	s.Listener.Close()
	s.Listener = ln
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.newConns.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// host returns the site's address under a .test name.
func (s *site) host(name string) string {
	return name + ":" + s.URL[strings.LastIndexByte(s.URL, ':')+1:]
}

func robotsText(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, body)
	}
}

func page(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
}

// redirect answers 302 to the URL to, in which {A} stands for the host the request was sent to.
func redirect(to string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.ReplaceAll(to, "{A}", r.Host), http.StatusFound)
	}
}

func TestFetchPage(t *testing.T) {
	s := newSite(t, robotsText("User-agent: *\nDisallow: /private\n"))
	var gotUA, gotAuth, gotCookie string
	const html = "<html><head><title>T</title></head><body><p>Hello</p></body></html>"
	s.mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		gotUA, gotAuth, gotCookie = r.UserAgent(), r.Header.Get("Authorization"), r.Header.Get("Cookie")
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "x"})
		page(html)(w, r)
	})
	cfg := testConfig()
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.FixedZone("X", 3600))
	cfg.Now = func() time.Time { return at }
	f := New(cfg)
	for range 2 {
		res, err := f.Fetch(context.Background(), "http://"+s.host("a.test")+"/page#frag")
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(html))
		want := "http://" + s.host("a.test") + "/page"
		if res.FinalURL != want || res.Status != 200 || res.IP != "127.0.0.1" || string(res.Body) != html ||
			res.SHA256 != hex.EncodeToString(sum[:]) || res.Truncated || !res.FetchedAt.Equal(at) || res.FetchedAt.Location() != time.UTC ||
			res.ContentType != "text/html; charset=utf-8" || len(res.Hops) != 1 || res.Hops[0] != (Hop{URL: want, Status: 200, IP: "127.0.0.1"}) {
			t.Errorf("unexpected result %+v", res)
		}
	}
	if gotUA != DefaultUserAgent || gotAuth != "" || gotCookie != "" {
		t.Errorf("request had User-Agent %q, Authorization %q, Cookie %q; want the default agent and neither", gotUA, gotAuth, gotCookie)
	}
	if n := s.robotsHits.Load(); n != 1 {
		t.Errorf("robots.txt was requested %d times, want once (cached)", n)
	}
}

// gzipBomb is 20 MiB of zeros, gzip-compressed to a few KiB.
func gzipBomb(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for range 20 {
		zw.Write(zeros)
	}
	zw.Close()
	return b.Bytes()
}

func TestFetchOutcomes(t *testing.T) {
	bomb := gzipBomb(t)
	hugeRobots := strings.Repeat("# filler line of a huge robots.txt, ignored\n", 600<<10/44) + "User-agent: *\nDisallow: /\n"
	tests := []struct {
		desc      string
		robots    http.HandlerFunc
		routes    map[string]http.HandlerFunc
		path      string // fetched from a.test
		url       string // fetched instead of path when set; {A} stands for a.test's host:port
		cfg       func(*Config)
		wantKind  Kind
		wantHops  int
		wantCode  int
		wantTrunc bool
		wantBody  int  // body length when no error; -1 to skip
		wantQuiet bool // no request at all reaches the server, not even for robots.txt
	}{
		{desc: "credentials in the URL are refused", routes: map[string]http.HandlerFunc{"/": page("<p>x</p>")},
			url: "http://user:pass@{A}/", wantKind: KindBadURL, wantQuiet: true},
		{desc: "a user name without a password is refused too", routes: map[string]http.HandlerFunc{"/": page("<p>x</p>")},
			url: "http://user@{A}/", wantKind: KindBadURL, wantQuiet: true},
		{desc: "credentials in a redirect target are refused", routes: map[string]http.HandlerFunc{"/a": redirect("http://user:pass@{A}/b"), "/b": page("<p>x</p>")},
			path: "/a", wantKind: KindBadURL, wantHops: 1, wantCode: 302},
		{desc: "robots.txt closes the path", robots: robotsText("User-agent: *\nDisallow: /private\n"),
			routes: map[string]http.HandlerFunc{"/private/x": page("<p>secret</p>")}, path: "/private/x", wantKind: KindRobots},
		{desc: "robots.txt closes only the redirect target", robots: robotsText("User-agent: *\nDisallow: /private\n"),
			routes: map[string]http.HandlerFunc{"/open": redirect("/private/x"), "/private/x": page("<p>secret</p>")}, path: "/open", wantKind: KindRobots, wantHops: 1, wantCode: 302},
		{desc: "robots.txt for our product token only", robots: robotsText("User-agent: evidence-ledger\nDisallow: /\n\nUser-agent: *\nAllow: /\n"),
			routes: map[string]http.HandlerFunc{"/x": page("<p>x</p>")}, path: "/x", wantKind: KindRobots},
		{desc: "robots.txt answering 500 closes the site", robots: func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) },
			routes: map[string]http.HandlerFunc{"/x": page("<p>x</p>")}, path: "/x", wantKind: KindRobots},
		{desc: "robots.txt answering 429 closes the site", robots: func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(429) },
			routes: map[string]http.HandlerFunc{"/x": page("<p>x</p>")}, path: "/x", wantKind: KindRobots},
		{desc: "robots.txt answering 404 opens the site", robots: nil,
			routes: map[string]http.HandlerFunc{"/x": page("<p>x</p>")}, path: "/x", wantHops: 1, wantCode: 200, wantBody: 8},
		{desc: "robots.txt answering 403 opens the site", robots: func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(403) },
			routes: map[string]http.HandlerFunc{"/x": page("<p>x</p>")}, path: "/x", wantHops: 1, wantCode: 200, wantBody: 8},
		{desc: "robots.txt timing out closes the site", robots: func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // never answers: only the hop timeout ends the request
		}, routes: map[string]http.HandlerFunc{"/x": page("<p>x</p>")}, path: "/x", cfg: func(c *Config) { c.HopTimeout = 200 * time.Millisecond }, wantKind: KindRobots},
		{desc: "robots.txt behind two redirects applies", robots: redirect("/r1"),
			routes: map[string]http.HandlerFunc{"/r1": redirect("/r2"), "/r2": robotsText("User-agent: *\nDisallow: /x\n"), "/x": page("<p>x</p>")}, path: "/x", wantKind: KindRobots},
		{desc: "robots.txt behind six redirects closes the site", robots: redirect("/r1"),
			routes: map[string]http.HandlerFunc{"/r1": redirect("/r2"), "/r2": redirect("/r3"), "/r3": redirect("/r4"), "/r4": redirect("/r5"), "/r5": redirect("/r6"), "/r6": robotsText(""), "/x": page("<p>x</p>")}, path: "/x", wantKind: KindRobots},
		{desc: "robots.txt with parse errors still applies its good lines", robots: robotsText("User-agent: *\nCrawl-delay: soon\n???\nDisallow: /x\n"),
			routes: map[string]http.HandlerFunc{"/x": page("<p>x</p>")}, path: "/x", wantKind: KindRobots},
		{desc: "robots.txt: rules after 500 KiB are not read", robots: robotsText(hugeRobots),
			routes: map[string]http.HandlerFunc{"/x": page("<p>x</p>")}, path: "/x", wantHops: 1, wantCode: 200, wantBody: 8},
		{desc: "redirect loop", routes: map[string]http.HandlerFunc{"/a": redirect("/b"), "/b": redirect("/a")}, path: "/a", wantKind: KindRedirectLoop, wantHops: 2, wantCode: 302},
		{desc: "redirect to itself", routes: map[string]http.HandlerFunc{"/a": redirect("/a")}, path: "/a", wantKind: KindRedirectLoop, wantHops: 1, wantCode: 302},
		{desc: "three redirects are followed", routes: map[string]http.HandlerFunc{"/1": redirect("/2"), "/2": redirect("/3"), "/3": redirect("/4"), "/4": page("<p>end</p>")}, path: "/1", wantHops: 4, wantCode: 200, wantBody: 10},
		{desc: "a chain of four redirects is refused", routes: map[string]http.HandlerFunc{"/1": redirect("/2"), "/2": redirect("/3"), "/3": redirect("/4"), "/4": redirect("/5"), "/5": page("<p>end</p>")}, path: "/1", wantKind: KindTooManyRedirects, wantHops: 4, wantCode: 302},
		{desc: "redirect to cloud metadata", routes: map[string]http.HandlerFunc{"/a": redirect("http://169.254.169.254/latest/meta-data/")}, path: "/a", wantKind: KindBlockedAddress, wantHops: 1, wantCode: 302},
		{desc: "redirect to a login-walled host", routes: map[string]http.HandlerFunc{"/a": redirect("https://www.linkedin.com/in/someone")}, path: "/a", wantKind: KindLoginWall, wantHops: 1, wantCode: 302},
		{desc: "redirect to file:", routes: map[string]http.HandlerFunc{"/a": redirect("file:///etc/passwd")}, path: "/a", wantKind: KindBadURL, wantHops: 1, wantCode: 302},
		{desc: "redirect to ftp:", routes: map[string]http.HandlerFunc{"/a": redirect("ftp://a.test/file")}, path: "/a", wantKind: KindBadURL, wantHops: 1, wantCode: 302},
		{desc: "redirect to a host that resolves to a private address", routes: map[string]http.HandlerFunc{"/a": redirect("http://evil.test/")}, path: "/a",
			cfg: func(c *Config) { c.Resolver = testResolver{evil: netip.MustParseAddr("10.0.0.1")} }, wantKind: KindBlockedAddress, wantHops: 1, wantCode: 302},
		{desc: "gzip bomb is cut at the cap after decompression", routes: map[string]http.HandlerFunc{"/bomb": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb)
		}}, path: "/bomb", cfg: func(c *Config) { c.MaxBytes = 1 << 20 }, wantHops: 1, wantCode: 200, wantTrunc: true, wantBody: 1 << 20},
		{desc: "endless body is cut at the cap", routes: map[string]http.HandlerFunc{"/endless": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			chunk := bytes.Repeat([]byte("all work and no play "), 1000)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}}, path: "/endless", cfg: func(c *Config) { c.MaxBytes = 256 << 10 }, wantHops: 1, wantCode: 200, wantTrunc: true, wantBody: 256 << 10},
		{desc: "slow drip is cut off", routes: map[string]http.HandlerFunc{"/drip": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			for r.Context().Err() == nil {
				w.Write([]byte("<p>a</p>"))
				w.(http.Flusher).Flush()
				time.Sleep(50 * time.Millisecond)
			}
		}}, path: "/drip", cfg: func(c *Config) { c.HopTimeout = 400 * time.Millisecond }, wantKind: KindTimeout, wantHops: 1, wantCode: 200},
		{desc: "a body sent as application/pdf that is not a PDF is an unsupported type", routes: map[string]http.HandlerFunc{"/doc.pdf": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			w.Write([]byte("<html>not a PDF</html>"))
		}}, path: "/doc.pdf", wantKind: KindUnsupportedType, wantHops: 1, wantCode: 200},
		{desc: "unlabelled PNG is an unsupported type", routes: map[string]http.HandlerFunc{"/img": func(w http.ResponseWriter, _ *http.Request) {
			w.Header()["Content-Type"] = nil
			w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
		}}, path: "/img", wantKind: KindUnsupportedType, wantHops: 1, wantCode: 200},
		{desc: "unlabelled HTML is sniffed and read", routes: map[string]http.HandlerFunc{"/h": func(w http.ResponseWriter, _ *http.Request) {
			w.Header()["Content-Type"] = nil
			w.Write([]byte("<!DOCTYPE html><p>hi</p>"))
		}}, path: "/h", wantHops: 1, wantCode: 200, wantBody: 24},
		{desc: "an unknown content encoding is refused", routes: map[string]http.HandlerFunc{"/br": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "br")
			w.Write([]byte{0x1b, 0x03})
		}}, path: "/br", wantKind: KindUnsupportedType, wantHops: 1, wantCode: 200},
		{desc: "401 needs a login", routes: map[string]http.HandlerFunc{"/x": func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(401) }}, path: "/x", wantKind: KindNeedsLogin, wantHops: 1, wantCode: 401},
		{desc: "403 needs a login", routes: map[string]http.HandlerFunc{"/x": func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(403) }}, path: "/x", wantKind: KindNeedsLogin, wantHops: 1, wantCode: 403},
		{desc: "404 is gone", routes: map[string]http.HandlerFunc{}, path: "/missing", wantKind: KindGone, wantHops: 1, wantCode: 404},
		{desc: "410 is gone", routes: map[string]http.HandlerFunc{"/x": func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(410) }}, path: "/x", wantKind: KindGone, wantHops: 1, wantCode: 410},
		{desc: "503 is an HTTP status", routes: map[string]http.HandlerFunc{"/x": func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) }}, path: "/x", wantKind: KindHTTPStatus, wantHops: 1, wantCode: 503},
		{desc: "a page request that times out", routes: map[string]http.HandlerFunc{"/x": func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }}, path: "/x",
			cfg: func(c *Config) { c.HopTimeout = 200 * time.Millisecond }, wantKind: KindTimeout},
		{desc: "loopback without an allow-list is blocked", routes: map[string]http.HandlerFunc{"/x": page("<p>x</p>")}, path: "/x",
			cfg: func(c *Config) { c.Allow = nil }, wantKind: KindBlockedAddress},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			s := newSite(t, tc.robots)
			for p, h := range tc.routes {
				s.mux.HandleFunc(p, h)
			}
			cfg := testConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			u := "http://" + s.host("a.test") + tc.path
			if tc.url != "" {
				u = strings.ReplaceAll(tc.url, "{A}", s.host("a.test"))
			}
			res, err := New(cfg).Fetch(context.Background(), u)
			if got := KindOf(err); got != tc.wantKind {
				t.Fatalf("error kind = %v (%v), want %v", got, err, tc.wantKind)
			}
			if n := s.requests.Load(); tc.wantQuiet && n != 0 {
				t.Errorf("the server got %d requests, want none", n)
			}
			if err != nil {
				var fe *Error
				if !errors.As(err, &fe) || fe.Reason == "" {
					t.Errorf("error %v has no reason", err)
				}
			}
			if tc.wantHops == 0 {
				if res != nil {
					t.Errorf("got a result %+v, want none (no request was made for the page)", res)
				}
				return
			}
			if res == nil {
				t.Fatalf("no result, want one with %d hops", tc.wantHops)
			}
			if len(res.Hops) != tc.wantHops || res.Hops[len(res.Hops)-1].Status != tc.wantCode {
				t.Errorf("hops = %+v, want %d ending with status %d", res.Hops, tc.wantHops, tc.wantCode)
			}
			if res.Truncated != tc.wantTrunc {
				t.Errorf("truncated = %v, want %v", res.Truncated, tc.wantTrunc)
			}
			if err == nil && len(res.Body) != tc.wantBody {
				t.Errorf("body is %d bytes, want %d", len(res.Body), tc.wantBody)
			}
		})
	}
}

// failAfter yields its data, then fails with err.
type failAfter struct {
	data []byte
	err  error
}

func (f *failAfter) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestReadBody(t *testing.T) {
	page := bytes.Repeat([]byte("<p>words on the page</p>\n"), 4000) // 100,000 bytes
	const limit = 64 << 10
	tests := []struct {
		desc   string
		body   []byte
		limit  int64
		hint   int64
		want   int // bytes returned
		maxCap int // the buffer never grew past this
	}{
		{"no Content-Length (chunked)", page[:30000], 1 << 20, -1, 30000, 2 * 30000},
		{"no Content-Length, a long body", page, 1 << 20, -1, len(page), 2 * len(page)},
		{"exact Content-Length: one buffer", page, 1 << 20, int64(len(page)), len(page), len(page) + 1},
		{"Content-Length announces less than arrives", page, 1 << 20, 10, len(page), 2 * len(page)},
		{"Content-Length of 0 with no body", nil, 1 << 20, 0, 0, 1},
		{"Content-Length far past the limit is bounded by it", page[:100], limit, 1 << 40, 100, limit + 1},
		{"a body past the limit is read to one byte beyond it", page, limit, -1, limit + 1, 2 * (limit + 1)},
		{"a body past the limit with an honest Content-Length", page, limit, int64(len(page)), limit + 1, limit + 1},
		{"a body of exactly the limit", page[:limit], limit, limit, limit, limit + 1},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			got, err := readBody(bytes.NewReader(tt.body), tt.limit, tt.hint)
			if err != nil {
				t.Fatalf("readBody: %v", err)
			}
			if len(got) != tt.want || !bytes.Equal(got, tt.body[:tt.want]) {
				t.Fatalf("read %d bytes, want the first %d of the body", len(got), tt.want)
			}
			if cap(got) > tt.maxCap {
				t.Errorf("buffer of %d bytes, want at most %d", cap(got), tt.maxCap)
			}
		})
	}

	for _, hint := range []int64{-1, 5000} {
		t.Run(fmt.Sprintf("a connection cut before the end (hint %d) is an error", hint), func(t *testing.T) {
			got, err := readBody(&failAfter{data: page[:1000], err: io.ErrUnexpectedEOF}, 1<<20, hint)
			if !errors.Is(err, io.ErrUnexpectedEOF) || len(got) != 1000 {
				t.Fatalf("read %d bytes, %v; want 1000 and io.ErrUnexpectedEOF", len(got), err)
			}
		})
	}
	t.Run("an announced body is read into one buffer", func(t *testing.T) {
		r := bytes.NewReader(page)
		allocs := testing.AllocsPerRun(20, func() {
			r.Reset(page)
			if b, err := readBody(r, 1<<20, int64(len(page))); err != nil || len(b) != len(page) {
				t.Fatalf("read %d bytes, %v", len(b), err)
			}
		})
		if allocs > 2 { // the buffer, and the limit reader around r
			t.Errorf("%.0f allocations per body, want at most 2", allocs)
		}
	})
}

func TestFetchIgnoresProxyEnvironment(t *testing.T) {
	var proxyHits atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxyHits.Add(1)
		page("<p>served by the proxy</p>")(w, r)
	}))
	defer proxy.Close()
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"} {
		t.Setenv(k, proxy.URL)
	}
	for _, k := range []string{"NO_PROXY", "no_proxy"} {
		t.Setenv(k, "")
	}
	s := newSite(t, nil)
	s.mux.HandleFunc("/page", page("<p>served by the site</p>"))
	f := New(testConfig())
	// http.ProxyFromEnvironment reads the environment once per process, so a proxy taken
	// from it could miss the variables set here when another test ran first: the transport
	// must have no proxy function at all.
	if tr, ok := f.client.Transport.(*http.Transport); !ok || tr.Proxy != nil {
		t.Fatalf("transport %T has a proxy function; want none", f.client.Transport)
	}
	res, err := f.Fetch(context.Background(), "http://"+s.host("a.test")+"/page")
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Body) != "<p>served by the site</p>" {
		t.Errorf("body %q, want the site's page", res.Body)
	}
	if n := proxyHits.Load(); n != 0 {
		t.Errorf("the proxy named in the environment got %d requests, want none", n)
	}
	if n := s.requests.Load(); n != 2 {
		t.Errorf("the site got %d requests, want 2 (robots.txt and the page)", n)
	}
}

// TestFetchRedirectToLoopbackRefused starts on an allowed address (127.0.0.2 only) and is
// redirected to loopback addresses that are not allowed: the redirect is refused before any
// request reaches the target, which is listening and counting.
func TestFetchRedirectToLoopbackRefused(t *testing.T) {
	target4 := newSite(t, nil)
	target6 := newSiteAt(t, "[::1]:0", nil)
	for _, s := range []*site{target4, target6} {
		s.mux.HandleFunc("/x", page("<p>internal</p>"))
	}
	port := func(s *site) string { return s.URL[strings.LastIndexByte(s.URL, ':')+1:] }
	tests := []struct {
		desc   string
		to     string
		target *site
		reason string
	}{
		{"to 127.0.0.1", "http://127.0.0.1:" + port(target4) + "/x", target4, "loopback"},
		{"to [::1]", "http://[::1]:" + port(target6) + "/x", target6, "loopback"},
		{"to a name that resolves to 127.0.0.1", "http://a.test:" + port(target4) + "/x", target4, "loopback"},
		{"to 127.0.0.1 written as IPv4-mapped IPv6", "http://[::ffff:127.0.0.1]:" + port(target4) + "/x", target4, "IPv4-mapped"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			first := newSiteAt(t, "127.0.0.2:0", nil)
			first.mux.HandleFunc("/start", redirect(tt.to))
			before := tt.target.requests.Load()
			cfg := testConfig()
			cfg.Allow = []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}
			res, err := New(cfg).Fetch(context.Background(), first.URL+"/start")
			var fe *Error
			if !errors.As(err, &fe) || fe.Kind != KindBlockedAddress || !strings.Contains(fe.Reason, tt.reason) {
				t.Fatalf("error %v, want %v naming %q", err, KindBlockedAddress, tt.reason)
			}
			if res == nil || len(res.Hops) != 1 || res.Hops[0].Status != http.StatusFound || res.Hops[0].IP != "127.0.0.2" {
				t.Fatalf("result %+v, want the one redirect hop from 127.0.0.2", res)
			}
			if n := tt.target.requests.Load() - before; n != 0 {
				t.Errorf("the target got %d requests, want none", n)
			}
		})
	}
}

// TestFetchTotalTimeoutAcrossHops: the total timeout bounds a fetch across its hops, each
// well within its own timeout. The third hop never answers and the hop timeout is an hour,
// so only the total timeout can end the fetch, however fast or slow the machine.
func TestFetchTotalTimeoutAcrossHops(t *testing.T) {
	s := newSite(t, nil)
	s.mux.HandleFunc("/1", redirect("/2"))
	s.mux.HandleFunc("/2", redirect("/3"))
	s.mux.HandleFunc("/3", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	cfg := testConfig()
	cfg.HopTimeout = time.Hour
	cfg.TotalTimeout = 200 * time.Millisecond
	res, err := New(cfg).Fetch(context.Background(), "http://"+s.host("a.test")+"/1")
	var fe *Error
	if !errors.As(err, &fe) || fe.Kind != KindTimeout || !strings.Contains(fe.Reason, "in all") {
		t.Fatalf("error %v, want %v for the whole fetch (\"in all\")", err, KindTimeout)
	}
	if res == nil || len(res.Hops) != 2 || res.Hops[1].Status != http.StatusFound {
		t.Fatalf("result %+v, want the two redirect hops made before the time ran out", res)
	}
}

// TestFetchCharsets fetches pages in legacy charsets from a server and extracts them with
// both extractors.
func TestFetchCharsets(t *testing.T) {
	tests := []struct {
		desc        string
		contentType string
		body        []byte
		want        Text
		wantErr     error
	}{
		{"windows-1252 in the Content-Type header", "text/html; charset=windows-1252",
			[]byte("<title>Caf\xe9</title><p>\x93Quoted\x94 na\xefve caf\xe9 \x96 \x805</p>"),
			Text{Title: "Café", Body: "“Quoted” naïve café – €5"}, nil},
		{"windows-1252 in a meta tag only", "text/html",
			[]byte(readTestdata(t, "pages/windows-1252.html")),
			Text{Title: "Café", Body: "“Quoted” naïve café – résumé"}, nil},
		{"windows-1252 in a meta tag only, high bytes in pairs (French spacing)", "text/html",
			[]byte("<meta charset=windows-1252><p>Il dit \xab\xa0caf\xe9\xa0\xbb.</p>"),
			Text{Body: "Il dit «\u00a0café\u00a0»."}, nil},
		{"the same bytes undeclared look multi-byte and cannot be read", "text/html",
			[]byte("<p>Il dit \xab\xa0caf\xe9\xa0\xbb.</p>"), Text{}, ErrCharset},
		{"windows-1251 in a meta tag only", "text/html",
			[]byte("<meta charset=\"windows-1251\"><p>\xcf\xf0\xe8\xe2\xe5\xf2, \xec\xe8\xf0</p>"),
			Text{Body: "Привет, мир"}, nil},
		{"Shift_JIS declared in the header", "text/html; charset=Shift_JIS",
			shiftJIS(t, "<title>日本語</title><p>こんにちは、世界。</p>"),
			Text{Title: "日本語", Body: "こんにちは、世界。"}, nil},
		{"Shift_JIS declared in a meta tag", "text/html",
			[]byte(readTestdata(t, "pages/shift_jis.html")),
			Text{Title: "日本語", Body: "こんにちは、世界。"}, nil},
		{"Shift_JIS undeclared cannot be read", "text/html",
			shiftJIS(t, "<p>こんにちは、世界。</p>"), Text{}, ErrCharset},
	}
	s := newSite(t, nil)
	for i, tt := range tests {
		s.mux.HandleFunc(fmt.Sprintf("/%d", i), func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", tt.contentType)
			w.Write(tt.body)
		})
	}
	f := New(testConfig())
	for i, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			res, err := f.Fetch(context.Background(), fmt.Sprintf("http://%s/%d", s.host("a.test"), i))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(res.Body, tt.body) || res.ContentType != tt.contentType {
				t.Fatalf("the body or its type changed on the way: %q, %q", res.Body, res.ContentType)
			}
			for _, x := range extractors {
				got, err := res.Extract(x.fn)
				if tt.wantErr != nil {
					if !errors.Is(err, tt.wantErr) {
						t.Errorf("%s: error %v, want %v", x.name, err, tt.wantErr)
					}
					continue
				}
				if err != nil || got != tt.want {
					t.Errorf("%s: got %+v, %v; want %+v", x.name, got, err, tt.want)
				}
			}
		})
	}
}
