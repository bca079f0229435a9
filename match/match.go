// The matcher's entry points and its one search, in one file: PageText, the tiers, the
// cursor that walks a folded page and the ellipsis chain. Folding (fold.go), case
// (case.go), bidi (bidi.go) and hints (hint.go) are apart; what is left is the loop each of
// them serves, which reads best whole.

package match

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"evidenceledger/evidence"
)

// MaxEllipsisGap bounds how far apart the parts of a quote split by ellipses may lie: the
// page text an ellipsis leaves out, summed over all the ellipses of the quote, holds at most
// this many runes after folding (about a paragraph). So the parts lie within one passage;
// they are never chained across a page.
const MaxEllipsisGap = 600

// maxNegationSkips is how many placements of a quote whose omitted text holds a negation are
// passed over before the search stops with the quote not found; it keeps the cost of an
// adversarial page linear.
const maxNegationSkips = 64

// ContextRunes is about how many runes of page text an excerpt keeps on each side of the
// match; the cut moves inwards to a word boundary.
const ContextRunes = 120

// ErrQuoteTooShort is wrapped by the error of a quote, or a part of one between ellipses,
// that is too short to look for (see evidence.QuoteParts). It is evidence.ErrNoQuote.
var ErrQuoteTooShort = evidence.ErrNoQuote

// ErrTooManyParts is wrapped by the error of a quote with more than evidence.MaxQuoteParts
// parts between ellipses. It is evidence.ErrTooManyParts.
var ErrTooManyParts = evidence.ErrTooManyParts

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
	// Negation is, when not Found, the negation that every placement of the parts found
	// would leave out between them (see evidence.Negation): the quote drops it, so it says
	// something the page does not. Empty otherwise.
	Negation string
	// Hint is, when not Found, the passage of the page most similar to the quote, for an
	// operator to look at; nil when nothing is similar enough. It is never a match.
	Hint *Hint
}

// Quote looks for quote in pageText, the visible text of a page. It is
// NewPageText(pageText).Match(quote); to match several quotes against one page, make the
// PageText once.
func Quote(pageText, quote string) (Match, error) {
	return NewPageText(pageText).Match(quote)
}

// PageText is a page's visible text prepared for matching many quotes: the folded text of
// each tier is computed the first time a quote needs it and then shared by every later quote,
// and so is its offset map, made the first time a quote is found at that tier. It is safe for concurrent use. Its memory is the text, the folded text of
// each tier used, and 4 bytes per folded byte of each tier mapped.
type PageText struct {
	text  string
	lang  string // the language the page declares, or "" (see [PageText.InLanguage])
	mu    sync.Mutex
	folds [TierCase + 1]*folded

	exactOnce  sync.Once
	exactFacts foldFacts // the bidi controls of text, for the exact tier
	rtlOnce    sync.Once
	rtl        bool // text holds right-to-left letters
}

// NewPageText prepares text for matching; nothing is folded yet.
func NewPageText(text string) *PageText { return &PageText{text: text} }

// InLanguage records lang, the BCP 47 tag of the language the page declares
// ([fetch.Text.Lang]), for the negation check of quotes with an ellipsis
// ([evidence.Negation]), and returns p. Call it before the first Match.
func (p *PageText) InLanguage(lang string) *PageText {
	p.lang = lang
	return p
}

// Text returns the page text.
func (p *PageText) Text() string { return p.text }

// exact returns what the exact tier checks beside the text: its bidi controls.
func (p *PageText) exact() *foldFacts {
	p.exactOnce.Do(func() {
		p.exactFacts.bidi = presentBidi(p.text)
		markOverrides(p.exactFacts.bidi)
	})
	return &p.exactFacts
}

// rightToLeft reports whether the page holds right-to-left letters; it is read once, when a
// bidi mark is first met inside an occurrence.
func (p *PageText) rightToLeft() bool {
	p.rtlOnce.Do(func() { p.rtl = hasRightToLeft(p.text) })
	return p.rtl
}

