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
	size := 0
	reply.Pages = make([][]string, 0, n)
	for i := 1; i <= n; i++ {
		lines := pageLines(r.Page(i), func(s string) {
			if size += len(s); size > limits.Text {
				panic(errTextLimit)
			}
		})
		reply.Pages = append(reply.Pages, lines)
	}
	return reply
}

// pageLines walks a page's content stream with the engine's interpreter and returns its
// lines in the order they are drawn: a new line starts at each text object (BT), at each
// move to a new line (T*, ', ") and at each move or matrix that changes the vertical
// position. A TJ adjustment wider than a fifth of an em is a space between words. count
// is told every piece of text.
func pageLines(p pdf.Page, count func(string)) []string {
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
	)
	newLine := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
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
		s := raw
		if enc != nil {
			s = enc.Decode(raw)
		}
		count(s)
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
			newLine()
			y = math.NaN()
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
