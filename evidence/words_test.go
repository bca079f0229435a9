package evidence

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// wordCases are texts whose words every reader of words must agree on; the callers' tests
// (gate, verify/model) read the same kinds of text.
var wordCases = []struct {
	desc, text string
	want       []string
}{
	{"plain words", "The registry counted companies.", []string{"The", "registry", "counted", "companies"}},
	{"a number with a thousands separator is one word", "4,812 companies", []string{"4,812", "companies"}},
	{"a decimal", "rose 3.5 percent", []string{"rose", "3.5", "percent"}},
	{"a digit-group space (French)", "5 500 habitants", []string{"5 500", "habitants"}},
	{"two numbers a space apart", "In 2020 500 people", []string{"In", "2020", "500", "people"}},
	{"a no-break space and an apostrophe between digit groups", "1\u00a0000 and 1'000", []string{"1\u00a0000", "and", "1'000"}},
	{"a fraction", "1 1/2 cups", []string{"1 1/2", "cups"}},
	{"a range is two numbers", "10–12 years, 2020-21", []string{"10", "12", "years", "2020", "21"}},
	{"a sign is not part of the word", "fell −25.6 points", []string{"fell", "25.6", "points"}},
	{"a comma and space end a number", "1, 2 and 3", []string{"1", "2", "and", "3"}},
	{"a sentence's full stop ends a number", "it was 4,812.", []string{"it", "was", "4,812"}},
	{"apostrophes inside words, straight and typographic", "doesn't and doesn’t", []string{"doesn't", "and", "doesn’t"}},
	{"an apostrophe at an edge is not part of a word", "'quoted' words'", []string{"quoted", "words"}},
	{"hyphens inside words", "a non-profit COVID-19 mid-2020 report", []string{"a", "non-profit", "COVID-19", "mid-2020", "report"}},
	{"a hyphen at an edge", "well- known -ish", []string{"well", "known", "ish"}},
	{"digits glued to letters are one word", "A7 4K 21st v0.17", []string{"A7", "4K", "21st", "v0.17"}},
	{"superscript digits and vulgar fractions are numerals", "10⁶ and 2½", []string{"10⁶", "and", "2½"}},
	{"marks stay in a word", "naïve cafe\u0301", []string{"naïve", "cafe\u0301"}},
	{"each ideograph is a word", "東京は2020年", []string{"東", "京", "は", "2020", "年"}},
	{"no words", " — , . ", nil},
}

func TestWords(t *testing.T) {
	for _, tt := range wordCases {
		ws := Words(tt.text)
		var got []string
		for _, w := range ws {
			got = append(got, w.Text)
			if tt.text[w.Start:w.End] != w.Text {
				t.Errorf("%s: word %q at [%d,%d) is %q in the text", tt.desc, w.Text, w.Start, w.End, tt.text[w.Start:w.End])
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: Words(%q) = %q, want %q", tt.desc, tt.text, got, tt.want)
		}
		lower := LowerWords(tt.text)
		for i, w := range tt.want {
			if want := strings.ReplaceAll(strings.ToLower(w), "’", "'"); i >= len(lower) || lower[i] != want {
				t.Errorf("%s: LowerWords(%q) = %q, want %q at %d", tt.desc, tt.text, lower, want, i)
			}
		}
		wordsHoldNumberTokens(t, tt.text)
	}
}

// wordsHoldNumberTokens fails unless the words of text read its whole numbers (NumberTokens,
// without a sign written before them) as the matcher does: no word cuts a number, and no
// word holds two numbers. A number may begin a word or end one when glued to letters ("4K",
// "A7", "COVID-19": names, not amounts).
func wordsHoldNumberTokens(t *testing.T, text string) {
	t.Helper()
	ws := Words(text)
	for _, tok := range NumberTokens(text) {
		start := tok.Start
		if r, n := utf8.DecodeRuneInString(tok.Text); IsNumberSign(r) {
			start += n
		}
		i := slices.IndexFunc(ws, func(w Word) bool { return w.Start <= start && start < w.End })
		if i < 0 {
			t.Errorf("%q: the number %q is in no word", text, tok.Text)
			continue
		}
		w := ws[i]
		switch {
		case w.End < tok.End:
			t.Errorf("%q: the word %q cuts the number %q", text, w.Text, text[start:tok.End])
		case w.End > tok.End && !gluedToLetters(text[tok.End:w.End], false):
			t.Errorf("%q: the word %q holds the number %q and more than letters after it", text, w.Text, text[start:tok.End])
		case w.Start < start && !gluedToLetters(text[w.Start:start], true):
			t.Errorf("%q: the word %q holds the number %q and more than letters before it", text, w.Text, text[start:tok.End])
		}
	}
}

// gluedToLetters reports whether rest, the part of a word beside a number (before it when
// before is set), begins at the number with a letter or mark, or with an apostrophe or
// hyphen and then a letter or mark.
func gluedToLetters(rest string, before bool) bool {
	next := utf8.DecodeRuneInString
	if before {
		next = utf8.DecodeLastRuneInString
	}
	r, n := next(rest)
	if strings.ContainsRune("'’-\u2010\u2011", r) {
		if before {
			r, _ = next(rest[:len(rest)-n])
		} else {
			r, _ = next(rest[n:])
		}
	}
	return unicode.IsLetter(r) || unicode.IsMark(r)
}

// The consistency check, triage, negation and disagreement read the same words: each of
// their readings of a text is built on Words.
func TestWordReadersAgree(t *testing.T) {
	text := "The registry doesn’t count 4,812 non-profit companies in May 2025, No. 10 said."
	want := []string{"the", "registry", "doesn't", "count", "4,812", "non-profit", "companies", "in", "2025", "no", "10", "said"}
	if got := words(text); !slices.Equal(got, want) {
		t.Errorf("consistency words = %q, want %q (\"May\" beside a number dropped)", got, want)
	}
	if got := LowerWords(text); !slices.Equal(slices.DeleteFunc(got, func(w string) bool { return w == "may" }), want) {
		t.Errorf("LowerWords = %q, want %q with \"may\"", got, want)
	}
	var figures []string
	for _, tk := range agreeTokens(text) {
		if tk.figure {
			figures = append(figures, tk.text)
		}
	}
	if !slices.Equal(figures, []string{"4,812", "2025", "10"}) {
		t.Errorf("the disagreement check's figures = %q, want the whole numbers", figures)
	}
	if got := Negation("doesn’t count", "", "en"); got != "doesn't" {
		t.Errorf("Negation = %q, want the word doesn't", got)
	}
	if got := Negation("the No. 10 bus", "", "en"); got != "" {
		t.Errorf("Negation(No. 10) = %q, want none", got)
	}
}

// FuzzWords: whatever the text, words are non-empty, in order, apart, exactly the text
// their offsets slice, and hold the text's whole numbers.
func FuzzWords(f *testing.F) {
	for _, tt := range wordCases {
		f.Add(tt.text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		end := 0
		for _, w := range Words(text) {
			if w.Text == "" || w.Start < end || text[w.Start:w.End] != w.Text {
				t.Fatalf("word %+v after offset %d", w, end)
			}
			end = w.End
		}
		if utf8.ValidString(text) {
			wordsHoldNumberTokens(t, text)
		}
	})
}
