package verify

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
	"evidenceledger/fetch/fetchtest"
	"evidenceledger/pdf"
)

// pdfDir is the PDF corpus, seen from this package's directory (scripts/pdf-corpus.sh).
const pdfDir = "../testdata/pdf"

// pdfQuote is one row of testdata/pdf/quotes.tsv or quotes-typeset.tsv.
type pdfQuote struct {
	File  string
	Found bool
	Page  int
	Quote string
}

func readPDFQuotes(t testing.TB) []pdfQuote {
	t.Helper()
	var out []pdfQuote
	for _, name := range []string{"quotes.tsv", "quotes-typeset.tsv"} {
		f, err := os.Open(filepath.Join(pdfDir, name))
		if err != nil {
			t.Fatalf("PDF corpus quotes missing (run scripts/pdf-corpus.sh): %v", err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "#") || sc.Text() == "" {
				continue
			}
			cols := strings.SplitN(sc.Text(), "\t", 4)
			if len(cols) != 4 {
				t.Fatalf("%s: bad row %q", name, sc.Text())
			}
			page, _ := strconv.Atoi(cols[2])
			out = append(out, pdfQuote{File: cols[0], Found: cols[1] == "found", Page: page, Quote: cols[3]})
		}
		f.Close()
	}
	if len(out) < 100 {
		t.Fatalf("only %d PDF corpus quotes", len(out))
	}
	return out
}

func readPDF(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(pdfDir, name))
	if err != nil {
		t.Fatalf("PDF corpus file missing (run scripts/pdf-corpus.sh): %v", err)
	}
	return b
}

// pdfExtractors are the two PDF engines with the least recall each must reach on the
// corpus (docs/pdf.md: ledongthuc/pdf maps some glyphs, NBSP and soft hyphens of
// Chromium's fonts, to U+FFFD, so a quote across them is missed).
var pdfExtractors = []struct {
	name      string
	extract   PDFEngine
	minRecall int
}{
	{pdf.NamePDFium, pdf.ExtractPDFium, 95},
	{pdf.NamePDFText, pdf.ExtractPDFText, 90},
}

// TestPDFCorpusQuotes looks for every quote of the PDF corpus in the text each PDF engine
// reads: found quotes must be found (recall is printed, and must reach each engine's
// minRecall) on the page the reader's text has them on; altered quotes must never be found
// (a false found fails the test).
func TestPDFCorpusQuotes(t *testing.T) {
	quotes := readPDFQuotes(t)
	for _, x := range pdfExtractors {
		texts := map[string]*Capture{}
		var found, want, falseFound, altered, wrongPage int
		for _, q := range quotes {
			c, ok := texts[q.File]
			if !ok {
				body := readPDF(t, q.File)
				txt, err := x.extract(body)
				if err != nil {
					t.Fatalf("%s: %s: %v", x.name, q.File, err)
				}
				c = &Capture{Page: &fetch.Result{Body: body, ContentType: "application/pdf"}}
				c.setText(fetch.Text{Body: txt.Body}, &txt)
				for _, o := range quotes { // as a check run tells it: confirmed together
					if o.File == q.File {
						c.expected = append(c.expected, o.Quote)
					}
				}
				texts[q.File] = c
			}
			m, facts, err := c.match(q.Quote)
			if err != nil {
				t.Fatalf("%s: %s: %q: %v", x.name, q.File, q.Quote, err)
			}
			if q.Found {
				want++
				if !m.Found {
					t.Logf("%s: %s: not found: %q", x.name, q.File, q.Quote)
					continue
				}
				found++
				if facts.FoundOn != q.Page {
					wrongPage++
					t.Errorf("%s: %s: %q found on p. %d, the reader's text has it on p. %d", x.name, q.File, q.Quote, facts.FoundOn, q.Page)
				}
				continue
			}
			altered++
			if m.Found {
				falseFound++
				t.Errorf("%s: %s: FALSE FOUND of the altered quote %q: %q", x.name, q.File, q.Quote, m.Excerpt)
			}
		}
		recall := 100 * found / want
		t.Logf("%s: recall %d/%d (%d%%), false found %d/%d, wrong page %d", x.name, found, want, recall, falseFound, altered, wrongPage)
		if recall < x.minRecall {
			t.Errorf("%s: recall %d%% is below %d%%", x.name, recall, x.minRecall)
		}
	}
}

