// The gate's decision in one file: a text's statements, their lookup in the ledger, the
// reasons a claim is blocked and the next steps named for each, and the check on the spot.
// The reasons and steps are one table read top to bottom; split, a reader would follow a
// blocked claim across files to learn why it was blocked.

package gate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"evidenceledger/evidence"
	"evidenceledger/verify"
)

// LedgerClaim is a claim as the memory-write gate reads it from the ledger.
type LedgerClaim struct {
	ID       string
	Text     string
	Status   evidence.Status
	Strength evidence.Strength
	// Standing is what people's decisions made of the claim (evidence.ClaimStanding);
	// DecidedBy are the resolved seams whose decision gave it, oldest first.
	Standing  evidence.Standing
	DecidedBy []string
	// OpenSeams are the open seams about the claim itself.
	OpenSeams []string
	Citations []LedgerCitation
}

// LedgerCitation is a citation of a [LedgerClaim].
type LedgerCitation struct {
	ID     string
	URL    string
	Quote  string
	Status evidence.Status
	// OpenSeams are the open seams about the citation.
	OpenSeams []string
}

// Ledger is what the gate reads of the ledger. Both lookups return every matching claim
// with all its citations; none is not an error. Any error makes the gate block.
type Ledger interface {
	// ClaimsWithText returns the claims whose text equals text once both are normalized
	// ([evidence.NormalizeText]).
	ClaimsWithText(ctx context.Context, text string) ([]LedgerClaim, error)
	// ClaimsQuoting returns the claims with a citation whose normalized quote equals quote's.
	ClaimsQuoting(ctx context.Context, quote string) ([]LedgerClaim, error)
	// ClaimsNear returns up to limit claims whose text or quotes share a long word with
	// text, for the gate to offer the nearest verified text instead of a blocked one.
	ClaimsNear(ctx context.Context, text string, limit int) ([]LedgerClaim, error)
}

// Importer records the claims the gate checks on the spot. With [verify.CheckStore] it is what
// `ledger gate --check` needs of the ledger.
type Importer interface {
	verify.CheckStore
	// ImportClaims records claims as one batch of their own, as actor, exactly as a batch of
	// research is recorded, and returns the batch id.
	ImportClaims(ctx context.Context, actor string, claims []evidence.Claim) (string, error)
}

// ErrInput is wrapped by every error of the gate's input: a hook input or a minimum strength
// that cannot be read. A caller must block on it (fail closed).
var ErrInput = errors.New("the gate cannot read its input")

// DefaultTimeout is how long `ledger gate --check` checks claims on the spot before it
// blocks them as still being checked.
const DefaultTimeout = 60 * time.Second

// Options are the settings of one [Evaluate] call.
type Options struct {
	// Min is the least strength a claim must have; "" for none.
	Min evidence.Strength
	// Check, when not nil, checks on the spot every factual claim that carries a URL and a
	// quote the ledger does not hold yet (see [Check]).
	Check *Check
}

// Check is how the gate checks claims on the spot: it imports them as one batch of their
// own as Actor, checks that batch with Checker like any batch (RunBatch, Workers at a time),
// and waits at most Timeout (DefaultTimeout when 0). Checks not finished by then are
// dropped unrecorded and their claims are blocked as still being checked; checking the
// batch again (ledger check --batch) finishes them.
type Check struct {
	Store   Importer
	Checker *verify.Checker
	Actor   string
	Timeout time.Duration
	Workers int
}

// Claim is one factual claim the gate read in a text, with its decision.
type Claim struct {
	Text      string              `json:"text"`
	Citations []evidence.Citation `json:"citations"`
	// Rule is the triage rule that made it a factual claim.
	Rule  string `json:"rule"`
	Allow bool   `json:"allow"`
	// Matched are the ledger claims that verify it (found_at_source, no open seam, no
	// not_found citation, strong enough); empty when it is blocked.
	Matched []string `json:"matched"`
	// Strength is the highest strength among Matched; "" when blocked.
	Strength evidence.Strength `json:"strength"`
	// Reasons say why it is blocked, one per ledger claim considered; empty when allowed.
	Reasons []string `json:"reasons"`
	// Next says what to do so that it may pass, in words an agent can act on; empty when
	// allowed.
	Next []string `json:"next"`
	// Checked is the batch the gate imported and checked it in on the spot, when it did.
	Checked string `json:"checked,omitempty"`
	// Instead is, for a blocked claim, the verified text nearest to it that may be written
	// instead (a usable ledger claim's text or found quote); "" when none was considered.
	Instead string `json:"instead,omitempty"`

	near float64 // how near Instead is to Text

	needsCheck bool     // cited, and a citation of it is not in the ledger: --check may check it
	next       []string // the steps found while deciding, in order, each once
}