// fold returns the text folded at tier t (above TierExact), folding it on first use; with
// mapped set, the fold has its offset map.
func (p *PageText) fold(t Tier, mapped bool) *folded {
	p.mu.Lock()
	defer p.mu.Unlock()
	if f := p.folds[t]; f == nil || mapped && f.start == nil {
		f := foldText(p.text, t, mapped)
		p.folds[t] = &f
	}
	return p.folds[t]
}

// Match looks for quote in the page text.
//
// The quote is split at ellipses by evidence.QuoteParts (…, ..., [...], […], (...), (…));
// every part must appear in the page, in order, without overlap, starting and ending at
// word boundaries (character boundaries in scripts written without spaces), a number at
// its edge a whole number of the page, with no bidi control reordering it, and in the case
// of the quote except where case cannot change the meaning (docs/matching.md); the text left
// out between the parts totals at most [MaxEllipsisGap] runes and holds no negation
// (evidence.Negation). Both texts are folded tier by tier, from [TierExact] to [TierCase],
// and the first tier at which the quote is found is recorded. Time is linear in the page for
// a given quote, and memory is the page's folds plus the quote, whatever the number of parts
// or occurrences.
//
// A quote that cannot be looked for returns an error wrapping [ErrQuoteTooShort] or
// [ErrTooManyParts]. A page text of 2 GiB or more returns an error. A quote that is not
// found is not an error: the Match has Found false, maybe a [Hint], and Negation set when
// the only placements drop a negation.
func (p *PageText) Match(quote string) (Match, error) {
	parts, err := evidence.QuoteParts(quote)
	if err != nil {
		return Match{}, fmt.Errorf("match quote %q: %w", quote, err)
	}
	if len(p.text) >= math.MaxInt32 {
		return Match{}, fmt.Errorf("match quote: page text of %d bytes is too large (limit 2 GiB); check the page's size limit", len(p.text))
	}
	starts, negation, ok := findChain(p.text, p.lang, p.cursors(TierExact, p.text, p.exact(), parts, nil))
	if ok {
		spans := make([]Span, len(parts))
		for i, s := range starts {
			spans[i] = Span{Start: s, End: s + len(parts[i])}
		}
		return At(p.text, TierExact, spans), nil
	}
	fparts := make([]string, len(parts))
	var pparts []string // the parts folded at TierPunctuation, for the case rule
	for t := TierWhitespace; t <= TierCase; t++ {
		for i, part := range parts {
			fparts[i] = foldText(part, t, false).text
		}
		var cases []*caseRule
		if t == TierCase {
			cases = caseRules(p.fold(TierPunctuation, false).text, pparts)
		}
		page := p.fold(t, false)
		starts, neg, ok := findChain(page.text, p.lang, p.cursors(t, page.text, &page.facts, fparts, cases))
		if ok {
			page := p.fold(t, true)
			spans := make([]Span, len(fparts))
			for i, s := range starts {
				spans[i] = page.span(s, s+len(fparts[i]))
			}
			return At(p.text, t, spans), nil
		}
		if neg != "" {
			negation = neg
		}
		if t == TierPunctuation {
			pparts = append([]string(nil), fparts...)
		}
	}
	if negation != "" {
		return Match{Negation: negation}, nil
	}
	return Match{Hint: findHint(p.text, p.fold(TierCase, false).text, TierCase, fparts)}, nil
}

// cursors makes the cursor of each part in hay, the page folded at tier t with its facts;
// cases holds the case rule of each part at TierCase, and is nil below it.
func (p *PageText) cursors(t Tier, hay string, facts *foldFacts, parts []string, cases []*caseRule) []cursor {
	cur := make([]cursor, len(parts))
	for i, part := range parts {
		cur[i] = cursor{hay: hay, part: part, at: -1, dashes: t >= TierPunctuation, facts: facts,
			rtl: p.rightToLeft, numStart: startsNumber(part), numEnd: endsNumber(part)}
		if cases != nil {
			cur[i].cases = cases[i]
		}
	}
	return cur
}

