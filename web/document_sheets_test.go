package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/verify"
)

// TestStoredPageSaysItsSheetsAreNotApplied: the stored-text view of a checked page that
// links a style sheet says that its texts are read without that sheet (the verifiers applied
// it; the ledger stores the page alone), so that words the sheet hides, shown there, are not
// taken for what the check saw; a page without sheets says nothing of the kind.
func TestStoredPageSaysItsSheetsAreNotApplied(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/hide.css":
			w.Header().Set("Content-Type", "text/css")
			fmt.Fprint(w, ".aside { display: none }")
		case "/styled":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><link rel="stylesheet" href="/hide.css"></head><body><p>The council approved the housing plan on Monday evening.</p><p class="aside">The council rejected the housing plan on Monday evening.</p></body></html>`)
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<p>The council approved the housing plan on Monday evening.</p>`)
		}
	}))
	t.Cleanup(site.Close)
	port := strings.TrimPrefix(site.URL, "http://127.0.0.1:")
	f, jobs, _ := checkPages(t)
	ctx := context.Background()
	quote := "The council approved the housing plan on Monday evening"
	b, err := f.store.ImportResearch(ctx, "user:olga", []byte("paste"), evidence.Research{Claims: []evidence.Claim{
		{Text: "The plan was approved.", Citations: []evidence.Citation{{URL: "http://news.test:" + port + "/styled", Quote: quote}}},
		{Text: "The plan was approved on Monday.", Citations: []evidence.Citation{{URL: "http://plain.test:" + port + "/plain", Quote: quote}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	id, err := jobs.Start(b.ID, "user:olga", false)
	if err != nil {
		t.Fatal(err)
	}
	if st := waitJob(t, jobs, id); st.State != verify.JobDone {
		t.Fatalf("job: %+v", st)
	}
	br := f.browser(t)
	br.signIn("olga", opPassword)
	for i, want := range []bool{true, false} {
		c, err := f.store.Claim(ctx, b.Claims[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		ct := c.Citations[0]
		if ct.Status != evidence.StatusFound || ct.Document == nil {
			t.Fatalf("claim %d: %s %q", i, ct.Status, ct.Note)
		}
		p := br.get("/documents/" + ct.Document.SHA256 + "/text?claim=" + c.ID + "&citation=" + ct.ID)
		if p.status != 200 {
			t.Fatalf("claim %d: %d %s", i, p.status, p.body)
		}
		has := strings.Contains(p.body, `id="sheets-caveat"`)
		if has != want {
			t.Errorf("claim %d: caveat shown = %v, want %v: %s", i, has, want, p.body)
		}
		if want && !strings.Contains(p.body, "This page links 1 style sheet(s).") {
			t.Errorf("the caveat does not count the sheet: %s", p.body)
		}
	}
}
