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

func TestParsePathologicalIsFast(t *testing.T) {
	for _, tt := range pathological {
		t.Run(tt.desc, func(t *testing.T) {
			in := strings.Repeat(tt.unit, (128<<10)/len(tt.unit))
			start := time.Now()
			_, err := ParseResearch(in)
			elapsed := time.Since(start)
			if err != nil && !strings.Contains(err.Error(), "no claim") {
				t.Fatalf("ParseResearch: %v", err)
			}
			t.Logf("%d bytes in %v", len(in), elapsed)
			if elapsed > 10*time.Second {
				t.Errorf("took %v for %d bytes; parsing must stay linear", elapsed, len(in))
			}
		})
	}
}
