package verify

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// The loopback world the tests of this package (verify and verify_test) check pages in:
// names ending in ".test" resolve to 127.0.0.1, where a test site answers.

// supportedHTML is the page /report serves.
const supportedHTML = `<!doctype html><html><head><title>Annual report</title></head><body>
<p>In 2025 the registry counted&nbsp;4,812 companies, up from 4,500 the year before.</p>
<p>The chair said: “We expect growth to continue — slowly.”</p>
<script>var x = "4,812 companies hidden in a script";</script></body></html>`

// pageServer is a loopback site for every name ending in ".test". It counts requests per
// host and path, records whether any request carried a cookie and how many connections were
// opened. Its pages:
//
//	/robots.txt      404: everything may be fetched
//	/report          supportedHTML, with a cookie set
//	/flip            two texts in turn, so that two fetches of it disagree
//	/hold            the report, once Release is closed (or the request ends)
//	/scripts         testdata/pages/scripts-only.html, a page scripts draw
//	/corpus/{name}   a page of the corpus in testdata/corpus
type pageServer struct {
	*httptest.Server
	Release chan struct{}

	mu       sync.Mutex
	hits     map[string]int // "host path" -> requests
	cookies  atomic.Int32
	newConns atomic.Int32
	flips    atomic.Int32
}

func newPageServer(t testing.TB) *pageServer {
	t.Helper()
	s := &pageServer{hits: map[string]int{}, Release: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", http.NotFound)
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "track", Value: "1"})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, supportedHTML)
	})
	mux.HandleFunc("/flip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if s.flips.Add(1)%2 == 1 {
			fmt.Fprint(w, `<p>The minister resigned on Tuesday after the vote of no confidence.</p>`)
			return
		}
		fmt.Fprint(w, `<p>The minister survived the vote of no confidence on Tuesday.</p>`)
	})
	mux.HandleFunc("/hold", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-s.Release:
		case <-r.Context().Done():
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, supportedHTML)
	})
	mux.HandleFunc("/scripts", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(readTestdata(t, "pages/scripts-only.html"))
	})
	mux.HandleFunc("/corpus/{name}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(readCorpusPage(t, r.PathValue("name")))
	})
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.Host)
		s.mu.Lock()
		s.hits[host+" "+r.URL.Path]++
		s.mu.Unlock()
		if r.Header.Get("Cookie") != "" {
			s.cookies.Add(1)
		}
		mux.ServeHTTP(w, r)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.newConns.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// At returns the URL of path on host (a name ending in .test) at this server.
func (s *pageServer) At(host, path string) string {
	u, _ := url.Parse(s.URL)
	return "http://" + host + ":" + u.Port() + path
}

// Requests returns how many requests reached host (all paths, robots.txt included).
func (s *pageServer) Requests(host string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, v := range s.hits {
		if strings.HasPrefix(k, host+" ") {
			n += v
		}
	}
	return n
}

// readTestdata reads a file of the repository's testdata folder.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatalf("read test page: %v", err)
	}
	return b
}

// readCorpusPage reads a saved page of the corpus; the test fails when it is missing.
func readCorpusPage(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "corpus", "pages", filepath.Base(name)))
	if err != nil {
		t.Fatalf("the corpus pages must be at ../testdata/corpus/pages: %v", err)
	}
	return b
}
