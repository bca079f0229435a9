package pdf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// workerArg is the one argument a PDF worker is started with: [ExtractPDFText] runs this
// same program again, with workerArg and pdfWorkerEnv, to read one PDF in a process of its
// own. A program whose PDFs may be read by that engine (the ledger binary, a test binary)
// calls [IsWorker] before anything else and, when it is true, exits with [RunWorker]'s code.
// A program that does not fails on the argument it does not know, and the reading fails as
// a worker that crashed: never a result.
const workerArg = "-evidenceledger-pdf-worker"

// IsWorker reports whether this process was started as a PDF worker: its only argument is
// the worker's and its environment says so.
func IsWorker() bool {
	return len(os.Args) == 2 && os.Args[1] == workerArg && os.Getenv(pdfWorkerEnv) == "1"
}

func envInt(name string, def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(name), 10, 64); err == nil && v > 0 {
		return v
	}
	return def
}

// RunWorker is the whole of a PDF worker: it caps its own memory and stack, reads one PDF on
// standard input, writes what the engine read on standard output and returns the exit code
// (0 when it wrote an answer). This is how [ExtractPDFText] keeps a hostile document away
// from the program's memory. Call it only when [IsWorker] is true.
func RunWorker() int {
	limits := Limits{
		Memory: envInt("EVIDENCELEDGER_PDF_MEMORY", DefaultMemory),
		Pages:  int(envInt("EVIDENCELEDGER_PDF_PAGES", DefaultPages)),
		Text:   int(envInt("EVIDENCELEDGER_PDF_TEXT", DefaultText)),
	}
	// RLIMIT_DATA caps the writable memory the process maps (the heap, stacks), not the
	// address space the Go runtime only reserves; the cap is the limit plus a little room
	// for the runtime, and the garbage collector is told to keep the heap below the limit.
	const runtimeRoom = 64 << 20
	data := uint64(limits.Memory + runtimeRoom)
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: data, Max: data}); err != nil {
		fmt.Fprintln(os.Stderr, "pdf worker: cannot cap memory:", err)
		return 3
	}
	debug.SetMemoryLimit(limits.Memory)
	debug.SetMaxStack(64 << 20)
	body, err := drain(os.Stdin, limits.Memory)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pdf worker: read input:", err)
		return 3
	}
	reply := readPDFText(body, limits)
	reply.PeakKiB = peakKiB()
	if err := json.NewEncoder(os.Stdout).Encode(reply); err != nil {
		return 3
	}
	return 0
}

// errTextLimit stops a content walk that has produced more text than the limit.
var errTextLimit = errors.New("text limit")

// readPDFText reads every page's lines with github.com/ledongthuc/pdf. The engine panics
// on much bad input; a panic is a damaged document.
func readPDFText(body []byte, limits Limits) (reply workerReply) {
	defer func() {
		if r := recover(); r != nil {
			if r == errTextLimit {
				reply = workerReply{Err: "limit", Msg: fmt.Sprintf("the PDF holds more than %d bytes of text", limits.Text)}
				return
			}
			reply = workerReply{Err: "damaged", Msg: fmt.Sprint(r)}
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) || strings.Contains(err.Error(), "encrypt") {
			return workerReply{Err: "encrypted", Msg: err.Error()}
		}
		return workerReply{Err: "damaged", Msg: err.Error()}
	}
	n := r.NumPage()
	if n > limits.Pages {
		return workerReply{Err: "limit", Msg: fmt.Sprintf("the PDF has %d pages, more than the %d read", n, limits.Pages)}
	}
	if n == 0 {
		return workerReply{Err: "damaged", Msg: "it has no pages"}
	}
	budget := limits.Text
	switch lang := r.Trailer().Key("Root").Key("Lang"); lang.Kind() {
	case pdf.String: // as the format says
		if len(lang.RawString()) <= 4*maxLangTag {
			reply.Lang = lang.Text()
		}
	case pdf.Name: // a writer's slip PDFium reads too
		reply.Lang = lang.Name()
	}
	oc := readOptionalContent(r)
	reply.Pages = make([][]pdfFrag, 0, n)
	for i := 1; i <= n; i++ {
		reply.Pages = append(reply.Pages, pageFrags(r.Page(i), oc, &budget))
	}
	return reply
}

// Punctuation that joins a text object to the one before it without a space.
const (
	noSpaceBefore = ",.;:!?)]}»”’%-/"
	noSpaceAfter  = "([{«“‘-/ "
)

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// validUTF8 returns s as UTF-8: the engine passes on the bytes of a simple font's codes it
// has no Unicode for, and those are read as Latin-1 (which PDFDocEncoding agrees with for
// the letters, NBSP and the soft hyphen).
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			r = rune(s[i])
		}
		b.WriteRune(r)
		i += size
	}
	return b.String()
}

// peakKiB is this process's peak resident memory (VmHWM) in KiB, or 0 when unknown.
func peakKiB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}
