package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

// flakyResolver answers a temporary failure for "flaky.test" and a timeout for "slow.test";
// everything else is testResolver.
type flakyResolver struct{ testResolver }

func (r flakyResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	switch host {
	case "flaky.test":
		return nil, &net.DNSError{Err: "server misbehaving", Name: host, IsTemporary: true}
	case "slow.test":
		return nil, &net.DNSError{Err: "i/o timeout", Name: host, IsTimeout: true}
	}
	return r.testResolver.LookupNetIP(ctx, network, host)
}

// TestFetchAbsent: a host the resolver definitely does not know is KindNoHost, not a
// robots.txt failure; a 404 or 410 is KindGone; both are Absent. A temporary DNS failure or a
// DNS timeout is not absent.
func TestFetchAbsent(t *testing.T) {
	s := newSite(t, nil)
	s.mux.HandleFunc("/gone", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusGone) })
	port := s.URL[strings.LastIndexByte(s.URL, ':')+1:]
	cfg := testConfig()
	cfg.Resolver = flakyResolver{}
	f := New(cfg)
	for _, c := range []struct {
		desc, url string
		kind      Kind
		absent    bool
	}{
		{"a host that does not exist", "http://no-such-host.invalid:" + port + "/page", KindNoHost, true},
		{"a 404", "http://" + s.host("a.test") + "/missing", KindGone, true},
		{"a 410", "http://" + s.host("a.test") + "/gone", KindGone, true},
		{"a temporary DNS failure closes the origin (robots.txt)", "http://flaky.test:" + port + "/page", KindRobots, false},
		{"a DNS timeout closes the origin (robots.txt)", "http://slow.test:" + port + "/page", KindRobots, false},
	} {
		t.Run(c.desc, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), c.url)
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *fetch.Error", err)
			}
			if fe.Kind != c.kind || fe.Absent() != c.absent {
				t.Fatalf("kind %v absent %v (%v), want %v absent %v", fe.Kind, fe.Absent(), err, c.kind, c.absent)
			}
		})
	}
}

// TestLoginWallOnTheDialledName: the login wall is checked on the name the HTTP client will
// resolve (UTS #46 mapping), so full-width letters, a soft hyphen or upper case do not get a
// login-walled host past it. Nothing is requested.
func TestLoginWallOnTheDialledName(t *testing.T) {
	s := newSite(t, nil)
	cfg := testConfig()
	cfg.LoginWalled = []string{"walled.test"}
	f := New(cfg)
	port := s.URL[strings.LastIndexByte(s.URL, ':')+1:]
	for _, host := range []string{
		"walled.test",
		"ＷＡＬＬＥＤ.test",
		"ｗａｌｌｅｄ.ｔｅｓｔ",
		"wal\u00adled.test",
		"www.wal\u200bled.test",
		"WALLED.TEST.",
	} {
		t.Run(host, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), "http://"+host+":"+port+"/p")
			if KindOf(err) != KindLoginWall {
				t.Fatalf("err = %v, want %v", err, KindLoginWall)
			}
		})
	}
	if n := s.requests.Load(); n != 0 {
		t.Errorf("%d requests reached the server, want 0", n)
	}
	if got := (&Fetcher{cfg: cfg.withDefaults()}).loginWall("ｌｉｎｋｅｄｉｎ.com"); got != "" {
		t.Errorf("loginWall of a raw full-width name = %q: the check must be given the dialled name", got)
	}
	def := New(Config{})
	for _, host := range []string{"ｌｉｎｋｅｄｉｎ.com", "link\u00adedin.com", "www.LinkedIn.com"} {
		name, err := dialledHost(host)
		if err != nil || def.loginWall(name) != "linkedin.com" {
			t.Errorf("dialledHost(%q) = %q, %v: want it known for linkedin.com", host, name, err)
		}
	}
}

// TestRobotsEmptyPath: http://host and http://host?x=1 are matched as / against a
// robots.txt that closes / and has a wildcard rule beside it.
func TestRobotsEmptyPath(t *testing.T) {
	s := newSite(t, robotsText("User-agent: *\nDisallow: /\nAllow: /*.css$\n"))
	s.mux.HandleFunc("/", page("<p>home</p>"))
	f := New(testConfig())
	for _, u := range []string{"http://" + s.host("a.test"), "http://" + s.host("a.test") + "?x=1", "http://" + s.host("a.test") + "/"} {
		if _, err := f.Fetch(context.Background(), u); KindOf(err) != KindRobots {
			t.Errorf("%s: err = %v, want %v", u, err, KindRobots)
		}
	}
}
