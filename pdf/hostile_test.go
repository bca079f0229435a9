package pdf

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// pdfObjects builds a PDF from numbered objects (objs[0] is object 1), with a correct
// cross-reference table and a trailer whose root is object 1. A stream object is written
// as "<<dict>>" + streamMark + data.
func pdfObjects(objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		if dict, data, ok := strings.Cut(o, streamMark); ok {
			fmt.Fprintf(&b, "%d 0 obj\n%s\nstream\n%s\nendstream\nendobj\n", i+1, dict, data)
			continue
		}
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

const streamMark = "\x00STREAM\x00"

// onePage is a one-page PDF whose page has extra entries pageExtra, catalog extra entries
// catalogExtra, and content stream content (with its dict entries contentDict).
func onePage(catalogExtra, pageExtra, contentDict, content string, more ...string) []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R " + catalogExtra + " >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> " + pageExtra + " >>",
		fmt.Sprintf("<< /Length %d %s >>", len(content), contentDict) + streamMark + content,
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	}
	return pdfObjects(append(objs, more...)...)
}

const helloContent = "BT /F1 12 Tf 72 700 Td (The hostile document still says hello to its reader.) Tj ET"

// repeatedDeflate compresses n copies of unit without holding them all in memory.
func repeatedDeflate(t testing.TB, unit string, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	w, _ := zlib.NewWriterLevel(&b, zlib.BestSpeed)
	chunk := []byte(strings.Repeat(unit, max(1, (1<<20)/len(unit))))
	for written := 0; written < n; written += len(chunk) / len(unit) {
		w.Write(chunk)
	}
	w.Close()
	return b.Bytes()
}

var knownPDFErrors = []error{ErrEncrypted, ErrScanned, ErrDamaged, ErrLimit}

// hostileLimits are tighter than the defaults, so that the cases run fast, and are the
// limits the cases must be held to.
var hostileLimits = Limits{Time: 5 * time.Second, Memory: 256 << 20, Pages: 100, Text: 4 << 20}

type pdfEngine struct {
	name    string
	extract func([]byte, Limits) (Text, error)
}

var pdfEngines = []pdfEngine{{NamePDFium, extractPDFium}, {NamePDFText, extractPDFText}}

