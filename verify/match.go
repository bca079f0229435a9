package verify

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MinQuoteRunes is the shortest quote that is checked: the quote's own characters, counted
// in runes after trimming whitespace and leaving out ellipsis markers.
const MinQuoteRunes = 12

// MaxEllipsisGap is how far apart, at most, two parts of a quote split by an ellipsis may
// be: the page text between them holds at most this many runes after folding (about a
// paragraph).
const MaxEllipsisGap = 600

// ContextRunes is about how many runes of page text an excerpt keeps on each side of the
// match; the cut moves inwards to a word boundary.
const ContextRunes = 120

// ErrQuoteTooShort is returned for a quote with fewer than [MinQuoteRunes] runes of its own.
// Such a quote is never looked for: there is no quote to check.
var ErrQuoteTooShort = errors.New("quote too short")

// Tier is the folding that was needed to find a quote. Each tier folds everything the tiers
// below it fold, and more; a match records the lowest tier at which the quote was found.
type Tier int

const (
	// TierExact: the quote's bytes are in the page text as they are.
	TierExact Tier = iota
	// TierWhitespace: every run of whitespace (spaces, tabs, line breaks, NBSP, U+3000 and
	// all other Unicode spaces) is one space.
	TierWhitespace
	// TierInvisible: also drops soft hyphens, zero-width spaces and joiners, bidi marks, the
	// word joiner, U+FEFF and other invisible format characters.
	TierInvisible
	// TierUnicode: also applies Unicode compatibility normalization (NFKC): full-width
	// letters, ligatures such as ﬁ, composed and decomposed accents.
	TierUnicode
	// TierPunctuation: also maps typographic quotes, guillemets, primes and dashes to ASCII,
	// counts a run of dashes as one, and drops whitespace next to quotation marks and dashes
	// and before : ; ! ? (French spacing).
	TierPunctuation
	// TierCase: also folds case (Unicode simple case folding, ß and ẞ as "ss", İ as "i").
	TierCase
)

var tierNames = [...]string{"exact", "whitespace", "invisible", "unicode", "punctuation", "case"}

// String returns the tier's name: "exact", "whitespace", "invisible", "unicode",
// "punctuation" or "case".
func (t Tier) String() string {
	if t < 0 || int(t) >= len(tierNames) {
		return fmt.Sprintf("Tier(%d)", int(t))
	}
	return tierNames[t]
}

// Span is a range of byte offsets [Start, End) into a text.
type Span struct {
	Start, End int
}

// Match is the result of looking for a quote in a page's text.
type Match struct {
	// Found reports whether every part of the quote is in the page, in order and close
	// together, at some tier. Similarity never sets it.
	Found bool
	// Tier is the lowest tier at which the quote was found; meaningful only when Found.
	Tier Tier
	// Spans holds, when Found, one span per part of the quote (parts are split at
	// ellipses), in order, as byte offsets into the page text.
	Spans []Span
	// Excerpt is, when Found, the page's own text from about ContextRunes runes before the
	// first part to about ContextRunes runes after the last, cut at word boundaries. It is a
	// slice of the page text, never the quote.
	Excerpt string
	// ExcerptSpan is where Excerpt lies in the page text.
	ExcerptSpan Span
	// Highlight holds the Spans as byte offsets into Excerpt.
	Highlight []Span
	// Hint is, when not Found, the passage of the page most similar to the quote, for an
	// operator to look at; nil when nothing is similar enough. It is never a match.
	Hint *Hint
}

// MatchQuote looks for quote in pageText, the visible text of a page.
//
// The quote is trimmed and split at ellipses (…, ..., [...], […], (...), (…)); the parts must
// appear in the page in order, without overlap, each within [MaxEllipsisGap] runes of the one
// before. Both texts are folded tier by tier, from [TierExact] to [TierCase], and the first
// tier at which all parts are found is recorded. The search is linear in the size of the page.
//
// A quote with fewer than [MinQuoteRunes] runes of its own returns an error wrapping
// [ErrQuoteTooShort]. A page text of 2 GiB or more returns an error. A quote that is not found
// is not an error: the Match has Found false and maybe a [Hint].
func MatchQuote(pageText, quote string) (Match, error) {
	parts, err := splitQuote(quote)
	if err != nil {
		return Match{}, err
	}
	if len(pageText) >= math.MaxInt32 {
		return Match{}, fmt.Errorf("match quote: page text of %d bytes is too large (limit 2 GiB); check the page's size limit", len(pageText))
	}
	if starts, ok := findChain(pageText, parts); ok {
		spans := make([]Span, len(parts))
		for i, s := range starts {
			spans[i] = Span{Start: s, End: s + len(parts[i])}
		}
		return foundMatch(pageText, TierExact, spans), nil
	}
	// Each tier folds the page without its offset map (a ninth of the memory); the map is
	// built once, for the tier that found the quote or, when none did, for the hint.
	var fparts []string
	for t := TierWhitespace; t <= TierCase; t++ {
		fparts = fparts[:0]
		for _, p := range parts {
			if fp := foldText(p, t, false).text; fp != "" {
				fparts = append(fparts, fp)
			}
		}
		if len(fparts) == 0 {
			continue
		}
		if starts, ok := findChain(foldText(pageText, t, false).text, fparts); ok {
			page := foldText(pageText, t, true)
			spans := make([]Span, len(fparts))
			for i, s := range starts {
				spans[i] = page.span(s, s+len(fparts[i]))
			}
			return foundMatch(pageText, t, spans), nil
		}
	}
	page := foldText(pageText, TierCase, true)
	return Match{Hint: findHint(pageText, &page, fparts)}, nil
}

