package verify

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
)

// Checker checks citations: two independent verifiers for each, the adjudicator, and a third
// verifier when they split. It is safe for concurrent use.
//
// Independence is by construction: NewChecker builds every verifier's Fetcher itself from a
// fetch.Config, so the two verifiers never share a client, connection, cache or cookie, and
// they read text with different extractors (fetch.ExtractDOM and fetch.ExtractTokens).
// Nothing lets a caller hand one Fetcher to two verifiers.
type Checker struct {
	first, second Verifier
	// third builds a new verifier, with a new Fetcher, for each escalation, so that it
	// fetches afresh.
	third func() Verifier
	// models is the model tier (support.go); nil when it is off.
	models SupportJudge
	// render is the rendering verifier's browser, shared by the verifiers (each renders
	// its own capture, in a browser context of its own); nil when there is none.
	render *Renderer
}

// NewChecker returns a Checker whose verifiers fetch with cfg: [NameDOM] and [NameTokens]
// for every citation, and for an escalation a new [NameThird] verifier with a Fetcher of its
// own that reads text with fetch.ExtractDOM (PDFs with pdf.ExtractPDFium).
func NewChecker(cfg fetch.Config) *Checker {
	return &Checker{
		first:  NewDOMVerifier(cfg),
		second: NewTokensVerifier(cfg),
		third: func() Verifier {
			return newQuoteVerifier(NameThird, cfg, readDOM)
		},
	}
}

// WithRenderer returns a copy of c whose verifiers, the third of an escalation included,
// confirm each quote they find on a web page in the rendering verifier r, and read with its
// scripts on a page whose text only scripts draw when r has scripts on
// (docs/verification.md, "The rendering verifier"). nil turns it off: then, as when r finds
// no browser, the note and residual risk of a found quote on a web page say that its
// visibility rests on the style rules alone. The copy shares c's verifiers' fetchers; use
// one or the other. r's browser starts at the first rendering; [Renderer.Close] ends it.
func (c *Checker) WithRenderer(r *Renderer) *Checker {
	cc := *c
	cc.render = r
	cc.first = withRender(c.first, r)
	cc.second = withRender(c.second, r)
	third := c.third
	cc.third = func() Verifier { return withRender(third(), r) }
	return &cc
}

// WithPDFFailures returns a copy of c whose quote verifiers (the escalation's too) call
// failed with their name ([NameDOM], [NameTokens], [NameThird]) each time their PDF engine
// cannot read a PDF they fetched: an extraction error other than fetch.ErrTruncated. Such
// a check still comes out as it did (unreachable when no verifier read the text); the hook
// only counts. failed is called from the check's goroutines, at once, and must not block.
// The copy shares c's verifiers' fetchers; use one or the other.
func (c *Checker) WithPDFFailures(failed func(verifier string)) *Checker {
	with := func(v Verifier) Verifier {
		qv, ok := v.(*QuoteVerifier)
		if !ok {
			return v
		}
		cp := *qv
		cp.pdfFailed = failed
		return &cp
	}
	cc := *c
	cc.first, cc.second = with(c.first), with(c.second)
	third := c.third
	cc.third = func() Verifier { return with(third()) }
	return &cc
}

// Renderer returns the rendering verifier of c; nil when there is none.
func (c *Checker) Renderer() *Renderer { return c.render }

func withRender(v Verifier, r *Renderer) Verifier {
	qv, ok := v.(*QuoteVerifier)
	if !ok {
		return v
	}
	cp := *qv
	cp.render = r
	return &cp
}

// Outcome is the result of checking one citation, ready to be recorded.
type Outcome struct {
	Target evidence.CheckTarget
	// Halted: the citation was not checked and nothing was fetched (no URL, not http(s),
	// no quote to look for). Note says why; there is nothing to record.
	Halted bool
	Note   string
	// Checked is the citation.checked payload (when not Halted).
	Checked evidence.Checked
	// Body is the raw body of Checked.Document, to be stored by its SHA-256; nil when
	// there is no document, and nil in the outcomes RunBatch returns (it was recorded).
	Body []byte
	// RequestHead and ResponseHead are the heads of the capture's final request and
	// response, stored by the SHA-256 in Checked.Document; nil like Body.
	RequestHead, ResponseHead []byte
	// Seam is the seam to open in the same transaction, or nil.
	Seam *evidence.SeamOpened
}

