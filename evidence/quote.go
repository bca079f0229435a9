package evidence

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MinQuoteLen is the shortest quote worth looking for at a source: the quote, and every part
// of it between ellipses, must hold at least this many letters or digits. Punctuation,
// spaces and ellipsis markers do not count, so "............" or "n 2025 ... 4,812" is no
// quote to look for.
const MinQuoteLen = 12

// MinPartWords is the fewest words each part of a quote must hold in a script written with
// spaces between words: one word alone ("gun", "2009", "internationally") is on almost any
// page and proves nothing. Scripts written without spaces (Chinese, Japanese, Thai, ...) have
// no such count; their parts need MinQuoteLen characters.
const MinPartWords = 2

// MaxQuoteParts is the most parts an ellipsis may split a quote into. A quote with more is
// not looked for: so many omissions make a collage of the page, not a quote. The researcher
// can cite the passages as separate quotes.
const MaxQuoteParts = 8

// Errors of [QuoteParts]; each is wrapped with the details.
var (
	// ErrNoQuote: the quote, or one of its parts between ellipses, is too short to check.
	ErrNoQuote = errors.New(NoteNoQuote)
	// ErrTooManyParts: the quote has more than MaxQuoteParts parts.
	ErrTooManyParts = errors.New("too many ellipses")
)

// ellipsis matches the markers that split a quote into parts: …, three or more dots (spaced
// or not), and either of these in square or round brackets.
var ellipsis = regexp.MustCompile(`[\[(]\s*(?:…|\.(?:\s?\.){2,})\s*[\])]|…|\.\.\.+|\. \. \.`)

// QuoteParts splits a quote at its ellipses into the parts that must appear on the page, in
// order, each trimmed of white space. It is the one rule of what a checkable quote is:
//
//   - every part holds at least MinQuoteLen letters or digits, and, unless it is written in a
//     script without spaces between words, at least MinPartWords words (else the error wraps
//     ErrNoQuote and names the part);
//   - there are at most MaxQuoteParts parts (else the error wraps ErrTooManyParts).
//
// A quote with no letters or digits at all wraps ErrNoQuote.
func QuoteParts(quote string) ([]string, error) {
	parts, err := quoteParts(quote)
	if err != nil {
		return nil, err
	}
	return parts, nil
}

// quoteParts is QuoteParts; on an error it also returns the parts it found.
func quoteParts(quote string) ([]string, error) {
	var parts []string
	for _, p := range ellipsis.Split(quote, -1) {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) > MaxQuoteParts {
		return parts, fmt.Errorf("%w: the quote has %d parts between ellipses and at most %d are looked for; cite the passages as separate quotes", ErrTooManyParts, len(parts), MaxQuoteParts)
	}
	if len(parts) == 0 {
		return parts, fmt.Errorf("%w: the quote has no letters or digits", ErrNoQuote)
	}
	for _, p := range parts {
		chars, words, spaced := measure(p)
		what := "the quote"
		if len(parts) > 1 {
			what = fmt.Sprintf("the part %q between ellipses", p)
		}
		if chars < MinQuoteLen {
			return parts, fmt.Errorf("%w: %s has %d letters or digits, fewer than %d", ErrNoQuote, what, chars, MinQuoteLen)
		}
		if spaced && words < MinPartWords {
			return parts, fmt.Errorf("%w: %s is a single word", ErrNoQuote, what)
		}
	}
	return parts, nil
}

// quoteNote is the note of a quote that cannot be checked, or "" when it can. A quote without
// ellipses that is missing or too short gets NoteNoQuote exactly; a quote with a part too short
// gets NoteNoQuote, a colon and the part; a quote with too many parts gets a note naming
// MaxQuoteParts.
func quoteNote(quote string) string {
	parts, err := quoteParts(quote)
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrTooManyParts):
		return fmt.Sprintf("not looked for: the quote has %d parts between ellipses and at most %d are looked for; cite the passages as separate quotes", len(parts), MaxQuoteParts)
	case len(parts) > 1:
		return NoteNoQuote + ": " + strings.TrimPrefix(err.Error(), ErrNoQuote.Error()+": ")
	}
	return NoteNoQuote
}

// measure counts the letters and digits of s and its words ([EachWord]: a number is one
// word, as the matcher reads it), and reports whether s is written in scripts that separate
// words by spaces (it holds no letter of a script written without them: a Japanese sentence
// with "Wi-Fi" in it is not split into words by spaces).
func measure(s string) (chars, words int, spaced bool) {
	spaced = true
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			chars++
			if unspaced(r) {
				spaced = false
			}
		}
	}
	EachWord(s, func(int, int) { words++ })
	return chars, words, spaced
}

// unspaced reports whether r belongs to a script written without spaces between words: Han,
// Hiragana, Katakana, Thai, Lao, Khmer, Myanmar, Tibetan. Such text is matched at character
// boundaries; all other text at word boundaries.
func unspaced(r rune) bool {
	return r >= 0x0E00 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana,
		unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar, unicode.Tibetan)
}

// IsWordRune reports whether r is part of a word for the purpose of word boundaries: a
// letter, digit or mark of a script written with spaces. A match may neither start nor end
// between two word runes. Letters of scripts without spaces are not word runes: every
// character boundary is a boundary there.
func IsWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) && !unspaced(r)
}
