package evidence

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// consistencyCase is one row of testdata/consistency/cases.json: a claim, a quote taken
// from a page of the corpus (verify's TestConsistencyCasesAreOnTheirPages finds each quote
// on its page), the context around it, and the mismatches expected.
type consistencyCase struct {
	Name    string     `json:"name"`
	Page    string     `json:"page"`
	Claim   string     `json:"claim"`
	Quote   string     `json:"quote"`
	Context string     `json:"context"`
	Want    []Mismatch `json:"want"`
}

func readConsistencyCases(t testing.TB) []consistencyCase {
	t.Helper()
	b, err := os.ReadFile("../testdata/consistency/cases.json")
	if err != nil {
		t.Fatalf("the consistency cases must be at ../testdata/consistency/cases.json: %v", err)
	}
	var cases []consistencyCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatalf("cases.json: %v", err)
	}
	if len(cases) < 20 {
		t.Fatalf("cases.json holds %d cases; want the whole table", len(cases))
	}
	return cases
}

func TestCompareClaimCorpusSentences(t *testing.T) {
	for _, c := range readConsistencyCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			got := CompareClaim(c.Claim, c.Quote, c.Context)
			if len(got) == 0 && len(c.Want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, c.Want) {
				t.Errorf("CompareClaim(%q, %q)\n got %+v\nwant %+v", c.Claim, c.Quote, got, c.Want)
			}
		})
	}
}

func TestCompareClaimEdges(t *testing.T) {
	tests := []struct {
		desc, claim, quote string
		want               []MismatchKind
	}{
		{"no numbers on either side", "The sky is blue today.", "the sky is blue", nil},
		{"claim number, quote has none: a figure the page does not give", "About 40 people came.", "a crowd came to the square", []MismatchKind{MismatchFigure}},
		{"model number glued to letters is not an amount", "The A7 engine was new.", "the A8 engine was new", nil},
		{"thousands separators and plain digits agree", "It cost 1200 euros.", "it cost €1,200", nil},
		{"percentage points equal percent by value", "Rates rose 2 percentage points.", "rates rose 2%", nil},
		{"per cent spelled apart", "Turnout was 64 per cent.", "turnout was 61 per cent", []MismatchKind{MismatchPercentage}},
		{"no longer is a negation", "The shop is open.", "the shop is no longer open", []MismatchKind{MismatchNegation}},
		{"typographic apostrophe in isn't", "The API is nice.", "XHR isn’t a very nice API", []MismatchKind{MismatchNegation}},
		{"a negating claim does not also count as a hedge mismatch", "It will not close.", "it may not close", nil},
		{"may close stated as closed", "The plant closed in March.", "the plant may close in March", []MismatchKind{MismatchHedge}},
		{"empty inputs", "", "", nil},
		{"No. 10 is a number, not a negation", "The prime minister lives at 10 Downing Street.", "the prime minister moved into No. 10 Downing Street", nil},
		{"a label number is not a count of the quote's thing, but it is a figure", "Claim 0.", "the registry counted 4,812 companies", []MismatchKind{MismatchFigure}},
		{"counts of different things are not compared, but each figure must be on the page", "The firm has 3 offices.", "it employs 4,812 people", []MismatchKind{MismatchFigure}},
		{"counts of the same thing are, singular or plural", "The firm has 3 offices.", "the firm has 1 office", []MismatchKind{MismatchNumber}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			var kinds []MismatchKind
			for _, m := range CompareClaim(tt.claim, tt.quote, "") {
				kinds = append(kinds, m.Kind)
			}
			if !reflect.DeepEqual(kinds, tt.want) {
				t.Errorf("CompareClaim(%q, %q) kinds = %v, want %v", tt.claim, tt.quote, kinds, tt.want)
			}
		})
	}
}

func TestMismatchString(t *testing.T) {
	for _, m := range []Mismatch{
		{Kind: MismatchPercentage, Claim: "40 percent", Page: "14 percent"},
		{Kind: MismatchNegation, Page: "not"},
		{Kind: MismatchNegation, Claim: "never"},
		{Kind: MismatchHedge, Page: "may"},
		{Kind: MismatchFigure, Claim: "500", Page: "300"},
		{Kind: MismatchFigure, Claim: "500"},
	} {
		s := m.String()
		for _, part := range []string{m.Claim, m.Page} {
			if !strings.Contains(s, part) {
				t.Errorf("%+v.String() = %q: does not quote %q", m, s, part)
			}
		}
	}
}

// FuzzCompareClaim: whatever the texts, a text agrees with itself, every mismatch quotes
// words that are in the claim and the quote, and giving the claim as context settles every
// number.
func FuzzCompareClaim(f *testing.F) {
	for _, c := range readConsistencyCases(f) {
		f.Add(c.Claim, c.Quote)
	}
	f.Fuzz(func(t *testing.T, claim, quote string) {
		if got := CompareClaim(claim, claim, ""); len(got) != 0 {
			t.Fatalf("a text disagrees with itself: %q: %+v", claim, got)
		}
		for _, m := range CompareClaim(claim, quote, "") {
			switch m.Kind {
			case MismatchPercentage, MismatchNumber, MismatchYear, MismatchFigure:
				if m.Claim == "" || !strings.Contains(claim, m.Claim) {
					t.Fatalf("mismatch %+v: claim side not in the claim %q", m, claim)
				}
				for _, p := range strings.Split(m.Page, "; ") {
					if !strings.Contains(quote, p) {
						t.Fatalf("mismatch %+v: page side %q not in the quote %q", m, p, quote)
					}
				}
			case MismatchNegation, MismatchHedge:
				if (m.Claim == "") == (m.Page == "") && m.Kind == MismatchNegation || m.Kind == MismatchHedge && m.Page == "" {
					t.Fatalf("mismatch %+v names neither or both sides", m)
				}
			default:
				t.Fatalf("unknown kind %q", m.Kind)
			}
		}
		for _, m := range CompareClaim(claim, quote, claim) {
			if m.Kind != MismatchNegation && m.Kind != MismatchHedge {
				t.Fatalf("with the claim as context, %+v remains", m)
			}
		}
	})
}

