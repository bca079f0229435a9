// From fragments to reading-order text, in one file: the Text a verifier reads, its page
// starts and glyph runs, and the line, column, running-head and hyphen rules that build it.
// The rules are applied in order to the same lines.

package pdf

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// PageStart is where one page of a PDF begins in [Text.Body].
type PageStart struct {
	Number int // 1 for the first page
	Offset int // byte offset into Text.Body
}

// Text is what an engine read of a PDF: the text a reader sees, laid out as docs/pdf.md
// says, and where in it each page begins.
type Text struct {
	// Body is the text of every page, in reading order, whitespace folded to single spaces.
	Body string
	// Pages is where each page begins in Body, in order; its length is the page count.
	Pages []PageStart
	// Extractor names the engine that read the PDF and its version.
	Extractor string
	// Alt is, when the PDF has a hyphen at a line end that the document does not settle
	// ("well-" / "known"), the same text with those hyphens kept; "" otherwise. Body drops
	// them. A quote is on the page when it is in either.
	Alt string
	// AltPages is where each page begins in Alt.
	AltPages []PageStart
	// Breaks are the byte offsets in Body of the spaces that stand for a column gap: the
	// text on either side lies side by side on the page (two columns, two cells of a table),
	// and no quote is read across one. AltBreaks are those of Alt.
	Breaks, AltBreaks []int
	// Glyphs maps Body back to the characters PDFium read it from, in order of Offset (see
	// GlyphsIn); nil for the text of another engine. AltGlyphs maps Alt.
	Glyphs, AltGlyphs []GlyphRun
	// Lang is the language the document declares for its text: the /Lang entry of its
	// catalog, a BCP 47 tag as written ("" when it has none, or one that is not a tag; see
	// declaredLang). The matcher's negation check reads it, as a web page's lang.
	Lang string
}

// PageAt returns the number of the page that holds byte offset off of the text's Body (of
// Alt when alt is true); 0 for a nil Text (a web page, for a caller that reads both).
func (p *Text) PageAt(off int, alt bool) int {
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

// Errors of the PDF engines. Each is wrapped with the details; a verifier maps all of them
// to unreachable, never not_found.
var (
	// ErrEncrypted: the PDF needs a password to be opened.
	ErrEncrypted = errors.New("the PDF is encrypted: it needs a password to be read")
	// ErrScanned: the PDF has pages but no text on any of them (images, such as a scan).
	ErrScanned = errors.New("the PDF has no text layer: its pages are images (a scan, perhaps), which this program does not read")
	// ErrDamaged: the PDF cannot be decoded, or only after repairing a broken structure.
	ErrDamaged = errors.New("the PDF is damaged and cannot be decoded with confidence")
	// ErrLimit: reading the PDF went past one of the limits of [Limits].
	ErrLimit = errors.New("reading the PDF went past a limit")
)

// Limits bound the reading of one PDF document by one extractor. A document that goes
// past any of them fails with an error wrapping [ErrLimit]; nothing of it is matched.
type Limits struct {
	// Time is how long one document may take to read. Default [DefaultTime].
	Time time.Duration
	// Memory is the most memory the engine may use for one document, the PDF's own bytes
	// included. Default [DefaultMemory].
	Memory int64
	// Pages is the most pages read. Default [DefaultPages].
	Pages int
	// Text is the most bytes of text kept from one document. Default [DefaultText].
	Text int
}

// Defaults of [Limits].
const (
	DefaultTime   = 30 * time.Second
	DefaultMemory = 768 << 20
	DefaultPages  = 2000
	DefaultText   = 32 << 20
)

// DefaultLimits are the limits of [ExtractPDFium] and [ExtractPDFText].
var DefaultLimits = Limits{Time: DefaultTime, Memory: DefaultMemory, Pages: DefaultPages, Text: DefaultText}

func (l Limits) withDefaults() Limits {
	if l.Time <= 0 {
		l.Time = DefaultTime
	}
	if l.Memory <= 0 {
		l.Memory = DefaultMemory
	}
	if l.Pages <= 0 {
		l.Pages = DefaultPages
	}
	if l.Text <= 0 {
		l.Text = DefaultText
	}
	return l
}

// pdfPages is what an engine read from a PDF: each page's fragments of text, in the engine's
// reading order.
type pdfPages struct {
	pages     [][]pdfFrag
	extractor string // the engine and its version, for the record
	lang      string // the catalog's /Lang as the engine read it
}

// maxLangTag is the longest /Lang kept: BCP 47 tags in use are far shorter (RFC 5646
// §4.4.1 advises that 35 characters hold any tag a registry could form).
const maxLangTag = 35

// declaredLang returns the catalog's /Lang s as a language tag: trimmed, and "" unless it
// is 1 to maxLangTag letters, digits, hyphens or underscores. A PDF's /Lang is any text
// string; one that is not a tag declares nothing.
func declaredLang(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxLangTag {
		return ""
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return ""
		}
	}
	return s
}

