package evidence

// Withheld says why a claim may not be handed on: put in a report for a client, quoted in a
// document, written to an agent's memory. The values are fixed words: reports count by them
// and other programs match on them.
type Withheld string

const (
	// HandOnOK: the claim may be handed on.
	HandOnOK Withheld = ""
	// WithheldContradicted: a person resolved a seam on the claim as contradicted
	// (StandingContradicted). It is final.
	WithheldContradicted Withheld = "a person found it contradicted"
	// WithheldSeam: a seam is open on the claim or one of its citations; a person decides.
	WithheldSeam Withheld = "waiting for a person"
	// WithheldUnsettled: a person resolved a seam on the claim without settling it
	// (StandingUnsettled: cannot tell, not established).
	WithheldUnsettled Withheld = "a person could not settle it"
	// WithheldCitationNotFound: the claim was found at one source, but another of its
	// citations was looked for and is not there (a possible fabrication beside a real source).
	WithheldCitationNotFound Withheld = "a cited quote is not at its source"
	// WithheldNotFound: no quote was found, and at least one is not on its page, or the page
	// does not exist.
	WithheldNotFound Withheld = "not found at its source"
	// WithheldUnreachable: no source of the claim could be read.
	WithheldUnreachable Withheld = "its source could not be read"
	// WithheldUnchecked: nothing was checked: not yet, or no citation can be (no URL, no
	// quote to look for).
	WithheldUnchecked Withheld = "not checked at its source"
)

// WithheldReasons lists every reason a claim may be withheld, in the order a report shows
// them: what a person decided against it, what a person can settle, then what was checked and
// failed, then what never was.
var WithheldReasons = []Withheld{WithheldContradicted, WithheldSeam, WithheldUnsettled, WithheldCitationNotFound, WithheldNotFound, WithheldUnreachable, WithheldUnchecked}

// HandOn is the one rule for what may leave the ledger as verified: a claim may be handed on
// only when it is StatusFound, no person's decision stands against it (standing is
// StandingClear, see [ClaimStanding]), no seam is open on it or any of its citations
// (openSeams counts both), and none of its citations is StatusNotFound. Otherwise it returns
// the first reason of WithheldReasons that applies; a claim a person found contradicted is
// never handed on. A match proves only that the words were on the page, so what is handed on
// carries its residual risk; this rule does not change that.
func HandOn(status Status, standing Standing, openSeams int, citations []Status) Withheld {
	switch {
	case standing == StandingContradicted:
		return WithheldContradicted
	case openSeams > 0:
		return WithheldSeam
	case standing != StandingClear:
		return WithheldUnsettled
	}
	switch status {
	case StatusFound:
		for _, s := range citations {
			if s == StatusNotFound {
				return WithheldCitationNotFound
			}
		}
		return HandOnOK
	case StatusNotFound:
		return WithheldNotFound
	case StatusUnreachable:
		return WithheldUnreachable
	}
	return WithheldUnchecked
}
