package match

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"evidenceledger/evidence"
)

// folded is a text after folding at one tier, with a map back to the text it came from:
// the folded byte i was produced by the source unit that starts at byte start[i]&^segment of
// src. A unit is one rune, or, when the segment bit is set, the NFKC segment that starts
// there; its end is computed again from src when needed, so the map costs 4 bytes per folded
// byte.
type folded struct {
	text  string
	src   string
	start []uint32
	facts foldFacts
}

// foldFacts is what a fold knows of the page beside its text, for the rules that look at
// the page as it is (docs/matching.md): each list is sorted by offset into the folded text,
// and empty on most pages.
type foldFacts struct {
	// groupSpaces are the spaces that stand for a no-break, thin, narrow no-break or figure
	// space between two digits: a digit-group separator, as in 5 500.
	groupSpaces []int32
	// dashes are the dashes that had whitespace on a side, which the punctuation tier drops.
	dashes []spacedDash
	// bidi are the bidi controls of the text, in it (present) or dropped from it.
	bidi []bidiControl
}

// spacedDash is a dash of the folded text at off that had whitespace before or after it on
// the page.
type spacedDash struct {
	off           int32
	before, after bool
}

// bidiControl is a bidi control at off: in the text there (present) or dropped from it
// before the rune at off; override tells whether an override (LRO, RLO) is open after it.
type bidiControl struct {
	off      int32
	r        rune
	present  bool
	override bool
}

// segment marks, in folded.start, a unit that is a whole NFKC segment rather than one rune.
const segment = 1 << 31

// span maps the folded bytes [i, j), j > i, back to the source text.
func (f *folded) span(i, j int) Span {
	last := f.start[j-1]
	a := int(last &^ segment)
	_, size := utf8.DecodeRuneInString(f.src[a:])
	end := a + size
	if last&segment != 0 {
		end = a + max(norm.NFKC.NextBoundaryInString(f.src[a:], true), size)
	}
	return Span{Start: int(f.start[i] &^ segment), End: end}
}

// folder folds one text at one tier. Every rune goes through emit, which applies the
// foldings of the tier in a fixed order (superscripts, punctuation, invisible, whitespace,
// case), so that a quote and a page folded at the same tier compare like for like, and
// notes in facts what the page rules need of the text beside the fold.
type folder struct {
	tier  Tier
	track bool   // record the offset map (pages); quotes need no map
	src   string // the text being folded

	// watch mode (locate): nothing is written; the units that produce the folded bytes
	// want[0] and want[1] are noted in got.
	watch bool
	n     int // bytes produced so far in watch mode
	want  [2]int
	got   [2]uint32

	out   strings.Builder // sized once: folding rarely lengthens a text
	start []uint32

	pendingSpace   bool // a run of whitespace waits for the next visible rune
	spaceA, spaceB int
	groupSpace     bool // that run holds a digit-group space (U+00A0, U+2009, U+202F, U+2007)
	dash           bool // a dash waits for the next visible rune (punctuation tier)
	dashJoins      bool // that dash is a hyphen with no whitespace around it
	dashBefore     bool // whitespace came right before that dash
	dashAfter      bool // whitespace came after it
	dashA, dashB   int
	last           rune // last rune written, 0 before the first
	sup            bool // the last unit was a superscript, written after a caret (unicode tier)
	nfkc           []byte
	facts          foldFacts
}

// foldText folds s at tier t, which is TierWhitespace or above: runs of whitespace become one
// ASCII space and leading and trailing whitespace is dropped. With track set it records the
// offset map.
func foldText(s string, t Tier, track bool) folded {
	f := folder{tier: t, track: track, src: s}
	f.out.Grow(len(s))
	if track {
		f.start = make([]uint32, 0, len(s))
	}
	f.run(s)
	if t < TierInvisible {
		f.facts.bidi = presentBidi(f.out.String())
	}
	markOverrides(f.facts.bidi)
	return folded{text: f.out.String(), src: s, start: f.start, facts: f.facts}
}