// Statuses of a check: the citation's new status for each deciding verdict.
var decisionStatus = map[evidence.Verdict]evidence.Status{
	evidence.VerdictSupported:    evidence.StatusFound,
	evidence.VerdictNotFound:     evidence.StatusNotFound,
	evidence.VerdictUnreachable:  evidence.StatusUnreachable,
	evidence.VerdictContradicted: evidence.StatusNotFound,
}

// Check checks one citation in a run of its own: it is c.NewRun().Check(ctx, t).
func (c *Checker) Check(ctx context.Context, t evidence.CheckTarget) (Outcome, error) {
	return c.NewRun().Check(ctx, t)
}

// Run is one check run (a job, one ledger check, one gate check). It owns the captures of
// the run: within it each of the two verifiers fetches a URL once and reuses its own
// [Capture] for every citation of that URL, the text folded once and shared by every quote.
// The two verifiers never share a capture, and the third verifier of an escalation fetches
// afresh. Nothing of a run outlives it: a new run fetches every page again. It is safe for
// concurrent use.
//
// A run keeps a URL's captures until [Run.Release] drops them; [RunBatch] and [Jobs] check
// the citations of one URL together and release it after the last, so a run holds only the
// pages in use.
type Run struct {
	c  *Checker
	mu sync.Mutex
	// pages holds, by URL, the captures of the first and second verifier.
	pages map[string]*[2]runCapture
	// expected holds, by URL, the quotes the run will look for there (see expect).
	expected map[string][]string
	// sights is the run's renderings (render_check.go).
	sights renderMemo
}

// runCapture is one verifier's capture of one URL, made once.
type runCapture struct {
	once sync.Once
	c    *Capture
}

// capturer is a Verifier whose reading of a page a Run can keep for every citation of it.
// *QuoteVerifier is one; a verifier that is not is asked with Verify for each citation.
type capturer interface {
	Capture(ctx context.Context, url string) *Capture
	Judge(ctx context.Context, t evidence.CheckTarget, c *Capture) Report
}

// NewRun starts a check run with the Checker's verifiers.
func (c *Checker) NewRun() *Run { return &Run{c: c, pages: map[string]*[2]runCapture{}} }

// Release drops the run's captures of url; a later citation of it is fetched again.
func (r *Run) Release(url string) {
	r.mu.Lock()
	delete(r.pages, url)
	delete(r.expected, url)
	r.mu.Unlock()
	r.sights.drop(url)
}

// expect tells the run which quotes it will look for at url, before the first capture of
// it: a PDF's ink check then confirms them together, each page rendered in one engine run.
func (r *Run) expect(url string, quotes []string) {
	r.mu.Lock()
	if r.expected == nil {
		r.expected = map[string][]string{}
	}
	r.expected[url] = quotes
	r.mu.Unlock()
}

// verify asks verifier i (0 or 1) about t, through the run's capture of t.URL when the
// verifier can use one.
func (r *Run) verify(ctx context.Context, i int, v Verifier, t evidence.CheckTarget) Report {
	cv, ok := v.(capturer)
	if !ok {
		return v.Verify(ctx, t)
	}
	r.mu.Lock()
	p := r.pages[t.URL]
	if p == nil {
		p = new([2]runCapture)
		r.pages[t.URL] = p
	}
	expected := r.expected[t.URL]
	r.mu.Unlock()
	rc := &p[i]
	rc.once.Do(func() {
		rc.c = cv.Capture(ctx, t.URL)
		rc.c.expected = expected
		rc.c.memo = &r.sights
	})
	return cv.Judge(ctx, t, rc.c)
}

