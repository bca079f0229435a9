package fetch

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"
)

// TestFetchObserve: Config.Observe is told the outcome of every page fetch, "" for a page
// and the error kind's words otherwise; the style sheets a page links are not counted.
func TestFetchObserve(t *testing.T) {
	s := newSite(t, robotsText("User-agent: *\nDisallow: /private\n"))
	s.mux.HandleFunc("/page", page(`<link rel="stylesheet" href="/a.css"><p>Hello</p>`))
	s.mux.HandleFunc("/a.css", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		w.Write([]byte("p { color: black }"))
	})
	s.mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "gone", http.StatusGone) })
	var mu sync.Mutex
	var got []string
	cfg := testConfig()
	cfg.Observe = func(outcome string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, outcome)
	}
	f := New(cfg)
	base := "http://" + s.host("a.test")
	for _, path := range []string{"/page", "/private/x", "/gone"} {
		f.Fetch(context.Background(), base+path)
	}
	f.Fetch(context.Background(), "ftp://a.test/file")
	want := []string{"", KindRobots.String(), KindGone.String(), KindBadURL.String()}
	if !slices.Equal(got, want) {
		t.Fatalf("observed %q, want %q", got, want)
	}
}
