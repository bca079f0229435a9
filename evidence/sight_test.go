package evidence

import "testing"

// TestSightVerdict: words a rendering shows no reader are never found; words not rendered
// stay found (their note and residual risk say what that rests on).
func TestSightVerdict(t *testing.T) {
	for _, tc := range []struct {
		desc  string
		found bool
		sight Sight
		want  Verdict
	}{
		{"found and seen", true, SightSeen, VerdictSupported},
		{"found, the rendering shows it to no reader", true, SightUnseen, VerdictNotFound},
		{"found, not rendered", true, SightStyleOnly, VerdictSupported},
		{"not found, whatever the rendering", false, SightSeen, VerdictNotFound},
		{"not found, not rendered", false, SightStyleOnly, VerdictNotFound},
	} {
		if got := SightVerdict(tc.found, tc.sight); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.desc, got, tc.want)
		}
	}
}