// TestPDFUnreadable: an encrypted, a scanned and a cut-off PDF are unreachable with the
// reason, never not_found, for both verifiers.
func TestPDFUnreadable(t *testing.T) {
	report := readPDF(t, "report.pdf")
	files := map[string][]byte{
		"/encrypted.pdf": readPDF(t, "encrypted.pdf"),
		"/scanned.pdf":   readPDF(t, "scanned.pdf"),
		"/report.pdf":    report,
		"/broken.pdf":    report[:len(report)/2], // sent whole, with its own Content-Length: damaged
	}
	srv := newPDFServer(t, files)
	tests := []struct {
		path, quote, reason string
		cfg                 func(*fetch.Config)
	}{
		{"/encrypted.pdf", "the third highest since records began", "encrypted", nil},
		{"/scanned.pdf", "the third highest since records began", "no text layer", nil},
		{"/report.pdf", "the third highest since records began", "cut off", func(c *fetch.Config) { c.MaxPDFBytes = int64(len(report) - 1) }},
		{"/broken.pdf", "During the year under review the authority", "", nil},
	}
	for _, tc := range tests {
		cfg := fetchtest.Config()
		if tc.cfg != nil {
			tc.cfg(&cfg)
		}
		for _, v := range []*QuoteVerifier{NewDOMVerifier(cfg), NewTokensVerifier(cfg)} {
			r := v.Verify(context.Background(), target(srv.At("a.test", tc.path), tc.quote))
			if r.Result.Verdict != evidence.VerdictUnreachable {
				t.Errorf("%s by %s: verdict %s (%s), want unreachable", tc.path, v.Name(), r.Result.Verdict, r.Result.Reasoning)
				continue
			}
			if !strings.Contains(r.Note, tc.reason) {
				t.Errorf("%s by %s: note %q does not say %q", tc.path, v.Name(), r.Note, tc.reason)
			}
		}
	}
}

// newPDFServer serves files as application/pdf on every name ending in .test.
func newPDFServer(t testing.TB, files map[string][]byte) *pageServer {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", http.NotFound)
	for path, body := range files {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(body)
		})
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &pageServer{Server: srv}
}

