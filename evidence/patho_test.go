package evidence

import (
	"runtime"

	"strings"
	"testing"

	"golang.org/x/sys/unix"
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
	{"nested straight quotes that never close", "\"a "},
	{"nested curly quotes that never close", "“a "},
	{"nested guillemets that never close", "«a "},
	{"elided quotes", "l'\"a "},
	{"markers after full stops", "A. [1] "},
	{"parentheses of links after full stops", "A. ([a](https://x.example) "},
}

// TestParsePathologicalIsFast: parsing stays linear on inputs built to make a careless rule
// quadratic, whatever the machine's speed or load: a text sixteen times longer costs under
// 64 times the work (a quadratic rule would cost 256). Work is the CPU time of the test's
// own thread (workCPU), not the wall clock, so other processes on a loaded machine do not
// count; each size is the best of three runs.
func TestParsePathologicalIsFast(t *testing.T) {
	for _, tt := range pathological {
		t.Run(tt.desc, func(t *testing.T) {
			timed := func(size int) time.Duration {
				in := strings.Repeat(tt.unit, size/len(tt.unit))
				best := time.Duration(1<<63 - 1)
				for range 3 {
					var err error
					best = min(best, workCPU(t, func() { _, err = ParseResearch(in) }))
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

// workCPU is the CPU time f takes on the calling goroutine's own OS thread, starting from a
// collected heap: the work f does, which neither other processes nor the collector's
// background threads add to. The collector stays on: with it off, the race detector's cost
// grows with the uncollected heap and a linear parse measured 65–90× over a 16× input
// (16–22× with it on).
func workCPU(t testing.TB, f func()) time.Duration {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	runtime.GC()
	before := threadCPU(t)
	f()
	return threadCPU(t) - before
}

// threadCPU is the CPU time (user and system) the calling OS thread has used, to the
// nanosecond.
func threadCPU(t testing.TB) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		t.Fatalf("clock_gettime: %v", err)
	}
	return time.Duration(ts.Nano())
}
