package fetch

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pdfCorpusPrinted are the corpus pages printed to PDF by scripts/pdf-corpus.sh.
var pdfCorpusPrinted = []string{"ars-1", "ebb-org", "heise", "lemonde-1", "lwn-1"}

// BenchmarkPDFCorpus reads the five printed corpus PDFs with each engine and reports MB/s
// of PDF, pages/s, and the ratio to the floor: the same five documents read as HTML by
// ExtractTokens, in the same run.
//
//	go test ./fetch -run XXX -bench PDFCorpus -benchtime 5x
func BenchmarkPDFCorpus(b *testing.B) {
	var pdfs, pages [][]byte
	var pdfBytes, htmlBytes, pageCount int
	for _, n := range pdfCorpusPrinted {
		p := readPDFFile(b, n+".pdf")
		pdfs, pdfBytes = append(pdfs, p), pdfBytes+len(p)
		h := readCorpus(b, n+".html")
		pages, htmlBytes = append(pages, h), htmlBytes+len(h)
		txt, err := ExtractPDFium(p, "application/pdf")
		if err != nil {
			b.Fatal(err)
		}
		pageCount += len(txt.PDF.Pages)
	}
	var floorNs float64
	b.Run("floor-html-tokens", func(b *testing.B) {
		b.SetBytes(int64(htmlBytes))
		for b.Loop() {
			for _, h := range pages {
				if _, err := ExtractTokens(h, "text/html"); err != nil {
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
					if _, err := e.extract(p, DefaultPDFLimits); err != nil {
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
	if _, err := ExtractPDFium(pdf, ""); err != nil { // the engine is compiled once, outside the measure
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
	if _, err := ExtractPDFium(pdf, ""); err != nil {
		t.Fatal(err)
	}
	close(stop)
	<-done
	t.Logf("PDFium, %s (%d KiB): resident memory grew by %d KiB at its peak", filepath.Base(largest), size>>10, peak-before)

	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = []string{pdfWorkerEnv + "=1", "EVIDENCELEDGER_PDF_MEMORY=" + strconv.FormatInt(DefaultPDFMemory, 10)}
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
	if peak-before > DefaultPDFMemory>>10 || rss > DefaultPDFMemory>>10 {
		t.Errorf("past the %d MiB limit", DefaultPDFMemory>>20)
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
