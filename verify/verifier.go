package verify

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
	"evidenceledger/match"
	"evidenceledger/pdf"
)

// Verifier checks one citation at its source. Verify never fails: whatever goes wrong is
// part of the Report (an unreachable verdict with its reason). A Report whose Result is off
// its schema (see evidence.VerifierResult.Validate) is escalated by the Checker and never
// decides anything.
type Verifier interface {
	Verify(ctx context.Context, t evidence.CheckTarget) Report
}

// Report is one verifier's answer about one citation, with what it read.
type Report struct {
	// Result is the verdict, the accuracy estimate (1..100) and the reasoning.
	Result evidence.VerifierResult
	// Note says in a few plain words what was found, for the citation's note.
	Note string
	// Page is what the verifier fetched; nil when nothing came back from a server.
	Page *fetch.Result
	// LoginWall: the URL (or a redirect hop) is on a login-walled host and was never
	// fetched; a person must open it.
	LoginWall bool
	// Match is the quote match when the page's text could be read.
	Match *match.Match
	// PDF is what was learnt of a PDF whose text could be read; nil for a web page.
	PDF *PDFFacts
	// Render is what the rendering verifier learnt of the quote on a web page whose text
	// holds it (or that its scripts draw); nil otherwise.
	Render *RenderFacts
}

// Extractor turns a fetched web page into visible text: fetch.ExtractDOM or
// fetch.ExtractTokens. Each verifier pairs one with a PDF engine of its own (see reader).
type Extractor func(body []byte, contentType string) (fetch.Text, error)

// QuoteVerifier is a default verifier: it fetches the page with a fetcher of its own, reads
// the visible text with its extractor, and looks for the quote with [MatchQuote]. It knows
// only whether the words are there, so it never answers contradicted.
type QuoteVerifier struct {
	name    string
	fetcher *fetch.Fetcher
	read    reader
	// render is the rendering verifier that confirms a quote found on a web page; nil
	// when there is none (then visibility rests on the style rules alone).
	render *Renderer
	// pdfFailed, when not nil, is told the verifier's name each time its PDF engine cannot
	// read a fetched PDF (see Checker.WithPDFFailures).
	pdfFailed func(verifier string)
}

// The names of the default verifiers, as recorded in each verdict.
const (
	NameDOM    = "dom"
	NameTokens = "tokens"
	NameThird  = "third"
)

// NewDOMVerifier returns a QuoteVerifier named [NameDOM] that reads pages with
// fetch.ExtractDOM, and PDFs with pdf.ExtractPDFium, through a new Fetcher built from
// cfg. No two verifiers share a Fetcher: each constructor builds its own, so its client,
// connections, robots.txt cache and politeness state are its own.
func NewDOMVerifier(cfg fetch.Config) *QuoteVerifier {
	return newQuoteVerifier(NameDOM, cfg, readDOM)
}

// NewTokensVerifier returns a QuoteVerifier named [NameTokens] that reads pages with
// fetch.ExtractTokens, and PDFs with pdf.ExtractPDFText, through a new Fetcher built
// from cfg (see [NewDOMVerifier]).
func NewTokensVerifier(cfg fetch.Config) *QuoteVerifier {
	return newQuoteVerifier(NameTokens, cfg, readTokens)
}

func newQuoteVerifier(name string, cfg fetch.Config, read reader) *QuoteVerifier {
	return &QuoteVerifier{name: name, fetcher: fetch.New(cfg), read: read}
}

// Name returns the verifier's name.
func (v *QuoteVerifier) Name() string { return v.name }

