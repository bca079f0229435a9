package evidence

import "testing"

func TestHandOn(t *testing.T) {
	F, N, U, R := StatusFound, StatusNotFound, StatusUnreachable, StatusReported
	C, X := StandingClear, StandingContradicted
	tests := []struct {
		desc      string
		status    Status
		standing  Standing
		seams     int
		citations []Status
		want      Withheld
	}{
		{"found, nothing open", F, C, 0, []Status{F}, HandOnOK},
		{"found beside an unreachable page", F, C, 0, []Status{F, U, R}, HandOnOK},
		{"found, a seam open", F, C, 1, []Status{F}, WithheldSeam},
		{"found beside a quote that is not there", F, C, 0, []Status{N, F}, WithheldCitationNotFound},
		{"a seam outranks a missing quote", F, C, 2, []Status{N, F}, WithheldSeam},
		{"not found", N, C, 0, []Status{N, U}, WithheldNotFound},
		{"unreachable", U, C, 0, []Status{U}, WithheldUnreachable},
		{"reported: a split verdict waits for a person", R, C, 1, []Status{R}, WithheldSeam},
		{"reported: no source of record", R, C, 0, []Status{R}, WithheldUnchecked},
		{"no citations at all", R, C, 0, nil, WithheldUnchecked},
		{"a status it does not know is never handed on", Status("verified"), C, 0, []Status{F}, WithheldUnchecked},
		{"found, but a person found it contradicted", F, X, 0, []Status{F}, WithheldContradicted},
		{"contradicted outranks an open seam", F, X, 1, []Status{F}, WithheldContradicted},
		{"contradicted outranks a missing quote", N, X, 0, []Status{N}, WithheldContradicted},
		{"found, a person could not tell", F, StandingUnsettled, 0, []Status{F}, WithheldUnsettled},
		{"an open seam outranks an unsettled one", F, StandingUnsettled, 1, []Status{F}, WithheldSeam},
		{"a standing it does not know is never handed on", F, Standing("cleared"), 0, []Status{F}, WithheldUnsettled},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			if got := HandOn(tt.status, tt.standing, tt.seams, tt.citations); got != tt.want {
				t.Fatalf("HandOn(%s, %q, %d, %v) = %q, want %q", tt.status, tt.standing, tt.seams, tt.citations, got, tt.want)
			}
		})
	}
	seen := map[Withheld]bool{}
	for _, w := range WithheldReasons {
		if w == HandOnOK || seen[w] {
			t.Fatalf("WithheldReasons holds %q twice or the empty reason", w)
		}
		seen[w] = true
	}
}
