package evidence

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MismatchKind names what a claim and the page's words disagree on.
type MismatchKind string

// The kinds of mismatch [CompareClaim] finds.
const (
	// MismatchPercentage: the claim gives a percentage the page's words do not, while the
	// quote gives another.
	MismatchPercentage MismatchKind = "percentage"
	// MismatchNumber: the same for an amount or a count.
	MismatchNumber MismatchKind = "number"
	// MismatchYear: the same for a year.
	MismatchYear MismatchKind = "year"
	// MismatchFigure: the claim gives a figure, written in digits, that neither the quote nor
	// its context gives (and no mismatch above already names it).
	MismatchFigure MismatchKind = "figure"
	// MismatchNegation: the quote says "not" (never, no, n't, ...) and the claim does not,
	// or the claim does and the quote does not.
	MismatchNegation MismatchKind = "negation"
	// MismatchHedge: the quote hedges (may, could, is expected to, plans to, ...) and the
	// claim states it as a fact.
	MismatchHedge MismatchKind = "hedge"
)

// Mismatch is one way the claim's text disagrees with the found quote and its context. Claim
// and Page are the words as each wrote them; Page is empty when the page has nothing of the
// kind (a negation the claim adds).
type Mismatch struct {
	Kind  MismatchKind `json:"kind"`
	Claim string       `json:"claim"`
	Page  string       `json:"page"`
}

// String says the mismatch in one line, quoting both sides.
func (m Mismatch) String() string {
	switch m.Kind {
	case MismatchNegation:
		if m.Page == "" {
			return "the claim says “" + m.Claim + "” where the quote has no negation"
		}
		return "the quote says “" + m.Page + "” and the claim has no negation"
	case MismatchHedge:
		return "the quote hedges (“" + m.Page + "”) and the claim states it as a fact"
	case MismatchFigure:
		if m.Page == "" {
			return "the claim says “" + m.Claim + "” where neither the quote nor the page's words around it give that figure"
		}
		return "the claim says “" + m.Claim + "” where neither the quote nor the page's words around it give that figure (the quote gives “" + strings.ReplaceAll(m.Page, "; ", "”, “") + "”)"
	}
	return "the claim says “" + m.Claim + "” where the quote says “" + m.Page + "”"
}

// CompareClaim compares the numbers, percentages, years, negations and hedges of a claim with
// those of the quote found on the page and its context (the page's own words around it), and
// returns every mismatch, in the order: percentages, numbers, years, negation, hedge. It is
// the code-only consistency check that runs on every found quote, with or without a model.
//
// The rules are deliberately narrow, so that a mismatch means a real difference in what is
// said, never only a different wording:
//
//   - The percentages (years; numbers counting the same thing, that is followed by the same
//     word: "4,812 companies", "two years") of the claim are a mismatch only when the quote
//     itself gives at least one such value and neither the quote nor the context gives any
//     of the claim's: a claim that shares one figure with the page and adds another (a count
//     the page does not give) is not a contradiction, and "Claim 3." is not compared with
//     "4,812 companies". Values compare by amount: "1,200", "1200" and "1.2 thousand" are
//     equal, "$13.7 billion" equals "13,700 million", "15 percent" equals "15%" and
//     "15 per cent". A claim value the page says nothing of the kind about is not checked.
//   - Negation and hedging are compared with the quote alone (the context holds unrelated
//     sentences): the quote negates (not, never, no, none, nor, without, n't, cannot, no
//     longer) and the claim does not, or the other way round; the quote hedges (may, might,
//     could, is expected to, plans to, proposed, likely, reportedly, allegedly) and the
//     claim neither hedges nor negates.
//
// A mismatch is not a verdict: a person weighs it through a contradiction seam.
func CompareClaim(claim, quote, context string) []Mismatch {
	var out []Mismatch
	cv, qv := quantities(claim), quantities(quote)
	ev := append(qv, quantities(context)...)
	for _, kind := range []MismatchKind{MismatchPercentage, MismatchNumber, MismatchYear} {
		var units []string
		for _, c := range cv {
			if c.kind == kind && !slices.Contains(units, c.unit) {
				units = append(units, c.unit)
			}
		}
		for _, unit := range units {
			var page []string
			for _, q := range qv {
				if q.kind == kind && q.unit == unit {
					page = append(page, q.text)
				}
			}
			var claimed []quantity
			shared := false
			for _, c := range cv {
				if c.kind == kind && c.unit == unit {
					claimed = append(claimed, c)
					shared = shared || containsValue(ev, c)
				}
			}
			if len(page) == 0 || shared {
				continue
			}
			for _, c := range claimed {
				out = append(out, Mismatch{Kind: kind, Claim: c.text, Page: strings.Join(page, "; ")})
			}
		}
	}
	// Every figure the claim writes in digits must be on the page: in the quote or its context.
	var page []string
	for _, q := range qv {
		if q.written {
			page = append(page, q.text)
		}
	}
	for _, c := range cv {
		if !c.written || containsFigure(ev, c) || slices.ContainsFunc(out, func(m Mismatch) bool { return m.Claim == c.text }) {
			continue
		}
		out = append(out, Mismatch{Kind: MismatchFigure, Claim: c.text, Page: strings.Join(page, "; ")})
	}
	cw, qw := words(claim), words(quote)
	cn, qn := firstCue(cw, negationCue), firstCue(qw, negationCue)
	switch {
	case qn != "" && cn == "":
		out = append(out, Mismatch{Kind: MismatchNegation, Page: qn})
	case cn != "" && qn == "":
		out = append(out, Mismatch{Kind: MismatchNegation, Claim: cn})
	}
	if qh := firstCue(qw, hedgeCue); qh != "" && firstCue(cw, hedgeCue) == "" && cn == "" {
		out = append(out, Mismatch{Kind: MismatchHedge, Page: qh})
	}
	return out
}

