package pdf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/klippa-app/go-pdfium"
	pdfiumerr "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"golang.org/x/sys/unix"
)

// NamePDFium names the PDFium extractor in [Text.Extractor].
const NamePDFium = "pdfium"

// pdfiumInstances is how many documents PDFium reads at once in one process; the others
// wait their turn, within their time limit.
const pdfiumInstances = 2

// ExtractPDFium reads the text of a PDF with PDFium (Chrome's PDF engine) compiled to
// WebAssembly and run by wazero, within [DefaultLimits]: each document gets a fresh
// engine instance whose memory cannot grow past the limit, that sees no file system, and
// that is stopped when the time is up. Scripts in the PDF are never run and embedded files
// never opened. The text is laid out as described in docs/pdf.md.
//
// Errors wrap [ErrEncrypted], [ErrScanned], [ErrDamaged] or [ErrLimit]. The caller has
// decided the body is a PDF (the fetcher's rule, by content type and signature).
func ExtractPDFium(body []byte) (Text, error) {
	return extractPDFium(body, DefaultLimits)
}

var pdfiumPools = struct {
	sync.Mutex
	cache    wazero.CompilationCache
	compiled time.Duration         // how long the first pool, which compiled the module, took
	pools    map[int64]*enginePool // by memory limit
}{pools: map[int64]*enginePool{}}

// WarmPDFium makes ready the PDFium engine [ExtractPDFium] reads PDFs with, and returns how
// long this process took to compile its WebAssembly module. The module is compiled once per
// process, by the first PDF read or by this call, whichever comes first (later calls return
// the same duration at once); the compile is not counted in any document's time limit. The
// compile takes seconds (about 3 s on one core of a 2-core machine, ten times that under the
// race detector), so a server calls this at start rather than make its first PDF wait.
func WarmPDFium() (time.Duration, error) {
	if _, err := pdfiumPool(DefaultLimits.withDefaults().Memory); err != nil {
		return 0, err
	}
	pdfiumPools.Lock()
	defer pdfiumPools.Unlock()
	return pdfiumPools.compiled, nil
}

// enginePool is a pool of PDFium instances with one memory limit.
type enginePool struct {
	pdfium.Pool
	// full counts the times an instance's memory grew to within nearLimit of the limit; an
	// engine that stops after that ran out of memory.
	full atomic.Int64
}

// pdfiumPool returns the pool of engines with this memory limit, made on first use. The
// compiled module is shared by all pools through one compilation cache.
func pdfiumPool(memory int64) (*enginePool, error) {
	pdfiumPools.Lock()
	defer pdfiumPools.Unlock()
	if p := pdfiumPools.pools[memory]; p != nil {
		return p, nil
	}
	if pdfiumPools.cache == nil {
		pdfiumPools.cache = wazero.NewCompilationCache()
	}
	first := pdfiumPools.compiled == 0
	start := time.Now()
	pages := uint32(max(memory>>16, 16)) // 64 KiB WebAssembly pages
	// Each instance's memory is one anonymous mapping of the whole limit, made at once (the
	// operating system gives it pages as they are touched), so it never grows by copying:
	// the limit is the peak, not a multiple of it.
	limit := uint64(pages) << 16
	ep := &enginePool{}
	reserve := experimental.MemoryAllocatorFunc(func(_, maxSize uint64) experimental.LinearMemory {
		return &reservedMemory{size: int(min(maxSize, limit)), full: &ep.full}
	})
	p, err := webassembly.Init(webassembly.Config{
		Context:  experimental.WithMemoryAllocator(context.Background(), reserve),
		MinIdle:  0,
		MaxIdle:  pdfiumInstances,
		MaxTotal: pdfiumInstances,
		// No directory is mounted: the engine reads the bytes it is given and nothing else.
		FSConfig: wazero.NewFSConfig(),
		RuntimeConfig: wazero.NewRuntimeConfig().
			WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
			WithMemoryLimitPages(pages).
			WithCloseOnContextDone(true).
			WithCompilationCache(pdfiumPools.cache),
		Stdout: io.Discard,
		Stderr: io.Discard,
	})
	if err != nil {
		return nil, fmt.Errorf("start the PDFium engine: %w", err)
	}
	if first {
		pdfiumPools.compiled = time.Since(start)
	}
	ep.Pool = p
	pdfiumPools.pools[memory] = ep
	return ep, nil
}