// TestCheckPDF checks quotes in a PDF served on loopback with the real checker: a found
// quote's note names its page, the stored document records the page count and both
// engines, and an altered quote is not_found.
func TestCheckPDF(t *testing.T) {
	srv := newPDFServer(t, map[string][]byte{"/report.pdf": readPDF(t, "report.pdf")})
	c := NewChecker(fetchtest.Config())
	out, err := c.Check(context.Background(), target(srv.At("a.test", "/report.pdf"), "the third highest since records began"))
	if err != nil {
		t.Fatal(err)
	}
	ch := out.Checked
	if ch.Status != evidence.StatusFound {
		t.Fatalf("status %s (%s), want found_at_source", ch.Status, ch.Note)
	}
	if !strings.Contains(ch.Note, "p. 2") || !strings.Contains(ch.Note, "5.62 metres, the third highest since records began") {
		t.Errorf("note %q does not give p. 2 and the page's own words", ch.Note)
	}
	if ch.Page != 2 {
		t.Errorf("page %d, want 2", ch.Page)
	}
	d := ch.Document
	if d == nil || d.Pages != 3 || len(d.Extractors) != 2 ||
		!strings.HasPrefix(d.Extractors[0], pdf.NamePDFium+" (") || !strings.HasPrefix(d.Extractors[1], pdf.NamePDFText+" (") {
		t.Fatalf("document %+v: want 3 pages read by both engines", d)
	}
	if !ch.Adjudication.Agree {
		t.Errorf("verdicts %+v do not agree", ch.Verdicts)
	}
	for _, v := range ch.Verdicts {
		if !strings.Contains(v.Reasoning, "p. 2") {
			t.Errorf("%s reasoning %q does not name the page", v.Verifier, v.Reasoning)
		}
	}

	out, err = c.Check(context.Background(), target(srv.At("a.test", "/report.pdf"), "the fourth highest since records began"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Checked.Status != evidence.StatusNotFound || out.Checked.Page != 0 || out.Checked.Document.Pages != 3 {
		t.Errorf("altered quote: status %s, page %d, document %+v; want not_found on no page of a 3-page PDF", out.Checked.Status, out.Checked.Page, out.Checked.Document)
	}
}

// TestReaderDispatch: each verifier's reader sends a PDF to its own engine and HTML to its
// HTML extractor; a PDF cut at its size limit is read by neither and wraps
// fetch.ErrTruncated.
func TestReaderDispatch(t *testing.T) {
	var got []string
	rd := reader{
		html: func([]byte, string) (fetch.Text, error) { got = append(got, "html"); return fetch.Text{}, nil },
		pdf: func([]byte) (pdf.Text, error) {
			got = append(got, "pdf")
			return pdf.Text{}, errors.New("x")
		},
	}
	for _, r := range []fetch.Result{
		{Body: []byte("%PDF-1.7\n"), ContentType: "application/pdf"},
		{Body: []byte("%PDF-1.7\n"), ContentType: "application/octet-stream"},
		{Body: []byte("<p>hi</p>"), ContentType: "text/html"},
		{Body: []byte("%PDF-1.7\n"), ContentType: "text/html"}, // declared HTML is HTML
	} {
		rd.read(&r)
	}
	if strings.Join(got, ",") != "pdf,pdf,html,html" {
		t.Errorf("dispatch %v", got)
	}
	got = nil
	if txt, doc, err := rd.read(&fetch.Result{Body: []byte("%PDF-1.7\n"), ContentType: "application/pdf", Truncated: true}); !errors.Is(err, fetch.ErrTruncated) || txt.Body != "" || doc != nil || got != nil {
		t.Errorf("a cut PDF gave %q, %v, %v and called %v; want no text, ErrTruncated, no engine", txt.Body, doc, err, got)
	}
}

// TestCutPDFNotRead: the report PDF whole is read by both default readers; cut one byte
// short, by neither.
func TestCutPDFNotRead(t *testing.T) {
	body := readPDF(t, "report.pdf")
	for _, rd := range []reader{readDOM, readTokens} {
		txt, doc, err := rd.read(&fetch.Result{Body: body, ContentType: "application/pdf"})
		if err != nil || doc == nil || !strings.Contains(txt.Body, "the third highest since records began") {
			t.Errorf("whole PDF: text %q, %v", txt.Body, err)
		}
		txt, doc, err = rd.read(&fetch.Result{Body: body[:len(body)-1], ContentType: "application/pdf", Truncated: true})
		if !errors.Is(err, fetch.ErrTruncated) || txt.Body != "" || doc != nil {
			t.Errorf("a cut PDF gave %q, %v; want no text and ErrTruncated", txt.Body, err)
		}
	}
}

// TestPDFDeclaredLanguage: a PDF's /Lang is the page's declared language for the negation
// check, as a web page's lang is. Over "Lawmakers debated sin taxes, …", whose passage
// does not tell its language, an ellipsis over "sin" is read as English (a sin tax: found)
// only under /Lang en; with no /Lang the word counts as the Spanish negation, and under
// /Lang es it is one. A /Lang en over a Spanish sentence whose own words tell Spanish does
// not make its dropped "sin" (without) harmless: the declaration never overrules them.
func TestPDFDeclaredLanguage(t *testing.T) {
	const english = "Lawmakers debated … taxes, tobacco levies, excise duties"
	cases := []struct {
		file, quote string
		want        evidence.Status
	}{
		{"lang-none.pdf", english, evidence.StatusNotFound},
		{"lang-en.pdf", english, evidence.StatusFound},
		{"lang-es.pdf", english, evidence.StatusNotFound},
		{"lang-en-over-es.pdf", "Aprobaron la reforma … votos de la oposicion en el pleno", evidence.StatusNotFound},
	}
	files := map[string][]byte{}
	for _, c := range cases {
		files["/"+c.file] = readPDF(t, filepath.Join("lang", c.file))
	}
	srv := newPDFServer(t, files)
	c := NewChecker(fetchtest.Config())
	for _, tc := range cases {
		out, err := c.Check(context.Background(), target(srv.At("a.test", "/"+tc.file), tc.quote))
		if err != nil {
			t.Fatal(err)
		}
		if out.Checked.Status != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.file, out.Checked.Status, out.Checked.Note, tc.want)
		}
		if tc.want == evidence.StatusNotFound && !strings.Contains(out.Checked.Note, "sin") {
			t.Errorf("%s: the note %q does not name the negation the ellipsis drops", tc.file, out.Checked.Note)
		}
	}
}
