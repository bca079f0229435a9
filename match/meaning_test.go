package match

import (
	"testing"
)

// meaningCase is one line of testdata/quotes/meaning.jsonl: a passage of a page, a quote, and
// whether the quote is on it. Each is a case where a folding or a boundary could make the
// matcher say "found" for words that mean something else on the page (a number cut out of a
// longer one, a capital that makes another word, letters shown in another order, a negation
// left out), beside the quote that is on the page, so that a rule that finds nothing fails
// too.
type meaningCase struct {
	Rule     string `json:"rule"`
	Desc     string `json:"desc"`
	Lang     string `json:"lang"` // the language the page declares, or ""
	Page     string `json:"page"`
	Quote    string `json:"quote"`
	Found    bool   `json:"found"`
	Negation string `json:"negation"`
}

// TestMatchMeaning runs the cases of testdata/quotes/meaning.jsonl: whole numbers,
// superscripts, capitals, dashes, bidi controls, negations left out by an ellipsis, and the
// page's declared language deciding what is a negation (docs/matching.md).
func TestMatchMeaning(t *testing.T) {
	rules := map[string]int{}
	for _, c := range readJSONL[meaningCase](t, "meaning.jsonl") {
		rules[c.Rule]++
		t.Run(c.Rule+"/"+c.Desc, func(t *testing.T) {
			m, err := NewPageText(c.Page).InLanguage(c.Lang).Match(c.Quote)
			if err != nil {
				t.Fatalf("Quote(%q): %v", c.Quote, err)
			}
			if m.Found != c.Found {
				got := ""
				if m.Found {
					got = c.Page[m.Spans[0].Start:m.Spans[len(m.Spans)-1].End]
				}
				t.Fatalf("quote %q: found = %v (%q, tier %v), want %v", c.Quote, m.Found, got, m.Tier, c.Found)
			}
			if m.Negation != c.Negation {
				t.Fatalf("quote %q: negation = %q, want %q", c.Quote, m.Negation, c.Negation)
			}
		})
	}
	for _, rule := range []string{"number", "superscript", "case", "dash", "bidi", "negation", "language"} {
		if rules[rule] < 5 {
			t.Errorf("meaning.jsonl has %d cases of the rule %q; want at least 5", rules[rule], rule)
		}
	}
}