// nearLimit is how close to its limit an instance's memory grew when it counts as full.
const nearLimit = 16 << 20

// reservedMemory is a WebAssembly memory that cannot grow past the mapping it was made
// with.
type reservedMemory struct {
	size int
	buf  []byte // the whole mapping, mapped on first use
	full *atomic.Int64
}

// Reallocate returns the memory at size bytes, or nil (the engine's allocation fails) past
// the limit or when the mapping cannot be made.
func (m *reservedMemory) Reallocate(size uint64) []byte {
	if size+nearLimit > uint64(m.size) {
		// wazero refuses to grow past the limit without asking; growing this close to it
		// is the sign that an engine that then stops ran out of memory.
		m.full.Add(1)
	}
	if size > uint64(m.size) {
		return nil
	}
	if m.buf == nil {
		b, err := syscall.Mmap(-1, 0, m.size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			return nil
		}
		m.buf = b
	}
	return m.buf[:size]
}

// Free gives the memory's pages back to the operating system at once, and unmaps it once
// no engine code runs (see engineMaps): an instance killed at its time limit is freed while
// its goroutine may still be executing compiled code in this mapping, and unmapping it then
// would fault the whole process. Until the unmap, a late access finds zero pages.
func (m *reservedMemory) Free() {
	if m.buf == nil {
		return
	}
	unix.Madvise(m.buf, unix.MADV_DONTNEED)
	engineMaps.Lock()
	if engineMaps.running == 0 {
		syscall.Munmap(m.buf)
	} else {
		engineMaps.retired = append(engineMaps.retired, m.buf)
	}
	engineMaps.Unlock()
	m.buf = nil
}

// engineMaps counts the goroutines running PDFium code and holds the mappings freed while
// any did; the last goroutine to leave unmaps them. Retired mappings hold no pages (Free
// gave them back), only address space.
var engineMaps struct {
	sync.Mutex
	running int
	retired [][]byte
}

// enterEngine marks a goroutine that is about to run PDFium code; leaveEngine, called when
// it has stopped, unmaps the retired mappings once none runs.
func enterEngine() {
	engineMaps.Lock()
	engineMaps.running++
	engineMaps.Unlock()
}

func leaveEngine() {
	engineMaps.Lock()
	defer engineMaps.Unlock()
	engineMaps.running--
	if engineMaps.running > 0 {
		return
	}
	for _, b := range engineMaps.retired {
		syscall.Munmap(b)
	}
	engineMaps.retired = nil
}

func extractPDFium(body []byte, limits Limits) (Text, error) {
	var pages pdfPages
	err := runPDFium(body, limits, "read", func(inst pdfium.Pdfium) (err error) {
		pages, err = readPDFium(inst, body, limits.withDefaults())
		return err
	})
	if err != nil {
		return Text{}, err
	}
	return layoutText(pages)
}

// runPDFium runs work on a fresh PDFium instance within limits (the PDF body counts against
// its memory): the instance is killed when the time is up, and a work that fails after the
// instance's memory grew to its limit fails with ErrLimit. what says what the work does, for
// the errors ("read", "render").
func runPDFium(body []byte, limits Limits, what string, work func(pdfium.Pdfium) error) error {
	limits = limits.withDefaults()
	if int64(len(body)) >= limits.Memory {
		return fmt.Errorf("%w: the PDF is %d bytes, more than the %d bytes of memory its reading may use", ErrLimit, len(body), limits.Memory)
	}
	pool, err := pdfiumPool(limits.Memory)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), limits.Time)
	defer cancel()
	inst, err := pool.GetInstanceWithContext(ctx)
	if err != nil {
		return fmt.Errorf("%w: no PDFium engine was free within %s: %v", ErrLimit, limits.Time, err)
	}
	full := pool.full.Load()
	done := make(chan error, 1)
	enterEngine()
	go func() {
		defer leaveEngine() // last: after the engine's code and the recover below
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("%w: the PDFium engine failed: %v", ErrDamaged, r)
			}
		}()
		done <- work(inst)
	}()
	select {
	case err := <-done:
		if err != nil {
			inst.Kill() // the instance may be in any state; it is not used again
			if pool.full.Load() != full && !errors.Is(err, ErrEncrypted) {
				return fmt.Errorf("%w: PDFium needed more than the %d bytes of memory it may use (%v)", ErrLimit, limits.Memory, err)
			}
			return err
		}
		inst.Close()
		return nil
	case <-ctx.Done():
		inst.Kill() // stops the engine where it is (WithCloseOnContextDone)
		return pdfTimeout("PDFium", what, limits.Time)
	}
}

