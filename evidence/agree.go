package evidence

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Disagree returns how text says something other than quote, in words, one line each; none
// when it does not (docs/gate.md, "Deciding a factual claim"). It is the memory-write gate's
// check of a sentence written in other words than the quote it cites, and it is narrow on
// purpose: a sentence that passes may still leave out or reword much of the quote, but it
// cannot turn around who did what, whether it happened, or which figure goes with what.
//
//   - Figures: every figure of text (a run of digits, with its separators: 1,200, 2020-21,
//     3.5) is in quote, bound to the same words: an occurrence in quote has the same word
//     right before it and the same word right after it, where text has one ("rose 12
//     percent" is not "fell 12 percent" nor "rose 5 percent"); and the figures of text come
//     in the order quote gives them.
//   - Negations: a negation (not, never, no, n't, ... as [IsNegation] reads them, and no
//     longer) is read with the word after it, which it negates. Every negation of text is in
//     quote with the same word, and every negation of quote whose word text holds is in text
//     ("was dismissed" is not "was not dismissed"; "Acme paid" leaves out, and so does not
//     turn around, "Beta did not pay").
//   - Named parties: the capitalised words both hold come in text in an order quote gives
//     them ("Beta sued Acme" is not "Acme sued Beta").
//
// Both are read as a reader sees them (invisible characters dropped, compatibility forms
// folded) and split into words as [Negation] splits them; digits are joined into figures
// with the separators of [JoinsNumber].
func Disagree(text, quote string) []string {
	t, q := agreeTokens(text), agreeTokens(quote)
	var out []string
	// Figures, each bound to its neighbours, in order.
	from := 0
	for i, tk := range t {
		if !tk.figure {
			continue
		}
		prev, next := neighbour(t, i-1), neighbour(t, i+1)
		at, bound, earlier := -1, false, false
		for j, qk := range q {
			if !qk.figure || qk.lower != tk.lower {
				continue
			}
			if at < 0 {
				at = j
			}
			if (prev == "" || neighbour(q, j-1) == prev) && (next == "" || neighbour(q, j+1) == next) {
				if j >= from {
					at, bound = j, true
					break
				}
				earlier = true
			}
		}
		switch {
		case at < 0:
			out = append(out, fmt.Sprintf("the figure %s is not in the quote", tk.text))
		case bound:
			from = at + 1
		case earlier:
			out = append(out, fmt.Sprintf("the figure %s comes in another order than in the quote", tk.text))
		default:
			out = append(out, fmt.Sprintf("the figure %s is not bound to the same words as in the quote (%s)", tk.text, around(q, at)))
		}
	}
	// Negations, each with the word it negates.
	tn, qn := negations(t), negations(q)
	tw := map[string]bool{}
	for _, tk := range t {
		tw[tk.lower] = true
	}
	for _, n := range tn {
		if !slices.Contains(qn, n) {
			out = append(out, fmt.Sprintf("the text says “%s” where the quote does not", n.String()))
		}
	}
	for _, n := range qn {
		if (n.word == "" || tw[n.word]) && !slices.Contains(tn, n) {
			out = append(out, fmt.Sprintf("the quote says “%s” and the text does not", n.String()))
		}
	}
	// Named parties both hold, in an order the quote gives.
	common := map[string]bool{}
	for _, tk := range t {
		if tk.name {
			common[tk.text] = true
		}
	}
	var qnames []string
	inQuote := map[string]bool{}
	for _, qk := range q {
		if qk.name && common[qk.text] {
			qnames = append(qnames, qk.text)
			inQuote[qk.text] = true
		}
	}
	var tnames []string
	for _, tk := range t {
		if tk.name && inQuote[tk.text] {
			tnames = append(tnames, tk.text)
		}
	}
	if !isSubsequence(tnames, qnames) {
		out = append(out, fmt.Sprintf("the named parties come in another order: the text has %s, the quote %s", strings.Join(tnames, ", "), strings.Join(qnames, ", ")))
	}
	return out
}

// agreeToken is one word of a text as Disagree reads it.
type agreeToken struct {
	text, lower string
	figure      bool // a figure: digits and their separators
	name        bool // capitalised: a named party, or a word that starts a sentence
}

// agreeTokens splits s into words with [Words] (on the text as [seen] reads it, case kept):
// a word that begins with a numeral is a figure, whole as the matcher reads numbers.
func agreeTokens(s string) []agreeToken {
	ws := Words(seen(s))
	out := make([]agreeToken, 0, len(ws))
	for _, w := range ws {
		if IsNumberWord(w.Text) {
			out = append(out, agreeToken{text: w.Text, lower: w.Text, figure: true})
			continue
		}
		r, _ := utf8.DecodeRuneInString(w.Text)
		out = append(out, agreeToken{text: w.Text, lower: strings.ToLower(w.Text), name: unicode.IsUpper(r) || unicode.IsTitle(r)})
	}
	return out
}

// neighbour is the lower-case word at i, or "" past either end.
func neighbour(ts []agreeToken, i int) string {
	if i < 0 || i >= len(ts) {
		return ""
	}
	return ts[i].lower
}

// around is the quote's words around its token at i, for a reason.
func around(ts []agreeToken, i int) string {
	var ws []string
	for j := max(0, i-1); j <= min(len(ts)-1, i+1); j++ {
		ws = append(ws, ts[j].text)
	}
	return "“" + strings.Join(ws, " ") + "”"
}

// negated is a negation cue and the word after it, which it negates ("" at the end).
type negated struct{ cue, word string }

func (n negated) String() string { return strings.TrimSpace(n.cue + " " + n.word) }

// negations are the negation cues of ts in order ([negationCue], the one list), each with
// the word after it.
func negations(ts []agreeToken) []negated {
	ws := make([]string, len(ts))
	for i, tk := range ts {
		ws[i] = tk.lower
	}
	var out []negated
	for i := range ws {
		if c := negationCue(ws, i); c != "" {
			out = append(out, negated{c, neighbour(ts, i+len(strings.Fields(c)))})
		}
	}
	return out
}

// isSubsequence reports whether a's elements appear in b in the same order.
func isSubsequence(a, b []string) bool {
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] != x {
			j++
		}
		if j == len(b) {
			return false
		}
		j++
	}
	return true
}