// pdfFrag is a run of text that an engine read on one line of a page, with no column gap
// inside it. X0, X1, Base and Height place it on the page, in points of the page's own space
// (y upwards); a fragment with Height 0 has no place, only its line, and is laid out where
// the engine put it.
type pdfFrag struct {
	Text string `json:"t"`
	// Line is the engine's line on the page: the fragments of one line share it.
	Line int     `json:"l"`
	X0   float64 `json:"x0,omitempty"`
	X1   float64 `json:"x1,omitempty"`
	// Base is the bottom of the line: its baseline (ledongthuc/pdf), or the bottom of its
	// characters' boxes below the baseline (PDFium).
	Base float64 `json:"b,omitempty"`
	// Height is the height of a line of its characters: the font's ascent to descent
	// (PDFium), or 1.15 em (ledongthuc/pdf).
	Height float64 `json:"h,omitempty"`
	// chars holds, for PDFium, the index on its page of the character each rune of Text was
	// read from, or -1 for a rune that stands for no character; nil for an engine without
	// indices.
	chars []int32
}

// pdfLine is a line of a page ready to be laid out: its text, the character each rune came
// from (see pdfFrag.chars), and whether a column gap separates it from the line before.
type pdfLine struct {
	text  string
	chars []int32
	gap   bool
}

// What text is read, and where a line ends (docs/pdf.md).
const (
	// minTextSize is the smallest text read, in points: the font size times the smaller of
	// the horizontal and vertical scales of the text matrix and the transformation matrix in
	// force (horizontal scaling included). Below 2 pt (0.7 mm) no reader reads a glyph at an
	// ordinary zoom; a figure's labels shrunk with it are 3 pt and more.
	minTextSize = 2.0
	// columnGap is, in line heights (pdfFrag.Height, about 1.15 em), the widest horizontal
	// gap between two characters of one line that still joins them: a wider gap (about three
	// em and more) separates two columns, or two cells of a table.
	columnGap = 2.5
)

// GlyphRun maps Body[Offset:End] to the characters PDFium read: its n-th rune is the
// character Char+n of page Page (1 for the first).
type GlyphRun struct {
	Offset, End int
	Page, Char  int
}

// Glyph is a character of a PDF as PDFium reads it: its page (1 for the first) and its index
// among the characters PDFium reads on that page.
type Glyph struct{ Page, Char int }

