package web

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// corpusDir holds the saved real pages (shared/corpus/pages beside the checkout).
const corpusDir = "../../shared/corpus/pages"

// newCorpusSite serves saved real pages on 127.0.0.1: /NAME answers corpus page NAME.html
// as text/html, and robots.txt allows everything. A missing corpus fails the test.
func newCorpusSite(t *testing.T) *httptest.Server {
	t.Helper()
	if _, err := os.Stat(corpusDir); err != nil {
		t.Fatalf("the saved pages are missing (%v); lay shared/ beside the checkout as CI does", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /robots.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("User-agent: *\nAllow: /\n"))
	})
	mux.HandleFunc("GET /{name}", func(w http.ResponseWriter, r *http.Request) {
		body, err := os.ReadFile(filepath.Join(corpusDir, filepath.Base(r.PathValue("name"))+".html"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(body)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}
