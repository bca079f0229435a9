package pdf

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// NamePDFText names the extractor built on github.com/ledongthuc/pdf in [Text.Extractor].
const NamePDFText = "ledongthuc-pdf"

// pdfTextModuleVersion is the version of github.com/ledongthuc/pdf in go.mod, recorded
// with every document it reads (a test keeps the two equal).
const pdfTextModuleVersion = "v0.0.0-20260907135840-6c8c28e0e8a0"

// pdfWorkerEnv is set in a PDF worker's environment, beside its argument workerArg (see
// [IsWorker]): the program runs itself to read a PDF in a process of its own.
const pdfWorkerEnv = "EVIDENCELEDGER_PDF_WORKER"

// ExtractPDFText reads the text of a PDF with github.com/ledongthuc/pdf (pure Go), within
// [DefaultLimits]. The engine runs in a child process (this same program, started again
// with nothing of its parent's environment), so that a hostile document cannot take the
// program's memory or time: the child's writable memory is capped at the memory limit, its
// stack bounded, and it is killed when the time is up; at most two run at once. A crash of
// the child is an error, never a result. The text is laid out as described in docs/pdf.md.
//
// Errors wrap [ErrEncrypted], [ErrScanned], [ErrDamaged] or [ErrLimit]. The caller has
// decided the body is a PDF (the fetcher's rule, by content type and signature).
func ExtractPDFText(body []byte) (Text, error) {
	return extractPDFText(body, DefaultLimits)
}

// workerReply is what a PDF worker writes on its standard output.
type workerReply struct {
	Pages [][]pdfFrag `json:"pages"`
	Lang  string      `json:"lang,omitempty"` // the catalog's /Lang
	Err   string      `json:"err,omitempty"`  // "encrypted", "damaged", "limit"
	Msg   string      `json:"msg,omitempty"`
	// PeakKiB is the worker's peak resident memory (VmHWM), for the measurements.
	PeakKiB int64 `json:"peak_kib,omitempty"`
}

var workerErrs = map[string]error{"encrypted": ErrEncrypted, "damaged": ErrDamaged, "limit": ErrLimit}

// limitedBuffer keeps at most max bytes and remembers that more came.
type limitedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.over = true
		b.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

var selfPath = sync.OnceValues(os.Executable)

// pdfWorkers holds a place for each PDF worker running: at most as many as PDFium
// instances, so that the memory all of them may take is bounded too; the others wait their
// turn, within their time limit.
var pdfWorkers = make(chan struct{}, pdfiumInstances)

func extractPDFText(body []byte, limits Limits) (Text, error) {
	limits = limits.withDefaults()
	if int64(len(body)) >= limits.Memory {
		return Text{}, fmt.Errorf("%w: the PDF is %d bytes, more than the %d bytes of memory its reading may use", ErrLimit, len(body), limits.Memory)
	}
	exe, err := selfPath()
	if err != nil {
		return Text{}, fmt.Errorf("read PDF: cannot find this program to start a PDF worker: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limits.Time)
	defer cancel()
	select {
	case pdfWorkers <- struct{}{}:
		defer func() { <-pdfWorkers }()
	case <-ctx.Done():
		return Text{}, fmt.Errorf("%w: no PDF worker was free within %s", ErrLimit, limits.Time)
	}
	cmd := exec.CommandContext(ctx, exe, workerArg)
	cmd.Env = []string{
		pdfWorkerEnv + "=1",
		"EVIDENCELEDGER_PDF_MEMORY=" + strconv.FormatInt(limits.Memory, 10),
		"EVIDENCELEDGER_PDF_PAGES=" + strconv.Itoa(limits.Pages),
		"EVIDENCELEDGER_PDF_TEXT=" + strconv.Itoa(limits.Text),
	}
	cmd.Stdin = bytes.NewReader(body)
	stdout := &limitedBuffer{max: 2*limits.Text + 1<<20} // JSON escapes can double the text
	stderr := &limitedBuffer{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second
	runErr := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return Text{}, pdfTimeout("ledongthuc/pdf", "read", limits.Time)
	case stdout.over:
		return Text{}, fmt.Errorf("%w: the PDF holds more than %d bytes of text", ErrLimit, limits.Text)
	case runErr != nil:
		return Text{}, workerCrash(runErr, stderr.String(), limits)
	}
	var reply workerReply
	if err := json.Unmarshal(stdout.Bytes(), &reply); err != nil {
		return Text{}, fmt.Errorf("%w: the PDF worker's answer cannot be read: %v", ErrDamaged, err)
	}
	if reply.Err != "" {
		base, ok := workerErrs[reply.Err]
		if !ok {
			base = ErrDamaged
		}
		return Text{}, fmt.Errorf("%w (ledongthuc/pdf: %s)", base, reply.Msg)
	}
	return layoutText(pdfPages{pages: reply.Pages, extractor: pdfTextVersion, lang: reply.Lang})
}

// workerCrash says why a PDF worker ended without an answer: out of memory (its address
// space is capped), a stack too deep, or another crash; none of them is a result.
func workerCrash(err error, stderr string, limits Limits) error {
	last := strings.TrimSpace(stderr)
	if i := strings.IndexByte(last, '\n'); i >= 0 {
		last = last[:i]
	}
	var ee *exec.ExitError
	switch {
	case strings.Contains(stderr, "out of memory"), strings.Contains(stderr, "cannot allocate memory"):
		return fmt.Errorf("%w: reading the PDF needed more than %d bytes of memory", ErrLimit, limits.Memory)
	case strings.Contains(stderr, "stack overflow"), strings.Contains(stderr, "goroutine stack exceeds"):
		return fmt.Errorf("%w: the PDF's objects are nested too deep to be read", ErrLimit)
	case errors.As(err, &ee):
		return fmt.Errorf("%w: the PDF worker crashed (%v: %s)", ErrDamaged, err, last)
	}
	return fmt.Errorf("read PDF: the PDF worker could not run: %w", err)
}

var pdfTextVersion = NamePDFText + " (github.com/ledongthuc/pdf " + pdfTextModuleVersion + ")"

// drain is used by the worker to read its whole input within a limit.
func drain(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("more than %d bytes", limit)
	}
	return b, err
}