// Check checks one citation. It returns an error only when ctx ends before the check is
// complete; then nothing of the check may be recorded, and checking again starts afresh.
//
//   - No source of record (no URL, a URL that is not http(s)) or no quote to look for: the
//     Outcome is Halted with the note, and nothing is fetched.
//   - A login-walled host: no verdicts; status stays reported and a manual seam opens.
//   - Otherwise the two verifiers run at once and the adjudicator weighs them, escalating
//     to a third verifier when they split or one is off its schema. A decision sets the
//     status (supported: found_at_source; not_found, which includes a page that does not
//     exist; unreachable; contradicted: not_found and a contradiction seam). A split leaves
//     the status reported and opens a disagreement seam showing every verdict.
//
// The stored document is the page of the first verifier, in the order dom, tokens, third,
// whose verdict decided; when nothing decided, the first page any verifier fetched. Each
// verdict records the SHA-256 of the body its verifier read.
func (r *Run) Check(ctx context.Context, t evidence.CheckTarget) (Outcome, error) {
	c := r.c
	if note := evidence.CitationNote(t.URL, t.Quote); note != "" {
		return Outcome{Target: t, Halted: true, Note: note}, nil
	}
	reports := make([]Report, 2)
	var wg sync.WaitGroup
	for i, v := range []Verifier{c.first, c.second} {
		wg.Go(func() { reports[i] = r.verify(ctx, i, v, t) })
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		// A capture made while ctx ended holds that failure: drop it.
		r.Release(t.URL)
		return Outcome{}, fmt.Errorf("check of citation %s interrupted: %w", t.CitationID, err)
	}
	if reports[0].LoginWall || reports[1].LoginWall {
		return loginWalled(t), nil
	}
	ruling := Adjudicate(t, results(reports))
	if ruling.Escalate {
		reports = append(reports, c.third().Verify(ctx, t))
		if err := ctx.Err(); err != nil {
			return Outcome{}, fmt.Errorf("check of citation %s interrupted: %w", t.CitationID, err)
		}
		ruling = Adjudicate(t, results(reports))
	}
	out := c.review(ctx, t, reports, outcome(t, reports, ruling))
	if err := ctx.Err(); err != nil {
		return Outcome{}, fmt.Errorf("check of citation %s interrupted: %w", t.CitationID, err)
	}
	return out, nil
}

func results(reports []Report) []evidence.VerifierResult {
	out := make([]evidence.VerifierResult, len(reports))
	for i, r := range reports {
		out[i] = r.Result
	}
	return out
}

func loginWalled(t evidence.CheckTarget) Outcome {
	seam := newSeam(evidence.SeamManual, t,
		"A person must open "+t.URL+" (a login-walled host, never fetched) and decide whether the quote is there.")
	return Outcome{
		Target: t,
		Checked: evidence.Checked{
			Citation: t.CitationID,
			Claim:    t.ClaimID,
			Status:   evidence.StatusReported,
			Note:     "login-walled host, never fetched: a person must open it (seam " + seam.Seam + ")",
			Verdicts: []evidence.CheckVerdict{},
			Adjudication: evidence.Adjudication{
				ResidualRisk: "Nothing was fetched from " + t.URL + ": the host needs a login, so this program never opens it. Nothing is known about the quote, and not whether the claim is true, until a person looks.",
			},
		},
		Seam: seam,
	}
}

