package evidence

import (
	"fmt"
	"strings"
	"testing"
)

// sameClaims writes n short claims, each with a URL and a quote, as a JSON array and as a
// labelled list: the same research in two forms.
func sameClaims(n int) (jsonPaste, list string) {
	var j, l strings.Builder
	j.WriteString("[\n")
	for i := range n {
		text := fmt.Sprintf("Firm %d grew %d%% in 2023.", i, i%90)
		url := fmt.Sprintf("https://f%d.example/r", i)
		quote := fmt.Sprintf("sales rose %d percent", i%90)
		if i > 0 {
			j.WriteString(",\n")
		}
		fmt.Fprintf(&j, `{"text":%q,"url":%q,"quote":%q}`, text, url, quote)
		fmt.Fprintf(&l, "Claim: %s\nSource: %s\nQuote: \"%s\"\n\n", text, url, quote)
	}
	j.WriteString("\n]\n")
	return j.String(), l.String()
}

// BenchmarkReadResearch compares reading the same claims as JSON and as a labelled list, at
// 1k, 5k and 20k claims, with what the preview reads (ParseResearchLeftOut). The ratio of
// json to list at each size is the figure of README.md's performance section:
//
//	go test ./evidence -run '^$' -bench ReadResearch -count 3
func BenchmarkReadResearch(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		js, list := sameClaims(n)
		for _, form := range []struct{ name, text string }{{"json", js}, {"list", list}} {
			b.Run(fmt.Sprintf("%s-%dk", form.name, n/1000), func(b *testing.B) {
				b.SetBytes(int64(len(form.text)))
				b.ReportAllocs()
				for b.Loop() {
					r, _, err := ParseResearchLeftOut(form.text)
					if err != nil || len(r.Claims) != n {
						b.Fatalf("%d claims, %v", len(r.Claims), err)
					}
				}
			})
		}
	}
}

// TestJSONReadIsLinear: reading a JSON paste, with what it leaves out, costs time linear in
// its size: sixteen times the claims cost under 64 times the work (a quadratic reader would
// cost 256). Work is the test thread's CPU time (workCPU), the best of three runs.
func TestJSONReadIsLinear(t *testing.T) {
	timed := func(n int) float64 {
		js, _ := sameClaims(n)
		best := 0.0
		for k := range 3 {
			var err error
			d := workCPU(t, func() { _, _, err = ParseResearchLeftOut(js) })
			if err != nil {
				t.Fatal(err)
			}
			if k == 0 || float64(d) < best {
				best = float64(d)
			}
		}
		return best
	}
	small, large := timed(1000), timed(16000)
	t.Logf("1k claims %.1f ms, 16k claims %.1f ms (%.1f×)", small/1e6, large/1e6, large/small)
	if large > 64*small {
		t.Errorf("16k JSON claims took %.0f× the work of 1k: reading JSON must stay linear", large/small)
	}
}