// step adds a next step once.
func (gc *Claim) step(s string) {
	if !slices.Contains(gc.next, s) {
		gc.next = append(gc.next, s)
	}
}

// The next steps a blocked claim's answer names (Claim.Next).
const (
	stepCite          = "cite the page it comes from: add the URL and an exact quote from that page beside the claim, then run `ledger gate --check`"
	stepLeaveOut      = "or leave the claim out of memory, or write it as a question or a plan rather than a fact"
	stepCheck         = "run `ledger gate --check` to check its URL and quote at the source now (or `ledger import` and `ledger check --batch ID`)"
	stepQuote         = "add an exact quote of at least 12 characters from the cited page, then run `ledger gate --check`"
	stepNotFound      = "do not write it: a cited quote is not on its page; find a page that says it, cite its URL and exact quote, and run `ledger gate --check`"
	stepUnread        = "the cited page could not be read; cite another page that says it, or ask a person to open the page"
	stepUnchecked     = "its citations were never checked: run `ledger check --batch ID` for its batch, or `ledger gate --check`"
	stepWords         = "write the claim in the words of its verified quote, or cite the URL and quote that say what it says and run `ledger gate --check`"
	stepLedger        = "do not write it now; the ledger must be readable and writable (check --data / LEDGER_DATA), then ask the gate again"
	stepOtherwise     = "leave it out of memory, or ask a person"
	stepContradicted  = "do not write it: a person found it contradicted, and that decision is final; write what the cited page says instead"
	stepUnsettled     = "do not write it: a person resolved a seam on it without settling it; cite a source of record that says it, in a new claim, and run `ledger gate --check`"
	stepInsteadFormat = "or write instead the verified text nearest to it, word for word: “%s”"
	stepSeamFormat    = "ask a person to resolve seam %s (the /seams page, or POST /api/seams/{id}/resolve), then ask the gate again"
)

// NotGated is a statement of the text that is not a factual claim, with the triage rule that
// let it pass.
type NotGated struct {
	Text string        `json:"text"`
	Kind evidence.Kind `json:"kind"`
	Rule string        `json:"rule"`
}

// Decision is the gate's answer about a text. Allow is true only when every factual claim
// is allowed; a text with no factual claim is allowed with a Note.
type Decision struct {
	Allow        bool       `json:"allow"`
	Claims       []Claim    `json:"claims"`
	NotGated     []NotGated `json:"not_gated"`
	Note         string     `json:"note,omitempty"`
	ResidualRisk string     `json:"residual_risk"`
}

// NoteNoClaims is the note of a text in which the gate found no factual claim.
const NoteNoClaims = "the text states nothing the gate reads as a factual claim, so there is nothing to verify"

// noteUnreadable starts the note of a text the gate cannot read; it is blocked whole.
const noteUnreadable = "the text cannot be read, so nothing in it is allowed"

// ParseMinStrength reads a minimum strength: "" (none), low, medium or high. The error wraps
// [ErrInput].
func ParseMinStrength(s string) (evidence.Strength, error) {
	switch st := evidence.Strength(strings.ToLower(strings.TrimSpace(s))); st {
	case evidence.StrengthNone, evidence.StrengthLow, evidence.StrengthMedium, evidence.StrengthHigh:
		return st, nil
	}
	return "", fmt.Errorf("%w: minimum strength %q: want low, medium or high", ErrInput, s)
}

