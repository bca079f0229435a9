package fetch

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// PageStart is where one page of a paged document (a PDF) begins in [Text.Body].
type PageStart struct {
	Number int // 1 for the first page
	Offset int // byte offset into Text.Body
}

// PDFText is the part of a [Text] that only a PDF has.
type PDFText struct {
	// Pages is where each page begins in Text.Body, in order; its length is the page count.
	Pages []PageStart
	// Extractor names the engine that read the PDF and its version.
	Extractor string
	// Alt is, when the PDF has a hyphen at a line end that the document does not settle
	// ("well-" / "known"), the same text with those hyphens kept; "" otherwise. Body drops
	// them. A quote is on the page when it is in either.
	Alt string
	// AltPages is where each page begins in Alt.
	AltPages []PageStart
}

// PageAt returns the number of the page that holds byte offset off of the text's Body (of
// Alt when alt is true); 0 for a nil PDFText (a web page).
func (p *PDFText) PageAt(off int, alt bool) int {
	if p == nil {
		return 0
	}
	starts := p.Pages
	if alt {
		starts = p.AltPages
	}
	n := 0
	for _, s := range starts {
		if s.Offset > off {
			break
		}
		n = s.Number
	}
	return n
}

// Errors of the PDF extractors, besides [ErrNoText] (no page has any words) and
// [ErrTruncated]. Each is wrapped with the details; a verifier maps all of them to
// unreachable, never not_found.
var (
	// ErrEncrypted: the PDF needs a password to be opened.
	ErrEncrypted = errors.New("the PDF is encrypted: it needs a password to be read")
	// ErrScanned: the PDF has pages but no text on any of them (images, such as a scan).
	ErrScanned = errors.New("the PDF has no text layer: its pages are images (a scan, perhaps), which this program does not read")
	// ErrDamaged: the PDF cannot be decoded, or only after repairing a broken structure.
	ErrDamaged = errors.New("the PDF is damaged and cannot be decoded with confidence")
	// ErrLimit: reading the PDF went past one of the limits of [PDFLimits].
	ErrLimit = errors.New("reading the PDF went past a limit")
)

// PDFLimits bound the reading of one PDF document by one extractor. A document that goes
// past any of them fails with an error wrapping [ErrLimit]; nothing of it is matched.
type PDFLimits struct {
	// Time is how long one document may take to read. Default [DefaultPDFTime].
	Time time.Duration
	// Memory is the most memory the engine may use for one document, the PDF's own bytes
	// included. Default [DefaultPDFMemory].
	Memory int64
	// Pages is the most pages read. Default [DefaultPDFPages].
	Pages int
	// Text is the most bytes of text kept from one document. Default [DefaultPDFText].
	Text int
}

// Defaults of [PDFLimits] and the fetch cap of a PDF body.
const (
	DefaultMaxPDFBytes = 50 << 20
	DefaultPDFTime     = 30 * time.Second
	DefaultPDFMemory   = 768 << 20
	DefaultPDFPages    = 2000
	DefaultPDFText     = 32 << 20
)

// DefaultPDFLimits are the limits of [ExtractPDFium] and [ExtractPDFText].
var DefaultPDFLimits = PDFLimits{Time: DefaultPDFTime, Memory: DefaultPDFMemory, Pages: DefaultPDFPages, Text: DefaultPDFText}

func (l PDFLimits) withDefaults() PDFLimits {
	if l.Time <= 0 {
		l.Time = DefaultPDFTime
	}
	if l.Memory <= 0 {
		l.Memory = DefaultPDFMemory
	}
	if l.Pages <= 0 {
		l.Pages = DefaultPDFPages
	}
	if l.Text <= 0 {
		l.Text = DefaultPDFText
	}
	return l
}

// IsPDF reports whether a body with this content type is read as a PDF: the type is
// application/pdf (or its old x-pdf form) or a generic binary type
// (application/octet-stream, binary/octet-stream, none), and the body has the PDF
// signature "%PDF-" within its first 1024 bytes, where readers look for it.
func IsPDF(contentType string, body []byte) bool {
	if contentType != "" && !mayBePDF(contentType) {
		return false
	}
	head := body[:min(len(body), 1024)]
	return bytes.Contains(head, []byte("%PDF-"))
}

