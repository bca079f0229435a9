package fetch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// A process started with pdfWorkerEnv set is a PDF worker and nothing else: before main
// runs, it caps its own memory and stack, reads one PDF on standard input, writes a
// workerReply on standard output and exits. This is how [ExtractPDFText] keeps a hostile
// document away from the program's memory; any binary that imports this package (the
// ledger binary, a test binary) can serve as its own worker.
func init() {
	if os.Getenv(pdfWorkerEnv) != "1" {
		return
	}
	os.Exit(pdfWorker())
}

func envInt(name string, def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(name), 10, 64); err == nil && v > 0 {
		return v
	}
	return def
}

func pdfWorker() int {
	limits := PDFLimits{
		Memory: envInt("EVIDENCELEDGER_PDF_MEMORY", DefaultPDFMemory),
		Pages:  int(envInt("EVIDENCELEDGER_PDF_PAGES", DefaultPDFPages)),
		Text:   int(envInt("EVIDENCELEDGER_PDF_TEXT", DefaultPDFText)),
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
func readPDFText(body []byte, limits PDFLimits) (reply workerReply) {
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
	reply.Pages = make([][]string, 0, n)
	for i := 1; i <= n; i++ {
		reply.Pages = append(reply.Pages, pageLines(r.Page(i), &budget))
	}
	return reply
}

// pageLines walks a page's content stream with the engine's interpreter and returns its
// lines in the order they are drawn: a new line starts at each move to a new line (T*, ',
// ") and at each move or text matrix that changes the vertical position; text objects on
// one baseline are one line. A TJ adjustment wider than a fifth of an em is a space
// between words.
//
// budget is the bytes of text still allowed, each line counted with a byte for its end (as
// PDFium's lines are); the walk panics with errTextLimit as soon as a line cannot fit, so a
// page that never ends its line cannot grow it past the limit either.
func pageLines(p pdf.Page, budget *int) []string {
	if p.V.IsNull() || p.V.Key("Contents").Kind() == pdf.Null {
		return nil
	}
	encs := map[string]pdf.TextEncoding{}
	for _, name := range p.Fonts() {
		f := p.Font(name)
		encs[name] = f.Encoder()
	}
	var (
		lines []string
		cur   strings.Builder
		enc   pdf.TextEncoding
		y     = math.NaN()
		// actual is the /ActualText of the marked-content sequences open (BDC ... EMC):
		// what the glyphs inside stand for, such as a soft hyphen drawn as a space.
		actual []*string
		gap    bool // a new text object began: a space may be due before its text
	)
	newLine := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			if *budget -= len(s) + 1; *budget < 0 {
				panic(errTextLimit)
			}
			lines = append(lines, s)
		}
		cur.Reset()
	}
	moveTo := func(ny float64) {
		if math.IsNaN(y) || math.Abs(ny-y) > 0.5 {
			newLine()
		}
		y = ny
	}
	show := func(raw string) {
		for _, a := range actual {
			if a != nil {
				return // the sequence's ActualText stands for these glyphs
			}
		}
		s := raw
		if enc != nil {
			s = enc.Decode(raw)
		}
		s = validUTF8(s)
		if gap {
			gap = false
			if r, _ := utf8.DecodeRuneInString(s); cur.Len() > 0 && !strings.ContainsRune(noSpaceAfter, lastRune(cur.String())) && !strings.ContainsRune(noSpaceBefore, r) && !unicode.IsSpace(r) {
				cur.WriteByte(' ')
			}
		}
		if cur.Len()+len(s) > *budget+64 { // +64: room for spaces TrimSpace takes off
			panic(errTextLimit)
		}
		cur.WriteString(s)
	}
	pdf.Interpret(p.V.Key("Contents"), func(stk *pdf.Stack, op string) {
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "BT":
			// A new text object on the same baseline (a link, a change of font, the next
			// cell) goes on with the line, after a space unless punctuation joins them;
			// moveTo starts a new line when the baseline moves.
			gap = true
		case "BMC":
			actual = append(actual, nil)
		case "BDC":
			var a *string
			if len(args) == 2 && args[1].Kind() == pdf.Dict {
				if v := args[1].Key("ActualText"); v.Kind() == pdf.String {
					t := v.Text()
					a = &t
				}
			}
			actual = append(actual, a)
		case "EMC":
			if n := len(actual); n > 0 {
				a := actual[n-1]
				actual = actual[:n-1]
				if a != nil {
					show(*a)
				}
			}
		case "Tf":
			if len(args) == 2 {
				enc = encs[args[0].Name()]
			}
		case "Tm":
			if len(args) == 6 {
				moveTo(args[5].Float64())
			}
		case "Td", "TD":
			if len(args) == 2 && args[1].Float64() != 0 {
				newLine()
				if !math.IsNaN(y) {
					y += args[1].Float64()
				}
			}
		case "T*":
			newLine()
		case "'", "\"":
			newLine()
			if len(args) > 0 {
				show(args[len(args)-1].RawString())
			}
		case "Tj":
			if len(args) == 1 {
				show(args[0].RawString())
			}
		case "TJ":
			if len(args) != 1 {
				return
			}
			v := args[0]
			for i := 0; i < v.Len(); i++ {
				switch x := v.Index(i); x.Kind() {
				case pdf.String:
					show(x.RawString())
				case pdf.Integer, pdf.Real:
					if x.Float64() <= -200 {
						cur.WriteByte(' ')
					}
				}
			}
		}
	})
	newLine()
	return lines
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
