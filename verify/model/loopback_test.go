package model

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

// The loopback world the model tests check pages in: names ending in ".test" resolve to
// 127.0.0.1, where a test site answers. It is the part of package verify's test site
// (verify/loopback_test.go) that the model tier reads: the report page, a page scripts
// draw, the corpus pages, and a login-walled host.

// supportedHTML is the page /report serves.
const supportedHTML = `<!doctype html><html><head><title>Annual report</title></head><body>
<p>In 2025 the registry counted&nbsp;4,812 companies, up from 4,500 the year before.</p>
<p>The chair said: “We expect growth to continue — slowly.”</p>
<script>var x = "4,812 companies hidden in a script";</script></body></html>`

// pageServer is a loopback site for every name ending in ".test". Its pages:
//
//	/robots.txt      404: everything may be fetched
//	/report          supportedHTML
//	/scripts         testdata/pages/scripts-only.html, a page scripts draw
//	/corpus/{name}   a page of the corpus in testdata/corpus
type pageServer struct{ *httptest.Server }

func newPageServer(t testing.TB) *pageServer {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", http.NotFound)
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
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
	s := &pageServer{httptest.NewServer(mux)}
	t.Cleanup(s.Close)
	return s
}

// At returns the URL of path on host (a name ending in .test) at this server.
func (s *pageServer) At(host, path string) string {
	u, _ := url.Parse(s.URL)
	return "http://" + host + ":" + u.Port() + path
}

// testdataDir is the repository's testdata folder, seen from this package.
var testdataDir = filepath.Join("..", "..", "testdata")

// readTestdata reads a file of the repository's testdata folder.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdataDir, name))
	if err != nil {
		t.Fatalf("read test file: %v", err)
	}
	return b
}

// readCorpusPage reads a saved page of the corpus; the test fails when it is missing.
func readCorpusPage(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdataDir, "corpus", "pages", filepath.Base(name)))
	if err != nil {
		t.Fatalf("the corpus pages must be at %s/corpus/pages: %v", testdataDir, err)
	}
	return b
}