// Capture is what one verifier read at one URL during a check run: the fetched page (or why
// it could not be fetched) and its visible text, ready to be matched by every quote cited
// from that URL. Its owner is the [Run] that made it (or one [QuoteVerifier.Verify] call);
// it is never shared between verifiers. It is read-only once made, so the citations of a run
// may use it at once.
type Capture struct {
	// URL is the URL that was fetched.
	URL string
	// Page is what the server sent; nil when no answer came back.
	Page *fetch.Result
	// FetchErr is why the fetch failed, or nil.
	FetchErr error
	// Text is the visible text, folded once per tier and shared by every quote; nil when
	// the fetch failed or the text cannot be read.
	Text *match.PageText
	// ExtractErr is why the text cannot be read, or nil (fetch.ErrTruncated is kept here
	// and does not make Text nil: a cut page's beginning is still read).
	ExtractErr error
	// PDF is, for a PDF whose text could be read, its pages and engine; nil otherwise.
	PDF *pdf.Text
	// alt is, for such a PDF, its other reading of unsettled line-end hyphens (see
	// pdf.Text.Alt); nil when there is none.
	alt *match.PageText
	// expected are the quotes the run will look for in this capture, whose ink a PDF's
	// first ink check confirms at once (pdf.go); ink keeps the verdicts.
	expected []string
	ink      inkCache
	// render and extract are the verifier's renderer and extractor, for the rendering
	// verifier (render_check.go); sights is what it learnt.
	render  *Renderer
	extract Extractor
	sights  renderState
	// memo is the run's renderings, shared by the verifiers' captures of the same bytes;
	// nil outside a run.
	memo *renderMemo
}

// Capture fetches url with the verifier's own fetcher and reads its text with its own
// extractor. It never fails: what goes wrong is in the Capture.
func (v *QuoteVerifier) Capture(ctx context.Context, url string) *Capture {
	c := &Capture{URL: url, render: v.render, extract: v.read.html}
	c.Page, c.FetchErr = v.fetcher.Fetch(ctx, url)
	if c.FetchErr != nil {
		return c
	}
	text, doc, err := v.read.read(c.Page)
	c.ExtractErr = err
	if err != nil && !errors.Is(err, fetch.ErrTruncated) && v.pdfFailed != nil && fetch.IsPDF(c.Page.ContentType, c.Page.Body) {
		v.pdfFailed(v.name)
	}
	if err == nil || errors.Is(err, fetch.ErrTruncated) {
		c.setText(text, doc)
	}
	return c
}

// Verify fetches t.URL and looks for t.Quote in the page's visible text; it is
// v.Judge(ctx, t, v.Capture(ctx, t.URL)). A citation that cannot be checked (no http(s) URL, no
// quote to look for) is never fetched and gets unreachable with the reason.
func (v *QuoteVerifier) Verify(ctx context.Context, t evidence.CheckTarget) Report {
	if note := evidence.CitationNote(t.URL, t.Quote); note != "" {
		return v.unreachable(nil, 99, note, "not fetched: "+note+".")
	}
	return v.Judge(ctx, t, v.Capture(ctx, t.URL))
}

