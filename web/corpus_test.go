package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// corpusDir holds the saved real pages (testdata/corpus/pages).
const corpusDir = "../testdata/corpus/pages"

// corpusSite serves saved real pages on 127.0.0.1, for any host name.
type corpusSite struct {
	*httptest.Server
	port string
	// release lets the held pages answer; calling it again does nothing.
	release func()
}

// newCorpusSite serves saved real pages: /NAME answers corpus page NAME.html as text/html
// after delay, and /changing/NAME answers it on the first, third, ... request and a page
// without its text on the others, like a page edited between two fetches. robots.txt
// allows everything. The pages named in held answer only once the site's release is called
// (or their client gave up), so a test can keep a check running until it has seen what it
// waits for. A missing corpus fails the test.
func newCorpusSite(t *testing.T, delay time.Duration, held ...string) corpusSite {
	t.Helper()
	if _, err := os.Stat(corpusDir); err != nil {
		t.Fatalf("the saved pages are missing (%v)", err)
	}
	var mu sync.Mutex
	served := map[string]int{}
	gate := make(chan struct{})
	release := sync.OnceFunc(func() { close(gate) })
	page := func(w http.ResponseWriter, r *http.Request, name string) {
		body, err := os.ReadFile(filepath.Join(corpusDir, filepath.Base(name)+".html"))
		if err != nil {
			http.Error(w, "no such page", http.StatusNotFound)
			return
		}
		if slices.Contains(held, name) {
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
		time.Sleep(delay)
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
		time.Sleep(delay)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!doctype html><title>Updated</title><p>This article was updated and its earlier text removed.</p>"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(release) // before Close, which waits for held requests
	u, _ := url.Parse(srv.URL)
	return corpusSite{Server: srv, port: u.Port(), release: release}
}
