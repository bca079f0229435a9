package pdf

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

const pdfDir = "../testdata/pdf"

func readPDFFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(pdfDir, name))
	if err != nil {
		t.Fatalf("PDF corpus file missing (run scripts/pdf-corpus.sh): %v", err)
	}
	return b
}

// TestPDFLimits holds each limit at the limit (read) and one past it (ErrLimit), for both
// engines.
func TestPDFLimits(t *testing.T) {
	pdf := readPDFFile(t, "report.pdf")
	for _, e := range pdfEngines {
		full, err := e.extract(pdf, DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		// The text limit counts the engine's lines, before layout, with a byte per line end.
		lines, err := engineText(e.name, pdf)
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			desc   string
			limits Limits
			ok     bool
		}{
			{"pages at the limit", Limits{Pages: 3}, true},
			{"pages past the limit", Limits{Pages: 2}, false},
			{"text at the limit", Limits{Text: lines}, true},
			{"text past the limit", Limits{Text: lines - 1}, false},
			{"memory: the PDF itself past the limit", Limits{Memory: int64(len(pdf))}, false},
			{"time past the limit", Limits{Time: time.Microsecond}, false},
		}
		for _, tc := range tests {
			txt, err := e.extract(pdf, tc.limits)
			switch {
			case tc.ok && (err != nil || txt.Body != full.Body):
				t.Errorf("%s: %s: %v", e.name, tc.desc, err)
			case !tc.ok && !errors.Is(err, ErrLimit):
				t.Errorf("%s: %s: error %v, want ErrLimit", e.name, tc.desc, err)
			}
		}
	}
}

// engineText is how many bytes of lines (each with its line end) an engine reads from pdf.
func engineText(engine string, pdf []byte) (int, error) {
	var pages pdfPages
	if engine == NamePDFium {
		pool, err := pdfiumPool(DefaultMemory)
		if err != nil {
			return 0, err
		}
		inst, err := pool.GetInstanceWithContext(context.Background())
		if err != nil {
			return 0, err
		}
		defer inst.Close()
		pages, err = readPDFium(inst, pdf, DefaultLimits)
		if err != nil {
			return 0, err
		}
	} else {
		r := readPDFText(pdf, DefaultLimits)
		pages.pages = r.Pages
	}
	n := 0
	for _, p := range pages.pages {
		for _, f := range p {
			n += len(f.Text) + 1
		}
	}
	return n, nil
}

// TestPDFCorpusText compares each engine's text of every corpus PDF with the text poppler
// reads (testdata/pdf/NAME.txt), running headers and footers left out: the share of
// poppler's words each engine has is printed and must reach 95%; the readable-but-owner-locked PDF and the error cases hold.
func TestPDFCorpusText(t *testing.T) {
	names, _ := filepath.Glob(filepath.Join(pdfDir, "*.txt"))
	if len(names) < 8 {
		t.Fatalf("PDF corpus missing: %d texts in %s", len(names), pdfDir)
	}
	for _, e := range pdfEngines {
		for _, n := range names {
			base := strings.TrimSuffix(filepath.Base(n), ".txt")
			if base == "scanned" || base == "owner-only" {
				continue
			}
			want, _ := os.ReadFile(n)
			txt, err := e.extract(readPDFFile(t, base+".pdf"), DefaultLimits)
			if err != nil {
				t.Errorf("%s: %s: %v", e.name, base, err)
				continue
			}
			checkPDFMaps(t, e.name, txt)
			share := wordShare(withoutRunning(string(want)), txt.Body)
			t.Logf("%s: %s: %d pages, %d%% of poppler's words", e.name, base, len(txt.Pages), share)
			if share < 95 {
				t.Errorf("%s: %s: only %d%% of the reader's words", e.name, base, share)
			}
		}
	}
	cases := []struct {
		file string
		want map[string]error // by engine; nil: read
	}{
		{"scanned.pdf", map[string]error{NamePDFium: ErrScanned, NamePDFText: ErrScanned}},
		{"encrypted.pdf", map[string]error{NamePDFium: ErrEncrypted, NamePDFText: ErrEncrypted}},
		// An owner password alone locks nothing a reader sees; ledongthuc/pdf cannot
		// decrypt AES-256 at all (docs/pdf.md).
		{"owner-only.pdf", map[string]error{NamePDFium: nil, NamePDFText: ErrEncrypted}},
	}
	for _, c := range cases {
		for _, e := range pdfEngines {
			_, err := e.extract(readPDFFile(t, c.file), DefaultLimits)
			if want := c.want[e.name]; (want == nil) != (err == nil) || (want != nil && !errors.Is(err, want)) {
				t.Errorf("%s: %s: error %v, want %v", e.name, c.file, err, want)
			}
		}
	}
}

