package evidence

import (
	"errors"
	"fmt"
	"strings"
)

// Status is the state of a citation or a claim.
type Status string

// The statuses. Everything enters as StatusReported.
const (
	StatusReported    Status = "reported"
	StatusFound       Status = "found_at_source"
	StatusNotFound    Status = "not_found"
	StatusUnreachable Status = "unreachable"
)

// Valid reports whether s is one of the four statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusReported, StatusFound, StatusNotFound, StatusUnreachable:
		return true
	}
	return false
}

// SourceClass is how far a source can be trusted to state a fact. Operators classify sources;
// a source nobody classified is a lead.
type SourceClass string

// The source classes.
const (
	// ClassPrimary is the source of record itself: a registry, the publisher's own filing,
	// the statute, the dataset.
	ClassPrimary SourceClass = "primary"
	// ClassSemi is a source close to the record: a trade body, an official summary.
	ClassSemi SourceClass = "semi"
	// ClassLead is everything else: press, directories, marketing pages. Leads help to
	// discover; they never confirm.
	ClassLead SourceClass = "lead"
)

// Valid reports whether c is one of the three classes.
func (c SourceClass) Valid() bool {
	switch c {
	case ClassPrimary, ClassSemi, ClassLead:
		return true
	}
	return false
}

// Strength is how strongly the found citations of a claim support it (see [ComputeStrength]).
type Strength string

// The strengths. StrengthNone is the strength of a claim with no found citation.
const (
	StrengthNone   Strength = ""
	StrengthLow    Strength = "low"
	StrengthMedium Strength = "medium"
	StrengthHigh   Strength = "high"
)

// Rank orders strengths: 0 for StrengthNone (and any unknown value), then 1 low, 2 medium,
// 3 high. A claim meets a minimum strength when its Rank is at least the minimum's.
func (s Strength) Rank() int {
	switch s {
	case StrengthLow:
		return 1
	case StrengthMedium:
		return 2
	case StrengthHigh:
		return 3
	}
	return 0
}

// SeamKind is the kind of an open question that only a person may settle.
type SeamKind string

// The seam kinds.
const (
	// SeamContradiction: claims that cannot both be true.
	SeamContradiction SeamKind = "contradiction"
	// SeamDisagreement: the verifiers split on a citation.
	SeamDisagreement SeamKind = "disagreement"
	// SeamManual: a citation only a person may open (a login-walled host, for example).
	SeamManual SeamKind = "manual"
	// SeamAbsence: what cannot be established from a primary source.
	SeamAbsence SeamKind = "absence"
)

// Valid reports whether k is one of the four seam kinds.
func (k SeamKind) Valid() bool {
	switch k {
	case SeamContradiction, SeamDisagreement, SeamManual, SeamAbsence:
		return true
	}
	return false
}

// SeamState is whether a seam still waits for a person.
type SeamState string

// The seam states. A seam is open until a person resolves it.
const (
	SeamOpen     SeamState = "open"
	SeamResolved SeamState = "resolved"
)

// Valid reports whether s is open or resolved.
func (s SeamState) Valid() bool {
	return s == SeamOpen || s == SeamResolved
}

// Verdict is what one verifier concluded about one citation.
type Verdict string

// The verdicts.
const (
	VerdictSupported    Verdict = "supported"
	VerdictContradicted Verdict = "contradicted"
	VerdictNotFound     Verdict = "not_found"
	VerdictUnreachable  Verdict = "unreachable"
)

// Valid reports whether v is one of the four verdicts.
func (v Verdict) Valid() bool {
	switch v {
	case VerdictSupported, VerdictContradicted, VerdictNotFound, VerdictUnreachable:
		return true
	}
	return false
}

// VerifierResult is the answer of one verifier about one citation.
type VerifierResult struct {
	Verdict          Verdict `json:"verdict"`
	AccuracyEstimate int     `json:"accuracy_estimate"`
	Reasoning        string  `json:"reasoning"`
	Verifier         string  `json:"verifier"`
}

// ErrOffSchema is matched (with errors.Is) by the error of [VerifierResult.Validate].
var ErrOffSchema = errors.New("verifier result off its schema")