// ellipsis matches the ellipsis markers that split a quote, with any brackets around them.
var ellipsis = regexp.MustCompile(`[\[(]\s*(?:…|\.(?:\s?\.){2,})\s*[\])]|…|\.\.\.+|\. \. \.`)

// splitQuote trims the quote and splits it at ellipses into non-empty parts.
func splitQuote(quote string) ([]string, error) {
	var parts []string
	n := 0
	for _, p := range ellipsis.Split(quote, -1) {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
			n += utf8.RuneCountInString(p)
		}
	}
	if n < MinQuoteRunes {
		return nil, fmt.Errorf("match quote %q: %d characters of its own, want at least %d: %w", quote, n, MinQuoteRunes, ErrQuoteTooShort)
	}
	return parts, nil
}

// foundMatch builds the Match for spans found in page at tier t.
func foundMatch(page string, t Tier, spans []Span) Match {
	ex := excerptSpan(page, spans[0].Start, spans[len(spans)-1].End)
	hl := make([]Span, len(spans))
	for i, s := range spans {
		hl[i] = Span{Start: s.Start - ex.Start, End: s.End - ex.Start}
	}
	return Match{
		Found:       true,
		Tier:        t,
		Spans:       spans,
		Excerpt:     page[ex.Start:ex.End],
		ExcerptSpan: ex,
		Highlight:   hl,
	}
}

// excerptSpan widens [start, end) by about ContextRunes runes on each side, then moves each
// cut inwards to a word boundary (when there is one in the context) and past whitespace.
func excerptSpan(page string, start, end int) Span {
	a := start
	for n := 0; n < ContextRunes && a > 0; n++ {
		_, size := utf8.DecodeLastRuneInString(page[:a])
		a -= size
	}
	if a > 0 {
		if r, _ := utf8.DecodeLastRuneInString(page[:a]); !unicode.IsSpace(r) {
			// a is inside a word: start after the next space, if the context has one.
			if i := strings.IndexFunc(page[a:start], unicode.IsSpace); i >= 0 {
				a += i
			}
		}
	}
	for a < start {
		r, size := utf8.DecodeRuneInString(page[a:])
		if !unicode.IsSpace(r) {
			break
		}
		a += size
	}
	b := end
	for n := 0; n < ContextRunes && b < len(page); n++ {
		_, size := utf8.DecodeRuneInString(page[b:])
		b += size
	}
	if b < len(page) {
		if r, _ := utf8.DecodeRuneInString(page[b:]); !unicode.IsSpace(r) {
			if i := strings.LastIndexFunc(page[end:b], unicode.IsSpace); i >= 0 {
				b = end + i
			}
		}
	}
	for b > end {
		r, size := utf8.DecodeLastRuneInString(page[:b])
		if !unicode.IsSpace(r) {
			break
		}
		b -= size
	}
	return Span{Start: a, End: b}
}

// findChain finds parts in hay in order, without overlap, each within MaxEllipsisGap runes
// of the part before, and returns the byte offset of each part. It prefers the earliest
// placement of the first part. Its cost is linear in len(hay) for a given quote.
func findChain(hay string, parts []string) ([]int, bool) {
	if len(parts) == 1 {
		i := strings.Index(hay, parts[0])
		return []int{i}, i >= 0
	}
	occ := make([][]occurrence, len(parts))
	for k, p := range parts {
		occ[k] = occurrences(hay, p)
		if len(occ[k]) == 0 {
			return nil, false
		}
	}
	// next[k][j] is the index of the first occurrence of part k at or after j from which
	// the rest of the chain can be completed, or len(occ[k]) when there is none.
	next := make([][]int, len(parts))
	last := len(parts) - 1
	next[last] = make([]int, len(occ[last])+1)
	for j := range next[last] {
		next[last][j] = j
	}
	for k := last - 1; k >= 0; k-- {
		next[k] = make([]int, len(occ[k])+1)
		next[k][len(occ[k])] = len(occ[k])
		ok := make([]bool, len(occ[k]))
		j := 0
		for i, o := range occ[k] {
			for j < len(occ[k+1]) && occ[k+1][j].byteStart < o.byteEnd {
				j++
			}
			if f := next[k+1][j]; f < len(occ[k+1]) && occ[k+1][f].runeStart-o.runeEnd <= MaxEllipsisGap {
				ok[i] = true
			}
		}
		for i := len(occ[k]) - 1; i >= 0; i-- {
			next[k][i] = next[k][i+1]
			if ok[i] {
				next[k][i] = i
			}
		}
	}
	starts := make([]int, len(parts))
	i := next[0][0]
	if i == len(occ[0]) {
		return nil, false
	}
	for k := range parts {
		o := occ[k][i]
		starts[k] = o.byteStart
		if k < last {
			j := 0
			for j < len(occ[k+1]) && occ[k+1][j].byteStart < o.byteEnd {
				j++
			}
			i = next[k+1][j]
		}
	}
	return starts, true
}

// occurrence is one place where a quote part occurs in a text, in bytes and in runes.
type occurrence struct {
	byteStart, byteEnd int
	runeStart, runeEnd int
}

// occurrences lists every occurrence of p in hay, overlapping ones included, in order.
func occurrences(hay, p string) []occurrence {
	var occ []occurrence
	plen := utf8.RuneCountInString(p)
	runes, counted := 0, 0
	for from := 0; from < len(hay); {
		i := strings.Index(hay[from:], p)
		if i < 0 {
			break
		}
		i += from
		runes += utf8.RuneCountInString(hay[counted:i])
		counted = i
		occ = append(occ, occurrence{byteStart: i, byteEnd: i + len(p), runeStart: runes, runeEnd: runes + plen})
		_, size := utf8.DecodeRuneInString(hay[i:])
		from = i + size
	}
	return occ
}
