package ledger

import (
	"context"
	"fmt"
	"testing"

	"evidenceledger/evidence"
)

// TestFindClaimsNear: the claims sharing one of the three longest words of a text, through
// their text or a quote, at most the limit; LIKE wildcards in the text are no words.
func TestFindClaimsNear(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	var cs []evidence.Claim
	cs = append(cs, claim("Acme sued Beta over the harbour contract in March.", "https://news.example/a", "Acme sued Beta over the harbour contract in March"),
		claim("Sales rose 12 percent in 2020.", "https://news.example/b", "turnover grew by twelve percent"),
		claim("Nothing in common here at all.", "https://news.example/c", "a quote that shares no long word"),
		claim("The 100%_done flag is set.", "https://news.example/d", "the flag reads 100%_done today"))
	for i := 0; i < 30; i++ {
		cs = append(cs, claim(fmt.Sprintf("Harbour report number %d.", i), "https://news.example/h", "the harbour report of the year"))
	}
	if _, err := s.ImportResearch(ctx, "system", []byte("p"), research(cs...)); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		text  string
		limit int
		want  int
	}{
		{"Beta sued Acme over the contract.", 20, 1}, // "contract"
		{"Turnover fell.", 20, 1},                    // through the quote
		{"a b c", 20, 0},                             // no word of four letters
		{"harbour", 5, 5},                            // bounded by the limit
		{"harbour", 500, MaxNearClaims},              // and by MaxNearClaims
		{"100%_done", 20, 1},                         // the wildcards are literal
		{"%%%% ____", 20, 0},                         // wildcards are no words
	} {
		got, err := s.FindClaimsNear(ctx, tt.text, tt.limit)
		if err != nil || len(got) != tt.want {
			t.Errorf("FindClaimsNear(%q, %d): %d claims, %v; want %d", tt.text, tt.limit, len(got), err, tt.want)
		}
	}
}
