package evidence

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
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
}

// numberRE finds a number with an optional currency sign, thousands separators or a decimal
// mark, an optional scale word and an optional percent sign or word.
var numberRE = regexp.MustCompile(`(?i)([$€£¥]\s?)?(\d{1,3}(?:[,\x{00a0}\x{202f}]\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?)(\s?(?:thousand|million|billion|trillion|bn|mn)\b)?(\s?(?:%|percent\b|per cent\b|percentage points?\b))?`)

var scales = map[string]float64{"thousand": 1e3, "million": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9, "trillion": 1e12}

// spelled are the number words read as numbers. "one" is left out: it is more often a
// pronoun ("one of the biggest") than a count.
var spelled = map[string]float64{"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "dozen": 12, "hundred": 100}

// quantities returns the percentages, numbers and years in s, in order.
func quantities(s string) []quantity {
	var out []quantity
	for _, m := range numberRE.FindAllStringSubmatchIndex(s, -1) {
		// A digit run glued to letters (COVID-19's 19 is preceded by "-", fine; "A7", "4K",
		// "1080p", "0.17") names a thing, not an amount.
		if m[0] > 0 && isWordByte(s[m[0]-1]) || m[1] < len(s) && isWordByte(s[m[1]]) {
			continue
		}
		digits := s[m[4]:m[5]]
		v, ok := parseAmount(digits)
		if !ok {
			continue
		}
		q := quantity{kind: MismatchNumber, value: v, text: strings.TrimSpace(s[m[0]:m[1]]), unit: unitAt(s[m[1]:])}
		if m[6] >= 0 {
			q.value *= scales[strings.ToLower(strings.TrimSpace(s[m[6]:m[7]]))]
		}
		switch {
		case m[8] >= 0:
			q.kind, q.unit = MismatchPercentage, ""
		case m[2] < 0 && m[6] < 0 && len(digits) == 4 && v >= 1000 && v <= 2199:
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

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}

// parseAmount reads digits with thousands separators (",", NBSP, narrow NBSP followed by
// three digits) or a decimal mark ("." or a "," not followed by exactly three digits).
func parseAmount(d string) (float64, bool) {
	d = strings.NewReplacer("\u00a0", "", "\u202f", "").Replace(d)
	if i := strings.LastIndexByte(d, ','); i >= 0 {
		if len(d)-i-1 == 3 && !strings.Contains(d, ".") {
			d = strings.ReplaceAll(d, ",", "")
		} else if strings.Count(d, ",") == 1 && !strings.Contains(d, ".") {
			d = strings.Replace(d, ",", ".", 1)
		} else {
			d = strings.ReplaceAll(d, ",", "")
		}
	}
	v, err := strconv.ParseFloat(d, 64)
	return v, err == nil
}

func containsValue(qs []quantity, c quantity) bool {
	for _, q := range qs {
		if q.kind == c.kind && math.Abs(q.value-c.value) <= 1e-9*math.Max(1, math.Abs(c.value)) {
			return true
		}
	}
	return false
}

// words returns the lower-case words of s, with typographic apostrophes folded to "'" and
// "May" dropped where a number stands next to it (the month, not the modal).
func words(s string) []string {
	f := strings.FieldsFunc(strings.ReplaceAll(s, "’", "'"), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	out := make([]string, 0, len(f))
	for i, w := range f {
		if w == "May" && (i > 0 && isDigits(f[i-1]) || i+1 < len(f) && isDigits(f[i+1])) {
			continue
		}
		out = append(out, strings.ToLower(strings.Trim(w, "'")))
	}
	return out
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
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
		case w == "no" && i+1 < len(ws) && isDigits(ws[i+1]):
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
