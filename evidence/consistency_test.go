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
		{"claim number, quote has none: not checked", "About 40 people came.", "a crowd came to the square", nil},
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
		{"a label number is not a count of the quote's thing", "Claim 0.", "the registry counted 4,812 companies", nil},
		{"counts of different things are not compared", "The firm has 3 offices.", "it employs 4,812 people", nil},
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
			case MismatchPercentage, MismatchNumber, MismatchYear:
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
