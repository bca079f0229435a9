package evidence

import "testing"

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