var wordRE = regexp.MustCompile(`[\pL\pN]+`)

// withoutRunning drops from poppler's text (pages split by form feeds) the lines that recur
// on half its pages or more, digits aside, and lines that are only a page number: the
// running headers and footers a reader skips.
func withoutRunning(text string) string {
	pages := strings.Split(text, "\f")
	count := map[string]int{}
	for _, p := range pages {
		seen := map[string]bool{}
		for _, l := range strings.Split(p, "\n") {
			if k := edgeKey(strings.TrimSpace(l)); k != "" && !seen[k] {
				seen[k] = true
				count[k]++
			}
		}
	}
	var b strings.Builder
	for _, p := range pages {
		for _, l := range strings.Split(p, "\n") {
			l = strings.TrimSpace(l)
			if (len(pages) > 2 && count[edgeKey(l)]*2 >= len(pages)-1) || pageNumberLine.MatchString(l) {
				continue
			}
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// wordShare is the share (percent) of want's words that got has, counted with their
// multiplicity (a word twice in want must be twice in got).
func wordShare(want, got string) int {
	have := map[string]int{}
	for _, w := range wordRE.FindAllString(strings.ToLower(got), -1) {
		have[w]++
	}
	ww := wordRE.FindAllString(strings.ToLower(ligatures.Replace(want)), -1)
	if len(ww) == 0 {
		return 100
	}
	hits := 0
	for _, w := range ww {
		if have[w] > 0 {
			have[w]--
			hits++
		}
	}
	return 100 * hits / len(ww)
}

// TestLayoutText holds the layout rules on engine lines written by hand.
func TestLayoutText(t *testing.T) {
	tests := []struct {
		desc   string
		pages  [][]string
		body   string
		alt    string
		starts []int
	}{
		{desc: "lines join with a space; pages too", pages: [][]string{{"one two", "three"}, {"four"}}, body: "one two three four", starts: []int{0, 14}},
		{desc: "ligatures spelled out", pages: [][]string{{"the ﬁrst ﬂoor of the ofﬁce"}}, body: "the first floor of the office"},
		{desc: "a hyphen the document settles without it", pages: [][]string{{"the veri-", "fication of", "verification"}}, body: "the verification of verification"},
		{desc: "a hyphen the document settles with it", pages: [][]string{{"a well-", "known fact, well-known"}}, body: "a well-known fact, well-known"},
		{desc: "an unsettled hyphen: dropped in Body, kept in Alt", pages: [][]string{{"a long-", "standing rule"}}, body: "a longstanding rule", alt: "a long-standing rule"},
		{desc: "a hyphen before a capital is kept: a name, not a break", pages: [][]string{{"Jean-", "Paul wrote"}}, body: "Jean- Paul wrote"},
		{desc: "a dash at a line end is not a hyphen", pages: [][]string{{"the end --", "and more"}}, body: "the end -- and more"},
		{desc: "PDFium's U+0002 hyphen at a line end", pages: [][]string{{"the con\x02", "firmed copy", "a sig\x02", "nificant rise"}}, body: "the confirmed copy a significant rise", alt: "the con-firmed copy a sig-nificant rise"},
		{desc: "soft hyphens: inside a line dropped, at its end a break", pages: [][]string{{"sig\u00adnificant un\u00ad", "noticed"}}, body: "significant unnoticed", alt: "significant un-noticed"},
		{desc: "running headers, footers and page numbers dropped", pages: [][]string{
			{"12/1/26, 9:02 AM", "Annual report", "the first page ends", "mid-", "http://x.test/report", "1", "/", "3"},
			{"12/1/26, 9:02 AM", "Annual report", "sentence on the second", "http://x.test/report", "2", "/", "3"},
			{"12/1/26, 9:02 AM", "Annual report", "the last page", "http://x.test/report", "3", "/", "3"},
		}, body: "the first page ends midsentence on the second the last page", alt: "the first page ends mid-sentence on the second the last page", starts: []int{0, 23, 46}},
		{desc: "a page number alone at the foot of a single page", pages: [][]string{{"only page text", "- 7 -"}}, body: "only page text"},
		{desc: "a number in the text is kept", pages: [][]string{{"counted", "4,812", "companies", "in the registry", "of the", "northern", "province", "in 2019"}}, body: "counted 4,812 companies in the registry of the northern province in 2019"},
		{desc: "a line seen on one page of two is not a header", pages: [][]string{{"Summary", "text a"}, {"Other", "text b"}}, body: "Summary text a Other text b", starts: []int{0, 15}},
		{desc: "control characters dropped, whitespace folded", pages: [][]string{{"a\tb\x07  c"}}, body: "a b c"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			txt, err := layoutText(linesOnly(tc.pages))
			if err != nil {
				t.Fatal(err)
			}
			if txt.Body != tc.body {
				t.Errorf("body %q\nwant %q", txt.Body, tc.body)
			}
			if txt.Alt != tc.alt {
				t.Errorf("alt %q, want %q", txt.Alt, tc.alt)
			}
			if tc.starts != nil {
				for i, s := range tc.starts {
					if txt.Pages[i].Offset != s || txt.Pages[i].Number != i+1 {
						t.Errorf("page %d starts at %+v, want offset %d", i+1, txt.Pages[i], s)
					}
				}
			}
		})
	}
	if _, err := layoutText(linesOnly([][]string{{" "}, {"\u00a0 ..."}})); !errors.Is(err, ErrScanned) {
		t.Errorf("pages without words: %v, want ErrScanned", err)
	}
	if _, err := layoutText(linesOnly([][]string{{"ab\ufffd\ufffd cd"}})); !errors.Is(err, ErrDamaged) {
		t.Errorf("unmapped glyphs: %v, want ErrDamaged", err)
	}
}

// linesOnly is an engine's reading of pages as lines of text, without their places on the
// page.
func linesOnly(pages [][]string) pdfPages {
	p := pdfPages{extractor: "test"}
	for _, ls := range pages {
		var frags []pdfFrag
		for i, l := range ls {
			frags = append(frags, pdfFrag{Text: l, Line: i})
		}
		p.pages = append(p.pages, frags)
	}
	return p
}

// TestPDFEngineVersions keeps the versions recorded with each document equal to go.mod.
func TestPDFEngineVersions(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for path, v := range map[string]string{
		"github.com/klippa-app/go-pdfium": pdfiumModuleVersion,
		"github.com/tetratelabs/wazero":   wazeroModuleVersion,
		"github.com/ledongthuc/pdf":       pdfTextModuleVersion,
	} {
		if !bytes.Contains(mod, []byte(path+" "+v+"\n")) {
			t.Errorf("go.mod does not require %s %s: update the constant in fetch", path, v)
		}
	}
}

// FuzzPDF feeds both engines the corpus PDFs and mutations of them. Invariants: no panic;
// an error wraps one of the package's errors and comes without text; a text is valid UTF-8
// without control characters, ligatures or U+FFFE, has its pages in order inside the body,
// and no more pages than the limit.
func FuzzPDF(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join(pdfDir, "*.pdf"))
	inks, _ := filepath.Glob(filepath.Join(inkDir, "*.pdf"))
	for _, n := range append(names, inks...) {
		if b, err := os.ReadFile(n); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Add(onePage("", "", "", helloContent))
	limits := Limits{Time: 5 * time.Second, Memory: 128 << 20, Pages: 50, Text: 1 << 20}
	// PDFium is compiled once per process, before the first input is timed by the fuzzer.
	if _, err := extractPDFium(onePage("", "", "", helloContent), Limits{Memory: limits.Memory}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, pdf []byte) {
		for _, e := range pdfEngines {
			txt, err := e.extract(pdf, limits)
			if err != nil {
				if !isKnownPDFError(err) && !strings.Contains(err.Error(), "PDF worker could not run") {
					t.Fatalf("%s: error %v wraps none of the package's errors", e.name, err)
				}
				if txt.Body != "" && !errors.Is(err, ErrScanned) && !errors.Is(err, ErrDamaged) {
					t.Fatalf("%s: error %v came with text", e.name, err)
				}
				continue
			}
			if !utf8.ValidString(txt.Body) || strings.ContainsAny(txt.Body, "\ufffe\x02\u00adﬁﬂ\n\r\t") {
				t.Fatalf("%s: body %q holds what layout removes", e.name, txt.Body)
			}
			if len(txt.Pages) == 0 || len(txt.Pages) > limits.Pages {
				t.Fatalf("%s: %d pages", e.name, len(txt.Pages))
			}
			for i, p := range txt.Pages {
				if p.Number != i+1 || p.Offset > len(txt.Body) || (i > 0 && p.Offset < txt.Pages[i-1].Offset) {
					t.Fatalf("%s: page starts %+v", e.name, txt.Pages)
				}
			}
			checkPDFMaps(t, e.name, txt)
		}
	})
}

// checkPDFMaps holds what a PDF text's column gaps and its map to PDFium's characters must
// be: each break is a space of the text, in order; the runs of the map lie in order inside
// the text, on its pages, from characters of non-negative index; and for PDFium every
// rune of the text but whitespace maps to a character (so the ink check can look at any
// quote found in it).
func checkPDFMaps(t *testing.T, engine string, txt Text) {
	t.Helper()
	for _, reading := range []struct {
		body   string
		breaks []int
		runs   []GlyphRun
		alt    bool
	}{{txt.Body, txt.Breaks, txt.Glyphs, false}, {txt.Alt, txt.AltBreaks, txt.AltGlyphs, true}} {
		for i, b := range reading.breaks {
			if b < 0 || b >= len(reading.body) || reading.body[b] != ' ' || (i > 0 && b <= reading.breaks[i-1]) {
				t.Fatalf("%s: break %d at %d of %q", engine, i, b, reading.body)
			}
		}
		end := 0
		for _, r := range reading.runs {
			if r.Offset < end || r.End <= r.Offset || r.End > len(reading.body) || r.Char < 0 || r.Page < 1 || r.Page > len(txt.Pages) {
				t.Fatalf("%s: glyph run %+v after %d in a text of %d bytes", engine, r, end, len(reading.body))
			}
			end = r.End
		}
		if engine == NamePDFium && reading.body != "" {
			if _, ok := txt.GlyphsIn(0, len(reading.body), reading.alt); !ok {
				t.Fatalf("%s: a rune of the text maps to no character: %q", engine, reading.body)
			}
		}
	}
}

// TestPDFiumKilledMidRead stops PDFium at time limits that fall while it reads, again and
// again: an instance killed in the middle of its code must never fault the process (its
// memory is given back only once no engine code runs), and the pool keeps serving.
func TestPDFiumKilledMidRead(t *testing.T) {
	pdf := readPDFFile(t, "report.pdf")
	if _, err := extractPDFium(pdf, DefaultLimits); err != nil {
		t.Fatal(err) // compiles the module before the clock matters
	}
	var stopped, read int
	for i := range 60 {
		limits := DefaultLimits
		limits.Time = time.Duration(1+i%20) * time.Millisecond
		switch _, err := extractPDFium(pdf, limits); {
		case err == nil:
			read++
		case errors.Is(err, ErrLimit):
			stopped++
		default:
			t.Fatalf("limit %v: %v", limits.Time, err)
		}
	}
	if stopped == 0 {
		t.Fatalf("no read was stopped by its limit (%d read): the test did not test the kill", read)
	}
	if _, err := extractPDFium(pdf, DefaultLimits); err != nil {
		t.Fatalf("after %d killed reads: %v", stopped, err)
	}
	t.Logf("%d reads stopped at their limit, %d finished", stopped, read)
}