// caseRules makes the case rule of each part, given the page and the parts folded at
// TierPunctuation. The first word of the quote starts a sentence in it, and so does the
// first word of a part after a part that ends a sentence.
func caseRules(page string, parts []string) []*caseRule {
	caps := inCapitals(strings.Join(parts, " "))
	out := make([]*caseRule, len(parts))
	for i, part := range parts {
		initial := i == 0
		if i > 0 {
			end := strings.TrimRight(parts[i-1], "\"')]} ")
			initial = strings.HasSuffix(end, ".") || strings.HasSuffix(end, "!") || strings.HasSuffix(end, "?")
		}
		out[i] = &caseRule{page: page, part: part, initial: initial, quoteCaps: caps}
	}
	return out
}

// At builds the Match of a quote found at spans of page at tier t, with the excerpt of the
// page around it, as [PageText.Match] reports it.
func At(page string, t Tier, spans []Span) Match {
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

// findChain finds the parts of cur (one cursor per part) in hay, in order, without
// overlap, each where its cursor accepts it, with at most MaxEllipsisGap runes of hay left
// out between them in all and no negation in what is left out. It returns the byte offset
// of each part. For each occurrence of the first part, in order, the later parts are placed
// as early as possible, which leaves out the least text; the first placement that fits
// wins. When placements fit the gap but every one of them (up to maxNegationSkips) leaves
// out a negation, it returns that negation.
//
// Each part keeps a cursor that only moves forwards, so the cost is linear in len(hay) for a
// given quote and the memory is that of the quote.
func findChain(hay, lang string, cur []cursor) (starts []int, negation string, ok bool) {
	parts := make([]string, len(cur))
	for i := range cur {
		parts[i] = cur[i].part
	}
	starts = make([]int, len(parts))
	skips := 0
	for from := 0; ; {
		s0 := cur[0].next(from)
		if s0 < 0 {
			return nil, negation, false
		}
		starts[0] = s0
		end := s0 + len(parts[0])
		for k := 1; k < len(parts); k++ {
			sk := cur[k].next(end)
			if sk < 0 {
				// A later first part can only push the others later: nothing fits.
				return nil, negation, false
			}
			starts[k] = sk
			end = sk + len(parts[k])
		}
		if fitsGap(hay, parts, starts) {
			neg := droppedNegation(hay, lang, parts, starts)
			if neg == "" {
				return starts, "", true
			}
			negation = neg
			if skips++; skips >= maxNegationSkips {
				return nil, negation, false
			}
		}
		_, size := utf8.DecodeRuneInString(hay[s0:])
		from = s0 + size
	}
}

// fitsGap reports whether the text left out between the placed parts holds at most
// MaxEllipsisGap runes in all.
func fitsGap(hay string, parts []string, starts []int) bool {
	gap := 0
	for k := 1; k < len(parts); k++ {
		gap += starts[k] - (starts[k-1] + len(parts[k-1]))
	}
	switch {
	case gap <= MaxEllipsisGap:
		return true // bytes bound runes
	case gap > utf8.UTFMax*MaxEllipsisGap:
		return false
	}
	runes := 0
	for k := 1; k < len(parts); k++ {
		runes += utf8.RuneCountInString(hay[starts[k-1]+len(parts[k-1]) : starts[k]])
	}
	return runes <= MaxEllipsisGap
}

// droppedNegation returns the first negation in the text left out between the placed parts,
// or "". The page's declared language, else the passage from the first part to the last,
// tells the language of the words.
func droppedNegation(hay, lang string, parts []string, starts []int) string {
	last := len(parts) - 1
	passage := hay[starts[0] : starts[last]+len(parts[last])]
	for k := 1; k < len(parts); k++ {
		if n := evidence.Negation(hay[starts[k-1]+len(parts[k-1]):starts[k]], passage, lang); n != "" {
			return n
		}
	}
	return ""
}

// cursor finds the occurrences of one part in a text, at word boundaries and where the rules
// that look at the page around and inside an occurrence accept it, in order. It remembers
// the last occurrence found, so that asking again from an offset no later than it costs
// nothing.
type cursor struct {
	hay, part string
	at        int  // the last occurrence found, or -1
	done      bool // no occurrence after the last one asked for
	dashes    bool // hay is folded at the punctuation tier or above: only joinHyphen joins words

	facts            *foldFacts  // what the fold of hay knows of the page
	rtl              func() bool // whether the page holds right-to-left letters
	numStart, numEnd bool        // the part starts, ends with a number
	cases            *caseRule   // the case rule, at TierCase; nil below it
}

// next returns the first occurrence of the part at or after byte from that the cursor
// accepts (see accepts), or -1. Calls must not go backwards: from never decreases.
func (c *cursor) next(from int) int {
	if c.at >= from {
		return c.at
	}
	if c.done {
		return -1
	}
	for from <= len(c.hay)-len(c.part) {
		i := strings.Index(c.hay[from:], c.part)
		if i < 0 {
			break
		}
		i += from
		if c.accepts(i) {
			c.at = i
			return i
		}
		_, size := utf8.DecodeRuneInString(c.hay[i:])
		from = i + size
	}
	c.done = true
	return -1
}

// accepts reports whether the occurrence of the part at i is one: it starts and ends at
// word boundaries, a number at its edge is a whole number of the page, no bidi control
// reorders it, and its case differs from the part's only where the case rule allows.
func (c *cursor) accepts(i int) bool {
	j := i + len(c.part)
	return c.boundaries(i) && c.wholeNumbers(i, j) && !c.facts.bidiRefuses(c.hay, i, j, c.rtl) &&
		(c.cases == nil || c.cases.allows(c.hay, i, j))
}

// boundaries reports whether an occurrence of the part at i starts and ends at a word
// boundary of the text (see evidence.IsWordRune). Invisible characters are looked through.
// A hyphen between two word runes joins them, so "negotiable" is not found inside
// "non-negotiable". A combining mark after the occurrence changes its last letter.
func (c *cursor) boundaries(i int) bool {
	first, _ := utf8.DecodeRuneInString(c.part)
	last, _ := utf8.DecodeLastRuneInString(c.part)
	prev, at := prevVisible(c.hay, i)
	if evidence.IsWordRune(first) {
		before, _ := prevVisible(c.hay, at)
		if evidence.IsWordRune(prev) || c.isHyphen(prev) && evidence.IsWordRune(before) {
			return false
		}
	}
	next, at := nextVisible(c.hay, i+len(c.part))
	if unicode.IsMark(next) {
		return false
	}
	if evidence.IsWordRune(last) {
		after, _ := nextVisible(c.hay, at)
		if evidence.IsWordRune(next) || c.isHyphen(next) && evidence.IsWordRune(after) {
			return false
		}
	}
	return true
}

// wholeNumbers reports whether a number at an edge of the occurrence [i, j) is a whole
// number of the page: the page does not go on with it (evidence.JoinsNumber: a digit, a
// superscript or fraction, a sign or dash, a fraction slash, a caret, or a separator with a
// digit beyond; evidence.SpaceJoinsDigits: "5 500"). A space that stands for a digit-group
// space of the page joins, and a dash that had whitespace on the number's side does not.
func (c *cursor) wholeNumbers(i, j int) bool {
	if c.numStart {
		prev, at := prevVisible(c.hay, i)
		beyond, _ := prevVisible(c.hay, at)
		if c.joins(prev, at, beyond, true) {
			return false
		}
	}
	if c.numEnd {
		next, end := nextVisible(c.hay, j)
		beyond, _ := nextVisible(c.hay, end)
		_, size := utf8.DecodeLastRuneInString(c.hay[:end])
		if c.joins(next, end-size, beyond, false) {
			return false
		}
	}
	return true
}

// joins reports whether r, at byte at of the hay beside a number of an occurrence (before it
// when left), joins that number to more of it; beyond is the rune on r's far side.
func (c *cursor) joins(r rune, at int, beyond rune, left bool) bool {
	switch {
	case r == 0:
		return false
	case r == ' ':
		if c.facts.groupSpace(at) {
			return true
		}
		return evidence.SpaceJoinsDigits(c.hay[:at], c.hay[at+1:])
	case c.dashes && (r == '-' || r == joinHyphen):
		if d, ok := c.facts.dashAt(at); ok && (left && d.after || !left && d.before) {
			return false // "2020 – a year": the dash was spaced on the number's side
		}
		return true
	}
	return evidence.JoinsNumber(r, beyond)
}

// startsNumber reports whether part starts with a number: a numeral, or a sign, separator,
// fraction slash or caret before one ("-5", ".5").
func startsNumber(part string) bool {
	r, size := utf8.DecodeRuneInString(part)
	if evidence.IsNumeral(r) {
		return true
	}
	next, _ := utf8.DecodeRuneInString(part[size:])
	return numberMark(r) && evidence.IsNumeral(next)
}

// endsNumber reports whether part ends with a number: a numeral, or a sign, separator,
// fraction slash or caret after one ("5.", "10-").
func endsNumber(part string) bool {
	r, size := utf8.DecodeLastRuneInString(part)
	if evidence.IsNumeral(r) {
		return true
	}
	before, _ := utf8.DecodeLastRuneInString(part[:len(part)-size])
	return numberMark(r) && evidence.IsNumeral(before)
}

// numberMark reports whether r is written inside or beside a number: a sign or dash, a digit
// separator, a fraction slash or a caret.
func numberMark(r rune) bool {
	return evidence.IsNumberSign(r) || evidence.IsDigitSeparator(r) || evidence.IsFractionSlash(r) ||
		r == '^' || r == joinHyphen
}

// groupSpace reports whether the space at byte at of the folded text stands for a
// digit-group space of the page.
func (ff *foldFacts) groupSpace(at int) bool {
	_, ok := slices.BinarySearch(ff.groupSpaces, int32(at))
	return ok
}

// dashAt returns what is known of the spacing of the dash at byte at of the folded text: ok
// when it had whitespace on a side.
func (ff *foldFacts) dashAt(at int) (spacedDash, bool) {
	k, ok := slices.BinarySearchFunc(ff.dashes, int32(at), func(d spacedDash, at int32) int { return int(d.off - at) })
	if !ok {
		return spacedDash{}, false
	}
	return ff.dashes[k], true
}

// isHyphen reports whether r is a hyphen, which joins the words on either side into one: -,
// U+2010 or U+2011 in a text not folded for punctuation, and only joinHyphen in one that is
// (there every other dash, and a hyphen with a space beside it, is '-').
func (c *cursor) isHyphen(r rune) bool {
	if c.dashes {
		return r == joinHyphen
	}
	return r == '-' || r == '\u2010' || r == '\u2011'
}

func isDigitRune(r rune) bool { return unicode.IsDigit(r) }

// prevVisible returns the last rune before byte i that is not invisible (0 at the start) and
// where it starts.
func prevVisible(s string, i int) (rune, int) {
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		if !evidence.IsInvisible(r) {
			return r, i
		}
	}
	return 0, 0
}

// nextVisible returns the first rune at or after byte i that is not invisible (0 at the end)
// and where it ends.
func nextVisible(s string, i int) (rune, int) {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if !evidence.IsInvisible(r) {
			return r, i
		}
	}
	return 0, len(s)
}
