package evidence

import "testing"

func TestHandOn(t *testing.T) {
	F, N, U, R := StatusFound, StatusNotFound, StatusUnreachable, StatusReported
	tests := []struct {
		desc      string
		status    Status
		seams     int
		citations []Status
		want      Withheld
	}{
		{"found, nothing open", F, 0, []Status{F}, HandOnOK},
		{"found beside an unreachable page", F, 0, []Status{F, U, R}, HandOnOK},
		{"found, a seam open", F, 1, []Status{F}, WithheldSeam},
		{"found beside a quote that is not there", F, 0, []Status{N, F}, WithheldCitationNotFound},
		{"a seam outranks a missing quote", F, 2, []Status{N, F}, WithheldSeam},
		{"not found", N, 0, []Status{N, U}, WithheldNotFound},
		{"unreachable", U, 0, []Status{U}, WithheldUnreachable},
		{"reported: a split verdict waits for a person", R, 1, []Status{R}, WithheldSeam},
		{"reported: no source of record", R, 0, []Status{R}, WithheldUnchecked},
		{"no citations at all", R, 0, nil, WithheldUnchecked},
		{"a status it does not know is never handed on", Status("verified"), 0, []Status{F}, WithheldUnchecked},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			if got := HandOn(tt.status, tt.seams, tt.citations); got != tt.want {
				t.Fatalf("HandOn(%s, %d, %v) = %q, want %q", tt.status, tt.seams, tt.citations, got, tt.want)
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