// GlyphsIn returns the characters PDFium read Body[start:end] from (Alt's when alt), in
// order, whitespace left out. ok is false when the text has no map to its characters (an
// engine other than PDFium) or when a rune of the span other than whitespace stands for no
// character.
func (p *Text) GlyphsIn(start, end int, alt bool) (glyphs []Glyph, ok bool) {
	if p == nil {
		return nil, false
	}
	text, runs := p.Body, p.Glyphs
	if alt {
		text, runs = p.Alt, p.AltGlyphs
	}
	if runs == nil || start < 0 || end > len(text) || start > end {
		return nil, false
	}
	// The first run that may hold start: the last one that begins at or before it.
	k := sort.Search(len(runs), func(i int) bool { return runs[i].Offset > start }) - 1
	k = max(k, 0)
	mapped := start
	for ; k < len(runs) && runs[k].Offset < end; k++ {
		r := runs[k]
		for off, n := r.Offset, 0; off < r.End; n++ {
			ch, size := utf8.DecodeRuneInString(text[off:])
			if off >= start && off < end {
				if unmapped(text[mapped:off]) {
					return nil, false
				}
				if !unicode.IsSpace(ch) {
					glyphs = append(glyphs, Glyph{Page: r.Page, Char: r.Char + n})
				}
				mapped = off + size
			}
			off += size
		}
	}
	if unmapped(text[mapped:end]) {
		return nil, false
	}
	return glyphs, true
}

// unmapped reports whether s, text between mapped runes, holds anything but whitespace.
func unmapped(s string) bool { return strings.TrimFunc(s, unicode.IsSpace) != "" }

// glyphMap records, as a text is built, which character each of its runes was read from.
type glyphMap struct {
	runs  []GlyphRun
	lastN int // runes in the last run; -1 when unknown (the run after a rune was taken off)
}

// add records that the rune at text[off:off+size] was read from character char of page.
func (g *glyphMap) add(off, size, page int, char int32) {
	if n := len(g.runs); n > 0 && g.lastN >= 0 {
		if last := &g.runs[n-1]; last.End == off && last.Page == page && last.Char+g.lastN == int(char) {
			last.End += size
			g.lastN++
			return
		}
	}
	g.runs = append(g.runs, GlyphRun{Offset: off, End: off + size, Page: page, Char: int(char)})
	g.lastN = 1
}

// trim forgets the last byte of the text, a one-byte rune, when it is mapped.
func (g *glyphMap) trim(textLen int) {
	n := len(g.runs)
	if n == 0 || g.runs[n-1].End != textLen {
		return
	}
	g.runs[n-1].End--
	g.lastN--
	if g.runs[n-1].End == g.runs[n-1].Offset {
		g.runs = g.runs[:n-1]
		g.lastN = -1
	}
}

// sameLetters reports whether two spellings of a text say the same: equal once whitespace,
// hyphens, soft hyphens and invisible format characters are dropped and ligatures spelled
// out. An /ActualText stands for the glyphs it covers only when it says what they say.
func sameLetters(a, b string) bool {
	key := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) || r == '-' || r == '\u2010' || r == '\u2011' || unicode.Is(unicode.Cf, r) {
				return -1
			}
			return r
		}, ligatures.Replace(s))
	}
	return key(a) == key(b)
}

// pdfColumn is a column of a band of rows (see orderPage).
type pdfColumn struct {
	x0, x1 float64
	frags  []pdfFrag
}

// orderPage puts a page's fragments in reading order, column by column, and marks where a
// column gap separates two of them (docs/pdf.md):
//
//   - the fragments of one engine line are a row; consecutive rows make a band while each
//     fragment of a row lies across one column of the band (a column's extent is that of
//     its fragments), no two in the same column; a fragment across no column opens one. A
//     row that does not fit (a line across two columns, a heading) closes the band and opens
//     the next;
//   - a band is read column by column, left to right, each column top to bottom in the
//     engine's order;
//   - the last fragment of a column runs on into the first of the next column only when
//     that one starts higher on the page (the text flows up to the top of the next column);
//     otherwise (text beside text on one baseline, the cells of a table) a column gap
//     separates them, and no quote is read across it.
//
// Before that, an engine line that goes on from where the one before it ends, on about its
// baseline (within half a line height: a superscript, a change of font) and less than a
// column gap further, is read as part of it (mergeLines).
//
// A fragment without a place on the page (Height 0) is a band of its own.
func orderPage(frags []pdfFrag) []pdfLine {
	frags = mergeLines(frags)
	var out []pdfLine
	var band []*pdfColumn
	flush := func() {
		sort.SliceStable(band, func(i, j int) bool { return band[i].x0 < band[j].x0 })
		for ci, col := range band {
			for fi, f := range col.frags {
				gap := false
				if fi == 0 && ci > 0 {
					prev := band[ci-1].frags[len(band[ci-1].frags)-1]
					gap = f.Base <= prev.Base+0.5*max(f.Height, prev.Height)
				}
				out = append(out, pdfLine{text: f.Text, chars: f.chars, gap: gap})
			}
		}
		band = nil
	}
	for i := 0; i < len(frags); {
		j := i + 1
		for j < len(frags) && frags[j].Line == frags[i].Line {
			j++
		}
		row := frags[i:j]
		i = j
		if placeRow(&band, row) {
			continue
		}
		flush()
		if row[0].Height == 0 {
			for k, f := range row {
				out = append(out, pdfLine{text: f.Text, chars: f.chars, gap: k > 0})
			}
			continue
		}
		for _, f := range row {
			band = append(band, &pdfColumn{x0: f.X0, x1: f.X1, frags: []pdfFrag{f}})
		}
	}
	flush()
	return out
}

