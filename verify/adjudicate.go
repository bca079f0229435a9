package verify

import (
	"fmt"

	"evidenceledger/evidence"
)

// Ruling is what the adjudicator concludes from a claim and its verdicts.
type Ruling struct {
	evidence.Adjudication
	// Escalate: the two verdicts split or one is off its schema; ask a third verifier to
	// fetch afresh and adjudicate again with all three.
	Escalate bool
	// Split: even after escalation the valid verdicts do not agree (or fewer than two are
	// valid). Nothing is decided; a person must, through a disagreement seam.
	Split bool
	// Problems holds, for each verdict in order, why it is off its schema ("" when it is on
	// it). An off-schema verdict never decides anything.
	Problems []string
}

// Adjudicate weighs the verdicts of the verifiers about one citation of a claim. It compares
// only: its inputs are plain data (text, numbers), so it cannot fetch anything.
//
// With two verdicts: both on their schema and the same, that verdict decides (Agree). Any
// other pair escalates. With three or more (after escalation): the verdict decides when at
// least two verdicts are on their schema and every verdict on its schema is the same;
// otherwise the verdicts split and nothing is decided. Off-schema verdicts are never counted.
// Every Ruling carries a residual-risk statement.
func Adjudicate(t evidence.CheckTarget, verdicts []evidence.VerifierResult) Ruling {
	r := Ruling{Problems: make([]string, len(verdicts))}
	var valid []evidence.Verdict
	for i, v := range verdicts {
		if err := v.Validate(); err != nil {
			r.Problems[i] = err.Error()
			continue
		}
		valid = append(valid, v.Verdict)
	}
	unanimous := len(valid) >= 2
	for _, v := range valid {
		unanimous = unanimous && v == valid[0]
	}
	switch {
	case len(verdicts) < 3 && unanimous && len(valid) == len(verdicts):
		r.Agree = true
		r.Decision = valid[0]
	case len(verdicts) < 3:
		r.Escalate = true
	case unanimous:
		r.Escalated = true
		r.Decision = valid[0]
	default:
		r.Escalated = true
		r.Split = true
	}
	r.ResidualRisk = ResidualRisk(t, r.Decision)
	return r
}

// ResidualRisk states what a check of t with this decision proves and what it does not.
// An empty decision is a split (or nothing fetched): nothing is established.
func ResidualRisk(t evidence.CheckTarget, decision evidence.Verdict) string {
	switch decision {
	case evidence.VerdictSupported:
		return fmt.Sprintf("The match shows only that these words were in the visible text of the page at %s, at the time it was fetched, as it was served to this program. It does not show that the claim is true, that the page is an authority on it, that the page still says so, or that the quote supports the claim in its context.", t.URL)
	case evidence.VerdictNotFound:
		return fmt.Sprintf("The quote's words were not in the visible text of the page at %s as it was served when fetched. That does not show the claim is false: the page may have changed, may draw text with scripts, may serve other readers other text, or may state the idea in other words.", t.URL)
	case evidence.VerdictUnreachable:
		return fmt.Sprintf("The page at %s could not be read when it was fetched, so nothing is known about the quote: not whether its words are there, and not whether the claim is true.", t.URL)
	case evidence.VerdictContradicted:
		return fmt.Sprintf("A verifier read the page at %s, as fetched, as contradicting the claim. That does not show which is true, that the page is an authority, or that it still says so; a person must weigh it.", t.URL)
	}
	return fmt.Sprintf("The verifiers did not agree about the page at %s, or it was not fetched, so nothing is established about the quote or the claim until a person decides.", t.URL)
}
