package evidence

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// IsInvisible reports whether r is a format or ignorable character that renders as nothing:
// the soft hyphen, zero-width spaces and joiners, bidi marks, embeddings, overrides and
// isolates, the word joiner, the byte-order mark (all of Unicode category Cf), variation
// selectors and the combining grapheme joiner. Text is read as a reader sees it with these
// left out; the matcher still refuses a span that bidi controls reorder (docs/matching.md).
func IsInvisible(r rune) bool {
	if r < 0xAD {
		return false
	}
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) || r == 0x034F
}

// ChangesKind reports whether seg holds a character whose compatibility mapping (NFKC) does
// not keep the letter or digit it stands for, so folding it would put a different letter or
// digit in the text: superscripts and subscripts (10⁶ is not 106, 62² is not 622), vulgar
// fractions (½ is not 1/2 written out), Roman numerals, circled, parenthesized and squared
// forms (①, ⑴, ㎏), letterlike symbols (™, №, ℃) and modifier letters (ʰ, ᵃ). Canonical
// equivalents among them (the ohm and Kelvin signs) are still folded by NFC.
//
// Every other compatibility mapping keeps the letters and digits and only changes their
// form: full-width and half-width forms (ＡＢＣ), ligatures (ﬁ, ĳ), the long s, styled
// mathematical letters and digits, compatibility ideographs, spaces and dots.
func ChangesKind(seg string) bool {
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
// stand for (see ChangesKind).
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

// FoldCompat applies the compatibility normalization (NFKC) of s except to the segments whose
// mapping changes a letter or digit ([ChangesKind]), which are composed canonically (NFC)
// instead: ﬁ is fi and ＡＢＣ is ABC, but 10⁶ stays 10⁶ and ½ stays ½.
func FoldCompat(s string) string {
	if norm.NFKC.IsNormalString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		n := max(norm.NFKC.NextBoundaryInString(s[i:], true), 1)
		seg := s[i : i+n]
		if ChangesKind(seg) {
			b.WriteString(norm.NFC.String(seg))
		} else {
			b.WriteString(norm.NFKC.String(seg))
		}
		i += n
	}
	return b.String()
}