// Validate reports a result that is off its schema: a verdict that is not one of the four,
// an accuracy estimate outside 1..100, or a reasoning that is empty or only whitespace. The
// error matches [ErrOffSchema] and names every problem found. An off-schema result must
// escalate; it never decides anything.
func (r VerifierResult) Validate() error {
	var problems []string
	if !r.Verdict.Valid() {
		problems = append(problems, fmt.Sprintf("verdict %q is not supported, contradicted, not_found or unreachable", r.Verdict))
	}
	if r.AccuracyEstimate < 1 || r.AccuracyEstimate > 100 {
		problems = append(problems, fmt.Sprintf("accuracy_estimate %d is outside 1..100", r.AccuracyEstimate))
	}
	if strings.TrimSpace(r.Reasoning) == "" {
		problems = append(problems, "reasoning is empty")
	}
	if len(problems) == 0 {
		return nil
	}
	name := r.Verifier
	if name == "" {
		name = "unnamed verifier"
	}
	return fmt.Errorf("%w: %s: %s; treat it as a split and escalate", ErrOffSchema, name, strings.Join(problems, "; "))
}

// The notes a citation carries when it cannot be checked. They are fixed strings: other
// programs match on them.
const (
	// NoteNoSource: the claim names no URL, so nothing can be checked.
	NoteNoSource = "no source of record"
	// NoteNoQuote: the quote is missing or has fewer than MinQuoteLen letters or digits (see
	// QuoteParts); a quote whose part between ellipses is too short carries this note, a
	// colon and the part.
	NoteNoQuote = "no quote to look for"
	// NoteAbsent begins the note of a citation whose page does not exist (a 404 or 410, or a
	// host name that does not exist): its status is not_found, since a fabricated source is
	// what a check exists to catch. The fetch's reason follows a colon.
	NoteAbsent = "the cited page does not exist"
	// NoteNoHost begins the note of a citation whose host name does not exist (the name
	// server says there is no such host): the research named a web site that is not there.
	// It begins with NoteAbsent; the source list shows such a source apart (a host that
	// does not exist is nothing to classify). The host's name and "does not exist" follow.
	NoteNoHost = NoteAbsent + ": the host"
	// NoteNotHTTP: the URL is not http or https; it is kept as written and never fetched.
	NoteNotHTTP = "not an http(s) URL: kept, never fetched"
)

// Claim is a statement from the research with the citations that are meant to support it.
// A parsed claim always has at least one citation; a claim that names no URL has citations
// with an empty URL and the note NoteNoSource.
type Claim struct {
	Text      string     `json:"text"`
	Status    Status     `json:"status"`
	Citations []Citation `json:"citations"`
}

// Citation is a URL and a quote that is supposed to be on the page at that URL.
type Citation struct {
	URL    string `json:"url"`
	Quote  string `json:"quote"`
	Status Status `json:"status"`
	// Note says why the citation cannot be checked; empty when it can.
	Note string `json:"note,omitempty"`
}

// Checkable reports whether the citation can be checked at its source: it has an http(s)
// URL and a quote that QuoteParts accepts. It is true exactly when
// CitationNote(c.URL, c.Quote) is empty.
func (c Citation) Checkable() bool {
	return CitationNote(c.URL, c.Quote) == ""
}

// CitationNote returns the note a citation with this URL and quote carries, or "" when it
// can be checked. The first problem wins: no URL (NoteNoSource), then a URL that is not
// http(s) (NoteNotHTTP), then a quote that cannot be looked for (quoteNote).
func CitationNote(rawURL, quote string) string {
	switch {
	case strings.TrimSpace(rawURL) == "":
		return NoteNoSource
	case !IsHTTP(rawURL):
		return NoteNotHTTP
	}
	return quoteNote(quote)
}

// IsHTTP reports whether rawURL starts with http:// or https:// (in any case) and names a host.
func IsHTTP(rawURL string) bool {
	lower := strings.ToLower(rawURL)
	var rest string
	switch {
	case strings.HasPrefix(lower, "http://"):
		rest = rawURL[len("http://"):]
	case strings.HasPrefix(lower, "https://"):
		rest = rawURL[len("https://"):]
	default:
		return false
	}
	return rest != "" && rest[0] != '/' && rest[0] != '?' && rest[0] != '#'
}

// ClaimStatus derives a claim's status from the statuses of its citations. A claim is
// StatusFound when at least one citation is. Otherwise the most informative status wins:
// StatusNotFound when any quote was looked for and is not on its page (a possible
// fabrication), then StatusUnreachable when any page could not be read, then StatusReported.
// No citations, or only unknown statuses, give StatusReported.
func ClaimStatus(citations []Status) Status {
	best := StatusReported
	for _, s := range citations {
		if statusRank(s) > statusRank(best) {
			best = s
		}
	}
	return best
}

// statusRank orders statuses for ClaimStatus; unknown statuses rank with reported.
func statusRank(s Status) int {
	switch s {
	case StatusFound:
		return 3
	case StatusNotFound:
		return 2
	case StatusUnreachable:
		return 1
	}
	return 0
}
