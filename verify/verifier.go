package verify

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
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
	Match *Match
}

// Extractor turns a fetched body into visible text: fetch.ExtractDOM or fetch.ExtractTokens.
type Extractor func(body []byte, contentType string) (fetch.Text, error)

// QuoteVerifier is a default verifier: it fetches the page with a fetcher of its own, reads
// the visible text with its extractor, and looks for the quote with [MatchQuote]. It knows
// only whether the words are there, so it never answers contradicted.
type QuoteVerifier struct {
	name    string
	fetcher *fetch.Fetcher
	extract Extractor
}

// The names of the default verifiers, as recorded in each verdict.
const (
	NameDOM    = "dom"
	NameTokens = "tokens"
	NameThird  = "third"
)

// NewDOMVerifier returns a QuoteVerifier named [NameDOM] that reads pages with
// fetch.ExtractDOM through a new Fetcher built from cfg. No two verifiers share a Fetcher:
// each constructor builds its own, so its client, connections, robots.txt cache and
// politeness state are its own.
func NewDOMVerifier(cfg fetch.Config) *QuoteVerifier {
	return newQuoteVerifier(NameDOM, cfg, fetch.ExtractDOM)
}

// NewTokensVerifier returns a QuoteVerifier named [NameTokens] that reads pages with
// fetch.ExtractTokens through a new Fetcher built from cfg (see [NewDOMVerifier]).
func NewTokensVerifier(cfg fetch.Config) *QuoteVerifier {
	return newQuoteVerifier(NameTokens, cfg, fetch.ExtractTokens)
}

func newQuoteVerifier(name string, cfg fetch.Config, extract Extractor) *QuoteVerifier {
	return &QuoteVerifier{name: name, fetcher: fetch.New(cfg), extract: extract}
}

// Name returns the verifier's name.
func (v *QuoteVerifier) Name() string { return v.name }

// Verify fetches t.URL and looks for t.Quote in the page's visible text:
//
//   - found: supported, with an estimate by the folding tier that was needed (exact highest)
//     and lower when the page was cut at the size limit;
//   - not found in a complete, readable page: not_found;
//   - the page cannot be read (any fetch error, or an undecodable, empty or cut-off text in
//     which the quote was not found): unreachable, with the reason in plain words.
//
// A citation that cannot be checked (no http(s) URL, a quote too short) is never fetched
// and gets unreachable with the reason. A login-walled host is never fetched: the Report has
// LoginWall set.
func (v *QuoteVerifier) Verify(ctx context.Context, t evidence.CheckTarget) Report {
	if note := evidence.CitationNote(t.URL, t.Quote); note != "" {
		return v.unreachable(nil, 99, note, "not fetched: "+note+".")
	}
	page, err := v.fetcher.Fetch(ctx, t.URL)
	if err != nil {
		kind := fetch.KindOf(err)
		reason := err.Error()
		var fe *fetch.Error
		if errors.As(err, &fe) && fe.Reason != "" {
			reason = fe.Reason
		}
		r := v.unreachable(page, fetchEstimate(kind), "the page cannot be read: "+reason,
			fmt.Sprintf("fetching %s failed (%s): %s", t.URL, kind, reason))
		r.LoginWall = kind == fetch.KindLoginWall
		return r
	}
	text, xerr := page.Extract(v.extract)
	truncated := errors.Is(xerr, fetch.ErrTruncated)
	if xerr != nil && !truncated {
		return v.unreachable(page, extractEstimate(xerr), "the page's text cannot be read: "+plainExtractError(xerr),
			fmt.Sprintf("fetched %s (HTTP %d, %d bytes) but the %s extractor could not read its text: %v",
				page.FinalURL, page.Status, len(page.Body), v.name, xerr))
	}
	m, err := MatchQuote(text.Body, t.Quote)
	if err != nil {
		return v.unreachable(page, 90, "the quote could not be looked for: "+err.Error(),
			fmt.Sprintf("looking for the quote in %s failed: %v", page.FinalURL, err))
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
		return Report{
			Result: evidence.VerifierResult{
				Verifier:         v.name,
				Verdict:          evidence.VerdictSupported,
				AccuracyEstimate: est,
				Reasoning: fmt.Sprintf("the quote is in the visible text of %s as read by the %s extractor; %s; %s",
					page.FinalURL, v.name, tierReason[m.Tier], complete),
			},
			Note:  "found on the page: “" + m.Excerpt + "”",
			Page:  page,
			Match: &m,
		}
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
				page.FinalURL, v.name, complete),
		},
		Note:  "the quote is not on the page at " + page.FinalURL,
		Page:  page,
		Match: &m,
	}
	if m.Hint != nil {
		r.Result.AccuracyEstimate = 80
		r.Result.Reasoning += fmt.Sprintf("; the most similar passage holds %d%% of the quote's words (a paraphrase is not a match): “%s”", m.Hint.Similarity, m.Hint.Text)
		r.Note += fmt.Sprintf(" (closest passage, %d%% of its words, not a match: “%s”)", m.Hint.Similarity, m.Hint.Text)
	}
	return r
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
var tierEstimate = map[Tier]int{
	TierExact:       98,
	TierWhitespace:  96,
	TierInvisible:   94,
	TierUnicode:     92,
	TierPunctuation: 90,
	TierCase:        82,
}

var tierReason = map[Tier]string{
	TierExact:       "it matched exactly, byte for byte",
	TierWhitespace:  "it matched once runs of whitespace were folded to one space",
	TierInvisible:   "it matched once whitespace was folded and invisible characters (soft hyphens, zero-width characters) dropped",
	TierUnicode:     "it matched once whitespace, invisible characters and Unicode compatibility forms were folded",
	TierPunctuation: "it matched once typographic quotes and dashes were folded too",
	TierCase:        "it matched only with upper and lower case folded as well, so the capitalisation differs from the page",
}

// fetchEstimate is how sure a verifier is that a page that failed this way cannot be read.
func fetchEstimate(k fetch.Kind) int {
	switch k {
	case fetch.KindBadURL, fetch.KindLoginWall, fetch.KindBlockedAddress, fetch.KindRobots:
		return 97
	case fetch.KindGone:
		return 95
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

func plainExtractError(err error) string {
	switch {
	case errors.Is(err, fetch.ErrCharset):
		return fetch.ErrCharset.Error()
	case errors.Is(err, fetch.ErrNoText):
		return fetch.ErrNoText.Error() + " (scripts may draw it)"
	}
	return strings.TrimSpace(err.Error())
}
