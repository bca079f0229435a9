package pdf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"evidenceledger/fetch"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/requests"
)

// pdfCorpusPrinted are the corpus pages printed to PDF by scripts/pdf-corpus.sh.
var pdfCorpusPrinted = []string{"ars-1", "ebb-org", "heise", "lemonde-1", "lwn-1"}

// BenchmarkPDFCorpus reads the five printed corpus PDFs with each engine and reports MB/s
// of PDF, pages/s, and the ratio to the floor: the same five documents read as HTML by
// ExtractTokens, in the same run.
//
//	go test ./pdf -run XXX -bench PDFCorpus -benchtime 5x
func BenchmarkPDFCorpus(b *testing.B) {
	var pdfs, pages [][]byte
	var pdfBytes, htmlBytes, pageCount int
	for _, n := range pdfCorpusPrinted {
		p := readPDFFile(b, n+".pdf")
		pdfs, pdfBytes = append(pdfs, p), pdfBytes+len(p)
		h, err := os.ReadFile(filepath.Join("../testdata/corpus", n+".html"))
		if err != nil {
			b.Fatalf("read corpus page %s: %v", n, err)
		}
		pages, htmlBytes = append(pages, h), htmlBytes+len(h)
		txt, err := ExtractPDFium(p)
		if err != nil {
			b.Fatal(err)
		}
		pageCount += len(txt.Pages)
	}
	var floorNs float64
	b.Run("floor-html-tokens", func(b *testing.B) {
		b.SetBytes(int64(htmlBytes))
		for b.Loop() {
			for _, h := range pages {
				if _, err := fetch.ExtractTokens(h, "text/html"); err != nil {
					b.Fatal(err)
				}
			}
		}
		floorNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	for _, e := range pdfEngines {
		b.Run(e.name, func(b *testing.B) {
			b.SetBytes(int64(pdfBytes))
			for b.Loop() {
				for _, p := range pdfs {
					if _, err := e.extract(p, DefaultLimits); err != nil {
						b.Fatal(err)
					}
				}
			}
			perOp := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(pageCount)/perOp, "pages/s")
			b.ReportMetric(perOp*1e9/floorNs, "x-floor")
		})
	}
}

// TestPDFPeakMemory measures the peak memory of reading the largest corpus PDF with each
// engine: for PDFium the growth of this process's resident memory, for ledongthuc/pdf the
// worker process's maximum resident size. It is printed (docs/pdf.md), and must stay
// within the memory limit.
func TestPDFPeakMemory(t *testing.T) {
	names, _ := filepath.Glob(filepath.Join(pdfDir, "*.pdf"))
	largest, size := "", 0
	for _, n := range names {
		if fi, err := os.Stat(n); err == nil && int(fi.Size()) > size && !strings.Contains(n, "encrypted") {
			largest, size = n, int(fi.Size())
		}
	}
	pdf, err := os.ReadFile(largest)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ExtractPDFium(pdf); err != nil { // the engine is compiled once, outside the measure
		t.Fatal(err)
	}
	before := residentKiB(t)
	peak := before
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if r := residentKiB(t); r > peak {
				peak = r
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	if _, err := ExtractPDFium(pdf); err != nil {
		t.Fatal(err)
	}
	close(stop)
	<-done
	t.Logf("PDFium, %s (%d KiB): resident memory grew by %d KiB at its peak", filepath.Base(largest), size>>10, peak-before)

	exe, _ := os.Executable()
	cmd := exec.Command(exe, workerArg)
	cmd.Env = []string{pdfWorkerEnv + "=1", "EVIDENCELEDGER_PDF_MEMORY=" + strconv.FormatInt(DefaultMemory, 10)}
	cmd.Stdin = bytes.NewReader(pdf)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var reply workerReply
	if err := json.Unmarshal(out, &reply); err != nil || reply.Err != "" || reply.PeakKiB == 0 {
		t.Fatalf("worker reply %+v, %v", reply.Err, err)
	}
	rss := reply.PeakKiB
	t.Logf("ledongthuc/pdf worker, %s: peak resident memory %d KiB (the whole process)", filepath.Base(largest), rss)
	if peak-before > DefaultMemory>>10 || rss > DefaultMemory>>10 {
		t.Errorf("past the %d MiB limit", DefaultMemory>>20)
	}
}

// residentKiB is this process's resident memory (VmRSS) in KiB.
func residentKiB(t testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// BenchmarkPDFInk measures the ink check against the extraction, in the same run: the found
// quotes of testdata/pdf/quotes.tsv in the five printed corpus PDFs are confirmed with
// CheckInk, all the quotes of a document in one call ("ink", as a check run confirms the
// quotes of one URL), or the first quote of each document alone ("ink-one"). Each is
// compared with reading the five PDFs with ExtractPDFium ("extract"), and with reading them
// as this package did before the ink rules ("before": each page's text in one call, no
// boxes, legacyPDFium). The figures are milliseconds per round and their ratios.
//
//	go test ./pdf -run XXX -bench PDFInk -benchtime 3x
func BenchmarkPDFInk(b *testing.B) {
	var pdfs [][]byte
	quotes := make([][][]Glyph, len(pdfCorpusPrinted)) // per document, each quote's characters
	nquotes := 0
	rows, err := os.ReadFile(filepath.Join(pdfDir, "quotes.tsv"))
	if err != nil {
		b.Fatal(err)
	}
	for d, n := range pdfCorpusPrinted {
		p := readPDFFile(b, n+".pdf")
		pdfs = append(pdfs, p)
		txt, err := ExtractPDFium(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, row := range strings.Split(string(rows), "\n") {
			cols := strings.SplitN(row, "\t", 4)
			if len(cols) != 4 || cols[0] != n+".pdf" || cols[1] != "found" {
				continue
			}
			i := strings.Index(txt.Body, cols[3])
			if i < 0 {
				b.Fatalf("%s: %q is not in the text", n, cols[3])
			}
			g, ok := txt.GlyphsIn(i, i+len(cols[3]), false)
			if !ok {
				b.Fatalf("%s: no glyphs for %q", n, cols[3])
			}
			quotes[d] = append(quotes[d], g)
			nquotes++
		}
	}
	if nquotes == 0 {
		b.Fatal("no corpus quotes")
	}
	// The four are measured in turn, document by document, in each round, so that a machine
	// whose load changes during the run slows them alike.
	var before, extract, ink, inkOne time.Duration
	timed := func(d *time.Duration, f func() error) {
		start := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		*d += time.Since(start)
	}
	confirm := func(p []byte, qs [][]Glyph) error {
		reps, err := CheckInk(p, qs)
		for _, r := range reps {
			if err == nil && !r.Seen() {
				err = fmt.Errorf("a corpus quote is not seen: %+v", r)
			}
		}
		return err
	}
	for b.Loop() {
		for d, p := range pdfs {
			timed(&before, func() error { _, err := legacyPDFium(p); return err })
			timed(&extract, func() error { _, err := ExtractPDFium(p); return err })
			timed(&ink, func() error { return confirm(p, quotes[d]) })
			timed(&inkOne, func() error { return confirm(p, quotes[d][:1]) })
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Milliseconds()) / float64(b.N) }
	b.ReportMetric(ms(before), "before-ms")
	b.ReportMetric(ms(extract), "extract-ms")
	b.ReportMetric(ms(ink), "ink-ms")
	b.ReportMetric(ms(inkOne), "ink-one-ms")
	b.ReportMetric(float64(nquotes), "quotes")
	b.ReportMetric(float64(extract)/float64(before), "extract/before")
	b.ReportMetric(float64(ink)/float64(before), "ink/before")
	b.ReportMetric(float64(inkOne)/float64(before), "ink-one/before")
	b.ReportMetric(float64(ink)/float64(extract), "ink/extract")
}

// legacyPDFium reads a PDF as ExtractPDFium did before the ink rules: each page's text in
// one call, split at PDFium's line ends, laid out without places on the page.
func legacyPDFium(body []byte) (Text, error) {
	var lines [][]string
	err := runPDFium(body, DefaultLimits, "read", func(inst pdfium.Pdfium) error {
		doc, err := inst.OpenDocument(&requests.OpenDocument{File: &body})
		if err != nil {
			return err
		}
		defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
		count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
		if err != nil {
			return err
		}
		for i := range count.PageCount {
			page, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc.Document, Index: i})
			if err != nil {
				return err
			}
			tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: requests.Page{ByReference: &page.Page}})
			if err != nil {
				return err
			}
			n, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
			if err != nil {
				return err
			}
			txt, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, Count: n.Count})
			if err != nil {
				return err
			}
			lines = append(lines, strings.FieldsFunc(txt.Text, func(r rune) bool { return r == '\r' || r == '\n' }))
			inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
			inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: page.Page})
		}
		return nil
	})
	if err != nil {
		return Text{}, err
	}
	return layoutText(linesOnly(lines))
}
