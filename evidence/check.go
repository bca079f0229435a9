package evidence

import "errors"

// ErrNoBatch means a batch asked for does not exist. The ledger wraps it when asked for the
// citations of an unknown batch to check, and verify.ErrNoBatch is this same value, so the
// checker can recognise it without importing the ledger.
var ErrNoBatch = errors.New("no such batch")

// CheckTarget is one citation to check at its source, with the claim it supports. It holds
// only text: whoever receives it can read it but cannot fetch anything with it.
type CheckTarget struct {
	ClaimID    string `json:"claim"`
	ClaimText  string `json:"claim_text"`
	CitationID string `json:"citation"`
	URL        string `json:"url"`
	Quote      string `json:"quote"`
}

// CheckRun is one check of a batch, as a store keeps it while it runs so that a run its
// process stopped is resumed: the batch, the job running it, who started it, whether it
// checks every citation again (Recheck), and Since, the chain's head when it began. A
// citation whose latest check is later than Since was checked by the run.
type CheckRun struct {
	Batch   string `json:"batch"`
	Job     string `json:"job"`
	Actor   string `json:"actor"`
	Recheck bool   `json:"recheck"`
	Since   int64  `json:"since"`
}

// Checked is the payload of a citation.checked event (docs/events.md): the outcome of one
// check of one citation. All numbers are integers, as the chain requires.
type Checked struct {
	Citation string `json:"citation"`
	Claim    string `json:"claim"`
	// Status is the citation's new status.
	Status Status `json:"status"`
	// Note says in plain words what the check found.
	Note string `json:"note"`
	// Excerpt is the page's own words around a found quote; empty otherwise.
	Excerpt string `json:"excerpt,omitempty"`
	// Tier names the folding that was needed to find the quote; empty when not found.
	Tier string `json:"tier,omitempty"`
	// Page is, for a quote found in a PDF, the number of the page it is on (1 for the
	// first); 0 (left out) otherwise.
	Page int `json:"page,omitempty"`
	// Document is the page stored with the check; nil when nothing was fetched.
	Document *Document `json:"document,omitempty"`
	// Verdicts holds every verifier's answer, in the order the verifiers ran.
	Verdicts     []CheckVerdict `json:"verdicts"`
	Adjudication Adjudication   `json:"adjudication"`
	// Consistency holds what [CompareClaim] found wrong between the claim and the found
	// quote with its context; absent when the quote was not found or nothing disagrees.
	Consistency []Mismatch `json:"consistency,omitempty"`
	// Support is the model tier's judgement of whether the page supports the claim; nil when
	// the tier is off.
	Support *Support `json:"support,omitempty"`
}

// Document describes a fetched page. Its body is stored by its SHA-256.
type Document struct {
	SHA256 string `json:"sha256"`
	URL    string `json:"url"`
	// FinalURL is the URL of the page after redirects.
	FinalURL string `json:"final_url"`
	// FetchedAt is RFC 3339 UTC with milliseconds.
	FetchedAt   string `json:"fetched_at"`
	HTTPStatus  int    `json:"http_status"`
	ContentType string `json:"content_type"`
	Truncated   bool   `json:"truncated"`
	IP          string `json:"ip"`
	Hops        []Hop  `json:"hops"`
	// Pages is, for a PDF, its page count; 0 (left out) for a web page.
	Pages int `json:"pages,omitempty"`
	// Extractors names, for a PDF, the engines (with their versions) of the verifiers that
	// read these bytes; left out for a web page.
	Extractors []string `json:"extractors,omitempty"`
	// RequestHead and ResponseHead are the SHA-256 of the stored heads of the final
	// request as sent and the final response as received (docs/fetch.md), stored like the
	// body; left out in checks recorded before the heads were kept.
	RequestHead  string `json:"request_head,omitempty"`
	ResponseHead string `json:"response_head,omitempty"`
}

// Hop is one request of a fetch: its URL, the HTTP status and the address dialled.
type Hop struct {
	URL    string `json:"url"`
	Status int    `json:"status"`
	IP     string `json:"ip"`
}

// CheckVerdict is one verifier's answer as recorded: the result and, when the verifier
// fetched a page, the SHA-256 of the body it read (so that two verifiers that were served
// different bytes can be told apart).
type CheckVerdict struct {
	VerifierResult
	Document string `json:"document,omitempty"`
	// Problem says why the result is off its schema (see VerifierResult.Validate); empty
	// when it is on it. An off-schema result never decides anything.
	Problem string `json:"problem,omitempty"`
}

// Adjudication is how the verdicts of one check were weighed.
type Adjudication struct {
	// Agree: the first two verdicts were valid and the same.
	Agree bool `json:"agree"`
	// Escalated: a third verifier was asked because the first two split or one was off its
	// schema.
	Escalated bool `json:"escalated"`
	// Decision is the verdict that decided; empty when the verdicts split and a person must
	// decide (a disagreement seam is open).
	Decision Verdict `json:"decision,omitempty"`
	// ResidualRisk says what the result proves and what it does not.
	ResidualRisk string `json:"residual_risk"`
}

// SeamOpened is the payload of a seam.opened event (docs/events.md).
type SeamOpened struct {
	Seam      string   `json:"seam"`
	Kind      SeamKind `json:"kind"`
	Summary   string   `json:"summary"`
	Claims    []string `json:"claims"`
	Citations []string `json:"citations"`
}
