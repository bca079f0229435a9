package match

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"evidenceledger/evidence"
)

// quoteSeed is one line of testdata/quotes/seeds.jsonl: a page text and a quote.
type quoteSeed struct {
	Page  string `json:"page"`
	Quote string `json:"quote"`
}

// readJSONL decodes every line of a JSON-lines file under testdata/quotes into a T.
func readJSONL[T any](t testing.TB, name string) []T {
	t.Helper()
	path := filepath.Join("..", "testdata", "quotes", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if len(out) == 0 {
		t.Fatalf("%s holds no cases", path)
	}
	return out
}

// FuzzMatchQuote checks the contract of Quote on any input: no panic; only
// ErrQuoteTooShort and ErrTooManyParts as errors; spans of a found quote in range and in
// order, one per part; the excerpt is the page's own text and holds the matched text; a
// one-part quote that is literally in the page between spaces is found at TierExact, unless
// the page holds bidi controls or the quote's edge numbers go on as digit groups; a hint
// is never a match and locates page text. And the invariants against a false found: each
// span, unfolded, holds every letter and digit of its part in order (compared after case
// folding, ß apart from ss), exactly the numerals of the part (no superscript or fraction
// read as a digit, a superscript only as a caret exponent), and starts and ends at word
// boundaries; a number at an edge of the span is a whole number of the page (the page's
// rune beside it does not join it, evidence.JoinsNumber and SpaceJoinsDigits); the span
// holds no bidi embedding, override or isolate, lies in no override, and holds a bidi mark
// only on a page without right-to-left letters and with no digit after the mark; and the
// case of a letter differs from the quote's only when the quote or the span is in capitals,
// or at the start of a word that is in mixed case on neither side. The case tier's fold and
// the punctuation tier's have the same number of runes (the case rule walks them together).
func FuzzMatchQuote(f *testing.F) {
	for _, s := range readJSONL[quoteSeed](f, "seeds.jsonl") {
		f.Add(s.Page, s.Quote)
	}
	for _, c := range readJSONL[meaningCase](f, "meaning.jsonl") {
		f.Add(c.Page, c.Quote)
	}
	for _, c := range append(readJSONL[corpusQuote](f, "corpus.jsonl"), readJSONL[corpusQuote](f, "corpus-traps.jsonl")...) {
		f.Add("Some page text before. "+c.Quote+" And after.", c.Quote)
	}
	f.Fuzz(func(t *testing.T, page, quote string) {
		for _, s := range []string{page, quote} {
			// The case rule walks the two folds rune for rune.
			if c, p := foldText(s, TierCase, false).text, foldText(s, TierPunctuation, false).text; utf8.RuneCountInString(c) != utf8.RuneCountInString(p) {
				t.Fatalf("%q folds to %d runes for case and %d for punctuation", s, utf8.RuneCountInString(c), utf8.RuneCountInString(p))
			}
		}
		m, err := Quote(page, quote)
		if err != nil {
			if !errors.Is(err, ErrQuoteTooShort) && !errors.Is(err, ErrTooManyParts) {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		trimmed := strings.TrimSpace(quote)
		parts, perr := evidence.QuoteParts(quote)
		if perr != nil {
			t.Fatalf("Quote accepted a quote QuoteParts refuses: %v", perr)
		}
		if len(parts) == 1 && literallyBetweenSpaces(page, trimmed) && (!m.Found || m.Tier != TierExact) {
			t.Fatalf("quote %q is in the page literally, got Found=%v Tier=%v", trimmed, m.Found, m.Tier)
		}
		if !m.Found {
			if m.Spans != nil || m.Excerpt != "" || m.Highlight != nil {
				t.Fatalf("not found, yet Spans=%v Excerpt=%q", m.Spans, m.Excerpt)
			}
			if h := m.Hint; h != nil {
				if h.Similarity < MinHintSimilarity || h.Similarity > 100 {
					t.Fatalf("hint similarity %d out of range", h.Similarity)
				}
				if h.Span.Start < 0 || h.Span.End > len(page) || h.Span.Start > h.Span.End || page[h.Span.Start:h.Span.End] != h.Text {
					t.Fatalf("hint span %v does not locate %q", h.Span, h.Text)
				}
			}
			return
		}
		if m.Hint != nil {
			t.Fatalf("found, yet Hint = %+v", m.Hint)
		}
		if len(m.Spans) != len(parts) || len(m.Spans) != len(m.Highlight) {
			t.Fatalf("found with %d spans and %d highlights for %d parts", len(m.Spans), len(m.Highlight), len(parts))
		}
		for i, s := range m.Spans {
			if s.Start < 0 || s.End > len(page) || s.Start >= s.End {
				t.Fatalf("span %d %v out of range for a page of %d bytes", i, s, len(page))
			}
			span := page[s.Start:s.End]
			if got, want := alnum(span), alnum(parts[i]); got != want {
				t.Fatalf("span %q of part %q: letters and digits %q, want %q", span, parts[i], got, want)
			}
			if got, want := numerals(span), numerals(parts[i]); got != want {
				t.Fatalf("span %q of part %q: numerals %q, want %q", span, parts[i], got, want)
			}
			if err := wholeNumberEdges(page, s); err != "" {
				t.Fatalf("span %q of part %q: %s", span, parts[i], err)
			}
			if err := bidiShown(page, s); err != "" {
				t.Fatalf("span %q of part %q: %s", span, parts[i], err)
			}
			if err := caseDifferences(parts, i, page, s); err != "" {
				t.Fatalf("span %q of part %q: %s", span, parts[i], err)
			}
			first, _ := utf8.DecodeRuneInString(parts[i])
			prev := lastVisible(page[:s.Start])
			if asciiAlnum(first) && asciiAlnum(prev) {
				t.Fatalf("span %q starts inside a word (after %q)", span, prev)
			}
			last, _ := utf8.DecodeLastRuneInString(parts[i])
			next := firstVisible(page[s.End:])
			if asciiAlnum(last) && asciiAlnum(next) {
				t.Fatalf("span %q ends inside a word (before %q)", span, next)
			}
		}
		for i, s := range m.Spans {
			if s.Start < 0 || s.End > len(page) || s.Start >= s.End {
				t.Fatalf("span %d %v out of range for a page of %d bytes", i, s, len(page))
			}
			if i > 0 && (s.Start < m.Spans[i-1].Start || s.End < m.Spans[i-1].End) {
				t.Fatalf("spans out of order: %v", m.Spans)
			}
			h := m.Highlight[i]
			if h.Start < 0 || h.End > len(m.Excerpt) || m.Excerpt[h.Start:h.End] != page[s.Start:s.End] {
				t.Fatalf("highlight %v does not mark span %v in the excerpt", h, s)
			}
		}
		ex := m.ExcerptSpan
		if ex.Start < 0 || ex.End > len(page) || page[ex.Start:ex.End] != m.Excerpt {
			t.Fatalf("excerpt span %v does not locate the excerpt", ex)
		}
		matched := page[m.Spans[0].Start:m.Spans[len(m.Spans)-1].End]
		if !strings.Contains(m.Excerpt, matched) {
			t.Fatalf("excerpt %q lacks the matched text %q", m.Excerpt, matched)
		}
		if utf8.ValidString(page) && !utf8.ValidString(m.Excerpt) {
			t.Fatalf("excerpt of a valid page is not valid UTF-8: %q", m.Excerpt)
		}
	})
}

// literallyBetweenSpaces reports whether quote is in page as it is, with a space or the edge
// of the page on each side, at a place where no rule of the page refuses it: the page holds
// no bidi control, and the numbers at the quote's edges do not go on across the spaces as
// digit groups ("0 000" is one number: evidence.SpaceJoinsDigits).
func literallyBetweenSpaces(page, quote string) bool {
	if strings.ContainsFunc(page, func(r rune) bool { return bidiKind(r) != notBidi }) {
		return false
	}
	padded := " " + page + " "
	for from := 0; ; {
		i := strings.Index(padded[from:], " "+quote+" ")
		if i < 0 {
			return false
		}
		i += from
		start, end := i+1, i+1+len(quote) // in padded: the quote is padded[start:end]
		if !evidence.SpaceJoinsDigits(padded[:start-1], padded[start:]) && !evidence.SpaceJoinsDigits(padded[:end], padded[end+1:]) {
			return true
		}
		from = i + 1
	}
}

// alnum returns the letters and digits of s, each case-folded (ß apart from ss), after the
// compatibility forms that keep their letters are folded (evidence.FoldCompat: ﬁ, ＡＢＣ);
// a superscript digit counts as its digit (numerals tells 10⁶ from 106).
func alnum(s string) string {
	var b strings.Builder
	for _, r := range evidence.FoldCompat(norm.NFC.String(s)) {
		if v, ok := superscriptValue[r]; ok && unicode.IsDigit(v) {
			b.WriteRune(v)
			continue
		}
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			continue
		}
		b.WriteString(foldedLetter(r))
	}
	return b.String()
}

// foldedLetter folds the case of one letter as the case tier does, independently of it:
// lower case of the smallest member of its case orbit (ẞ is ß), İ as i.
func foldedLetter(r rune) string {
	if r == 'İ' {
		return "i"
	}
	least := r
	for c := unicode.SimpleFold(r); c != r; c = unicode.SimpleFold(c) {
		least = min(least, c)
	}
	return strings.ToLower(norm.NFC.String(string(least)))
}

// numerals returns the numbers of s as the digits they stand for: decimal digits (category
// Nd) as their values, a run of superscript digits and signs as a caret and their values
// (10⁶ is 10^6), a caret as itself with the sign after it, and every other numeral (a
// subscript, a fraction) as itself. Anything else is left out.
func numerals(s string) string {
	var b strings.Builder
	sup, caret := false, false
	for _, r := range s {
		if v, ok := superscriptValue[r]; ok {
			if !sup {
				b.WriteByte('^')
			}
			b.WriteRune(v)
			sup, caret = true, false
			continue
		}
		sup = false
		switch {
		case unicode.Is(unicode.Nd, r):
			b.WriteString(norm.NFKC.String(string(r)))
		case r == '^':
			b.WriteByte('^')
			caret = true
			continue
		case caret && (r == '-' || r == '−'):
			b.WriteByte('-')
		case caret && r == '+':
			b.WriteByte('+')
		case evidence.IsNumeral(r):
			b.WriteRune(r)
		}
		caret = false
	}
	return b.String()
}

var superscriptValue = map[rune]rune{
	'⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8',
	'⁹': '9', '⁺': '+', '⁻': '-',
}

// wholeNumberEdges returns what is wrong, if anything, with the numbers at the edges of the
// span s of page: a span that starts (ends) with a numeral, or with a sign or separator
// next to one, must not have beside it on the page a rune that joins the number
// (evidence.JoinsNumber), nor an ordinary space between digit groups
// (evidence.SpaceJoinsDigits).
func wholeNumberEdges(page string, s Span) string {
	span := page[s.Start:s.End]
	first, size := utf8.DecodeRuneInString(span)
	second, _ := utf8.DecodeRuneInString(span[size:])
	if evidence.IsNumeral(first) || !unicode.IsLetter(first) && !unicode.IsSpace(first) && evidence.IsNumeral(second) {
		prev, at := lastVisibleAt(page[:s.Start])
		beyond, _ := lastVisibleAt(page[:at])
		if prev == ' ' && evidence.SpaceJoinsDigits(page[:at], page[at+1:]) || prev != ' ' && evidence.JoinsNumber(prev, beyond) {
			return fmt.Sprintf("the number at its start goes on before it on the page (%q)", page[max(0, at-8):s.Start])
		}
	}
	last, size := utf8.DecodeLastRuneInString(span)
	before, _ := utf8.DecodeLastRuneInString(span[:len(span)-size])
	if evidence.IsNumeral(last) || !unicode.IsLetter(last) && !unicode.IsSpace(last) && evidence.IsNumeral(before) {
		rest := strings.TrimLeftFunc(page[s.End:], func(r rune) bool { return unicode.Is(unicode.Cf, r) })
		next, size := utf8.DecodeRuneInString(rest)
		beyond := firstVisible(rest[min(size, len(rest)):])
		at := len(page) - len(rest)
		if next == ' ' && evidence.SpaceJoinsDigits(page[:at], page[at+1:]) || next != ' ' && next != utf8.RuneError && evidence.JoinsNumber(next, beyond) {
			return fmt.Sprintf("the number at its end goes on after it on the page (%q)", page[s.End:min(len(page), s.End+8)])
		}
	}
	return ""
}

// lastVisibleAt is lastVisible with the offset of the rune (0 when there is none).
func lastVisibleAt(s string) (rune, int) {
	for s != "" {
		r, size := utf8.DecodeLastRuneInString(s)
		if !unicode.Is(unicode.Cf, r) {
			return r, len(s) - size
		}
		s = s[:len(s)-size]
	}
	return 0, 0
}

// bidiShown returns what is wrong, if anything, with the bidi controls of the span s of
// page: an embedding, override or isolate control (or the end of one) inside it, an
// override open where it starts, or a bidi mark inside it on a page with right-to-left
// letters or with a numeral after the mark before the next letter.
func bidiShown(page string, s Span) string {
	span := page[s.Start:s.End]
	for i, r := range span {
		switch {
		case '\u202a' <= r && r <= '\u202e', '\u2066' <= r && r <= '\u2069':
			return fmt.Sprintf("it holds the bidi control U+%04X", r)
		case r == '\u200e' || r == '\u200f' || r == '\u061c':
			for _, c := range page {
				if c != '\u200f' && c != '\u061c' && (unicode.In(c, unicode.Hebrew, unicode.Arabic, unicode.Syriac, unicode.Thaana, unicode.Nko)) {
					return fmt.Sprintf("it holds the bidi mark U+%04X on a page with right-to-left letters", r)
				}
			}
			for _, c := range span[i+utf8.RuneLen(r):] {
				if unicode.IsLetter(c) {
					break
				}
				if evidence.IsNumeral(c) {
					return fmt.Sprintf("it holds the bidi mark U+%04X before a numeral", r)
				}
			}
		}
	}
	// The bidi algorithm's stack of embeddings, overrides and isolates before the span.
	var stack []rune
	for _, r := range page[:s.Start] {
		switch r {
		case '\u202a', '\u202b', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068':
			if len(stack) < 125 {
				stack = append(stack, r)
			}
		case '\u202c':
			if n := len(stack); n > 0 && stack[n-1] < '\u2066' {
				stack = stack[:n-1]
			}
		case '\u2069':
			for k := len(stack) - 1; k >= 0; k-- {
				if stack[k] >= '\u2066' {
					stack = stack[:k]
					break
				}
			}
		}
	}
	for _, r := range stack {
		if r == '\u202d' || r == '\u202e' {
			return fmt.Sprintf("it lies in the override U+%04X", r)
		}
	}
	return ""
}

// caseLetter is a letter of a text, after the compatibility forms that keep their letters
// are folded: whether it starts a word, and whether its word is in mixed case (mW, iPhone).
type caseLetter struct {
	r            rune
	start, mixed bool
}

// caseLetters returns the letters of s; before is the rune before s.
func caseLetters(s string, before rune) []caseLetter {
	var out []caseLetter
	wordStart := 0
	inWord := unicode.IsLetter(before) || unicode.IsMark(before)
	endWord := func() {
		w := out[wordStart:]
		upper, lower, firstUpper := 0, 0, false
		for k, l := range w {
			switch {
			case unicode.IsUpper(l.r) || unicode.IsTitle(l.r):
				upper++
				firstUpper = firstUpper || k == 0
			case unicode.IsLower(l.r):
				lower++
			}
		}
		mixed := upper > 0 && lower > 0 && !(upper == 1 && firstUpper)
		for k := range w {
			w[k].mixed = mixed
		}
		wordStart = len(out)
	}
	for _, r := range evidence.FoldCompat(norm.NFC.String(s)) {
		switch {
		case unicode.IsLetter(r):
			out = append(out, caseLetter{r: r, start: !inWord})
			inWord = true
		case unicode.IsMark(r) && inWord:
		default:
			if inWord && wordStart < len(out) {
				endWord()
			}
			inWord = false
		}
	}
	if wordStart < len(out) {
		endWord()
	}
	return out
}

// caseDifferences returns what is wrong, if anything, with the case of the letters of the
// span s of page, matched with parts[i]: a letter may differ in case from the quote's only
// when the whole quote or the span is in capitals, or else at the start of a word of both
// that is in mixed case on neither side.
func caseDifferences(parts []string, i int, page string, s Span) string {
	q := caseLetters(parts[i], 0)
	p := caseLetters(page[s.Start:s.End], lastVisible(page[:s.Start]))
	if len(q) != len(p) {
		return "" // the letters differ otherwise: alnum reports it
	}
	noLower := func(s string) bool { return !strings.ContainsFunc(s, unicode.IsLower) }
	quoteCaps, spanCaps := noLower(strings.Join(parts, " ")), noLower(page[s.Start:s.End])
	for k := range q {
		if q[k].r == p[k].r {
			continue
		}
		switch {
		case quoteCaps || spanCaps:
		case q[k].mixed || p[k].mixed:
			return fmt.Sprintf("the letter %q of the quote is %q in a word in mixed case", q[k].r, p[k].r)
		case !(q[k].start && p[k].start):
			return fmt.Sprintf("the letter %q of the quote is %q inside a word", q[k].r, p[k].r)
		}
	}
	return ""
}

func asciiAlnum(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

// lastVisible and firstVisible return the rune next to a span, looking through format
// characters (category Cf); 0 at the edge of the page.
func lastVisible(s string) rune {
	for s != "" {
		r, size := utf8.DecodeLastRuneInString(s)
		if !unicode.Is(unicode.Cf, r) {
			return r
		}
		s = s[:len(s)-size]
	}
	return 0
}

func firstVisible(s string) rune {
	for _, r := range s {
		if !unicode.Is(unicode.Cf, r) {
			return r
		}
	}
	return 0
}
