package evidence

import (
	"testing"
	"unicode/utf8"
)

// TestJoinsNumber: what, right beside the digit at the edge of a matched number, makes the
// number go on.
func TestJoinsNumber(t *testing.T) {
	for _, c := range []struct {
		r, beyond rune
		want      bool
	}{
		{'5', ' ', true}, {'٥', ' ', true}, {'⁶', ' ', true}, {'₂', ' ', true}, {'½', ' ', true},
		{'−', ' ', true}, {'-', ' ', true}, {'–', '1', true}, {'+', ' ', true}, {'±', ' ', true},
		{'/', '4', true}, {'⁄', '4', true}, {'^', '6', true},
		{'.', '5', true}, {',', '5', true}, {'\'', '0', true}, {'’', '0', true}, {'·', '2', true},
		{'\u00a0', '5', true}, {'\u2009', '8', true}, {'\u202f', '0', true}, {'\u2007', '5', true},
		{'.', ' ', false}, {',', ' ', false}, {'\'', 's', false}, {'\u00a0', '°', false},
		{' ', '5', false}, {'%', ' ', false}, {'°', 'C', false}, {'(', ' ', false}, {'a', ' ', false},
	} {
		if got := JoinsNumber(c.r, c.beyond); got != c.want {
			t.Errorf("JoinsNumber(%q, %q) = %v, want %v", c.r, c.beyond, got, c.want)
		}
	}
}

// TestSpaceJoinsDigits: an ordinary space between digit groups.
func TestSpaceJoinsDigits(t *testing.T) {
	for _, c := range []struct {
		left, right string
		want        bool
	}{
		{"près de 5", "500 morts", true},
		{"Le candidat a 12", "000 voix", true},
		{"total 1 234", "567 euros", true},
		{"add 1", "1/2 cup of sugar", true},
		{"In 2020", "500 people", false},
		{"page 5", "50 of the book", false},
		{"page 5", "5000 of it", false},
		{"the", "500 people", false},
		{"5", "people", false},
	} {
		if got := SpaceJoinsDigits(c.left, c.right); got != c.want {
			t.Errorf("SpaceJoinsDigits(%q, %q) = %v, want %v", c.left, c.right, got, c.want)
		}
	}
}

// TestNumberTokens: the whole numbers of a text, as the matcher reads them, and their
// amounts.
func TestNumberTokens(t *testing.T) {
	for _, c := range []struct {
		text   string
		tokens []string
		values []float64 // NaN-free; -1 marks a token that is not an amount
	}{
		{"près de 5 500 morts", []string{"5 500"}, []float64{5500}},
		{"In 2020 500 people", []string{"2020", "500"}, []float64{2020, 500}},
		{"5\u00a0500 and 4\u2009812", []string{"5\u00a0500", "4\u2009812"}, []float64{5500, 4812}},
		{"1,000 or 1000 or 1'000 or 1’000", []string{"1,000", "1000", "1'000", "1’000"}, []float64{1000, 1000, 1000, 1000}},
		{"1,3% and 1.5 and 4·2", []string{"1,3", "1.5", "4·2"}, []float64{1.3, 1.5, 4.2}},
		{"1.234.567 and 1.234,5", []string{"1.234.567", "1.234,5"}, []float64{1234567, 1234.5}},
		{"It ended in 2013.", []string{"2013"}, []float64{2013}},
		{"10–12 people, 2020-21", []string{"10", "12", "2020", "21"}, []float64{10, 12, 2020, 21}},
		{"−25.6 °C", []string{"−25.6"}, []float64{-25.6}},
		{"10⁶ and CO₂", []string{"10⁶", "₂"}, []float64{-1, -1}},
		{"1 1/2 cups, 3/4 cup, 2½ cups", []string{"1 1/2", "3/4", "2½"}, []float64{1.5, 0.75, 2.5}},
		{"٣٠٠ animals", []string{"٣٠٠"}, []float64{300}},
		{"no number here", nil, nil},
	} {
		toks := NumberTokens(c.text)
		if len(toks) != len(c.tokens) {
			t.Errorf("NumberTokens(%q) = %+v, want %q", c.text, toks, c.tokens)
			continue
		}
		for i, tok := range toks {
			if tok.Text != c.tokens[i] || c.text[tok.Start:tok.End] != tok.Text {
				t.Errorf("NumberTokens(%q)[%d] = %+v, want %q", c.text, i, tok, c.tokens[i])
			}
			v, ok := NumberValue(tok.Text)
			if want := c.values[i]; want == -1 && ok || want != -1 && (!ok || v < want-1e-9 || v > want+1e-9) {
				t.Errorf("NumberValue(%q) = %v, %v; want %v", tok.Text, v, ok, want)
			}
		}
	}
}

// FuzzNumberTokens: tokens are in order, do not overlap, hold what the text holds, and are
// whole numbers by the matcher's rule: the rune before a token and the rune after it never
// join it (evidence.JoinsNumber), except a sign or dash (a range, "18+"), a fraction slash
// or a caret that has no numeral on its far side ("km/5", "x^2").
func FuzzNumberTokens(f *testing.F) {
	for _, s := range []string{"près de 5 500 morts", "In 2020 500 people", "−25.6 °C (−14.08 °F)", "1 1/2 cups", "1,000.5", "10⁶", "2020-21"} {
		f.Add(s)
	}
	for _, c := range readConsistencyCases(f) {
		f.Add(c.Claim)
		f.Add(c.Quote + " " + c.Context)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		prev := 0
		for _, tok := range NumberTokens(s) {
			if tok.Start < prev || tok.End <= tok.Start || s[tok.Start:tok.End] != tok.Text {
				t.Fatalf("token %+v out of order or not the text's (after %d)", tok, prev)
			}
			prev = tok.End
			if r, n := utf8.DecodeLastRuneInString(s[:tok.Start]); n > 0 && !IsNumberSign(r) && !IsFractionSlash(r) && r != '^' {
				beyond, _ := utf8.DecodeLastRuneInString(s[:tok.Start-n])
				if JoinsNumber(r, beyond) {
					t.Fatalf("the rune %q before %+v joins it (beyond %q)", r, tok, beyond)
				}
			}
			if r, n := utf8.DecodeRuneInString(s[tok.End:]); n > 0 && !IsNumberSign(r) && !IsFractionSlash(r) && r != '^' {
				beyond, _ := utf8.DecodeRuneInString(s[tok.End+n:])
				if JoinsNumber(r, beyond) {
					t.Fatalf("the rune %q after %+v joins it (beyond %q)", r, tok, beyond)
				}
			}
		}
	})
}

// TestIsDigitsOfAYear: a bare number word is ASCII digits only; separators, decimals, signs and
// other scripts' digits make it something else.
func TestIsDigitsOfAYear(t *testing.T) {
	tests := []struct {
		desc, s string
		want    bool
	}{
		{"a year", "1999", true},
		{"one digit", "7", true},
		{"empty", "", false},
		{"digit group separator", "1,000", false},
		{"decimal point", "3.5", false},
		{"number then a full stop", "12.", false},
		{"a sign", "-5", false},
		{"Arabic-Indic digits", "١٢", false},
		{"full-width digits", "１２", false},
		{"a word", "May", false},
		{"digits and letters", "5MW", false},
	}
	for _, tt := range tests {
		if got := isDigits(tt.s); got != tt.want {
			t.Errorf("%s: isDigits(%q) = %v; want %v", tt.desc, tt.s, got, tt.want)
		}
	}
}
