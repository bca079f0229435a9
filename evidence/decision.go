package evidence

import (
	"errors"
	"fmt"
	"strings"
)

// Decision is what a person decided on a seam: one of the fixed decisions of the seam's kind
// ([Decisions]). Its effect on the seam's claims and citation is [DecisionEffect]'s rule, the
// one place that says what a decision does. docs/verification.md ("A person's decision") lists
// the sets.
type Decision string

// The decisions. A contradiction (opened by a person between claims, by the consistency check
// on a figure, a negation or a hedge, or by the model tier) takes DecisionContradicted,
// DecisionStands or DecisionCannotTell; an absence DecisionEstablished, DecisionNotEstablished
// or DecisionCannotTell; a seam about one citation (manual, disagreement) the citation's
// status.
const (
	// DecisionContradicted: the claim is contradicted (by the page, or by the other claims of
	// the seam). Every claim of the seam is contradicted, and never usable again.
	DecisionContradicted Decision = "contradicted"
	// DecisionStands: the claim stands; what raised the seam does not hold (the page says the
	// same figure in other words, for example). No effect on the claim.
	DecisionStands Decision = "stands"
	// DecisionCannotTell: the person cannot tell. The claims of the seam are unsettled: not
	// usable, since nobody vouches for them.
	DecisionCannotTell Decision = "cannot_tell"
	// DecisionEstablished: an absence that does not hold: a source of record states the
	// claim. No effect on the claim.
	DecisionEstablished Decision = "established"
	// DecisionNotEstablished: the claim cannot be established from a source of record; it is
	// unsettled, not usable.
	DecisionNotEstablished Decision = "not_established"
	// DecisionFound, DecisionNotFound and DecisionUnreachable: for a seam about one citation,
	// the citation's new status.
	DecisionFound       = Decision(StatusFound)
	DecisionNotFound    = Decision(StatusNotFound)
	DecisionUnreachable = Decision(StatusUnreachable)
)

// Standing is what people's decisions on seams made of a claim, beside its status (which
// stays what its citations give). A claim that is not StandingClear is never handed on
// ([HandOn]).
type Standing string

// The standings, from the least to the most severe.
const (
	// StandingClear: no decision bears against the claim.
	StandingClear Standing = ""
	// StandingUnsettled: a person resolved a seam on the claim without settling it (cannot
	// tell; not established).
	StandingUnsettled Standing = "unsettled"
	// StandingContradicted: a person found the claim contradicted. It is final.
	StandingContradicted Standing = "contradicted"
)

// Valid reports whether s is one of the three standings.
func (s Standing) Valid() bool {
	return s == StandingClear || s == StandingUnsettled || s == StandingContradicted
}

func (s Standing) rank() int {
	switch s {
	case StandingUnsettled:
		return 1
	case StandingContradicted:
		return 2
	}
	return 0
}

// ClaimStanding is a claim's standing given the standings of every resolved seam about it:
// the most severe wins, so a contradicted claim stays contradicted whatever is decided on it
// later, and an unsettled one stays unsettled until a person finds it contradicted. None
// gives StandingClear.
func ClaimStanding(seams []Standing) Standing {
	worst := StandingClear
	for _, s := range seams {
		if s.rank() > worst.rank() {
			worst = s
		}
	}
	return worst
}

// Choice is one decision of a seam kind with the words a page shows for it.
type Choice struct {
	Decision Decision `json:"decision"`
	Label    string   `json:"label"`
}

var decisionSets = map[SeamKind][]Choice{
	SeamContradiction: {
		{DecisionContradicted, "the claim is contradicted: it is never used"},
		{DecisionStands, "the claim stands: what raised the seam does not hold"},
		{DecisionCannotTell, "cannot tell: the claim is not used"},
	},
	SeamAbsence: {
		{DecisionEstablished, "a source of record states the claim"},
		{DecisionNotEstablished, "no source of record states it: the claim is not used"},
		{DecisionCannotTell, "cannot tell: the claim is not used"},
	},
	SeamManual: {
		{DecisionFound, "the quote is on the page"},
		{DecisionNotFound, "the quote is not on the page, or the page does not exist"},
		{DecisionUnreachable, "the page cannot be read"},
	},
}

func init() { decisionSets[SeamDisagreement] = decisionSets[SeamManual] }

// Decisions returns the decisions a seam of this kind accepts, in the order a page offers
// them; nil for an unknown kind.
func Decisions(kind SeamKind) []Choice {
	return append([]Choice(nil), decisionSets[kind]...)
}

// Effect is what a decision does.
type Effect struct {
	// Citation is the status the seam's one citation takes (manual, disagreement); "" leaves
	// the citations as they are.
	Citation Status
	// Claim is the standing the decision gives every claim of the seam.
	Claim Standing
}

// ErrDecision is matched (with errors.Is) by the error of [DecisionEffect].
var ErrDecision = errors.New("not a decision of this seam kind")

// DecisionEffect is the one rule of what a person's decision on a seam does to its claims and
// citation:
//
//   - contradiction: contradicted gives every claim of the seam StandingContradicted;
//     cannot_tell gives StandingUnsettled; stands nothing;
//   - absence: not_established and cannot_tell give StandingUnsettled; established nothing;
//   - manual, disagreement: the decision is the citation's new status; the claim's status
//     follows from its citations ([ClaimStatus]).
//
// A decision that is not one of Decisions(kind) fails, wrapping ErrDecision, with the
// accepted ones named.
func DecisionEffect(kind SeamKind, d Decision) (Effect, error) {
	set, ok := decisionSets[kind]
	if !ok {
		return Effect{}, fmt.Errorf("seam kind %q has no decisions: %w", kind, ErrDecision)
	}
	found := false
	names := make([]string, len(set))
	for i, c := range set {
		names[i] = string(c.Decision)
		found = found || c.Decision == d
	}
	if !found {
		return Effect{}, fmt.Errorf("the decision on a seam of kind %s is one of %s, not %q: %w", kind, strings.Join(names, ", "), d, ErrDecision)
	}
	switch {
	case kind == SeamManual || kind == SeamDisagreement:
		return Effect{Citation: Status(d)}, nil
	case d == DecisionContradicted:
		return Effect{Claim: StandingContradicted}, nil
	case d == DecisionCannotTell || d == DecisionNotEstablished:
		return Effect{Claim: StandingUnsettled}, nil
	}
	return Effect{}, nil
}

// DecidedNote is the note shown for a citation whose status a person set by resolving seam
// (a manual or disagreement seam) as by, for the reason they gave. The ledger stores only
// the reason with the seam's id; these words are made where the note is shown, so they can
// change without changing a stored row.
func DecidedNote(by, seam, reason string) string {
	return "decided by " + by + " (seam " + seam + "): " + reason
}
