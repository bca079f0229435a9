package match

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"evidenceledger/evidence"
)

// caseRule holds, for one part of a quote at the case tier, what is needed to check that an
// occurrence differs from the quote in case only where case cannot change what the words
// mean (docs/matching.md, "Capitals"). The case tier finds occurrences in the text folded for
// case; the rule compares the letters as they are, in the text folded for punctuation, which
// has the same runes in the same order.
type caseRule struct {
	page      string // the page text folded at TierPunctuation
	part      string // the part folded at TierPunctuation
	initial   bool   // the part's first word starts a sentence in the quote
	quoteCaps bool   // the whole quote is written in capitals
	ci, pi    int    // a rune of the hay folded for case, and the same rune in page
}

// allows reports whether the occurrence [i, j) of the part in hay (the page folded at
// TierCase) differs from the part in case only as the rule allows. Calls must not go
// backwards: i never decreases.
func (c *caseRule) allows(hay string, i, j int) bool {
	for c.ci < i {
		_, cs := utf8.DecodeRuneInString(hay[c.ci:])
		_, ps := utf8.DecodeRuneInString(c.page[c.pi:])
		c.ci, c.pi = c.ci+cs, c.pi+ps
	}
	ci, pe := c.ci, c.pi
	for ci < j {
		_, cs := utf8.DecodeRuneInString(hay[ci:])
		_, ps := utf8.DecodeRuneInString(c.page[pe:])
		ci, pe = ci+cs, pe+ps
	}
	span := c.page[c.pi:pe]
	if span == c.part {
		return true
	}
	pageCaps, pageTitle := inCapitals(span), inTitleCase(span)
	q, p := c.part, span
	for qi, pi := 0, 0; qi < len(q) && pi < len(p); {
		qr, qs := utf8.DecodeRuneInString(q[qi:])
		_, ps := utf8.DecodeRuneInString(p[pi:])
		if !isWordLetter(qr) {
			qi, pi = qi+qs, pi+ps
			continue
		}
		qe, pe := wordEnd(q, qi), wordEnd(p, pi)
		qw, pw := q[qi:qe], p[pi:pe]
		if qw != pw {
			w := caseWords{
				quote: qw, page: pw,
				quoteStarts: sentenceStart(q, qi, c.initial),
				pageStarts:  sentenceStart(c.page, c.pi+pi, true),
				unit:        afterNumber(q, qi) && isUnitSymbol(qw) || afterNumber(c.page, c.pi+pi) && isUnitSymbol(pw),
			}
			if !w.allowed(c.quoteCaps, pageCaps, pageTitle) {
				return false
			}
		}
		qi, pi = qe, pe
	}
	return true
}

// caseWords is one word of a quote and the word of the page it is matched with, which differ
// in case only.
type caseWords struct {
	quote, page             string
	quoteStarts, pageStarts bool // the word starts a sentence in the quote, on the page
	unit                    bool // the word is a unit symbol after a number (5 MW, 100 Mb)
}

// allowed reports whether the case of the two words may differ: never for a unit symbol
// after a number (5 MW, 100 Mb); when the whole quote is in capitals, unless the page word is
// a unit symbol in mixed case (mW); when the page's passage is in capitals, unless the quote
// word is one; when the page's passage is in title case and the page word is capitalised
// where the quote's is in lower case; and when only the first letter differs, neither word
// is in capitals or in mixed case, and the word starts a sentence in the quote or on the
// page.
func (w caseWords) allowed(quoteCaps, pageCaps, pageTitle bool) bool {
	if w.unit {
		return false
	}
	cq, cp := wordCase(w.quote), wordCase(w.page)
	switch {
	case quoteCaps:
		return cp != mixedCase || !isUnitSymbol(w.page)
	case pageCaps:
		return cq != mixedCase || !isUnitSymbol(w.quote)
	case pageTitle && cp == capitalised && cq == lowerCase:
		return true
	}
	if !(w.quoteStarts || w.pageStarts) || cq > capitalised || cp > capitalised {
		return false
	}
	qr, qs := utf8.DecodeRuneInString(w.quote)
	pr, ps := utf8.DecodeRuneInString(w.page)
	return qr != pr && w.quote[qs:] == w.page[ps:]
}

// letterCase is how a word is written.
type letterCase int

const (
	lowerCase   letterCase = iota // "apple", and words of letters without case
	capitalised                   // "Apple", "A": the first cased letter upper case, no other
	upperCase                     // "WHO", "MW": two or more cased letters, all upper case
	mixedCase                     // "mW", "iPhone", "McDonald"
)

func wordCase(w string) letterCase {
	upper, lower, firstUpper := 0, 0, false
	for _, r := range w {
		switch {
		case unicode.IsUpper(r) || unicode.IsTitle(r):
			if upper+lower == 0 {
				firstUpper = true
			}
			upper++
		case unicode.IsLower(r):
			lower++
		}
	}
	switch {
	case upper == 0:
		return lowerCase
	case upper == 1 && firstUpper:
		return capitalised
	case lower == 0:
		return upperCase
	}
	return mixedCase
}

// minStyleLetters is how many capitals make a text "in capitals": fewer ("OK", "I") say
// nothing of its style.
const minStyleLetters = 4

// inCapitals reports whether s is written in capitals: at least minStyleLetters upper-case
// letters and no lower-case one (a headline set in capitals, "GOVERNMENT RAISES TAXES").
func inCapitals(s string) bool {
	upper := 0
	for _, r := range s {
		switch {
		case unicode.IsLower(r):
			return false
		case unicode.IsUpper(r) || unicode.IsTitle(r):
			upper++
		}
	}
	return upper >= minStyleLetters
}