// mergeLines joins to the fragment before it, after a space as lines are joined, each
// fragment of another engine line that goes on from where that one ends (see orderPage). The
// rest of the later line follows it into the earlier one.
func mergeLines(frags []pdfFrag) []pdfFrag {
	var out []pdfFrag
	alias := map[int]int{}
	for _, g := range frags {
		if l, ok := alias[g.Line]; ok {
			g.Line = l
		}
		if n := len(out); n > 0 {
			f := &out[n-1]
			h := max(f.Height, g.Height)
			gap := g.X0 - f.X1
			if g.Line != f.Line && f.Height > 0 && g.Height > 0 && math.Abs(g.Base-f.Base) <= 0.5*h && gap >= -0.5*h && gap <= columnGap*h {
				alias[g.Line] = f.Line
				if f.chars != nil || g.chars != nil {
					f.chars = append(append(slices.Clip(f.chars), -1), g.chars...)
				}
				f.Text += " " + g.Text
				f.X0, f.X1, f.Height = min(f.X0, g.X0), max(f.X1, g.X1), h
				continue
			}
		}
		out = append(out, g)
	}
	return out
}

// placeRow adds row to band when each of its fragments lies across at most one column of
// it, no two across the same one, and reports whether it did.
func placeRow(bandp *[]*pdfColumn, row []pdfFrag) bool {
	band := *bandp
	if len(band) == 0 {
		return false
	}
	at := make([]*pdfColumn, len(row))
	for k, f := range row {
		if f.Height == 0 {
			return false
		}
		for _, c := range band {
			if f.X0 < c.x1 && c.x0 < f.X1 {
				if at[k] != nil || slices.Contains(at[:k], c) {
					return false
				}
				at[k] = c
			}
		}
	}
	for k, f := range row {
		c := at[k]
		if c == nil {
			band = append(band, &pdfColumn{x0: f.X0, x1: f.X1})
			c = band[len(band)-1]
		}
		c.frags = append(c.frags, f)
		c.x0, c.x1 = min(c.x0, f.X0), max(c.x1, f.X1)
	}
	*bandp = band
	return true
}