// quantity is one value in a text: its kind, its amount and the words that wrote it.
type quantity struct {
	kind  MismatchKind
	value float64
	text  string
	// unit is, for a number, the word right after it ("4,812 companies": "company"), so
	// that only counts of the same thing are compared; "" for percentages and years, and
	// for a number followed by punctuation or nothing.
	unit string
	// written: the value is written in digits (a NumberToken), not spelled.
	written bool
}

// scaleRE and percentRE read what may follow a number token: a scale word, then a percent
// sign or word. currencies are the signs that may stand before one.
var (
	scaleRE   = regexp.MustCompile(`^(?i)\s?(thousand|million|billion|trillion|bn|mn)\b`)
	percentRE = regexp.MustCompile(`^(?i)\s?(%|percent\b|per cent\b|percentage points?\b)`)
)

const currencies = "$€£¥"

var scales = map[string]float64{"thousand": 1e3, "million": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9, "trillion": 1e12}

// spelled are the number words read as numbers. "one" is left out: it is more often a
// pronoun ("one of the biggest") than a count.
var spelled = map[string]float64{"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "dozen": 12, "hundred": 100}

// quantities returns the percentages, numbers and years in s, in order: every whole number
// of s (NumberTokens, the tokens the matcher reads) that is an amount (NumberValue), with a
// currency sign before it and a scale word and a percent after it, then the spelled numbers.
func quantities(s string) []quantity {
	var out []quantity
	for _, tok := range NumberTokens(s) {
		start, end := tok.Start, tok.End
		v, ok := NumberValue(tok.Text)
		if !ok || namePart(s, start, end) {
			continue
		}
		currency := false
		if r, n := utf8.DecodeLastRuneInString(strings.TrimSuffix(s[:start], " ")); n > 0 && strings.ContainsRune(currencies, r) {
			currency = true
			start = len(strings.TrimSuffix(s[:start], " ")) - n
		}
		scaled := false
		if m := scaleRE.FindStringSubmatchIndex(s[end:]); m != nil {
			v *= scales[strings.ToLower(s[end+m[2]:end+m[3]])]
			end, scaled = end+m[1], true
		}
		percent := false
		if m := percentRE.FindStringIndex(s[end:]); m != nil {
			end, percent = end+m[1], true
		}
		// A number glued to the letters after it ("4K", "1080p", "21st") names a thing.
		if r, _ := utf8.DecodeRuneInString(s[end:]); unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			continue
		}
		q := quantity{kind: MismatchNumber, value: v, text: s[start:end], unit: unitAt(s[end:]), written: true}
		switch {
		case percent:
			q.kind, q.unit = MismatchPercentage, ""
		case !currency && !scaled && isYear(tok.Text, v):
			q.kind, q.unit = MismatchYear, ""
		}
		out = append(out, q)
	}
	ws := words(s)
	for i, w := range ws {
		if v, ok := spelled[w]; ok {
			q := quantity{kind: MismatchNumber, value: v, text: w}
			if i+1 < len(ws) {
				q.unit = singular(ws[i+1])
			}
			out = append(out, q)
		}
	}
	return out
}