// Judge looks for t.Quote in what c holds, which must be this verifier's capture of t.URL:
//
//   - found: supported, with an estimate by the folding tier that was needed (exact highest)
//     and lower when the page was cut at the size limit;
//   - not found in a complete, readable page, or found only with an ellipsis that drops a
//     negation, or found in the text of a web page whose rendering shows the words to no
//     reader (render_check.go): not_found;
//   - a web page whose static text has no words, that has a script, read by a verifier whose
//     renderer has scripts on: judged on the text its inline scripts draw (judgeScripted);
//   - the page does not exist (404, 410, a host that does not exist): not_found with the note
//     evidence.NoteAbsent (evidence.NoteNoHost for a host) — a fabricated source is what the
//     check exists to catch;
//   - the page cannot be read (any other fetch error, or an undecodable, empty or cut-off
//     text in which the quote was not found): unreachable, with the reason in plain words.
//
// A login-walled host is never fetched: the Report has LoginWall set.
//
// ctx bounds the rendering of the page, when the verifier has a renderer.
func (v *QuoteVerifier) Judge(ctx context.Context, t evidence.CheckTarget, c *Capture) Report {
	page := c.Page
	if err := c.FetchErr; err != nil {
		kind := fetch.KindOf(err)
		reason := err.Error()
		var fe *fetch.Error
		if errors.As(err, &fe) && fe.Reason != "" {
			reason = fe.Reason
		}
		if fe != nil && fe.Absent() {
			note := evidence.NoteAbsent + ": " + reason
			if kind == fetch.KindNoHost {
				host := fe.URL
				if u, err := url.Parse(fe.URL); err == nil && u.Hostname() != "" {
					host = u.Hostname()
				}
				note = evidence.NoteNoHost + " " + host + " does not exist (the name server answered that there is no such host)"
			}
			return Report{
				Result: evidence.VerifierResult{
					Verifier:         v.name,
					Verdict:          evidence.VerdictNotFound,
					AccuracyEstimate: fetchEstimate(kind),
					Reasoning:        fmt.Sprintf("fetching %s: %s; the cited page does not exist, so the quote is not at its source", t.URL, reason),
				},
				Note: note,
				Page: page,
			}
		}
		r := v.unreachable(page, fetchEstimate(kind), "the page cannot be read: "+reason,
			fmt.Sprintf("fetching %s failed (%s): %s", t.URL, kind, reason))
		r.LoginWall = kind == fetch.KindLoginWall
		return r
	}
	xerr := c.ExtractErr
	truncated := errors.Is(xerr, fetch.ErrTruncated)
	if c.scriptable() {
		return v.judgeScripted(ctx, t, c)
	}
	if c.Text == nil {
		return v.unreachable(page, extractEstimate(xerr), "the page's text cannot be read: "+ReadProblem(xerr),
			fmt.Sprintf("fetched %s (HTTP %d, %d bytes) but the %s extractor could not read its text: %v",
				page.FinalURL, page.Status, len(page.Body), v.name, xerr))
	}
	m, pdf, err := c.match(t.Quote)
	if err != nil {
		return v.unreachable(page, 90, "the quote could not be looked for: "+err.Error(),
			fmt.Sprintf("looking for the quote in %s failed: %v", page.FinalURL, err))
	}
	var rf *RenderFacts
	if m.Found && pdf == nil && isHTMLPage(page) {
		f := c.sightOf(ctx, t.Quote, m)
		rf = &f
		if evidence.SightVerdict(true, f.Sight) != evidence.VerdictSupported {
			return v.unseen(page, f)
		}
	}
	complete := "the page was read to its end"
	if truncated {
		complete = fmt.Sprintf("the page was cut off at %d bytes, so only its beginning was read", len(page.Body))
	}
	if m.Found {
		est := tierEstimate[m.Tier]
		if truncated {
			est -= 15
		}
		r := Report{
			Result: evidence.VerifierResult{
				Verifier:         v.name,
				Verdict:          evidence.VerdictSupported,
				AccuracyEstimate: est,
				Reasoning: fmt.Sprintf("the quote is in the visible text of %s as read by the %s extractor; %s; %s",
					page.FinalURL, v.name, tierReason[m.Tier], complete) + pdfReasoning(pdf),
			},
			Note:   foundNote(m, pdf),
			Page:   page,
			Match:  &m,
			PDF:    pdf,
			Render: rf,
		}
		if rf != nil {
			r.Result.Reasoning += renderReasoning(*rf)
			r.Note += renderNote(*rf)
		}
		return r
	}
	if truncated {
		return v.unreachable(page, extractEstimate(fetch.ErrTruncated), "the page was cut off at the size limit and the quote is not in the part that was read",
			fmt.Sprintf("the quote is not in the first %d bytes of %s (the %s extractor read them); the rest of the page was cut off at the size limit, so the quote may be there",
				len(page.Body), page.FinalURL, v.name))
	}
	r := Report{
		Result: evidence.VerifierResult{
			Verifier:         v.name,
			Verdict:          evidence.VerdictNotFound,
			AccuracyEstimate: 90,
			Reasoning: fmt.Sprintf("the quote is not in the visible text of %s as read by the %s extractor, at any folding (whitespace, invisible characters, Unicode forms, punctuation, case); %s",
				page.FinalURL, v.name, complete) + pdfReasoning(pdf),
		},
		Note:  "the quote is not on the page at " + page.FinalURL,
		Page:  page,
		Match: &m,
		PDF:   pdf,
	}
	unseenNote(&r, pdf)
	if m.Negation != "" {
		r.Result.Reasoning += fmt.Sprintf("; its parts are there, but the text the ellipsis leaves out between them says %q, so the quote drops a negation and says what the page does not", m.Negation)
		r.Note += fmt.Sprintf(": the ellipsis drops a negation (“%s”) that the page has between the parts", m.Negation)
	}
	if m.Hint != nil {
		r.Result.AccuracyEstimate = 80
		r.Result.Reasoning += fmt.Sprintf("; the most similar passage holds %d%% of the quote's words (a paraphrase is not a match): “%s”", m.Hint.Similarity, m.Hint.Text)
		r.Note += fmt.Sprintf(" (closest passage, %d%% of its words, not a match: “%s”)", m.Hint.Similarity, m.Hint.Text)
	}
	return r
}