// layoutText turns an engine's pages into the [Text] a reader sees (docs/pdf.md):
//
//   - each page's fragments are put in reading order, column by column (orderPage);
//   - ligatures (ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ) are spelled out, control characters dropped; a glyph
//     the engine could not map stays U+FFFD, and more than 1% of them is [ErrDamaged];
//   - running headers and footers are dropped: a line among the first or last six of a
//     page that recurs, with its digits ignored, at the same edge of at least half of the
//     pages (and of two at least), and a line there that is only a page number;
//   - lines are joined with a space, except a word hyphenated at a line end ("veri-" /
//     "fication"), which is joined without its hyphen, unless the document spells that
//     word with the hyphen elsewhere and never without. When the document does not tell,
//     the hyphen is dropped in Body and kept in Alt, so both readings can be matched;
//     the space between two lines that a column gap separates is recorded in Breaks
//     (AltBreaks), and no word is joined across it;
//   - each page's start is kept in Pages; pages are joined as lines are (a word
//     hyphenated across a page break is joined too);
//   - for PDFium, Glyphs maps the text back to the characters it was read from.
//
// It fails with [ErrScanned] when no page holds a letter or digit.
func layoutText(p pdfPages) (Text, error) {
	pages := make([][]pdfLine, len(p.pages))
	for i, frags := range p.pages {
		gap := false
		for _, l := range orderPage(frags) {
			l = cleanLine(l)
			gap = gap || l.gap
			if l.text != "" {
				l.gap = gap
				pages[i] = append(pages[i], l)
				gap = false
			}
		}
	}
	dropEdges(pages)
	words := wordSet(pages)
	body := joinPages(pages, words, false)
	t := Text{Body: body.text, Pages: body.starts, Extractor: p.extractor, Breaks: body.breaks, Glyphs: body.glyphs, Lang: declaredLang(p.lang)}
	if strings.IndexFunc(t.Body, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) < 0 {
		return t, fmt.Errorf("%w (%d pages, none with words)", ErrScanned, len(pages))
	}
	// As for a web page's charset: more than 1% of characters the engine could not map to
	// Unicode and the text cannot be read with confidence.
	if bad, all := strings.Count(t.Body, "\ufffd"), utf8.RuneCountInString(t.Body); bad*100 > all {
		return t, fmt.Errorf("%w: %d of its %d characters cannot be mapped to Unicode (its fonts lack a usable character map)", ErrDamaged, bad, all)
	}
	if body.ambiguous {
		alt := joinPages(pages, words, true)
		t.Alt, t.AltPages, t.AltBreaks, t.AltGlyphs = alt.text, alt.starts, alt.breaks, alt.glyphs
	}
	return t, nil
}

var ligatures = strings.NewReplacer("ﬀ", "ff", "ﬁ", "fi", "ﬂ", "fl", "ﬃ", "ffi", "ﬄ", "ffl", "ﬅ", "st", "ﬆ", "st")

// ligatureSpelling is the spelling of each ligature that ligatures replaces.
var ligatureSpelling = map[rune]string{'ﬀ': "ff", 'ﬁ': "fi", 'ﬂ': "fl", 'ﬃ': "ffi", 'ﬄ': "ffl", 'ﬅ': "st", 'ﬆ': "st"}

// cleanLine spells out ligatures, turns PDFium's end-of-line hyphen mark (U+0002) and a
// soft hyphen at the end into "-", drops soft hyphens inside the line and other control
// characters, and folds whitespace. The characters the runes came from follow them.
func cleanLine(l pdfLine) pdfLine {
	type unit struct {
		r    rune
		char int32
	}
	var units []unit
	k := 0
	for _, r := range l.text {
		char := int32(-1)
		if l.chars != nil && k < len(l.chars) {
			char = l.chars[k]
		}
		k++
		if s, ok := ligatureSpelling[r]; ok {
			for _, c := range s {
				units = append(units, unit{c, char})
			}
			continue
		}
		units = append(units, unit{r, char})
	}
	// A soft hyphen at the end (before trailing whitespace) is a hyphen; inside, nothing.
	end := len(units)
	for end > 0 && unicode.IsSpace(units[end-1].r) {
		end--
	}
	out := pdfLine{gap: l.gap}
	var b strings.Builder
	space := false
	for i, u := range units[:end] {
		r := u.r
		switch {
		case r == '\u00ad' && i == end-1, r == 0x02:
			r = '-'
		case r == '\u00ad':
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r):
			continue
		}
		if space {
			b.WriteByte(' ')
			if l.chars != nil {
				out.chars = append(out.chars, -1)
			}
			space = false
		}
		b.WriteRune(r)
		if l.chars != nil {
			out.chars = append(out.chars, u.char)
		}
	}
	out.text = b.String()
	return out
}

