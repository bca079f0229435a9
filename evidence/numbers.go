package evidence

import (
	"strconv"
	"strings"
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
	case unicode.Is(unicode.Nd, r), isScriptDigit(r), isVulgarFraction(r):
		return true
	}
	return false
}

// isDigits reports whether s is one or more ASCII digits, "1999" but not "1,000", "3.5" or
// "١٢": the digits of a year (isYear). Whether a word is a number is [IsNumberWord].
func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// isScriptDigit reports whether r is a superscript or subscript digit: ⁰ ¹ ² ³ ⁴…⁹ and ₀…₉.
func isScriptDigit(r rune) bool {
	switch {
	case r == '¹' || r == '²' || r == '³' || r == '⁰':
		return true
	case '⁴' <= r && r <= '⁹', '₀' <= r && r <= '₉':
		return true
	}
	return false
}

// isVulgarFraction reports whether r is a precomposed fraction: ¼ ½ ¾ (U+00BC–U+00BE) and
// ⅐…⅞, ⅟ (U+2150–U+215F), and ↉ (U+2189).
func isVulgarFraction(r rune) bool {
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

// NumberToken is one whole number of a text, as the matcher reads numbers: its digits of any
// script (IsNumeral), the separators between them that join them into one number
// (IsDigitSeparator with a numeral beyond it, an ordinary space where SpaceJoinsDigits, a
// fraction slash between numerals), and a sign written right before it where no numeral or
// letter precedes the sign ("−25.6", not the dash of "10–12" nor the hyphen of "mid-2020").
// The rune before a token and the rune after it never join it (JoinsNumber), except a dash
// or sign (a range "10–12" is two tokens, a sign after a number, "18+", is not part of it)
// and a fraction slash or caret with no numeral on its far side ("km/5", "x^2").
type NumberToken struct {
	// Start and End are the byte offsets of the token in the text.
	Start, End int
	// Text is the token as written.
	Text string
}

// NumberTokens returns the whole numbers of s, in order ([NumberToken]). The consistency
// check reads the figures of a claim and a page from these tokens, so a figure is the same
// whole number the matcher would require: "500" is not a token of "5 500" (one number, as
// French pages write it) nor of "5,500", but is one of "In 2020 500 people".
func NumberTokens(s string) []NumberToken {
	var out []NumberToken
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !IsNumeral(r) {
			i += size
			continue
		}
		start, end := i, i+size
		for end < len(s) {
			next, n := utf8.DecodeRuneInString(s[end:])
			switch {
			case IsNumeral(next):
				end += n
				continue
			case IsDigitSeparator(next) || IsFractionSlash(next):
				if beyond, m := utf8.DecodeRuneInString(s[end+n:]); IsNumeral(beyond) {
					end += n + m
					continue
				}
			case next == ' ' && SpaceJoinsDigits(s[:end], s[end+1:]):
				end++
				continue
			}
			break
		}
		if sign, n := utf8.DecodeLastRuneInString(s[:start]); n > 0 && IsNumberSign(sign) {
			before, _ := utf8.DecodeLastRuneInString(s[:start-n])
			if !IsNumeral(before) && !unicode.IsLetter(before) {
				start -= n
			}
		}
		out = append(out, NumberToken{Start: start, End: end, Text: s[start:end]})
		i = end
	}
	return out
}

