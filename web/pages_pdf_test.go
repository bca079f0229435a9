package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"evidenceledger/verify"
)

// TestClaimPageOfPDF checks a quote in a PDF served on loopback through the pages: the claim
// page gives the page the quote is on, the page's own words, and the PDF's page count and
// engines.
func TestClaimPageOfPDF(t *testing.T) {
	pdf, err := os.ReadFile("../testdata/pdf/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", http.NotFound)
	mux.HandleFunc("/report.pdf", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(pdf)
	})
	pdfSite := httptest.NewServer(mux)
	t.Cleanup(pdfSite.Close)
	port := pdfSite.URL[strings.LastIndex(pdfSite.URL, ":")+1:]

	f, jobs, _ := checkPages(t, 0)
	b := f.browser(t)
	b.signIn("olga", opPassword)
	id := commitPaste(t, b, `Claim 1: The February flood was the third highest on record.
Source: http://reports.test:`+port+`/report.pdf
Quote: "the third highest since records began"
`)
	p := b.post("/batches/"+id+"/check", url.Values{})
	m := regexp.MustCompile(`\?job=(\S+)$`).FindStringSubmatch(p.header.Get("Location"))
	if m == nil {
		t.Fatalf("start the check: %d %s", p.status, p.body)
	}
	if st, ok := jobs.Wait(context.Background(), m[1], 60*time.Second); !ok || st.State != verify.JobDone {
		t.Fatalf("job: %+v %v", st, ok)
	}
	batch, _ := f.store.Batch(context.Background(), id)
	p = b.get("/claims/" + batch.Claims[0].ID)
	for _, want := range []string{
		`<span class="status found_at_source">found_at_source</span>`,
		`On the page <span class="pdf-page">p. 2</span>`,
		"found on p. 2 of the PDF",
		"<mark>the third highest since records began</mark>",
		"<dt>PDF</dt><dd>3 pages, read by <code>pdfium (",
		"</code> and <code>ledongthuc-pdf (",
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("claim page lacks %q", want)
		}
	}
}
