package gate

import (
	"slices"
	"testing"
)

// The gate reads words as the rest of the program does (evidence.Words): a number is one
// word, whole as the matcher reads it, an apostrophe inside a word keeps it whole, and the
// compatibility forms are folded first, so a sentence and a ledger claim that write the same
// figure share that word.
func TestGateWordsAreTheMatchersWords(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"The registry counted 4,812 companies.", []string{"the", "registry", "counted", "4,812", "companies"}},
		{"It doesn’t rise 3.5 percent in 2020-21", []string{"it", "doesn't", "rise", "3.5", "percent", "in", "2020", "21"}},
		{"Ｆｕｌｌ-width ４,８１２ and 5 500 people", []string{"full-width", "4,812", "and", "5 500", "people"}},
	} {
		if got := words(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("words(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
	// 4,812 and 4,813 differ in their one number word: the nearness of two texts counts it.
	if a, b := nearness("The registry counted 4,812 companies.", "The registry counted 4,813 companies."), nearness("The registry counted 4,812 companies.", "The registry counted 4,812 companies."); a >= b {
		t.Errorf("nearness with another figure %.2f, with the same %.2f", a, b)
	}
}