func outcome(t evidence.CheckTarget, reports []Report, ruling Ruling) Outcome {
	out := Outcome{Target: t}
	ch := evidence.Checked{
		Citation:     t.CitationID,
		Claim:        t.ClaimID,
		Adjudication: ruling.Adjudication,
	}
	decisive := -1
	for i, r := range reports {
		v := evidence.CheckVerdict{VerifierResult: r.Result, Problem: ruling.Problems[i]}
		if r.Page != nil {
			v.Document = PageHash(r.Page)
		}
		ch.Verdicts = append(ch.Verdicts, v)
		if decisive < 0 && ruling.Decision != "" && v.Problem == "" && r.Result.Verdict == ruling.Decision {
			decisive = i
		}
	}
	stored := decisive
	if stored < 0 || reports[stored].Page == nil {
		stored = -1
		for i, r := range reports {
			if r.Page != nil {
				stored = i
				break
			}
		}
	}
	if stored >= 0 {
		ch.Document = document(reports[stored].Page)
		p := reports[stored].Page
		out.Body = p.Body
		if len(p.RequestHead) > 0 && len(p.ResponseHead) > 0 {
			out.RequestHead, out.ResponseHead = p.RequestHead, p.ResponseHead
			ch.Document.RequestHead, ch.Document.ResponseHead = sha256Hex(p.RequestHead), sha256Hex(p.ResponseHead)
		}
	}
	switch {
	case ruling.Split:
		ch.Status = evidence.StatusReported
		var parts []string
		for _, v := range ch.Verdicts {
			s := v.Verifier + ": " + string(v.Verdict)
			if v.Problem != "" {
				s += " (off its schema)"
			}
			parts = append(parts, s)
		}
		out.Seam = newSeam(evidence.SeamDisagreement, t,
			"The verifiers split on "+t.URL+" ("+strings.Join(parts, "; ")+"); a person must decide whether the quote is there.")
		ch.Note = "the verifiers disagree (" + strings.Join(parts, "; ") + "): a person must decide (seam " + out.Seam.Seam + ")"
	default:
		r := reports[decisive]
		ch.Status = decisionStatus[ruling.Decision]
		ch.Note = r.Note
		if r.Match != nil && r.Match.Found {
			ch.Excerpt = r.Match.Excerpt
			ch.Tier = r.Match.Tier.String()
		}
		if ch.Status == evidence.StatusFound && r.Render != nil && r.Render.Sight == evidence.SightStyleOnly {
			ch.Adjudication.ResidualRisk += " " + evidence.RiskStyleOnly
		}
		if ruling.Decision == evidence.VerdictContradicted {
			out.Seam = newSeam(evidence.SeamContradiction, t,
				"A verifier found that the page at "+t.URL+" contradicts the claim; a person must weigh it.")
			ch.Note += " (seam " + out.Seam.Seam + ")"
		}
	}
	recordPDF(&ch, reports, stored, decisive)
	out.Checked = ch
	return out
}

// document describes a fetched page as the ledger records it.
func document(p *fetch.Result) *evidence.Document {
	d := &evidence.Document{
		SHA256:      PageHash(p),
		URL:         p.RequestedURL,
		FinalURL:    p.FinalURL,
		FetchedAt:   p.FetchedAt.UTC().Format(timeFormat),
		HTTPStatus:  p.Status,
		ContentType: p.ContentType,
		Truncated:   p.Truncated,
		IP:          p.IP,
		Hops:        make([]evidence.Hop, 0, len(p.Hops)),
	}
	for _, h := range p.Hops {
		d.Hops = append(d.Hops, evidence.Hop{URL: h.URL, Status: h.Status, IP: h.IP})
	}
	return d
}

// PageHash is the SHA-256 of the body a verifier read, the hash its document is recorded
// by. For an error status (a 404) fetch answers without reading the body, so the page is
// recorded with the empty body it has.
func PageHash(p *fetch.Result) string {
	if p.SHA256 != "" {
		return p.SHA256
	}
	return sha256Hex(p.Body)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// timeFormat is how a document's fetch time is written: RFC 3339, UTC, milliseconds.
const timeFormat = "2006-01-02T15:04:05.000Z"

func newSeam(kind evidence.SeamKind, t evidence.CheckTarget, summary string) *evidence.SeamOpened {
	return &evidence.SeamOpened{
		Seam:      newID("s_"),
		Kind:      kind,
		Summary:   summary,
		Claims:    []string{t.ClaimID},
		Citations: []string{t.CitationID},
	}
}

// newID returns prefix followed by 16 lowercase hex characters from a cryptographic random
// source, the form of every identifier the program makes (docs/events.md).
func newID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return prefix + hex.EncodeToString(b[:])
}
