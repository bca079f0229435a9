package evidence

import (
	"unicode"
	"unicode/utf8"
)

// A number in a quote matches only a whole number on the page: the page must not go on with
// more of the same number right beside it. The runes below are what a number is written
// with besides its digits; docs/matching.md ("Whole numbers") gives the rule and examples.

// IsNumeral reports whether r is a digit of a number: a decimal digit of any script, a
// superscript or subscript digit (⁶, ₂), or a vulgar fraction (½, ⅓, ⅞).
func IsNumeral(r rune) bool {
	switch {
	case '0' <= r && r <= '9':
		return true
	case r < 0xB2:
		return false
	case unicode.Is(unicode.Nd, r), IsScriptDigit(r), IsVulgarFraction(r):
		return true
	}
	return false
}

// IsScriptDigit reports whether r is a superscript or subscript digit: ⁰ ¹ ² ³ ⁴…⁹ and ₀…₉.
func IsScriptDigit(r rune) bool {
	switch {
	case r == '¹' || r == '²' || r == '³' || r == '⁰':
		return true
	case '⁴' <= r && r <= '⁹', '₀' <= r && r <= '₉':
		return true
	}
	return false
}

// IsVulgarFraction reports whether r is a precomposed fraction: ¼ ½ ¾ (U+00BC–U+00BE) and
// ⅐…⅞, ⅟ (U+2150–U+215F), and ↉ (U+2189).
func IsVulgarFraction(r rune) bool {
	return 0xBC <= r && r <= 0xBE || 0x2150 <= r && r <= 0x215F || r == 0x2189
}

// IsNumberSign reports whether r written directly before or after a number belongs to it: a
// sign (+ ± ∓ and the minus sign −, in any width), or a dash or hyphen (‐ ‑ ‒ – — and the
// others of category Pd), which before a number is its minus sign and between two numbers
// makes a range ("10–12", "2020-21").
func IsNumberSign(r rune) bool {
	switch r {
	case '+', '-', '±', '∓', '−', '﹢', '＋', '⁻', '⁺', '₋', '₊':
		return true
	}
	return r >= 0x2010 && unicode.Is(unicode.Pd, r)
}

// IsFractionSlash reports whether r writes a fraction between two numbers: / and ⁄ (U+2044),
// and ∕ (U+2215).
func IsFractionSlash(r rune) bool { return r == '/' || r == '⁄' || r == '∕' }

// IsDigitSeparator reports whether r, between two digits, joins them into one number: the
// decimal point and comma, the apostrophe (1'000, 1’000), the middle dot (4·2), the Arabic
// decimal and thousands separators (٫ ٬), and the spaces used between digit groups: no-break
// U+00A0, thin U+2009, narrow no-break U+202F and figure space U+2007. An ordinary space is
// not one of them (see SpaceJoinsDigits).
func IsDigitSeparator(r rune) bool {
	switch r {
	case '.', ',', '\'', '’', '·', '٫', '٬', '\u00a0', '\u2009', '\u202f', '\u2007':
		return true
	}
	return false
}

// JoinsNumber reports whether r, the page's rune right beside the digit at the edge of a
// matched number, makes that number part of a longer one, so that the match would cut a
// number: r is a numeral (IsNumeral), a sign or dash (IsNumberSign), a fraction slash, a
// caret (10^6), or a digit separator with a numeral beyond it. beyond is the rune on the far
// side of r (0 at the edge of the text).
func JoinsNumber(r, beyond rune) bool {
	switch {
	case IsNumeral(r), IsNumberSign(r), IsFractionSlash(r), r == '^':
		return true
	case IsDigitSeparator(r):
		return IsNumeral(beyond)
	}
	return false
}

// SpaceJoinsDigits reports whether an ordinary space between left (the text before the
// space) and right (the text after it) may write digits of one number, as many French, Czech
// and Russian pages type "5 500": left ends with one to three digits and right starts with
// exactly three; or right starts with a fraction, digits, a fraction slash and a digit ("1
// 1/2"). "In 2020 500 people" is two numbers: 2020 has four digits.
func SpaceJoinsDigits(left, right string) bool {
	lead := 0
	for left != "" {
		r, size := utf8.DecodeLastRuneInString(left)
		if !isDecimal(r) {
			break
		}
		lead++
		left = left[:len(left)-size]
	}
	digits := 0
	for right != "" {
		r, size := utf8.DecodeRuneInString(right)
		if !isDecimal(r) {
			break
		}
		digits++
		right = right[size:]
	}
	if lead == 0 || digits == 0 {
		return false
	}
	r, size := utf8.DecodeRuneInString(right)
	if IsFractionSlash(r) {
		next, _ := utf8.DecodeRuneInString(right[size:])
		return isDecimal(next)
	}
	return lead <= 3 && digits == 3
}

// isDecimal reports whether r is a decimal digit of any script (category Nd).
func isDecimal(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.Is(unicode.Nd, r)
}
