package evidence

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Word is one word of a text: the word as written and its byte offsets in the text.
type Word struct {
	Text       string
	Start, End int
}

// Words returns the words of s, in order. It is the one word splitter of the program: the
// consistency check, negation and disagreement, triage, the memory-write gate, the model
// tier's passage terms, the ledger's search for near claims and the matcher's hints all read
// words through it (or [EachWord], [LowerWords]), so that they agree on what a word is.
//
// A word is a run of letters, marks and numerals ([IsNumeral]), where:
//   - a number is whole, as the matcher reads numbers ([NumberTokens]): a digit separator,
//     a fraction slash or a digit-group space ([SpaceJoinsDigits]) between two numerals stays
//     inside ("4,812", "3.5", "5 500", "1 1/2"), and a dash, hyphen or anything else between
//     two numerals ends the word ("10–12" and "2020-21" are two words each); a sign written
//     before a number is not part of the word;
//   - an apostrophe (' or ’) or a hyphen (-, U+2010, U+2011) between two runes of a word
//     stays inside it ("doesn't", "non-profit", "COVID-19");
//   - each Han, Hiragana and Katakana character is a word of its own: those scripts do not
//     separate words by spaces.
func Words(s string) []Word {
	var out []Word
	EachWord(s, func(start, end int) { out = append(out, Word{Text: s[start:end], Start: start, End: end}) })
	return out
}

// EachWord calls f with the byte offsets of each word of s ([Words]), in order, allocating
// nothing.
func EachWord(s string, f func(start, end int)) {
	start := -1
	var last rune // the last rune of the word being read
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isIdeograph(r):
			if start >= 0 {
				f(start, i)
				start = -1
			}
			f(i, i+size)
		case isWordRune(r):
			if start < 0 {
				start = i
			}
			last = r
		case start >= 0:
			next, n := utf8.DecodeRuneInString(s[i+size:])
			if isWordRune(next) && !isIdeograph(next) && staysInWord(s, i, last, r, next) {
				last = next
				i += size + n
				continue
			}
			f(start, i)
			start = -1
		}
		i += size
	}
	if start >= 0 {
		f(start, len(s))
	}
}

// LowerWords returns the words of s ([Words]) in lower case, a typographic apostrophe
// written '.
func LowerWords(s string) []string {
	var out []string
	EachWord(s, func(start, end int) { out = append(out, lowerWord(s[start:end])) })
	return out
}

// lowerWord is a word in lower case, a typographic apostrophe written '.
func lowerWord(w string) string { return strings.ReplaceAll(strings.ToLower(w), "’", "'") }

// IsNumberWord reports whether w, a word of [Words], is a number: it begins with a numeral.
func IsNumberWord(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return IsNumeral(r)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsMark(r) || IsNumeral(r) }

// isIdeograph reports whether r is a Han, Hiragana or Katakana character, a word of its own.
func isIdeograph(r rune) bool {
	return r >= 0x2E80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// staysInWord reports whether r, at s[i], between last (the end of a word) and next (a word
// rune), is inside the word.
func staysInWord(s string, i int, last, r, next rune) bool {
	if IsNumeral(last) && IsNumeral(next) {
		return IsDigitSeparator(r) || IsFractionSlash(r) || r == ' ' && SpaceJoinsDigits(s[:i], s[i+1:])
	}
	switch r {
	case '\'', '’', '-', '\u2010', '\u2011':
		return true
	}
	return false
}
