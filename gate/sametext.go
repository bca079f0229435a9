package gate

import (
	"slices"
	"strings"
	"unicode/utf8"

	"evidenceledger/evidence"
	"evidenceledger/match"
)

// gateForm is the form in which the gate compares a memory sentence with a verified text
// (docs/gate.md, "Deciding a factual claim"): compatibility forms folded as
// [evidence.FoldCompat] folds them (10⁶ stays 10⁶), typographic quotation marks and
// apostrophes made straight, runs of white space made one space, trimmed, and one final
// full stop dropped. Case is kept: [sameText] compares it.
func gateForm(s string) string {
	s = strings.Map(straightQuote, evidence.FoldCompat(s))
	s = strings.Join(strings.Fields(s), " ")
	return strings.TrimSuffix(s, ".")
}

// straightQuote makes a typographic quotation mark or apostrophe straight.
func straightQuote(r rune) rune {
	switch r {
	case '‘', '’', '‚', '‛', 'ʼ', '′':
		return '\''
	case '“', '”', '„', '‟', '″':
		return '"'
	}
	return r
}

// sameText reports whether a and b are the same text in [gateForm], letter for letter,
// except that a word may differ in the case of its first letter where it starts a sentence
// in either, as the matcher's case rule allows it ([match.CaseMayDiffer]): "acme was sold" is "Acme was sold", but "5 mW" is never
// "5 MW" and "ACME" is not "Acme".
func sameText(a, b string) bool {
	a, b = gateForm(a), gateForm(b)
	if a == b {
		return true
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ra, sa := utf8.DecodeRuneInString(a[i:])
		rb, sb := utf8.DecodeRuneInString(b[j:])
		if match.IsWordLetter(ra) && match.IsWordLetter(rb) {
			ea, eb := match.WordEnd(a, i), match.WordEnd(b, j)
			wa, wb := a[i:ea], b[j:eb]
			if wa != wb {
				unit := match.UnitAfterNumber(a, i, wa) || match.UnitAfterNumber(b, j, wb)
				if !strings.EqualFold(wa, wb) || !match.CaseMayDiffer(wa, wb, match.SentenceStart(a, i), match.SentenceStart(b, j), unit) {
					return false
				}
			}
			i, j = ea, eb
			continue
		}
		if ra != rb {
			return false
		}
		i, j = i+sa, j+sb
	}
	return i == len(a) && j == len(b)
}

// lookupForms are the spellings of s under which the ledger's lookups (by
// [evidence.NormalizeText], which keeps quotation marks as written and the final full stop)
// may hold it: as written, with quotation marks straight, with apostrophes and double quotes
// typographic, each with and without a final full stop. The gate then compares every
// candidate with [sameText]; stored rows are never rewritten.
func lookupForms(s string) []string {
	base := strings.TrimSpace(s)
	var out []string
	seen := map[string]bool{}
	for _, v := range []string{base, strings.Map(straightQuote, base), curlQuotes(base)} {
		for _, w := range []string{v, strings.TrimSuffix(v, "."), v + "."} {
			if k := evidence.NormalizeText(w); k != "" && !seen[k] {
				seen[k] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// curlQuotes writes the straight quotation marks of s as typographic ones: ' as ’ (an
// apostrophe, or a closing single quote) unless it opens a word, " as “ where it opens and ”
// where it closes.
func curlQuotes(s string) string {
	var b strings.Builder
	prev := ' '
	for _, r := range strings.Map(straightQuote, s) {
		opens := prev == ' ' || prev == '(' || prev == '[' || prev == '\n' || prev == '\t'
		switch {
		case r == '\'' && opens:
			b.WriteRune('‘')
		case r == '\'':
			b.WriteRune('’')
		case r == '"' && opens:
			b.WriteRune('“')
		case r == '"':
			b.WriteRune('”')
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// nearness is how close a verified text is to a sentence: the share of the words of both
// that the other holds (words as the gate's word check reads them).
func nearness(sentence, verified string) float64 {
	a, b := words(sentence), words(verified)
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inB := map[string]bool{}
	for _, w := range b {
		inB[w] = true
	}
	inA := map[string]bool{}
	shared := 0
	for _, w := range a {
		inA[w] = true
		if inB[w] {
			shared++
		}
	}
	for _, w := range b {
		if inA[w] {
			shared++
		}
	}
	return float64(shared) / float64(len(a)+len(b))
}

// ownStatement is what claim c states itself: its text without the quoted passages of its
// citations (the parser keeps a quote in the text it stands in), and without the brackets,
// colons and dashes they leave behind. It is what [evidence.Disagree] compares with a quote.
func ownStatement(c evidence.Claim) string {
	t := c.Text
	for _, ct := range c.Citations {
		q := strings.TrimSpace(ct.Quote)
		if q == "" {
			continue
		}
		for _, w := range []string{"“" + q + "”", "\"" + q + "\"", "‘" + q + "’", "'" + q + "'", "«" + q + "»", "„" + q + "“", q} {
			if strings.Contains(t, w) {
				t = strings.ReplaceAll(t, w, " ")
				break
			}
		}
	}
	t = strings.Join(strings.Fields(strings.ReplaceAll(t, "()", " ")), " ")
	t = strings.TrimRight(t, " .:;,—–-")
	// A link to the cited page leaves its label in brackets before the quote: "… (news):".
	if strings.HasSuffix(t, ")") && len(c.Citations) > 0 {
		// Only a label that states nothing: no figure, no negation.
		if i := strings.LastIndexByte(t, '('); i > 0 && len(strings.Fields(t[i:])) <= 3 && !labelStates(t[i:]) {
			t = strings.TrimRight(t[:i], " :;,—–-")
		}
	}
	return t
}

// labelStates reports whether a bracketed label holds a figure or a negation.
func labelStates(label string) bool {
	for _, w := range words(label) {
		if evidence.IsNegation(w) || strings.ContainsAny(w, "0123456789") {
			return true
		}
	}
	return false
}

// caseChanges returns the words of text written in another case than every occurrence of
// them in verified, where the case rule of [sameText] does not allow it (a word that starts
// a sentence may differ in its first letter): "5 MW" where the quote says "5 mW", "BETA"
// where it says "Beta". Each is given as "MW (mW)", once.
func caseChanges(text string, verified []string) []string {
	spelled := map[string][]string{} // lower case -> the spellings in verified
	for _, v := range verified {
		v = gateForm(v)
		for i := 0; i < len(v); {
			r, size := utf8.DecodeRuneInString(v[i:])
			if !match.IsWordLetter(r) {
				i += size
				continue
			}
			e := match.WordEnd(v, i)
			k := strings.ToLower(v[i:e])
			if !slices.Contains(spelled[k], v[i:e]) {
				spelled[k] = append(spelled[k], v[i:e])
			}
			i = e
		}
	}
	text = gateForm(text)
	var out []string
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !match.IsWordLetter(r) {
			i += size
			continue
		}
		e := match.WordEnd(text, i)
		w := text[i:e]
		forms := spelled[strings.ToLower(w)]
		ok := len(forms) == 0 || slices.Contains(forms, w)
		for _, f := range forms {
			unit := match.UnitAfterNumber(text, i, w) || match.UnitAfterNumber(text, i, f)
			ok = ok || match.CaseMayDiffer(w, f, match.SentenceStart(text, i), false, unit)
		}
		if s := w + " (" + strings.Join(forms, ", ") + ")"; !ok && !slices.Contains(out, s) {
			out = append(out, s)
		}
		i = e
	}
	return out
}