// NumberValue reads the amount a token writes: its digits of any script, thousands
// separators (",", "'", "’", "٬" and the spaces, each followed by three digits) and decimal
// mark ("." and "·" and "٫"; a "," not followed by exactly three digits; "1.234,5" and
// "1.234.567" are read with "." as the thousands separator), a fraction ("3/4", "1 1/2", a
// vulgar fraction "2½") and a leading minus sign. ok is false for what is not an amount:
// superscript or subscript digits (an exponent or a footnote: "10⁶"), a fraction slash with
// no whole number around it.
func NumberValue(token string) (v float64, ok bool) {
	neg := false
	if r, n := utf8.DecodeRuneInString(token); IsNumberSign(r) {
		neg = r != '+' && r != '﹢' && r != '＋' && r != '⁺' && r != '₊'
		token = token[n:]
	}
	var b strings.Builder
	frac := 0.0
	for _, r := range token {
		switch {
		case '0' <= r && r <= '9', r == '.', r == ',', r == '/', r == ' ':
			b.WriteRune(r)
		case isDecimal(r):
			b.WriteRune('0' + digitValue(r))
		case isScriptDigit(r):
			return 0, false
		case isVulgarFraction(r):
			f, known := vulgarFractions[r]
			if !known || frac != 0 {
				return 0, false
			}
			frac = f
		case IsFractionSlash(r):
			b.WriteByte('/')
		case r == '·' || r == '٫':
			b.WriteByte('.')
		case r == '٬' || r == '\'' || r == '’':
			b.WriteByte(',')
		case IsDigitSeparator(r): // the spaces between digit groups
			b.WriteByte(' ')
		default:
			return 0, false
		}
	}
	d := b.String()
	if frac != 0 && strings.ContainsAny(d, "/.,") {
		return 0, false
	}
	if i := strings.IndexByte(d, '/'); i >= 0 {
		whole, num, den := 0.0, d[:i], d[i+1:]
		if j := strings.LastIndexByte(num, ' '); j >= 0 {
			w, okw := parseGrouped(num[:j])
			if !okw {
				return 0, false
			}
			whole, num = w, num[j+1:]
		}
		n, okn := parseGrouped(num)
		m, okm := parseGrouped(den)
		if !okn || !okm || m == 0 || strings.ContainsAny(num+den, " .,") {
			return 0, false
		}
		v = whole + n/m
	} else {
		if v, ok = parseGrouped(d); !ok && d != "" {
			return 0, false
		}
		v += frac
	}
	if neg {
		v = -v
	}
	return v, true
}

// parseGrouped reads digits with spaces between digit groups and "." or "," as thousands
// separators or decimal mark (see NumberValue).
func parseGrouped(d string) (float64, bool) {
	d = strings.ReplaceAll(d, " ", "")
	if d == "" {
		return 0, false
	}
	dot, comma := strings.LastIndexByte(d, '.'), strings.LastIndexByte(d, ',')
	switch {
	case strings.Count(d, ".") > 1 && comma < 0, dot >= 0 && comma > dot:
		// "1.234.567", "1.234,5": the dot groups thousands, the comma is the decimal mark.
		d = strings.ReplaceAll(d, ".", "")
		d = strings.Replace(d, ",", ".", 1)
	case comma >= 0 && dot < 0 && strings.Count(d, ",") == 1 && len(d)-comma-1 != 3:
		d = strings.Replace(d, ",", ".", 1) // "1,3": a decimal comma
	default:
		d = strings.ReplaceAll(d, ",", "")
	}
	v, err := strconv.ParseFloat(d, 64)
	return v, err == nil
}

var vulgarFractions = map[rune]float64{'¼': 0.25, '½': 0.5, '¾': 0.75, '⅐': 1.0 / 7, '⅑': 1.0 / 9, '⅒': 0.1,
	'⅓': 1.0 / 3, '⅔': 2.0 / 3, '⅕': 0.2, '⅖': 0.4, '⅗': 0.6, '⅘': 0.8, '⅙': 1.0 / 6, '⅚': 5.0 / 6,
	'⅛': 0.125, '⅜': 0.375, '⅝': 0.625, '⅞': 0.875}

// digitValue is the value of a decimal digit of any script: its distance from the start of
// its run of ten (the digits of every script are encoded in runs of ten from zero).
func digitValue(r rune) rune {
	start := r
	for start > 0 && unicode.Is(unicode.Nd, start-1) {
		start--
	}
	return (r - start) % 10
}