// Evaluate decides whether text may be written to persistent memory (docs/gate.md). It sorts
// every statement of text with [evidence.TriageText]: only factual claims are gated; the
// rest is listed in NotGated with the rule that let it pass. A factual claim is allowed only
// when a ledger claim matches it and is found_at_source, has no open seam (on it or any of
// its citations), has no citation that is not_found, and has at least strength opt.Min.
//
// A ledger claim matches when the claim is its text or one of its found quotes word for word
// ([sameText]: white space, quotation marks, a final full stop and the case of a sentence's
// first letter aside), or when the claim cites one of its found quotes (same URL after
// [evidence.SameURL], same quote) and says nothing the ledger claim does not hold; and,
// unless it is a found quote word for word, it agrees with a found quote
// ([evidence.Disagree]: figures bound to the same words, the same negations, the named
// parties in the same order); see [textProblems]. Either way, every URL the claim cites must
// be a found citation of that ledger claim without an open seam (and with the same quote,
// when the claim gives one). A claim with no URL that no ledger claim matches is blocked with
// evidence.NoteNoSource and is never checked against anything else. A blocked claim is
// offered the nearest verified text (Instead).
//
// With opt.Check, the claims that carry a URL and a quote the ledger does not hold are first
// imported and checked on the spot (see [Check]), then decided on the result.
//
// Evaluate fails closed: a text that cannot be read is blocked whole (Note says why); when the
// ledger cannot be read or the check cannot be recorded it returns a blocking decision (its
// Claims carry the reason) and the error.
func Evaluate(ctx context.Context, l Ledger, text string, opt Options) (Decision, error) {
	d := Decision{Allow: true, Claims: []Claim{}, NotGated: []NotGated{}}
	sorted, err := evidence.TriageText(text)
	if err != nil {
		d.Allow, d.Note = false, noteUnreadable+": "+err.Error()
		d.ResidualRisk = gateRisk(d, opt.Min)
		return d, nil
	}
	var firstErr error
	note := func(err error) {
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	for _, s := range sorted {
		if !s.Gated() {
			d.NotGated = append(d.NotGated, NotGated{Text: s.Text, Kind: s.Kind, Rule: s.Rule})
			continue
		}
		c := evidence.Claim{Text: s.Text, Status: evidence.StatusReported,
			Citations: []evidence.Citation{{Status: evidence.StatusReported, Note: evidence.NoteNoSource}}}
		if s.Claim != nil {
			c = *s.Claim
		}
		gc, err := gateClaim(ctx, l, c, opt.Min)
		gc.Rule = s.Rule
		note(err)
		d.Claims = append(d.Claims, gc)
	}
	if opt.Check != nil && firstErr == nil {
		note(checkOnTheSpot(ctx, l, opt, d.Claims))
	}
	if firstErr == nil {
		note(offerNear(ctx, l, d.Claims, opt.Min))
	}
	for i := range d.Claims {
		gc := &d.Claims[i]
		gc.Next = []string{}
		if !gc.Allow {
			gc.Next = gc.next
			if len(gc.Next) == 0 {
				gc.Next = []string{stepOtherwise}
			}
		}
		d.Allow = d.Allow && gc.Allow
	}
	if len(d.Claims) == 0 {
		d.Note = NoteNoClaims
	}
	d.ResidualRisk = gateRisk(d, opt.Min)
	return d, firstErr
}

// checkOnTheSpot imports the claims that need a check as one batch, checks it within the
// time limit, and decides them again on what was recorded.
func checkOnTheSpot(ctx context.Context, l Ledger, opt Options, claims []Claim) error {
	var idx []int
	var batch []evidence.Claim
	for i, gc := range claims {
		if !gc.Allow && gc.needsCheck {
			idx = append(idx, i)
			batch = append(batch, evidence.Claim{Text: gc.Text, Status: evidence.StatusReported, Citations: gc.Citations})
		}
	}
	if len(batch) == 0 {
		return nil
	}
	gck := opt.Check
	id, err := gck.Store.ImportClaims(ctx, gck.Actor, batch)
	if err != nil {
		for _, i := range idx {
			claims[i].Reasons, claims[i].next = []string{"the claim could not be recorded for a check, so nothing is allowed: " + err.Error()}, []string{stepLedger}
		}
		return fmt.Errorf("record the claims to check: %w", err)
	}
	timeout := gck.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	_, runErr := verify.RunBatch(cctx, gck.Store, gck.Checker, gck.Actor, id, false, gck.Workers, nil)
	late := cctx.Err() != nil
	cancel()
	if runErr != nil && !late {
		for _, i := range idx {
			claims[i].Reasons, claims[i].next = []string{"the check could not be recorded, so nothing is allowed: " + runErr.Error()}, []string{stepLedger}
			claims[i].Checked = id
		}
		return fmt.Errorf("check batch %s: %w", id, runErr)
	}
	for _, i := range idx {
		gc, err := gateClaim(ctx, l, evidence.Claim{Text: claims[i].Text, Citations: claims[i].Citations}, opt.Min)
		if err != nil {
			return fmt.Errorf("read the ledger after the check: %w", err)
		}
		gc.Rule, gc.Checked, gc.needsCheck = claims[i].Rule, id, false
		if !gc.Allow && late {
			gc.Reasons = append([]string{fmt.Sprintf("still checking: the check of batch %s did not finish within %s", id, timeout)}, gc.Reasons...)
			gc.next = append([]string{fmt.Sprintf("wait, then finish the check with `ledger check --batch %s` and ask the gate again", id)}, gc.next...)
		}
		claims[i] = gc
	}
	return nil
}

// gateClaim decides one claim.
func gateClaim(ctx context.Context, l Ledger, c evidence.Claim, min evidence.Strength) (Claim, error) {
	gc := Claim{Text: c.Text, Citations: c.Citations, Matched: []string{}, Reasons: []string{}}
	if gc.Citations == nil {
		gc.Citations = []evidence.Citation{}
	}
	fail := func(err error) (Claim, error) {
		gc.Reasons, gc.next = []string{"the ledger could not be read, so nothing is allowed: " + err.Error()}, []string{stepLedger}
		return gc, fmt.Errorf("read the ledger for claim %q: %w", c.Text, err)
	}
	// The claims whose text, or one of whose quotes, the text may be: looked up under each
	// spelling the ledger's normalized columns may hold it in, then compared exactly.
	var cands []LedgerClaim
	seen := map[string]bool{}
	for _, form := range lookupForms(c.Text) {
		byText, err := l.ClaimsWithText(ctx, form)
		if err != nil {
			return fail(err)
		}
		byQuote, err := l.ClaimsQuoting(ctx, form)
		if err != nil {
			return fail(err)
		}
		for _, lc := range append(byText, byQuote...) {
			if !seen[lc.ID] {
				seen[lc.ID] = true
				cands = append(cands, lc)
			}
		}
	}
	hasURL := false
	for _, ct := range c.Citations {
		if strings.TrimSpace(ct.URL) != "" {
			hasURL = true
		}
		if strings.TrimSpace(ct.URL) == "" || evidence.NormalizeText(ct.Quote) == "" {
			continue
		}
		byQuote, err := l.ClaimsQuoting(ctx, ct.Quote)
		if err != nil {
			return fail(err)
		}
		for _, lc := range byQuote {
			if !seen[lc.ID] && citedBy(lc, ct, false) {
				seen[lc.ID] = true
				cands = append(cands, lc)
			}
		}
	}
	for _, lc := range cands {
		problems := judge(&gc, lc, c, min)
		if len(problems) == 0 {
			gc.Matched = append(gc.Matched, lc.ID)
			if lc.Strength.Rank() > gc.Strength.Rank() {
				gc.Strength = lc.Strength
			}
			continue
		}
		gc.Reasons = append(gc.Reasons, fmt.Sprintf("ledger claim %s: %s", lc.ID, strings.Join(problems, "; ")))
	}
	if len(gc.Matched) > 0 {
		gc.Allow, gc.Reasons, gc.next, gc.Instead = true, []string{}, nil, ""
		return gc, nil
	}
	if gc.Instead != "" {
		gc.step(fmt.Sprintf(stepInsteadFormat, gc.Instead))
	}
	// A check on the spot can help when the claim cites a checkable URL and quote that no
	// ledger claim considered holds.
	for _, ct := range c.Citations {
		if !ct.Checkable() {
			continue
		}
		held := false
		for _, lc := range cands {
			held = held || citedBy(lc, ct, false)
		}
		gc.needsCheck = gc.needsCheck || !held
	}
	switch {
	case len(cands) > 0:
	case !hasURL:
		gc.Reasons = []string{evidence.NoteNoSource + ": the claim names no URL, and no claim with this text is in the ledger"}
		gc.step(stepCite)
		gc.step(stepLeaveOut)
	default:
		gc.Reasons = []string{"not in the ledger: no claim with this text, and no citation with this URL and quote, was recorded"}
	}
	if gc.needsCheck {
		gc.step(stepCheck)
	} else if hasURL && len(cands) == 0 {
		gc.step(stepQuote)
	}
	return gc, nil
}

// judge returns what keeps ledger claim lc from verifying claim c; none when it does. Whether
// lc may be handed on at all is evidence.HandOn's rule; the gate adds the minimum strength and
// the match of c's words and citations. It adds to gc the next step of each problem.
func judge(gc *Claim, lc LedgerClaim, c evidence.Claim, min evidence.Strength) []string {
	var problems []string
	var seams []string
	// A seam about the claim and one of its citations is named once.
	for _, id := range lc.OpenSeams {
		if !slices.Contains(seams, id) {
			seams = append(seams, id)
		}
	}
	for _, ct := range lc.Citations {
		for _, id := range ct.OpenSeams {
			if !slices.Contains(seams, id) {
				seams = append(seams, id)
			}
		}
	}
	statuses := make([]evidence.Status, len(lc.Citations))
	for i, ct := range lc.Citations {
		statuses[i] = ct.Status
	}
	// The rule of what may leave the ledger as verified is evidence.HandOn's (the report uses
	// it too); what follows only says in words why it withholds the claim.
	withheld := evidence.HandOn(lc.Status, lc.Standing, len(seams), statuses)
	switch lc.Standing {
	case evidence.StandingClear:
	case evidence.StandingContradicted:
		problems = append(problems, fmt.Sprintf("a person found it contradicted (seam %s)", strings.Join(lc.DecidedBy, ", ")))
		gc.step(stepContradicted)
	default:
		problems = append(problems, fmt.Sprintf("a person could not settle it (seam %s: %s)", strings.Join(lc.DecidedBy, ", "), lc.Standing))
		gc.step(stepUnsettled)
	}
	if withheld != evidence.HandOnOK && lc.Status != evidence.StatusFound {
		problems = append(problems, fmt.Sprintf("it is %s, not %s", lc.Status, evidence.StatusFound))
		switch {
		case lc.Status == evidence.StatusNotFound:
			gc.step(stepNotFound)
		case lc.Status == evidence.StatusUnreachable:
			gc.step(stepUnread)
		case len(seams) == 0 && hasCheckable(lc):
			gc.step(stepUnchecked)
		case len(seams) == 0:
			gc.step(stepCite)
		}
	}
	if len(seams) > 0 {
		ids := strings.Join(seams, ", ")
		problems = append(problems, fmt.Sprintf("open seam %s waits for a person", ids))
		gc.step(fmt.Sprintf(stepSeamFormat, ids))
	}
	for _, ct := range lc.Citations {
		if ct.Status == evidence.StatusNotFound {
			problems = append(problems, fmt.Sprintf("its citation %s (%s) is not_found: the quote is not on that page, or the page does not exist; a fabricated citation beside a found one is a fabrication", ct.ID, ct.URL))
			gc.step(stepNotFound)
		}
	}
	if withheld != evidence.HandOnOK && len(problems) == 0 {
		problems = append(problems, string(withheld))
	}
	if lc.Strength.Rank() < min.Rank() {
		st := string(lc.Strength)
		if st == "" {
			st = "none"
		}
		problems = append(problems, fmt.Sprintf("its strength is %s, below the minimum %s", st, min))
		gc.step(fmt.Sprintf("cite a primary source for it (the gate requires strength %s), or ask an operator to classify its sources", min))
	}
	usable := len(problems) == 0
	if p := textProblems(lc, c); len(p) > 0 {
		problems = append(problems, p...)
		gc.step(stepWords)
	}
	for _, ct := range c.Citations {
		if strings.TrimSpace(ct.URL) != "" && !citedBy(lc, ct, true) {
			what := ct.URL
			if evidence.NormalizeText(ct.Quote) != "" {
				what = fmt.Sprintf("%s with the quote %q", ct.URL, ct.Quote)
			}
			problems = append(problems, fmt.Sprintf("the text cites %s, which this claim has not found at its source", what))
			gc.step(stepWords)
		}
	}
	if usable && len(problems) > 0 {
		gc.offer(c.Text, lc)
	}
	return problems
}

// textProblems says why the words of claim c are not verified by ledger claim lc; none when
// they are (docs/gate.md, "Deciding a factual claim"). c's text must be, in [gateForm] and by
// [sameText], a found quote of lc (found, without an open seam), or lc's own text, or c must
// cite one of lc's found quotes (same URL and quote). Unless it is a found quote word for
// word, it must also agree ([evidence.Disagree]) with one of the found quotes it cites, or,
// when it cites none, with one of lc's found quotes: so a claim recorded in words that turn
// its quote around (by a check on the spot of "Beta sued Acme" citing "Acme sued Beta") is
// not verified by that quote. Written in other words than lc's text, every word of c must
// also be a word of lc's text or found quotes ([unfoundWords]).
func textProblems(lc LedgerClaim, c evidence.Claim) []string {
	var found, cited []string
	for _, lct := range lc.Citations {
		if lct.Status != evidence.StatusFound || len(lct.OpenSeams) > 0 || evidence.NormalizeText(lct.Quote) == "" {
			continue
		}
		found = append(found, lct.Quote)
		if sameText(lct.Quote, c.Text) {
			return nil
		}
		for _, ct := range c.Citations {
			if evidence.SameURL(ct.URL, lct.URL) && evidence.NormalizeText(ct.Quote) != "" &&
				evidence.NormalizeText(ct.Quote) == evidence.NormalizeText(lct.Quote) && !slices.Contains(cited, lct.Quote) {
				cited = append(cited, lct.Quote)
			}
		}
	}
	stmt := ownStatement(c)
	exact := sameText(lc.Text, c.Text) || sameText(lc.Text, stmt)
	if !exact && len(cited) == 0 {
		return []string{"the text is neither this claim's text nor one of its found quotes, word for word (only white space, quotation marks, a final full stop and the case of a sentence's first letter may differ), and it cites none of its found quotes"}
	}
	var problems []string
	if !exact {
		if extra := unfoundWords(lc, evidence.Claim{Text: stmt}); len(extra) > 0 {
			problems = append(problems, fmt.Sprintf("the text's claim says words the ledger claim and its found quotes do not hold: %s", strings.Join(extra, ", ")))
		}
		if cc := caseChanges(stmt, append([]string{lc.Text}, found...)); len(cc) > 0 {
			problems = append(problems, fmt.Sprintf("the text writes words in another case than the ledger claim and its found quotes: %s", strings.Join(cc, ", ")))
		}
	}
	pool := cited
	if len(pool) == 0 {
		pool = found
	}
	var first []string
	for i, q := range pool {
		d := evidence.Disagree(stmt, q)
		if len(d) == 0 {
			return problems
		}
		if i == 0 {
			first = d
		}
	}
	if len(pool) > 0 {
		problems = append(problems, fmt.Sprintf("the text says something other than the found quote “%s”: %s", pool[0], strings.Join(first, "; ")))
	}
	return problems
}

// offer keeps, as what may be written instead, the verified text of a usable ledger claim
// lc (its text, when it agrees with a found quote, or a found quote) nearest to text.
func (gc *Claim) offer(text string, lc LedgerClaim) {
	var cands []string
	for _, lct := range lc.Citations {
		if lct.Status == evidence.StatusFound && len(lct.OpenSeams) == 0 && evidence.NormalizeText(lct.Quote) != "" {
			cands = append(cands, lct.Quote)
		}
	}
	if len(textProblems(lc, evidence.Claim{Text: lc.Text})) == 0 {
		cands = append(cands, lc.Text)
	}
	for _, v := range cands {
		if n := nearness(text, v); n > gc.near {
			gc.Instead, gc.near = v, n
		}
	}
}

// maxNearLookups bounds how many blocked claims of one text the gate looks up near
// verified texts for ([Ledger.ClaimsNear] scans the ledger); the others are offered
// only what their own lookups found.
const maxNearLookups = 16

// offerNear finds, for each blocked claim that was offered no verified text (up to
// maxNearLookups of them), the nearest text of a usable ledger claim that shares a long word
// with it, and offers it as what may be written instead.
func offerNear(ctx context.Context, l Ledger, claims []Claim, min evidence.Strength) error {
	n := 0
	for i := range claims {
		gc := &claims[i]
		if gc.Allow || gc.Instead != "" || n >= maxNearLookups {
			continue
		}
		n++
		near, err := l.ClaimsNear(ctx, gc.Text, 20)
		if err != nil {
			gc.Reasons = append(gc.Reasons, "the ledger could not be read for the nearest verified text: "+err.Error())
			return fmt.Errorf("read the ledger for texts near %q: %w", gc.Text, err)
		}
		for _, lc := range near {
			if usable(lc, min) {
				gc.offer(gc.Text, lc)
			}
		}
		if gc.Instead != "" {
			gc.step(fmt.Sprintf(stepInsteadFormat, gc.Instead))
		}
	}
	return nil
}

// usable reports whether ledger claim lc may verify a text at all (evidence.HandOn, no
// citation not_found, strength at least min), whatever the text's words.
func usable(lc LedgerClaim, min evidence.Strength) bool {
	seams := len(lc.OpenSeams)
	statuses := make([]evidence.Status, len(lc.Citations))
	for i, ct := range lc.Citations {
		seams += len(ct.OpenSeams)
		statuses[i] = ct.Status
		if ct.Status == evidence.StatusNotFound {
			return false
		}
	}
	return evidence.HandOn(lc.Status, lc.Standing, seams, statuses) == evidence.HandOnOK && lc.Strength.Rank() >= min.Rank()
}

// hasCheckable reports whether a ledger claim has a citation with a URL and a quote.
func hasCheckable(lc LedgerClaim) bool {
	for _, ct := range lc.Citations {
		if evidence.CitationNote(ct.URL, ct.Quote) == "" {
			return true
		}
	}
	return false
}

// unfoundWords are the words of claim c's text (field words such as "source" removed), each
// once and in order, that are neither words of ledger claim lc's text nor of the quotes of
// its found citations without an open seam. A claim matched by citation rather than by text
// must state nothing else: a changed number, a negation or a clause appended to a verified
// quote is not verified by it.
func unfoundWords(lc LedgerClaim, c evidence.Claim) []string {
	parts := []string{lc.Text}
	for _, ct := range lc.Citations {
		if ct.Status == evidence.StatusFound && len(ct.OpenSeams) == 0 {
			parts = append(parts, ct.Quote)
		}
	}
	have := map[string]bool{}
	for _, w := range words(strings.Join(parts, " ")) {
		have[w] = true
	}
	var extra []string
	for _, w := range words(c.Text) {
		if !have[w] && !fieldWords[w] {
			have[w] = true
			extra = append(extra, w)
		}
	}
	return extra
}

// words are the lower-case words of s (evidence.LowerWords: numbers whole, as the matcher
// reads them) after the compatibility forms that keep their letters and digits are folded
// (evidence.FoldCompat: 10⁶ is never 106).
func words(s string) []string { return evidence.LowerWords(evidence.FoldCompat(s)) }

// fieldWords name citation fields and pointers to them ("see", "via"); they are not part of
// what a claim states.
var fieldWords = map[string]bool{
	"source": true, "sources": true, "url": true, "urls": true, "link": true, "links": true,
	"reference": true, "references": true, "citation": true, "citations": true, "quote": true,
	"quotes": true, "quotation": true, "excerpt": true, "evidence": true, "snippet": true,
	"see": true, "via": true,
}

// citedBy reports whether lc has a citation with ct's URL ([evidence.SameURL]) and, when ct
// has a quote, the same normalized quote. With found, that citation must also be
// found_at_source with no open seam.
func citedBy(lc LedgerClaim, ct evidence.Citation, found bool) bool {
	q := evidence.NormalizeText(ct.Quote)
	for _, lct := range lc.Citations {
		if !evidence.SameURL(lct.URL, ct.URL) || (q != "" && evidence.NormalizeText(lct.Quote) != q) {
			continue
		}
		if !found || (lct.Status == evidence.StatusFound && len(lct.OpenSeams) == 0) {
			return true
		}
	}
	return false
}

// gateRisk is the residual-risk statement of a decision.
func gateRisk(d Decision, min evidence.Strength) string {
	floor := ""
	if min != "" {
		floor = fmt.Sprintf(" at strength %s or above", min)
	}
	limits := "The gate sorts statements by written rules (docs/gate.md): what it takes for an instruction, preference, plan, question, code, opinion or heading is not verified, and statements inside fenced code blocks and JSON keys are not read as claims."
	switch {
	case strings.HasPrefix(d.Note, noteUnreadable):
		return "Nothing was verified: the gate could not read the text, so it blocks all of it."
	case len(d.Claims) == 0:
		return "Nothing was verified: the gate found no factual claim in the text. " + limits
	case d.Allow:
		return fmt.Sprintf("Allowed means each of the %d factual claims the gate read matches a ledger claim that is found_at_source, with no open seam and no citation not_found%s: the quoted words were in the visible text of the cited pages when they were fetched. It does not show that the claims are true, that the pages still say so, or that a quote supports its claim in its context. %s", len(d.Claims), floor, limits)
	}
	return fmt.Sprintf("Blocked means at least one factual claim could not be matched to a ledger claim that is found_at_source, with no open seam and no citation not_found%s. It does not show that any claim is false: it may be unchecked, waiting for a person, or worded differently from the ledger.", floor)
}
