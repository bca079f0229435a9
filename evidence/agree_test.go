package evidence

import (
	"strings"
	"testing"
)

// TestDisagree is the inversion table of the memory-write gate (docs/gate.md): each row turns
// a quote around in one way and must be told apart from it; the quote itself and a sentence
// that only leaves part of it out agree.
func TestDisagree(t *testing.T) {
	const sued = "Acme sued Beta over the harbour contract in March. The claim against Beta was not dismissed."
	const sales = "Sales rose 12 percent in 2020 and fell 5 percent in 2021."
	tests := []struct {
		text, quote string
		want        string // in the reasons; "" for agreement
	}{
		{sued, sued, ""},
		{sales, sales, ""},
		{"Acme sued Beta over the harbour contract.", sued, ""},
		{"Beta sued Acme over the harbour contract in March.", sued, "named parties come in another order"},
		{"The claim against Beta was dismissed.", sued, "the quote says “not dismissed”"},
		{"The claim against Beta was not dismissed.", sued, ""},
		{"Sales rose 5 percent in 2020 and fell 12 percent in 2021.", sales, "figure 5 is not bound"},
		{"Sales fell 12 percent in 2020 and rose 5 percent in 2021.", sales, "figure 12 is not bound"},
		{"Sales rose 12 percent in 2021 and fell 5 percent in 2020.", sales, "figure 2021 is not bound"},
		{"Sales rose 13 percent in 2020.", sales, "figure 13 is not in the quote"},
		{"Sales rose 12 percent in 2020.", sales, ""},
		{"Revenue was 1,200 dollars.", "Revenue was 1,200 dollars in 2020.", ""},
		{"Revenue was 1,300 dollars.", "Revenue was 1,200 dollars in 2020.", "figure 1,300"},
		{"Acme never paid.", "Acme paid.", "the text says “never paid”"},
		{"Acme didn't pay.", "Acme paid.", "the text says “didn't pay”"},
		{"Acme was founded in Leeds in 1999", "Acme was founded in 1999 in Leeds", ""},
		{"Ａｃｍｅ sued Beta.", "Acme sued Beta.", ""},
	}
	for _, tt := range tests {
		got := strings.Join(Disagree(tt.text, tt.quote), "; ")
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("Disagree(%q, %q) = %q; want %q", tt.text, tt.quote, got, tt.want)
		}
	}
}

// FuzzDisagree: a text always agrees with itself, and the verdict does not depend on white
// space around the words.
func FuzzDisagree(f *testing.F) {
	f.Add("Sales rose 12 percent in 2020 and fell 5 percent in 2021.", "Beta sued Acme.")
	f.Add("The claim against Beta was not dismissed.", "1,200 and 2020-21")
	f.Fuzz(func(t *testing.T, a, b string) {
		if d := Disagree(a, a); len(d) != 0 {
			t.Fatalf("Disagree(a, a) = %q", d)
		}
		x, y := len(Disagree(a, b)) == 0, len(Disagree(" "+a+" ", b)) == 0
		if x != y {
			t.Fatalf("white space around the text changed the verdict: %q %q", a, b)
		}
	})
}