// run folds s rune by rune through emit.
func (f *folder) run(s string) {
	t := f.tier
	for i := 0; i < len(s); {
		c := s[i]
		// ASCII followed by ASCII is its own normalization segment and needs no NFKC.
		if c < utf8.RuneSelf && (i+1 == len(s) || s[i+1] < utf8.RuneSelf) {
			f.sup = false
			f.emit(rune(c), i, i+1)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if p, ok := superscripts[r]; ok && t >= TierUnicode {
			// A superscript is an exponent: 10⁶ is written 10^6, never 106.
			if !f.sup {
				f.emit('^', i, i+size)
			}
			f.emit(p, i, i+size)
			f.sup = true
			i += size
			continue
		}
		f.sup = false
		if t >= TierPunctuation {
			// Map punctuation before NFKC: NFKC would turn ″ into two primes and ´ into a
			// space and a combining accent.
			if p, ok := punctuation[r]; ok {
				f.emit(p, i, i+size)
				i += size
				continue
			}
		}
		if t < TierUnicode || (r == utf8.RuneError && size == 1) {
			f.emit(r, i, i+size)
			i += size
			continue
		}
		n := norm.NFKC.NextBoundaryInString(s[i:], true)
		if n < size {
			n = size
		}
		seg := s[i : i+n]
		if norm.NFKC.IsNormalString(seg) || evidence.ChangesKind(seg) {
			// Already normal, or a form whose compatibility mapping would turn one letter or
			// digit into another (see evidence.ChangesKind): keep it as it is, rune by rune.
			for j := 0; j < len(seg); {
				r, size := utf8.DecodeRuneInString(seg[j:])
				f.emit(r, i+j, i+j+size)
				j += size
			}
		} else {
			f.nfkc = norm.NFKC.AppendString(f.nfkc[:0], seg)
			for _, r := range string(f.nfkc) {
				f.emit(r, i, i+n)
			}
		}
		i += n
	}
	if f.dash {
		f.flushDash(0)
	}
}

// superscripts are the superscript digits and signs, which the unicode tier writes after a
// caret: 10⁶ is 10^6 and 10⁻³ is 10^-3. Subscripts are kept as they are.
var superscripts = map[rune]rune{
	'⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8',
	'⁹': '9', '⁺': '+', '⁻': '-',
}

// emit applies the per-rune foldings of the tier to r, which the source bytes [a, b)
// produced, and writes the result.
func (f *folder) emit(r rune, a, b int) {
	t := f.tier
	if r >= utf8.RuneSelf {
		if t >= TierPunctuation {
			if p, ok := punctuation[r]; ok {
				r = p
			}
		}
		if t >= TierInvisible && evidence.IsInvisible(r) {
			if bidiKind(r) != notBidi && !f.watch {
				f.facts.bidi = append(f.facts.bidi, bidiControl{off: int32(f.out.Len()), r: r})
			}
			return
		}
	}
	if t >= TierPunctuation {
		if r == '-' || r == joinHyphen {
			if f.dash {
				// A run of dashes (-- or — –) counts as one dash; spaces inside it vanish.
				f.dashJoins = false
				return
			}
			// Whitespace before a dash is dropped; the dash waits for what follows.
			f.dash, f.dashA, f.dashB = true, a, b
			f.dashJoins = (r == joinHyphen || r == '-' && b-a == 1) && !f.pendingSpace && f.last != 0
			f.dashBefore, f.dashAfter = f.pendingSpace, false
			f.pendingSpace = false
			return
		}
		if f.dash {
			if isSpace(r) {
				f.dashJoins = false // whitespace after a dash is dropped too
				f.dashAfter = true
				return
			}
			f.flushDash(r)
		}
	}
	if isSpace(r) {
		if !f.pendingSpace {
			f.pendingSpace = true
			f.spaceA, f.spaceB = a, b
			f.groupSpace = false
		}
		if r != ' ' && evidence.IsDigitSeparator(r) {
			f.groupSpace = true
		}
		return
	}
	if f.pendingSpace {
		f.pendingSpace = false
		glued := t >= TierPunctuation && (gluesAfter(f.last) || gluesBefore(r))
		if f.last != 0 && !glued {
			if f.groupSpace && isDigitRune(f.last) && isDigitRune(r) && !f.watch {
				f.facts.groupSpaces = append(f.facts.groupSpaces, int32(f.out.Len()))
			}
			f.put(' ', f.spaceA, f.spaceB)
		}
	}
	if t >= TierCase {
		r = foldCase(r)
	}
	f.put(r, a, b)
}

// joinHyphen is what a hyphen between two words folds to at the punctuation tier: U+2010,
// kept apart from '-', to which every other dash folds. A hyphen (-, U+2010, U+2011) with a
// word on each side and no space joins the two into one word ("non-negotiable"); a dash, a
// run of dashes, or a hyphen with a space beside it separates them ("much — he's"). Between
// two digits a hyphen is a dash: 1990-1995 is 1990–1995.
const joinHyphen = '\u2010'

// flushDash writes the dash that waits for what follows it, next (0 at the end of the text).
func (f *folder) flushDash(next rune) {
	r := '-'
	if f.dashJoins && evidence.IsWordRune(f.last) && evidence.IsWordRune(next) &&
		!(isDigitRune(f.last) && isDigitRune(next)) {
		r = joinHyphen
	}
	f.dash = false
	if (f.dashBefore || f.dashAfter) && !f.watch {
		f.facts.dashes = append(f.facts.dashes, spacedDash{off: int32(f.out.Len()), before: f.dashBefore, after: f.dashAfter})
	}
	f.put(r, f.dashA, f.dashB)
}

// unit is the offset map entry of the source bytes [a, b): a, with the segment bit when they
// are more than one rune.
func (f *folder) unit(a, b int) uint32 {
	u := uint32(a)
	if _, size := utf8.DecodeRuneInString(f.src[a:]); b-a != size {
		u |= segment
	}
	return u
}

// locate maps the folded bytes [i, j), j > i, of s folded at tier t back to s, as
// foldText(s, t, true).span(i, j) would, by folding s again without keeping the text or a
// map: time linear in s, no memory.
func locate(s string, t Tier, i, j int) Span {
	f := folder{tier: t, src: s, watch: true, want: [2]int{i, j - 1}}
	f.run(s)
	m := folded{src: s, start: f.got[:]}
	return m.span(0, 2)
}

// isSpace is unicode.IsSpace with a fast path for ASCII.
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || '\t' <= r && r <= '\r'
	}
	return unicode.IsSpace(r)
}

