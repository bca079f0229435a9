package verify

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
	"evidenceledger/fetch/fetchtest"
	"evidenceledger/pdf"
)

// inkCase is one row of testdata/pdf/ink/cases.tsv: a one-page PDF drawn to show a sentence
// to a reader (seen) or to hide it from one by a trick.
type inkCase struct {
	Name, Quote, Desc string
	Seen              bool
}

func readInkCases(t testing.TB) []inkCase {
	t.Helper()
	f, err := os.Open(filepath.Join(pdfDir, "ink", "cases.tsv"))
	if err != nil {
		t.Fatalf("ink cases missing (go test ./pdf -run TestInkPDFs -update): %v", err)
	}
	defer f.Close()
	var out []inkCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") || sc.Text() == "" {
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 4 {
			t.Fatalf("bad row %q", sc.Text())
		}
		out = append(out, inkCase{Name: cols[0], Seen: cols[1] == "seen", Quote: cols[2], Desc: cols[3]})
	}
	if len(out) < 25 {
		t.Fatalf("only %d ink cases", len(out))
	}
	return out
}

// TestCheckInkPDFs checks the quote of every ink case with the real checker on a PDF served
// on loopback: a quote a reader does not see is never found_at_source, and the PDFium
// verifier, whose finds the ink check confirms, never says supported; a quote a reader sees
// is found.
func TestCheckInkPDFs(t *testing.T) {
	cases := readInkCases(t)
	files := map[string][]byte{}
	for _, k := range cases {
		files["/"+k.Name+".pdf"] = readPDF(t, filepath.Join("ink", k.Name+".pdf"))
	}
	srv := newPDFServer(t, files)
	c := NewChecker(fetchtest.Config())
	for _, k := range cases {
		t.Run(k.Name, func(t *testing.T) {
			out, err := c.Check(context.Background(), target(srv.At("a.test", "/"+k.Name+".pdf"), k.Quote))
			if err != nil {
				t.Fatal(err)
			}
			ch := out.Checked
			var said []string
			for _, v := range ch.Verdicts {
				said = append(said, v.Verifier+": "+string(v.Verdict))
				if !k.Seen && v.Verifier != NameTokens && v.Verdict == evidence.VerdictSupported {
					t.Errorf("%s: the %s verifier (PDFium, ink-checked) says supported: %s", k.Desc, v.Verifier, v.Reasoning)
				}
			}
			t.Logf("%s: %s (%s): %s", k.Desc, ch.Status, strings.Join(said, ", "), ch.Note)
			switch {
			case k.Seen && ch.Status != evidence.StatusFound:
				t.Errorf("%s: a quote a reader sees is %s: %s", k.Desc, ch.Status, ch.Note)
			case !k.Seen && ch.Status == evidence.StatusFound:
				t.Errorf("%s: FALSE FOUND of a quote no reader sees: %s", k.Desc, ch.Note)
			}
		})
	}
}

// TestPDFInkNote: a quote whose words are in the PDF's text but drawn white on white is
// not_found for the PDFium verifier, with a note saying so and naming the page.
func TestPDFInkNote(t *testing.T) {
	srv := newPDFServer(t, map[string][]byte{"/w.pdf": readPDF(t, "ink/white-on-white.pdf")})
	r := NewDOMVerifier(fetchtest.Config()).Verify(context.Background(), target(srv.At("a.test", "/w.pdf"), "The committee approved the harbour contract in secret"))
	if r.Result.Verdict != evidence.VerdictNotFound {
		t.Fatalf("verdict %s (%s), want not_found", r.Result.Verdict, r.Result.Reasoning)
	}
	for _, want := range []string{"not drawn visibly", "p. 1", "46 characters leave no ink"} {
		if !strings.Contains(r.Note, want) {
			t.Errorf("note %q does not say %q", r.Note, want)
		}
	}
	if !strings.Contains(r.Result.Reasoning, "a reader does not see them") {
		t.Errorf("reasoning %q", r.Result.Reasoning)
	}
}

// TestPDFColumnBarrier: in a PDF's text, the space between two columns on one baseline is a
// barrier: a quote across it is not found, even with the barrier byte in the quote, nor
// one whose ellipsis joins the two sides; a quote on either side is, and its excerpt shows
// the space.
func TestPDFColumnBarrier(t *testing.T) {
	body := "The council approved the budget was rejected by the court on appeal"
	brk := strings.Index(body, " was")
	c := &Capture{}
	c.setText(fetch.Text{Body: body}, &pdf.Text{Body: body, Pages: []pdf.PageStart{{Number: 1}}, Extractor: "test", Breaks: []int{brk}})
	tests := []struct {
		quote string
		found bool
	}{
		{"The council approved the budget", true},
		{"was rejected by the court on appeal", true},
		{"approved the budget was rejected", false},
		{"approved the budget\x1fwas rejected", false},
		{"approved the BUDGET WAS rejected", false},
		{"The council approved ... rejected by the court", false},
		{"was rejected by ... court on appeal", true},
	}
	for _, tc := range tests {
		m, facts, err := c.match(tc.quote)
		if err != nil {
			t.Fatal(err)
		}
		if m.Found != tc.found {
			t.Errorf("%q: found %v, want %v", tc.quote, m.Found, tc.found)
		}
		if m.Found && (strings.ContainsRune(m.Excerpt, columnBarrier) || facts.FoundOn != 1) {
			t.Errorf("%q: excerpt %q on p. %d", tc.quote, m.Excerpt, facts.FoundOn)
		}
	}
}

// TestRunConfirmsInkTogether: in a check run told the quotes of a URL (as RunBatch tells
// it), the first ink check of the PDF confirms every quote's first placement at once; each
// quote is judged by its own verdict.
func TestRunConfirmsInkTogether(t *testing.T) {
	srv := newPDFServer(t, map[string][]byte{"/w.pdf": readPDF(t, "ink/white-on-white.pdf")})
	u := srv.At("a.test", "/w.pdf")
	hidden, visible := "The committee approved the harbour contract in secret", "This page also carries a sentence that anyone can read."
	run := NewChecker(fetchtest.Config()).NewRun()
	run.expect(u, []string{hidden, visible})
	out, err := run.Check(context.Background(), target(u, hidden))
	if err != nil {
		t.Fatal(err)
	}
	if out.Checked.Status == evidence.StatusFound {
		t.Fatalf("the white quote is found: %s", out.Checked.Note)
	}
	dom := run.pages[u][0].c
	dom.ink.mu.Lock()
	checked := len(dom.ink.seen)
	dom.ink.mu.Unlock()
	if checked != 2 {
		t.Errorf("the first ink check confirmed %d placements, want both quotes'", checked)
	}
	out, err = run.Check(context.Background(), target(u, visible))
	if err != nil {
		t.Fatal(err)
	}
	if out.Checked.Status != evidence.StatusFound {
		t.Errorf("the visible quote is %s: %s", out.Checked.Status, out.Checked.Note)
	}
}