// readPDFium reads every page's lines with one engine instance.
func readPDFium(inst pdfium.Pdfium, body []byte, limits Limits) (pdfPages, error) {
	out := pdfPages{extractor: pdfiumVersion}
	doc, err := inst.OpenDocument(&requests.OpenDocument{File: &body})
	if err != nil {
		return out, pdfiumError(err)
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	xref, err := inst.FPDF_DocumentHasValidCrossReferenceTable(&requests.FPDF_DocumentHasValidCrossReferenceTable{Document: doc.Document})
	if err != nil {
		return out, pdfiumError(err)
	}
	if !xref.DocumentHasValidCrossReferenceTable {
		return out, fmt.Errorf("%w: its cross-reference table is broken, so pages or text may be missing", ErrDamaged)
	}
	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return out, pdfiumError(err)
	}
	if count.PageCount > limits.Pages {
		return out, fmt.Errorf("%w: the PDF has %d pages, more than the %d read", ErrLimit, count.PageCount, limits.Pages)
	}
	if count.PageCount == 0 {
		return out, fmt.Errorf("%w: it has no pages", ErrDamaged)
	}
	// PDFium answers a catalog without /Lang with an error; no language is declared then.
	if lang, err := inst.FPDFCatalog_GetLanguage(&requests.FPDFCatalog_GetLanguage{Document: doc.Document}); err == nil {
		out.lang = lang.Language
	}
	size := 0
	for i := range count.PageCount {
		frags, err := pdfiumPageFrags(inst, doc.Document, i, limits.Text-size)
		if errors.Is(err, errTextLimit) {
			return out, fmt.Errorf("%w: the PDF holds more than %d bytes of text", ErrLimit, limits.Text)
		}
		if err != nil {
			return out, fmt.Errorf("page %d: %w", i+1, pdfiumError(err))
		}
		for _, f := range frags {
			size += len(f.Text) + 1
		}
		out.pages = append(out.pages, frags)
	}
	return out, nil
}

// pdfiumPageFrags returns the fragments of text of one page, in PDFium's reading order,
// without what no reader sees (see pdfiumPage).
func pdfiumPageFrags(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, index, budget int) ([]pdfFrag, error) {
	p, err := openPDFiumPage(inst, doc, index)
	if err != nil {
		return nil, err
	}
	defer p.close()
	return p.frags(budget)
}

// pdfiumError maps the engine's errors to the package's.
func pdfiumError(err error) error {
	switch {
	case errors.Is(err, pdfiumerr.ErrPassword), errors.Is(err, pdfiumerr.ErrSecurity):
		return fmt.Errorf("%w (PDFium: %v)", ErrEncrypted, err)
	case errors.Is(err, ErrLimit), errors.Is(err, ErrDamaged), errors.Is(err, ErrEncrypted):
		return err
	case strings.Contains(err.Error(), "memory"), strings.Contains(err.Error(), "malloc"):
		return fmt.Errorf("%w: PDFium ran out of the memory it may use: %v", ErrLimit, err)
	}
	return fmt.Errorf("%w (PDFium: %v)", ErrDamaged, err)
}

// The versions of the PDFium modules in go.mod, recorded with every document PDFium reads
// (a test keeps them equal to go.mod).
const (
	pdfiumModuleVersion = "v1.21.4"
	wazeroModuleVersion = "v1.12.0"
)

var pdfiumVersion = NamePDFium + " (github.com/klippa-app/go-pdfium " + pdfiumModuleVersion + ", github.com/tetratelabs/wazero " + wazeroModuleVersion + ")"

// pdfTimeout is the error of a document that ran out of time, for both engines: what is
// what the engine was doing ("read", "render").
func pdfTimeout(engine, what string, d time.Duration) error {
	return fmt.Errorf("%w: %s took longer than %s to %s the PDF", ErrLimit, engine, d, what)
}