// put writes r and maps each of its bytes to the source bytes [a, b).
func (f *folder) put(r rune, a, b int) {
	f.last = r
	if f.watch {
		n := utf8.RuneLen(r)
		for k, w := range f.want {
			if f.n <= w && w < f.n+n {
				f.got[k] = f.unit(a, b)
			}
		}
		f.n += n
		return
	}
	n := 1
	if r < utf8.RuneSelf {
		f.out.WriteByte(byte(r))
	} else {
		n, _ = f.out.WriteRune(r)
	}
	if f.track {
		unit := f.unit(a, b)
		for range n {
			f.start = append(f.start, unit)
		}
	}
}

// punctuation maps typographic quotes, primes, guillemets and dashes to ASCII.
var punctuation = map[rune]rune{
	// double quotation marks
	'“': '"', '”': '"', '„': '"', '‟': '"', '«': '"', '»': '"', '″': '"', '‶': '"',
	'〝': '"', '〞': '"', '〟': '"', '＂': '"', 'ʺ': '"',
	// single quotation marks and apostrophes
	'‘': '\'', '’': '\'', '‚': '\'', '‛': '\'', '‹': '\'', '›': '\'', '′': '\'', '‵': '\'',
	'ʼ': '\'', 'ʹ': '\'', '`': '\'', '´': '\'', '＇': '\'',
	// dashes, hyphens and the minus sign
	'‐': joinHyphen, '‑': joinHyphen, '‒': '-', '–': '-', '—': '-', '―': '-', '−': '-', '⸺': '-',
	'⸻': '-', '﹘': '-', '﹣': '-', '－': '-', '⁃': '-',
}

// gluesAfter reports whether whitespace after r is dropped at the punctuation tier: after a
// quotation mark or a dash (French « guillemets », spaced dashes).
func gluesAfter(r rune) bool { return r == '"' || r == '\'' || r == '-' || r == joinHyphen }

// gluesBefore reports whether whitespace before r is dropped at the punctuation tier: before a
// quotation mark, a dash, or French spaced punctuation (: ; ! ?).
func gluesBefore(r rune) bool {
	switch r {
	case '"', '\'', '-', ':', ';', '!', '?':
		return true
	}
	return false
}

// foldCase returns the case folding of r: Unicode simple case folding (every rune of a case
// orbit maps to the orbit's smallest member, so ẞ and ß are one letter), and the Turkish
// dotted İ to "i". The dotless ı matches only itself, and ß is never "ss". Each rune folds to
// one rune, so a text folded for case is rune for rune the text folded for punctuation.
func foldCase(r rune) rune {
	switch {
	case r < utf8.RuneSelf:
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	case r == 'İ':
		return 'i'
	}
	least := r
	for c := unicode.SimpleFold(r); c != r; c = unicode.SimpleFold(c) {
		least = min(least, c)
	}
	if 'A' <= least && least <= 'Z' {
		least += 'a' - 'A' // ſ and K (Kelvin) fold with s and k
	}
	return least
}