// pdfPages is what an engine read from a PDF: each page's lines of text in reading order.
type pdfPages struct {
	lines     [][]string
	extractor string // the engine and its version, for the record
}

// pageNumberLine matches a line that is only a page number: "12", "- 12 -", "Page 12",
// "12 / 40", "12 of 40", "p. 12".
var pageNumberLine = regexp.MustCompile(`(?i)^[\s\-–—|·•]*(?:page|p\.|seite|página|pagina)?\s*\d{1,5}(?:\s*(?:/|of|von|de|sur)\s*\d{1,5})?[\s\-–—|·•]*$`)

// edgeLines is how many lines at the top and at the bottom of a page are looked at as
// running headers and footers (an engine may give "12", "/", "40" as three lines).
const edgeLines = 6

// layoutText turns an engine's pages into the [Text] a reader sees (docs/pdf.md):
//
//   - ligatures (ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ) are spelled out, control characters dropped; a glyph
//     the engine could not map stays U+FFFD, and more than 1% of them is [ErrDamaged];
//   - running headers and footers are dropped: a line among the first or last six of a
//     page that recurs, with its digits ignored, at the same edge of at least half of the
//     pages (and of two at least), and a line there that is only a page number;
//   - lines are joined with a space, except a word hyphenated at a line end ("veri-" /
//     "fication"), which is joined without its hyphen, unless the document spells that
//     word with the hyphen elsewhere and never without. When the document does not tell,
//     the hyphen is dropped in Body and kept in PDF.Alt, so both readings can be matched;
//   - each page's start is kept in PDF.Pages; pages are joined as lines are (a word
//     hyphenated across a page break is joined too).
//
// It fails with [ErrScanned] when no page holds a letter or digit.
func layoutText(p pdfPages) (Text, error) {
	pages := make([][]string, len(p.lines))
	for i, ls := range p.lines {
		for _, l := range ls {
			// PDFium joins a word hyphenated at a line end itself, marking the break U+FFFE;
			// the break is undone here so that one rule reads every engine's hyphens.
			parts := strings.Split(l, "\ufffe")
			for j, part := range parts {
				if j < len(parts)-1 {
					part += "-"
				}
				if part = cleanLine(part); part != "" {
					pages[i] = append(pages[i], part)
				}
			}
		}
	}
	dropEdges(pages)
	words := wordSet(pages)
	body, pagesAt, ambiguous := joinPages(pages, words, false)
	t := Text{Body: body, PDF: &PDFText{Pages: pagesAt, Extractor: p.extractor}}
	if strings.IndexFunc(t.Body, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) < 0 {
		return t, fmt.Errorf("%w (%d pages, none with words)", ErrScanned, len(pages))
	}
	// As for a web page's charset: more than 1% of characters the engine could not map to
	// Unicode and the text cannot be read with confidence.
	if bad, all := strings.Count(t.Body, "\ufffd"), utf8.RuneCountInString(t.Body); bad*100 > all {
		return t, fmt.Errorf("%w: %d of its %d characters cannot be mapped to Unicode (its fonts lack a usable character map)", ErrDamaged, bad, all)
	}
	if ambiguous {
		alt, altPages, _ := joinPages(pages, words, true)
		t.PDF.Alt, t.PDF.AltPages = alt, altPages
	}
	return t, nil
}

var ligatures = strings.NewReplacer("ﬀ", "ff", "ﬁ", "fi", "ﬂ", "fl", "ﬃ", "ffi", "ﬄ", "ffl", "ﬅ", "st", "ﬆ", "st")

// cleanLine spells out ligatures, turns PDFium's end-of-line hyphen mark (U+0002) and a
// soft hyphen at the end into "-", drops soft hyphens inside the line and other control
// characters, and folds whitespace.
func cleanLine(l string) string {
	l = ligatures.Replace(l)
	l = strings.TrimRightFunc(l, unicode.IsSpace)
	if strings.HasSuffix(l, "\u00ad") {
		l = strings.TrimSuffix(l, "\u00ad") + "-"
	}
	l = strings.ReplaceAll(l, "\u00ad", "") // a soft hyphen inside a line is not seen
	l = strings.Map(func(r rune) rune {
		switch {
		case r == 0x02:
			return '-'
		case r == '\t' || r == '\n' || r == '\r' || r == '\f':
			return ' '
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, l)
	return strings.Join(strings.Fields(l), " ")
}

// edgeKey is the form of a line compared across pages: lower case, digits as '#'.
func edgeKey(l string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return '#'
		}
		return unicode.ToLower(r)
	}, l)
}