// inTitleCase reports whether s is written in title case, as a heading: at least two words of
// four letters or more, and every such word capitalised or in capitals ("The Prime Minister
// Said On Monday", "Rise of the Machines"). Shorter words may be in lower case.
func inTitleCase(s string) bool {
	long := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isWordLetter(r) {
			i += size
			continue
		}
		e := wordEnd(s, i)
		if utf8.RuneCountInString(s[i:e]) >= 4 {
			if c := wordCase(s[i:e]); c != capitalised && c != upperCase {
				return false
			}
			long++
		}
		i = e
	}
	return long >= 2
}

// isWordLetter reports whether r is part of a word for the case rule: a letter or a mark.
func isWordLetter(r rune) bool { return unicode.IsLetter(r) || unicode.IsMark(r) }

// wordEnd returns the end of the run of word letters of s that starts at i.
func wordEnd(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isWordLetter(r) {
			break
		}
		i += size
	}
	return i
}

// sentenceStart reports whether the word at byte at of s starts a sentence: before it, past
// opening quotation marks and brackets, there is the start of s (atStart tells whether that
// starts a sentence) or a full stop, question or exclamation mark (closing marks and
// brackets between them allowed) and whitespace or an opening mark (the punctuation tier
// drops the space next to a quotation mark: "He left."The plan").
func sentenceStart(s string, at int, atStart bool) bool {
	i := at
	back := func() rune {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		return r
	}
	openers := 0
	for i > 0 {
		if r, _ := utf8.DecodeLastRuneInString(s[:i]); !strings.ContainsRune("\"'([{¿¡", r) {
			break
		}
		back()
		openers++
	}
	if i == 0 {
		return atStart
	}
	spaces := 0
	for i > 0 {
		if r, _ := utf8.DecodeLastRuneInString(s[:i]); !isSpace(r) {
			break
		}
		back()
		spaces++
	}
	if i == 0 {
		return atStart
	}
	if spaces == 0 && openers == 0 {
		return false
	}
	for i > 0 {
		r := back()
		switch {
		case strings.ContainsRune("\"')]}", r):
			continue
		case r == '.' || r == '!' || r == '?' || r == '…':
			return true
		}
		return false
	}
	return false
}

// afterNumber reports whether the word at byte at of s follows a number, directly or after
// one space ("5 MW", "100Mb").
func afterNumber(s string, at int) bool {
	r, size := utf8.DecodeLastRuneInString(s[:at])
	if r == ' ' {
		r, _ = utf8.DecodeLastRuneInString(s[:at-size])
	}
	return evidence.IsNumeral(r)
}

// unitPrefixes and unitNames make the unit symbols whose capitals are part of what they
// mean: mW is not MW, Mb is not MB. Prefixes that are also common short words after a
// number (a, p: "5 am", "5 pm") are left out.
var (
	unitPrefixes = []string{"", "k", "K", "M", "G", "T", "P", "m", "µ", "μ", "u", "n", "c", "d", "h", "Ki", "Mi", "Gi", "Ti"}
	unitNames    = map[string]bool{
		"m": true, "g": true, "s": true, "A": true, "K": true, "mol": true, "cd": true, "Hz": true,
		"N": true, "Pa": true, "J": true, "W": true, "C": true, "V": true, "F": true, "Ω": true,
		"S": true, "Wb": true, "T": true, "H": true, "lm": true, "lx": true, "Bq": true, "Gy": true,
		"Sv": true, "L": true, "l": true, "t": true, "eV": true, "Wh": true, "B": true, "b": true,
		"bit": true, "bps": true, "VA": true, "Ah": true, "cal": true,
	}
)

// isUnitSymbol reports whether w is a unit symbol, a prefix and a unit name ("mW", "MB",
// "kWh", "Gbps").
func isUnitSymbol(w string) bool {
	for _, p := range unitPrefixes {
		if strings.HasPrefix(w, p) && unitNames[w[len(p):]] {
			return true
		}
	}
	return false
}

// The case rule outside a match: the memory-write gate compares a memory sentence with a
// verified text by the same rule, through these functions (docs/gate.md).

// IsWordLetter reports whether r is part of a word for the case rule: a letter or a mark.
func IsWordLetter(r rune) bool { return isWordLetter(r) }

// WordEnd returns the end of the run of word letters of s that starts at byte i.
func WordEnd(s string, i int) int { return wordEnd(s, i) }

// SentenceStart reports whether the word at byte at of s starts a sentence, the start of s
// included.
func SentenceStart(s string, at int) bool { return sentenceStart(s, at, true) }

// UnitAfterNumber reports whether w, the word at byte at of s, is a unit symbol after a
// number ("5 MW"), whose case is part of what it means.
func UnitAfterNumber(s string, at int, w string) bool { return afterNumber(s, at) && isUnitSymbol(w) }

// CaseMayDiffer reports whether words a and b, equal but for case, may stand for each other
// by the case rule without its rules for texts in capitals or title case: never when unit
// is set; only in the first letter, neither word in capitals or mixed case, and the word
// starting a sentence in one text or the other (aStarts, bStarts).
func CaseMayDiffer(a, b string, aStarts, bStarts, unit bool) bool {
	return caseWords{quote: a, page: b, quoteStarts: aStarts, pageStarts: bStarts, unit: unit}.allowed(false, false, false)
}
