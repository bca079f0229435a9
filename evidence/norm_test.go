package evidence

import "testing"

func TestNormalizeURL(t *testing.T) {
	for in, want := range map[string]string{
		" HTTPS://Acme.Example:443/About?q=1#top ": "https://acme.example/About?q=1",
		"http://acme.example":                      "http://acme.example/",
		"http://acme.example?x=1":                  "http://acme.example/?x=1",
		"http://acme.example:8080/a":               "http://acme.example:8080/a",
		"http://[::1]:80/a":                        "http://[::1]/a",
		"http://[::1]:8080/a":                      "http://[::1]:8080/a",
		"www.acme.example/a":                       "www.acme.example/a",
		"mailto:Info@Acme.Example":                 "mailto:Info@Acme.Example",
	} {
		if got := NormalizeURL(in); got != want {
			t.Errorf("NormalizeURL(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestNormalizeText(t *testing.T) {
	for in, want := range map[string]string{
		"  The  Reform\n is ﬁnished ": "the reform is finished",
		"ＡＢＣ\u00a0def":                "abc def",
		// a form whose compatibility mapping changes a digit stays: 10⁶ is not 106
		"10⁶ times lower":        "10⁶ times lower",
		"rose by ½ percent":      "rose by ½ percent",
		"Step ① turns the valve": "step ① turns the valve",
	} {
		if got := NormalizeText(in); got != want {
			t.Errorf("NormalizeText(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestIsJSON(t *testing.T) {
	for in, want := range map[string]bool{
		`{"claims":[]}`:                   true,
		"\ufeff  [ {\"text\":\"a\"}]":     true,
		`["a claim"]`:                     true,
		`[]`:                              true,
		`{broken`:                         true, // meant as JSON: refused, never read as prose
		"[1] Acme grew in 2025.":          false,
		"[Acme](https://a.example) grew.": false,
		"Claim: Acme grew.":               false,
	} {
		if got := IsJSON(in); got != want {
			t.Errorf("IsJSON(%q) = %v; want %v", in, got, want)
		}
	}
}

func TestStrengthRank(t *testing.T) {
	order := []Strength{StrengthNone, StrengthLow, StrengthMedium, StrengthHigh}
	for i, s := range order {
		if s.Rank() != i {
			t.Errorf("%q.Rank() = %d, want %d", s, s.Rank(), i)
		}
	}
	if Strength("strong").Rank() != 0 {
		t.Error("an unknown strength ranks above none")
	}
}