// TestFigureOnThePage: every figure a claim writes in digits must be in the found quote or
// its context, read as the same whole number the matcher reads (NumberTokens) and compared
// by amount. The table is the rule docs/models.md ("Figures") writes down.
func TestFigureOnThePage(t *testing.T) {
	tests := []struct {
		desc, claim, quote, context string
		want                        []Mismatch
	}{
		{"a changed count of a different word: the issue's whales", "500 whales were counted off Hawaii.", "300 individual animals were counted", "",
			[]Mismatch{{Kind: MismatchFigure, Claim: "500", Page: "300"}}},
		{"the same count", "300 whales were counted.", "300 individual animals were counted", "", nil},
		{"5 500 is one number on the page: 500 is not there", "500 people died.", "près de 5 500 morts", "",
			[]Mismatch{{Kind: MismatchFigure, Claim: "500", Page: "5 500"}}},
		{"5 500 written with a space equals 5,500", "5,500 people died.", "près de 5 500 morts", "", nil},
		{"5 500 with a no-break space equals 5500", "5500 people died.", "près de 5\u00a0500 morts", "", nil},
		{"1,000 and 1000 are one figure", "It has 1000 members.", "more than 1,000 members joined", "", nil},
		{"1,000 and 1.000,5 are not", "It has 1,000 members.", "exactly 1.000,5 tonnes", "",
			[]Mismatch{{Kind: MismatchFigure, Claim: "1,000", Page: "1.000,5"}}},
		{"12% and 12 percent", "Turnout rose 12% in the city.", "turnout rose by 12 percent", "", nil},
		{"12 percent and 12 per cent", "Turnout rose 12 percent.", "turnout rose 12 per cent", "", nil},
		{"a percentage is not a plain number", "Turnout rose 12%.", "12 districts reported turnout", "",
			[]Mismatch{{Kind: MismatchFigure, Claim: "12%", Page: "12"}}},
		{"a year in the quote", "The law passed in 2019.", "the law, passed in 2019, requires", "", nil},
		{"a year only in the context", "The law passed in 2019.", "the law requires every provider", "Parliament passed it in 2019.", nil},
		{"a year changed", "The law passed in 2018.", "the law, passed in 2019, requires", "",
			[]Mismatch{{Kind: MismatchYear, Claim: "2018", Page: "2019"}}},
		{"a year the page does not give", "The law passed in 2018.", "the law requires every provider", "",
			[]Mismatch{{Kind: MismatchFigure, Claim: "2018"}}},
		{"$3.2 billion and 3.2 billion dollars", "The deal was worth $3.2 billion.", "a deal worth 3.2 billion dollars", "", nil},
		{"$3.2 billion and 3,200 million", "The deal was worth $3.2 billion.", "worth 3,200 million dollars", "", nil},
		{"$3.2 billion and $3.2 million", "The deal was worth $3.2 billion.", "a deal worth $3.2 million", "",
			[]Mismatch{{Kind: MismatchNumber, Claim: "$3.2 billion", Page: "$3.2 million"}}},
		{"two years spelled on the page", "Data is kept for 2 years.", "kept for two years", "", nil},
		{"a spelled claim number is not required on the page", "Three ministers backed it.", "the Bill was backed", "", nil},
		{"a range gives both ends", "Between 10 and 12 people came.", "10–12 people came", "", nil},
		{"a minus sign: 25.6 is not -25.6", "It was 25.6 °C in Ranfurly.", "−25.6 °C (−14.08 °F) in Ranfurly", "",
			[]Mismatch{{Kind: MismatchNumber, Claim: "25.6", Page: "−25.6; −14.08"}}},
		{"names are not figures", "The F-35 and COVID-19 are names; so are A7 and 4K.", "the jet was delayed", "", nil},
		{"an ordinal is not a figure", "It was the 21st meeting.", "the meeting was held", "", nil},
		{"mid-2020 is a year", "It opened in mid-2020.", "it opened in mid-2021", "",
			[]Mismatch{{Kind: MismatchYear, Claim: "2020", Page: "2021"}}},
		{"Arabic-Indic digits are digits", "٣٠٠ animals were counted.", "300 individual animals were counted", "", nil},
		{"a footnote marker glued to a figure is not that figure", "It has 500 members.", "it has 500¹ members", "",
			[]Mismatch{{Kind: MismatchFigure, Claim: "500"}}},
		{"half written as a fraction", "It takes 1 1/2 hours.", "it takes 1½ hours", "", nil},
		{"a decimal comma", "The area is 1.3% of the land.", "el 1,3% de la superficie", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			var got []Mismatch
			for _, m := range CompareClaim(tt.claim, tt.quote, tt.context) {
				if m.Kind != MismatchNegation && m.Kind != MismatchHedge {
					got = append(got, m)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("CompareClaim(%q, %q, %q)\n got %+v\nwant %+v", tt.claim, tt.quote, tt.context, got, tt.want)
			}
		})
	}
}