// TestHostilePDFs feeds both engines documents built to hurt a reader. None may hang (each
// must end within its time limit and a little), panic, or take more memory than its limit;
// each ends with text or with one of the package's errors. want* say more where the
// outcome is fixed: text that must be read, text that must not (an embedded file), or the
// error.
func TestHostilePDFs(t *testing.T) {
	const hello = "The hostile document still says hello to its reader."
	deep := strings.Repeat("[", 200000) + strings.Repeat("]", 200000)
	deepDict := strings.Repeat("<< /A ", 50000) + strings.Repeat(">> ", 50000)
	blank := repeatedDeflate(t, " ", 1<<30)                         // 1 GiB of whitespace
	textBomb := repeatedDeflate(t, "(AAAAAAAAAAAAAAA) Tj ", 20<<20) // 20 Mi text operators
	valid := onePage("", "", "", helloContent)
	badXref := bytes.Replace(valid, []byte("0000000015 00000 n"), []byte("0000099999 00000 n"), 1)
	if bytes.Equal(badXref, valid) {
		// the first object does not start at 15 in this build: damage every offset instead
		badXref = bytes.ReplaceAll(valid, []byte("00000 n \n"), []byte("00000 x \n"))
	}
	tests := []struct {
		desc      string
		pdf       []byte
		wantText  string           // must be in the text when it is read
		notText   string           // must never be in the text
		wantErr   error            // the error both engines must give; nil: text or any known error
		wantErrBy map[string]error // the error one engine must give
		wantRead  bool             // both engines must read it
	}{
		{desc: "a valid minimal PDF (the builder works)", pdf: valid, wantText: hello, wantRead: true},
		{desc: "arrays nested 200,000 deep in the page", pdf: onePage("", "/Deep "+deep, "", helloContent)},
		{desc: "dictionaries nested 50,000 deep in the catalog", pdf: onePage("/Deep "+deepDict, "", "", helloContent)},
		{desc: "arrays nested 200,000 deep in the content stream", pdf: onePage("", "", "", deep+" "+helloContent)},
		// PDFium holds a stream's bytes, and runs out of its memory; ledongthuc/pdf reads
		// the stream as it comes, and finds no words before its time is up, or none at all.
		{desc: "a decompression bomb: 1 GiB of whitespace in 1 MiB", pdf: onePage("", "", "/Filter /FlateDecode", string(blank)), wantErrBy: map[string]error{NamePDFium: ErrLimit}},
		{desc: "a text bomb: 20 Mi text operators, past the text limit", pdf: onePage("", "", "/Filter /FlateDecode", string(textBomb)), notText: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
		{desc: "a stream that claims 2 GiB", pdf: bytes.Replace(valid, []byte(fmt.Sprintf("/Length %d", len(helloContent))), []byte("/Length 2147483647"), 1)},
		{desc: "a broken cross-reference table", pdf: badXref, wantErr: ErrDamaged},
		{desc: "no cross-reference table at all", pdf: valid[:bytes.Index(valid, []byte("xref"))], wantErr: ErrDamaged},
		{desc: "cut in half", pdf: valid[:len(valid)/2], wantErr: ErrDamaged},
		{desc: "JavaScript on open that loops forever", pdf: onePage("/OpenAction << /S /JavaScript /JS (while(true){}) >> /Names << /JavaScript << /Names [(x) << /S /JavaScript /JS (app.alert(1)) >>] >> >>", "", "", helloContent), wantText: hello, wantRead: true},
		{desc: "an embedded file is never read", pdf: onePage("/Names << /EmbeddedFiles << /Names [(notes.txt) 6 0 R] >> >>", "", "", helloContent,
			"<< /Type /Filespec /F (notes.txt) /EF << /F 7 0 R >> >>",
			"<< /Type /EmbeddedFile /Length 38 >>"+streamMark+"The embedded file holds a secret line."), wantText: hello, notText: "secret line", wantRead: true},
		{desc: "a page tree that contains itself", pdf: pdfObjects(
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
			fmt.Sprintf("<< /Length %d >>", len(helloContent))+streamMark+helloContent,
			"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")},
		{desc: "a page count of a billion", pdf: bytes.Replace(valid, []byte("/Count 1"), []byte("/Count 1000000000"), 1)},
		{desc: "not a PDF at all", pdf: []byte("%PDF-1.7\nthis is not a PDF, only its first line"), wantErr: ErrDamaged},
		{desc: "empty", pdf: nil, wantErr: ErrDamaged},
	}
	if _, err := extractPDFium(valid, hostileLimits); err != nil { // compile the engine before memory is watched
		t.Fatal(err)
	}
	for _, tc := range tests {
		for _, e := range pdfEngines {
			t.Run(tc.desc+"/"+e.name, func(t *testing.T) {
				peak := watchResident(t)
				// The time limit itself is tested with a clock the engines cannot beat
				// (TestPDFLimits, TestPDFiumKilledMidRead); here the time is logged.
				start := time.Now()
				txt, err := e.extract(tc.pdf, hostileLimits)
				took := time.Since(start)
				if grew := peak(); grew > uint64(hostileLimits.Memory+64<<20) {
					t.Errorf("resident memory grew by %d MiB at its peak, past the %d MiB limit", grew>>20, hostileLimits.Memory>>20)
				}
				t.Logf("%s in %s: err %v", e.name, took.Round(time.Millisecond), err)
				if want := tc.wantErrBy[e.name]; want != nil && !errors.Is(err, want) {
					t.Errorf("error %v, want %v", err, want)
				}
				if err != nil {
					if !isKnownPDFError(err) {
						t.Errorf("error %v wraps none of the package's errors", err)
					}
					// Under the race detector a worker's shadow memory counts in its memory cap,
					// so it may reach the cap before the engine finds the damage: a limit is
					// then as good an answer (the document is refused either way).
					if tc.wantErr != nil && !errors.Is(err, tc.wantErr) && !(raceBuild && errors.Is(err, ErrLimit)) {
						t.Errorf("error %v, want %v", err, tc.wantErr)
					}
					if tc.wantRead {
						t.Errorf("not read: %v", err)
					}
					if txt.Body != "" && !errors.Is(err, ErrScanned) {
						t.Errorf("an error came with text %q", txt.Body[:min(80, len(txt.Body))])
					}
					return
				}
				if tc.wantErr != nil {
					t.Errorf("read (%q), want %v", txt.Body[:min(80, len(txt.Body))], tc.wantErr)
				}
				if tc.wantText != "" && !strings.Contains(txt.Body, tc.wantText) {
					t.Errorf("text %q lacks %q", txt.Body, tc.wantText)
				}
				if tc.notText != "" && strings.Contains(txt.Body, tc.notText) {
					t.Errorf("text holds %q, which it must not", tc.notText)
				}
				if len(txt.Body) > hostileLimits.Text {
					t.Errorf("text of %d bytes, past the %d limit", len(txt.Body), hostileLimits.Text)
				}
			})
		}
	}
}

// watchResident samples this process's resident memory every 2 ms until the returned
// function is called, which returns how many bytes it grew above the first sample at its
// peak. PDFium's memory is this process's; a PDF worker's is its own process's, capped
// there.
func watchResident(t testing.TB) func() uint64 {
	runtime.GC()
	base, top := residentKiB(t), int64(0)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			if v := residentKiB(t); v > top {
				top = v
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		if top < base {
			return 0
		}
		return uint64(top-base) << 10
	}
}

func isKnownPDFError(err error) bool {
	for _, k := range knownPDFErrors {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}
