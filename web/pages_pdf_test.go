package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"evidenceledger/pdf"
	"evidenceledger/verify"
)

// warmPDFium compiles the PDF engine before the test's checks read a PDF and logs what the
// compile took: it happens once per test binary, and on a slow machine (the race detector,
// a cold, loaded CI runner) it is the slowest step, so the log says why a PDF test was slow.
func warmPDFium(t *testing.T) {
	t.Helper()
	took, err := pdf.WarmPDFium()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("PDFium's WebAssembly module was compiled once in this test binary, in %s", took.Round(time.Millisecond))
}

// TestClaimPageOfPDF checks a quote in a PDF served on loopback through the pages: the claim
// page gives the page the quote is on, the page's own words, and the PDF's page count and
// engines.
func TestClaimPageOfPDF(t *testing.T) {
	warmPDFium(t)
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

	f, jobs, _ := checkPages(t)
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
	if st := waitJob(t, jobs, m[1]); st.State != verify.JobDone {
		t.Fatalf("job: %+v", st)
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

	// The raw view of the stored PDF is the PDF itself, byte for byte, as a download with
	// safe headers, and the stored-page view offers it as such, not as text.
	sum := sha256.Sum256(pdf)
	sha := hex.EncodeToString(sum[:])
	raw := b.get("/documents/" + sha)
	for name, want := range map[string]string{
		"Content-Type":            "application/pdf",
		"Content-Disposition":     `attachment; filename="` + sha[:16] + `.pdf"`,
		"X-Content-Type-Options":  "nosniff",
		"Content-Security-Policy": "sandbox; default-src 'none'",
	} {
		if got := raw.header.Get(name); got != want {
			t.Errorf("the raw PDF: %s %q, want %q", name, got, want)
		}
	}
	if raw.status != http.StatusOK || raw.body != string(pdf) {
		t.Errorf("the raw PDF: %d, %d bytes, want the %d bytes stored", raw.status, len(raw.body), len(pdf))
	}
	doc := b.get("/documents/" + sha + "/text")
	if !strings.Contains(doc.body, `<a id="raw-link" href="/documents/`+sha+`" download="`+sha[:16]+`.pdf">Download the PDF as received</a>`) ||
		strings.Contains(doc.body, "never run or rendered") {
		t.Errorf("the stored-page view of a PDF does not offer it as a download:\n%s", doc.body)
	}
}
