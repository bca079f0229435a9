package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// corpusDir holds the saved real pages (testdata/corpus/pages).
const corpusDir = "../testdata/corpus/pages"

// corpusSite serves saved real pages on 127.0.0.1, for any host name.
type corpusSite struct {
	*httptest.Server
	port  string
	holds *pageHolds
}

// pageHolds are the pages a test holds: a held page answers once every hold on it is
// released (or its client gave up).
type pageHolds struct {
	mu       sync.Mutex
	gates    map[string][]chan struct{}
	releases []func()
}

// hold makes the pages named answer only once the returned release is called (calling it
// again does nothing; the site releases every hold when the test ends). A test holds a page
// to keep a check running until it has seen what it waits for, however fast or slow the
// machine is.
func (c corpusSite) hold(names ...string) (release func()) {
	gate := make(chan struct{})
	release = sync.OnceFunc(func() { close(gate) })
	c.holds.mu.Lock()
	defer c.holds.mu.Unlock()
	for _, n := range names {
		c.holds.gates[n] = append(c.holds.gates[n], gate)
	}
	c.holds.releases = append(c.holds.releases, release)
	return release
}

// wait returns once every hold on the page is released, or when ctx ends.
func (h *pageHolds) wait(ctx context.Context, name string) {
	h.mu.Lock()
	gates := slices.Clone(h.gates[name])
	h.mu.Unlock()
	for _, g := range gates {
		select {
		case <-g:
		case <-ctx.Done():
			return
		}
	}
}

// newCorpusSite serves saved real pages: /NAME answers corpus page NAME.html as text/html,
// and /changing/NAME answers it on the first, third, ... request and a page without its
// text on the others, like a page edited between two fetches. robots.txt allows
// everything. A page answers at once unless the test holds it (corpusSite.hold). A missing
// corpus fails the test.
func newCorpusSite(t *testing.T) corpusSite {
	t.Helper()
	if _, err := os.Stat(corpusDir); err != nil {
		t.Fatalf("the saved pages are missing (%v)", err)
	}
	var mu sync.Mutex
	served := map[string]int{}
	holds := &pageHolds{gates: map[string][]chan struct{}{}}
	page := func(w http.ResponseWriter, r *http.Request, name string) {
		body, err := os.ReadFile(filepath.Join(corpusDir, filepath.Base(name)+".html"))
		if err != nil {
			http.Error(w, "no such page", http.StatusNotFound)
			return
		}
		holds.wait(r.Context(), name)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(body)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /robots.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("User-agent: *\nAllow: /\n"))
	})
	mux.HandleFunc("GET /{name}", func(w http.ResponseWriter, r *http.Request) { page(w, r, r.PathValue("name")) })
	mux.HandleFunc("GET /changing/{name}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served[r.PathValue("name")]++
		n := served[r.PathValue("name")]
		mu.Unlock()
		if n%2 == 1 {
			page(w, r, r.PathValue("name"))
			return
		}
		holds.wait(r.Context(), r.PathValue("name"))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!doctype html><title>Updated</title><p>This article was updated and its earlier text removed.</p>"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	// Before Close, which waits for held requests: every hold is released.
	t.Cleanup(func() {
		holds.mu.Lock()
		rs := holds.releases
		holds.mu.Unlock()
		for _, r := range rs {
			r()
		}
	})
	u, _ := url.Parse(srv.URL)
	return corpusSite{Server: srv, port: u.Port(), holds: holds}
}