// pageNumberLine matches a line that is only a page number: "12", "- 12 -", "Page 12",
// "12 / 40", "12 of 40", "p. 12".
var pageNumberLine = regexp.MustCompile(`(?i)^[\s\-–—|·•]*(?:page|p\.|seite|página|pagina)?\s*\d{1,5}(?:\s*(?:/|of|von|de|sur)\s*\d{1,5})?[\s\-–—|·•]*$`)

// edgeLines is how many lines at the top and at the bottom of a page are looked at as
// running headers and footers (an engine may give "12", "/", "40" as three lines).
const edgeLines = 6

// edgeKey is the form of a line compared across pages: lower case, digits as '#'.
func edgeKey(l string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return '#'
		}
		return unicode.ToLower(r)
	}, l)
}

// dropEdges removes running headers, footers and page numbers from pages, in place. A
// column gap before a line dropped stays before the next line kept.
func dropEdges(pages [][]pdfLine) {
	top, bottom := map[string]int{}, map[string]int{}
	for _, ls := range pages {
		seenTop, seenBottom := map[string]bool{}, map[string]bool{}
		for i, l := range ls {
			k := edgeKey(l.text)
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
		gap := false
		for i, l := range ls {
			k := edgeKey(l.text)
			atTop, atBottom := i < edgeLines, i >= len(ls)-edgeLines
			switch {
			case (atTop || atBottom) && pageNumberLine.MatchString(l.text),
				atTop && top[k] >= need,
				atBottom && bottom[k] >= need:
				gap = gap || l.gap
			default:
				l.gap = l.gap || gap
				gap = false
				kept = append(kept, l)
			}
		}
		pages[n] = kept
	}
}

// wordSet is every word of the document (letters only, lower case), and every hyphenated
// word with its hyphens, so that a line-end hyphen can be read as the document spells
// the word elsewhere.
func wordSet(pages [][]pdfLine) map[string]bool {
	set := map[string]bool{}
	for _, ls := range pages {
		for _, l := range ls {
			for _, w := range strings.Fields(l.text) {
				w = strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }))
				if w != "" {
					set[w] = true
				}
			}
		}
	}
	return set
}

// joined is the text joinPages makes, with what it records of it.
type joined struct {
	text      string
	starts    []PageStart
	breaks    []int
	glyphs    []GlyphRun
	ambiguous bool // a line-end hyphen the document does not settle
}

// joinPages joins the lines of all pages into one text and records where each page starts,
// where a column gap separates two lines, and which character each rune was read from.
// keepHyphens chooses the reading of the hyphens the document does not settle.
func joinPages(pages [][]pdfLine, words map[string]bool, keepHyphens bool) joined {
	var out joined
	var b []byte
	var g glyphMap
	for n, ls := range pages {
		start := -1
		for _, l := range ls {
			if head, ok := hyphenHead(b); ok && !l.gap && startsLower(l.text) {
				tail := firstWord(l.text)
				joinedWord, hyphened := strings.ToLower(head+tail), strings.ToLower(head+"-"+tail)
				keep := keepHyphens
				switch {
				case words[joinedWord]:
					keep = false
				case words[hyphened]:
					keep = true
				default:
					out.ambiguous = true
				}
				if !keep {
					b = b[:len(b)-1]
					g.trim(len(b) + 1)
				}
			} else if len(b) > 0 && b[len(b)-1] != ' ' {
				if l.gap {
					out.breaks = append(out.breaks, len(b))
				}
				b = append(b, ' ')
			}
			if start < 0 {
				start = len(b)
			}
			k := 0
			for i, r := range l.text {
				if l.chars != nil && k < len(l.chars) && l.chars[k] >= 0 {
					g.add(len(b)+i, utf8.RuneLen(r), n+1, l.chars[k])
				}
				k++
			}
			b = append(b, l.text...)
		}
		if start < 0 {
			start = len(b)
		}
		out.starts = append(out.starts, PageStart{Number: n + 1, Offset: start})
	}
	out.text = string(b)
	out.glyphs = g.runs
	return out
}

// hyphenHead reports whether b ends with a word broken by a hyphen ("veri-") and returns
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
