package fetch

import (
	"os"
	"testing"
	"time"
)

func TestScratchPDFium(t *testing.T) {
	for _, n := range []string{"columns", "report", "lwn-1", "scanned", "encrypted", "owner-only"} {
		b, _ := os.ReadFile("../testdata/pdf/" + n + ".pdf")
		st := time.Now()
		txt, err := ExtractPDFium(b, "application/pdf")
		t.Logf("%s: %v err=%v pages=%v ext=%s", n, time.Since(st), err, txt.PDF, "")
		if len(txt.Body) > 1500 {
			txt.Body = txt.Body[:1500]
		}
		t.Logf("%q", txt.Body)
		if txt.PDF != nil && txt.PDF.Alt != "" {
			t.Logf("ALT %q", txt.PDF.Alt[:min(len(txt.PDF.Alt), 600)])
		}
	}
}

func TestScratchText(t *testing.T) {
	for _, n := range []string{"columns", "report", "lwn-1", "scanned", "encrypted", "owner-only"} {
		b, _ := os.ReadFile("../testdata/pdf/" + n + ".pdf")
		st := time.Now()
		txt, err := ExtractPDFText(b, "application/pdf")
		t.Logf("%s: %v err=%v pages=%v", n, time.Since(st), err, txt.PDF)
		if len(txt.Body) > 1500 {
			txt.Body = txt.Body[:1500]
		}
		t.Logf("%q", txt.Body)
	}
}

func TestScratchLines(t *testing.T) {
	b, _ := os.ReadFile("../testdata/pdf/report.pdf")
	r := readPDFText(b, DefaultPDFLimits)
	for i, p := range r.Pages {
		t.Logf("page %d: %q", i+1, p)
	}
	b, _ = os.ReadFile("../testdata/pdf/lwn-1.pdf")
	r = readPDFText(b, DefaultPDFLimits)
	t.Logf("lwn %v %s", r.Err, r.Msg)
}