// unseen is the not_found report of a quote whose words the web page's text holds but
// whose rendering shows them to no reader.
func (v *QuoteVerifier) unseen(page *fetch.Result, f RenderFacts) Report {
	return Report{
		Result: evidence.VerifierResult{
			Verifier:         v.name,
			Verdict:          evidence.VerdictNotFound,
			AccuracyEstimate: 88,
			Reasoning: fmt.Sprintf("the quote's words are in the visible text of %s as read by the %s extractor, but rendered in headless Chromium with every request answered from the capture they are not drawn where a reader sees them: %s",
				page.FinalURL, v.name, f.Why),
		},
		Note:   evidence.NoteUnseen + ": " + f.Why,
		Page:   page,
		Match:  &match.Match{},
		Render: &f,
	}
}

func (v *QuoteVerifier) unreachable(page *fetch.Result, estimate int, note, reasoning string) Report {
	return Report{
		Result: evidence.VerifierResult{
			Verifier:         v.name,
			Verdict:          evidence.VerdictUnreachable,
			AccuracyEstimate: estimate,
			Reasoning:        reasoning,
		},
		Note: note,
		Page: page,
	}
}

// tierEstimate is the accuracy estimate of a found quote by the folding it needed: the more
// folding, the more room for a look-alike passage that is not what the researcher quoted.
var tierEstimate = map[match.Tier]int{
	match.TierExact:       98,
	match.TierWhitespace:  96,
	match.TierInvisible:   94,
	match.TierUnicode:     92,
	match.TierPunctuation: 90,
	match.TierCase:        82,
}

var tierReason = map[match.Tier]string{
	match.TierExact:       "it matched exactly, byte for byte",
	match.TierWhitespace:  "it matched once runs of whitespace were folded to one space",
	match.TierInvisible:   "it matched once whitespace was folded and invisible characters (soft hyphens, zero-width characters) dropped",
	match.TierUnicode:     "it matched once whitespace, invisible characters and Unicode compatibility forms were folded",
	match.TierPunctuation: "it matched once typographic quotes and dashes were folded too",
	match.TierCase:        "it matched only with upper and lower case folded as well, so the capitalisation differs from the page",
}

// fetchEstimate is how sure a verifier is that a page that failed this way cannot be read.
func fetchEstimate(k fetch.Kind) int {
	switch k {
	case fetch.KindBadURL, fetch.KindLoginWall, fetch.KindBlockedAddress, fetch.KindRobots:
		return 97
	case fetch.KindGone:
		return 95
	case fetch.KindNoHost:
		return 92
	case fetch.KindNeedsLogin, fetch.KindUnsupportedType, fetch.KindTooManyRedirects, fetch.KindRedirectLoop:
		return 90
	case fetch.KindHTTPStatus, fetch.KindNetwork:
		return 80
	case fetch.KindTimeout:
		return 65
	}
	return 50
}

func extractEstimate(err error) int {
	switch {
	case errors.Is(err, fetch.ErrCharset):
		return 85
	case errors.Is(err, fetch.ErrNoText):
		return 80
	case errors.Is(err, fetch.ErrTruncated):
		return 70
	}
	return 60
}

// ReadProblem says in plain words why a page's text could not be read, for a note: the
// error of [ReadDOM] or [ReadTokens] (or of an Extractor) without the wrapping a person does
// not need.
func ReadProblem(err error) string {
	switch {
	case errors.Is(err, fetch.ErrCharset):
		return fetch.ErrCharset.Error()
	case errors.Is(err, fetch.ErrNoText):
		return fetch.ErrNoText.Error() + " (scripts may draw it)"
	}
	return strings.TrimSpace(err.Error())
}