// namePart reports whether the number s[start:end] is part of a name rather than an amount:
// glued to the letters or digits before it ("A7", "v0.17"), or after an upper-case word and
// a hyphen ("COVID-19", "F-35", "GPT-4"; not "mid-2020").
func namePart(s string, start, end int) bool {
	r, n := utf8.DecodeLastRuneInString(s[:start])
	switch {
	case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
		return true
	case r == '-' || r == '‑':
		word := s[:start-n]
		k := strings.LastIndexFunc(word, func(r rune) bool { return !unicode.IsLetter(r) })
		word = word[k+1:]
		return word != "" && strings.ToUpper(word) == word
	}
	return false
}

// isYear reports whether a plain number is a year: four digits, 1000 to 2199.
func isYear(text string, v float64) bool {
	return len(text) == 4 && isDigits(text) && v >= 1000 && v <= 2199
}

// unitAt returns the word that follows a number at the start of rest, separated by one
// space, lower-cased and singular; "" when punctuation or nothing follows.
func unitAt(rest string) string {
	if !strings.HasPrefix(rest, " ") {
		return ""
	}
	rest = rest[1:]
	end := strings.IndexFunc(rest, func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		end = len(rest)
	}
	return singular(strings.ToLower(rest[:end]))
}

func singular(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

// containsFigure reports whether qs gives the amount of c: a percentage as a percentage, a
// number or a year as a number or a year (a plain "2013" and "2,013" are the same figure).
func containsFigure(qs []quantity, c quantity) bool {
	for _, q := range qs {
		if (q.kind == MismatchPercentage) == (c.kind == MismatchPercentage) && sameAmount(q.value, c.value) {
			return true
		}
	}
	return false
}

func sameAmount(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b))
}

func containsValue(qs []quantity, c quantity) bool {
	for _, q := range qs {
		if q.kind == c.kind && sameAmount(q.value, c.value) {
			return true
		}
	}
	return false
}

// words returns the lower-case words of s ([LowerWords]), "May" dropped where a number
// stands next to it (the month, not the modal).
func words(s string) []string {
	ws := Words(s)
	out := make([]string, 0, len(ws))
	for i, w := range ws {
		if w.Text == "May" && (i > 0 && IsNumberWord(ws[i-1].Text) || i+1 < len(ws) && IsNumberWord(ws[i+1].Text)) {
			continue
		}
		out = append(out, lowerWord(w.Text))
	}
	return out
}

// negationCue returns the negation at ws[i], from the one list of negating words
// (IsNegation, in negation.go), or "". "no longer" is one cue, and "no" before a number
// ("No. 10") is none.
func negationCue(ws []string, i int) string {
	w := ws[i]
	switch {
	case IsNegation(w):
		switch {
		case w == "no" && i+1 < len(ws) && ws[i+1] == "longer":
			return "no longer"
		case w == "no" && i+1 < len(ws) && IsNumberWord(ws[i+1]):
			return "" // "No. 10": a number, not a negation
		}
		return w
	}
	return ""
}

var hedges = map[string]bool{"may": true, "might": true, "could": true, "proposed": true,
	"likely": true, "possibly": true, "reportedly": true, "allegedly": true, "plans": true, "planned": true}

func hedgeCue(ws []string, i int) string {
	w := ws[i]
	switch {
	case hedges[w]:
		if (w == "plans" || w == "planned") && (i+1 >= len(ws) || ws[i+1] != "to") {
			return ""
		}
		return w
	case (w == "expected" || w == "set" || w == "aims") && i+1 < len(ws) && ws[i+1] == "to":
		return w + " to"
	}
	return ""
}

// firstCue returns the first cue found in ws, or "".
func firstCue(ws []string, cue func([]string, int) string) string {
	for i := range ws {
		if c := cue(ws, i); c != "" {
			return c
		}
	}
	return ""
}