// dropEdges removes running headers, footers and page numbers from pages, in place.
func dropEdges(pages [][]string) {
	top, bottom := map[string]int{}, map[string]int{}
	for _, ls := range pages {
		seenTop, seenBottom := map[string]bool{}, map[string]bool{}
		for i, l := range ls {
			k := edgeKey(l)
			if i < edgeLines && !seenTop[k] {
				seenTop[k] = true
				top[k]++
			}
			if i >= len(ls)-edgeLines && !seenBottom[k] {
				seenBottom[k] = true
				bottom[k]++
			}
		}
	}
	need := max(2, (len(pages)+1)/2)
	for n, ls := range pages {
		kept := ls[:0]
		for i, l := range ls {
			k := edgeKey(l)
			atTop, atBottom := i < edgeLines, i >= len(ls)-edgeLines
			switch {
			case (atTop || atBottom) && pageNumberLine.MatchString(l):
			case atTop && top[k] >= need:
			case atBottom && bottom[k] >= need:
			default:
				kept = append(kept, l)
			}
		}
		pages[n] = kept
	}
}

// wordSet is every word of the document (letters only, lower case), and every hyphenated
// word with its hyphens, so that a line-end hyphen can be read as the document spells
// the word elsewhere.
func wordSet(pages [][]string) map[string]bool {
	set := map[string]bool{}
	for _, ls := range pages {
		for _, l := range ls {
			for _, w := range strings.Fields(l) {
				w = strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }))
				if w != "" {
					set[w] = true
				}
			}
		}
	}
	return set
}

// joinPages joins the lines of all pages into one text and records where each page starts.
// keepHyphens chooses the reading of the hyphens the document does not settle; ambiguous
// reports whether there was any.
func joinPages(pages [][]string, words map[string]bool, keepHyphens bool) (body string, starts []PageStart, ambiguous bool) {
	var b []byte
	for n, ls := range pages {
		start := -1
		for _, l := range ls {
			if head, ok := hyphenHead(b); ok && startsLower(l) {
				tail := firstWord(l)
				joined, hyphened := strings.ToLower(head+tail), strings.ToLower(head+"-"+tail)
				keep := keepHyphens
				switch {
				case words[joined]:
					keep = false
				case words[hyphened]:
					keep = true
				default:
					ambiguous = true
				}
				if !keep {
					b = b[:len(b)-1]
				}
			} else if len(b) > 0 && b[len(b)-1] != ' ' {
				b = append(b, ' ')
			}
			if start < 0 {
				start = len(b)
			}
			b = append(b, l...)
		}
		if start < 0 {
			start = len(b)
		}
		starts = append(starts, PageStart{Number: n + 1, Offset: start})
	}
	return string(b), starts, ambiguous
}

// hyphenHead reports whether s ends with a word broken by a hyphen ("veri-") and returns
// the letters before the hyphen.
func hyphenHead(b []byte) (string, bool) {
	if len(b) < 2 || b[len(b)-1] != '-' || b[len(b)-2] == '-' {
		return "", false
	}
	rest := b[:len(b)-1]
	start := len(rest)
	for start > 0 {
		r, size := utf8.DecodeLastRune(rest[:start])
		if !unicode.IsLetter(r) {
			break
		}
		start -= size
	}
	return string(rest[start:]), start < len(rest)
}

func startsLower(l string) bool {
	r, _ := utf8.DecodeRuneInString(l)
	return unicode.IsLower(r)
}

func firstWord(l string) string {
	if i := strings.IndexFunc(l, func(r rune) bool { return !unicode.IsLetter(r) }); i >= 0 {
		return l[:i]
	}
	return l
}
