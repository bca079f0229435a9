package verify

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// folded is a text after folding at one tier, with a map back to the text it came from:
// the folded byte i was produced by the source bytes [start[i], end[i]).
type folded struct {
	text  string
	start []int32
	end   []int32
}

// span maps the folded bytes [i, j), j > i, back to the source text.
func (f *folded) span(i, j int) Span {
	return Span{Start: int(f.start[i]), End: int(f.end[j-1])}
}

// folder folds one text at one tier. Every rune goes through emit, which applies the
// foldings of the tier in a fixed order (punctuation, invisible, whitespace, case), so that a
// quote and a page folded at the same tier compare like for like.
type folder struct {
	tier  Tier
	track bool // record the offset map (pages); quotes need no map

	out        strings.Builder // sized once: folding rarely lengthens a text
	start, end []int32

	pendingSpace   bool // a run of whitespace waits for the next visible rune
	spaceA, spaceB int
	last           rune // last rune written, 0 before the first
	nfkc           []byte
	caseBuf        [2]rune
}

// foldText folds s at tier t, which is TierWhitespace or above: runs of whitespace become one
// ASCII space and leading and trailing whitespace is dropped. With track set it records the
// offset map.
func foldText(s string, t Tier, track bool) folded {
	f := folder{tier: t, track: track}
	f.out.Grow(len(s))
	if track {
		f.start = make([]int32, 0, len(s))
		f.end = make([]int32, 0, len(s))
	}
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
		if norm.NFKC.IsNormalString(seg) {
			// Already normal: keep the finer, per-rune offset map.
			for j, r := range seg {
				f.emit(r, i+j, i+j+utf8.RuneLen(r))
			}
		} else {
			f.nfkc = norm.NFKC.AppendString(f.nfkc[:0], seg)
			for _, r := range string(f.nfkc) {
				f.emit(r, i, i+n)
			}
		}
		i += n
	}
	return folded{text: f.out.String(), start: f.start, end: f.end}
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
	if isSpace(r) {
		if !f.pendingSpace {
			f.pendingSpace = true
			f.spaceA, f.spaceB = a, b
		}
		return
	}
	if t >= TierPunctuation && r == '-' && f.last == '-' {
		// A run of dashes (-- or — –) counts as one dash; spaces inside it vanish.
		f.pendingSpace = false
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
	n := 1
	if r < utf8.RuneSelf {
		f.out.WriteByte(byte(r))
	} else {
		n, _ = f.out.WriteRune(r)
	}
	if f.track {
		for range n {
			f.start = append(f.start, int32(a))
			f.end = append(f.end, int32(b))
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
	'‐': '-', '‑': '-', '‒': '-', '–': '-', '—': '-', '―': '-', '−': '-', '⸺': '-',
	'⸻': '-', '﹘': '-', '﹣': '-', '－': '-', '⁃': '-',
}

// gluesAfter reports whether whitespace after r is dropped at the punctuation tier: after a
// quotation mark or a dash (French « guillemets », spaced dashes).
func gluesAfter(r rune) bool { return r == '"' || r == '\'' || r == '-' }

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
