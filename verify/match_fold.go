package verify

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
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
// foldings of the tier in a fixed order (punctuation, invisible, whitespace, case), so that a
// quote and a page folded at the same tier compare like for like.
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
	dash           bool // a dash waits for the next visible rune (punctuation tier)
	dashJoins      bool // that dash is a hyphen between two words
	dashA, dashB   int
	last           rune // last rune written, 0 before the first
	nfkc           []byte
	caseBuf        [2]rune
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
	return folded{text: f.out.String(), src: s, start: f.start}
}

// run folds s rune by rune through emit.
func (f *folder) run(s string) {
	t := f.tier
	for i := 0; i < len(s); {
		c := s[i]
		// ASCII followed by ASCII is its own normalization segment and needs no NFKC.
		if c < utf8.RuneSelf && (i+1 == len(s) || s[i+1] < utf8.RuneSelf) {
			f.emit(rune(c), i, i+1)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
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
		if norm.NFKC.IsNormalString(seg) || changesKind(seg) {
			// Already normal, or a form whose compatibility mapping would turn one letter or
			// digit into another (see changesKind): keep it as it is, rune by rune.
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
		f.flushDash()
	}
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
		if t >= TierInvisible && isInvisible(r) {
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
			f.pendingSpace = false
			return
		}
		if f.dash {
			if isSpace(r) {
				f.dashJoins = false // whitespace after a dash is dropped too
				return
			}
			f.flushDash()
		}
	}
	if isSpace(r) {
		if !f.pendingSpace {
			f.pendingSpace = true
			f.spaceA, f.spaceB = a, b
		}
		return
	}
	if f.pendingSpace {
		f.pendingSpace = false
		glued := t >= TierPunctuation && (gluesAfter(f.last) || gluesBefore(r))
		if f.last != 0 && !glued {
			f.put(' ', f.spaceA, f.spaceB)
		}
	}
	if t >= TierCase {
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
		} else {
			for _, c := range foldCase(r, f.caseBuf[:0]) {
				f.put(c, a, b)
			}
			return
		}
	}
	f.put(r, a, b)
}

// joinHyphen is what a hyphen between two words folds to at the punctuation tier: U+2010,
// kept apart from '-', to which every other dash folds. A hyphen (-, U+2010, U+2011) with a
// word on each side and no space joins the two into one word ("non-negotiable"); a dash, a
// run of dashes, or a hyphen with a space beside it separates them ("much — he's").
const joinHyphen = '\u2010'

// flushDash writes the dash that waits for what follows it.
func (f *folder) flushDash() {
	r := '-'
	if f.dashJoins {
		r = joinHyphen
	}
	f.dash = false
	f.put(r, f.dashA, f.dashB)
}

// changesKind reports whether seg holds a character whose compatibility mapping (NFKC) does
// not keep the letter or digit it stands for, so folding it would put a different letter or
// digit in the text: superscripts and subscripts (10⁶ is not 106, 62² is not 622), vulgar
// fractions (½ is not 1/2 written out), Roman numerals, circled, parenthesized and squared
// forms (①, ⑴, ㎏), letterlike symbols (™, №, ℃) and modifier letters (ʰ, ᵃ). Canonical
// equivalents among them (the ohm and Kelvin signs) are still folded by NFC.
//
// Every other compatibility mapping keeps the letters and digits and only changes their
// form, and is folded: full-width and half-width forms (ＡＢＣ), ligatures (ﬁ, ĳ), the long
// s, styled mathematical letters and digits, compatibility ideographs, spaces and dots.
func changesKind(seg string) bool {
	for _, r := range seg {
		if r < 0xAA {
			continue
		}
		for _, k := range kindRanges {
			if k[0] <= r && r <= k[1] && !isCanonicalSingleton(r) {
				return true
			}
		}
	}
	return false
}

// kindRanges are the ranges of characters whose compatibility mapping changes what they
// stand for (see changesKind).
var kindRanges = [][2]rune{
	{0x00AA, 0x00AA}, // ª
	{0x00B2, 0x00B3}, // ² ³
	{0x00B9, 0x00BA}, // ¹ º
	{0x00BC, 0x00BE}, // ¼ ½ ¾
	{0x02B0, 0x02FF}, // spacing modifier letters
	{0x1D2C, 0x1DBF}, // phonetic superscripts and subscripts
	{0x2070, 0x209F}, // superscripts and subscripts
	{0x2100, 0x214F}, // letterlike symbols
	{0x2150, 0x218F}, // number forms: fractions, Roman numerals
	{0x2460, 0x24FF}, // enclosed alphanumerics
	{0x3200, 0x33FF}, // enclosed CJK letters and months, CJK compatibility (squared)
	{0xA69C, 0xA69D}, // Cyrillic modifier letters
	{0xA770, 0xA770}, // modifier letter us
	{0xA7F2, 0xA7F9}, // modifier capital letters
	{0xAB5C, 0xAB5F}, // modifier letters
	{0xAB69, 0xAB69},
	{0x10780, 0x107BF}, // modifier letters extended
	{0x1E030, 0x1E08F}, // Cyrillic modifiers
	{0x1F100, 0x1F1FF}, // enclosed alphanumeric supplement
}

// isCanonicalSingleton reports whether r is canonically equivalent to another character
// (the ohm sign Ω and Ω): NFC maps it, which keeps the letter.
func isCanonicalSingleton(r rune) bool {
	var buf [utf8.UTFMax]byte
	b := buf[:utf8.EncodeRune(buf[:], r)]
	return !norm.NFC.IsNormal(b)
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

// isInvisible reports whether r is a format or ignorable character that renders as nothing:
// the soft hyphen, zero-width spaces and joiners, bidi marks and embeddings, the word joiner,
// the byte-order mark (all of Unicode category Cf), variation selectors and the combining
// grapheme joiner.
func isInvisible(r rune) bool {
	if r < 0xAD {
		return false
	}
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) || r == 0x034F
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

// foldCase appends the case folding of r to buf: Unicode simple case folding (every rune of
// a case orbit maps to the orbit's smallest member), plus ß and ẞ to "ss" and the Turkish
// dotted İ to "i". The dotless ı matches only itself.
func foldCase(r rune, buf []rune) []rune {
	switch {
	case r < utf8.RuneSelf:
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(buf, r)
	case r == 'ß' || r == 'ẞ':
		return append(buf, 's', 's')
	case r == 'İ':
		return append(buf, 'i')
	}
	least := r
	for c := unicode.SimpleFold(r); c != r; c = unicode.SimpleFold(c) {
		least = min(least, c)
	}
	if 'A' <= least && least <= 'Z' {
		least += 'a' - 'A' // ſ and K (Kelvin) fold with s and k
	}
	return append(buf, least)
}
