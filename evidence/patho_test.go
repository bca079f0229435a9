package evidence

import (
	"strings"
	"testing"
	"time"
)

// pathological pastes: each must parse in time linear in its size. The test uses 128 KiB
// to stay fast, also under the race detector; at the full 2 MiB each takes under 2 s (see
// docs/parser.md).
var pathological = []struct {
	desc string
	unit string
}{
	{"unclosed curly quotes", "“"},
	{"unclosed straight quotes and apostrophes", "it’s ‘a "},
	{"unclosed brackets", "[text"},
	{"brackets that almost make links", "[a](b "},
	{"markers without references", "[1][2][^x]¹²³(4) "},
	{"bare schemes", "http:// "},
	{"one long URL", "https://a.example/" + strings.Repeat("x", 100)},
	{"labels without values", "Claim: Source: Quote: "},
	{"blockquote lines", "> “q\n"},
	{"table-like lines", "| a | b |\n|---|---|\n"},
	{"nested list", "- a\n  - b\n    - c\n"},
	{"periods", "A. B. C. "},
	{"superscript digits", "¹"},
	{"link targets that never close", "[a]("},
	{"fences", "```\n"},
}

// TestParsePathologicalIsFast: parsing stays linear on inputs built to make a careless rule
// quadratic, whatever the machine's speed: a text sixteen times longer takes under 64 times
// as long (a quadratic rule would take 256; the margin absorbs a loaded machine's noise).
// Each size is timed as the best of three runs, so a pause of the machine inflates neither.
func TestParsePathologicalIsFast(t *testing.T) {
	for _, tt := range pathological {
		t.Run(tt.desc, func(t *testing.T) {
			timed := func(size int) time.Duration {
				in := strings.Repeat(tt.unit, size/len(tt.unit))
				best := time.Duration(1<<63 - 1)
				for range 3 {
					start := time.Now()
					_, err := ParseResearch(in)
					best = min(best, time.Since(start))
					if err != nil && !strings.Contains(err.Error(), "no claim") {
						t.Fatalf("ParseResearch: %v", err)
					}
				}
				return best
			}
			small, full := timed(8<<10), timed(128<<10)
			t.Logf("8 KiB in %v, 128 KiB in %v (%.1f×)", small, full, float64(full)/float64(small))
			if full > 64*small {
				t.Errorf("128 KiB took %v, 8 KiB %v: parsing must stay linear", full, small)
			}
		})
	}
}
