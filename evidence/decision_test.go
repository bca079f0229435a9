package evidence

import (
	"errors"
	"testing"
)

// Every decision of every seam kind, and what it does to the seam's claims and citation.
func TestDecisionEffect(t *testing.T) {
	tests := []struct {
		desc string
		kind SeamKind
		d    Decision
		want Effect
	}{
		{"a contradiction found: the claim is contradicted", SeamContradiction, DecisionContradicted, Effect{Claim: StandingContradicted}},
		{"a contradiction that does not hold", SeamContradiction, DecisionStands, Effect{}},
		{"a contradiction nobody can settle", SeamContradiction, DecisionCannotTell, Effect{Claim: StandingUnsettled}},
		{"an absence that holds", SeamAbsence, DecisionNotEstablished, Effect{Claim: StandingUnsettled}},
		{"an absence that does not hold", SeamAbsence, DecisionEstablished, Effect{}},
		{"an absence nobody can settle", SeamAbsence, DecisionCannotTell, Effect{Claim: StandingUnsettled}},
		{"a login wall: the quote is there", SeamManual, DecisionFound, Effect{Citation: StatusFound}},
		{"a login wall: the quote is not there", SeamManual, DecisionNotFound, Effect{Citation: StatusNotFound}},
		{"a login wall: the page cannot be read", SeamManual, DecisionUnreachable, Effect{Citation: StatusUnreachable}},
		{"a split: found", SeamDisagreement, DecisionFound, Effect{Citation: StatusFound}},
		{"a split: not found", SeamDisagreement, DecisionNotFound, Effect{Citation: StatusNotFound}},
		{"a split: unreachable", SeamDisagreement, DecisionUnreachable, Effect{Citation: StatusUnreachable}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			got, err := DecisionEffect(tt.kind, tt.d)
			if err != nil || got != tt.want {
				t.Fatalf("DecisionEffect(%s, %s) = %+v, %v; want %+v", tt.kind, tt.d, got, err, tt.want)
			}
		})
	}
	refused := []struct {
		desc string
		kind SeamKind
		d    Decision
	}{
		{"free text, as decisions were before they were fixed", SeamContradiction, "the page says 300, not 500"},
		{"a citation status on a contradiction", SeamContradiction, DecisionFound},
		{"a contradiction's decision on a split", SeamDisagreement, DecisionContradicted},
		{"an absence's decision on a contradiction", SeamContradiction, DecisionEstablished},
		{"a contradiction's decision on an absence", SeamAbsence, DecisionContradicted},
		{"reported is not a decision", SeamManual, Decision(StatusReported)},
		{"empty", SeamContradiction, ""},
		{"case matters", SeamContradiction, "Contradicted"},
		{"an unknown kind", SeamKind("consistency"), DecisionContradicted},
	}
	for _, tt := range refused {
		t.Run(tt.desc, func(t *testing.T) {
			if got, err := DecisionEffect(tt.kind, tt.d); !errors.Is(err, ErrDecision) {
				t.Fatalf("DecisionEffect(%s, %q) = %+v, %v; want ErrDecision", tt.kind, tt.d, got, err)
			}
		})
	}
	// Every kind has its set, and every decision of a set has an effect.
	for _, kind := range []SeamKind{SeamContradiction, SeamDisagreement, SeamManual, SeamAbsence} {
		set := Decisions(kind)
		if len(set) < 2 {
			t.Fatalf("%s: %d decisions", kind, len(set))
		}
		for _, c := range set {
			if c.Label == "" {
				t.Errorf("%s/%s has no label", kind, c.Decision)
			}
			if _, err := DecisionEffect(kind, c.Decision); err != nil {
				t.Errorf("%s/%s: %v", kind, c.Decision, err)
			}
		}
	}
}

// The most severe standing wins, whatever the order: contradicted is final.
func TestClaimStanding(t *testing.T) {
	C, U, X := StandingClear, StandingUnsettled, StandingContradicted
	tests := []struct {
		desc  string
		seams []Standing
		want  Standing
	}{
		{"no resolved seam", nil, C},
		{"decisions that clear", []Standing{C, C}, C},
		{"cannot tell", []Standing{C, U}, U},
		{"contradicted, then found to stand", []Standing{X, C}, X},
		{"found to stand, then contradicted", []Standing{C, X, U}, X},
	}
	for _, tt := range tests {
		if got := ClaimStanding(tt.seams); got != tt.want {
			t.Errorf("%s: ClaimStanding(%v) = %q, want %q", tt.desc, tt.seams, got, tt.want)
		}
	}
}
