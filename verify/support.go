package verify

import (
	"context"
	"fmt"
	"strings"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
)

// SupportJudge is the model tier as a Checker runs it (docs/models.md): whether a page a
// verifier read supports a citation's claim, judged beside the quote status and never
// instead of it. Package verify/model implements it; give it to [Checker.WithModels].
type SupportJudge interface {
	// BeginRun returns a context for one check run: every Check under it draws on what the
	// run shares (the model tier's budget of calls and tokens). A Check whose context did
	// not come from BeginRun has a run of its own.
	BeginRun(ctx context.Context) context.Context
	// JudgeSupport judges t's claim against page, a capture a verifier read with a 2xx
	// status. It never returns nil: a judgement that could not be made says why in its
	// Skipped or in its judgements' Problem. It must be safe for concurrent use.
	JudgeSupport(ctx context.Context, t evidence.CheckTarget, page *fetch.Result) *evidence.Support
}

// WithModels returns a copy of c that also runs the model tier m on every citation whose
// page was read; nil turns it off.
func (c *Checker) WithModels(m SupportJudge) *Checker {
	cc := *c
	cc.models = m
	return &cc
}

// beginRun gives ctx what one check run shares (see SupportJudge.BeginRun); with the model
// tier off it returns ctx.
func (c *Checker) beginRun(ctx context.Context) context.Context {
	if c.models == nil {
		return ctx
	}
	return c.models.BeginRun(ctx)
}

// review adds to the outcome of a quote check what is judged beyond the quote's words: the
// code-only consistency check of the claim against a found quote, and, when the model tier
// is on, the support judgement of the stored page. Each may open a seam (see addSeam); the
// quote status is never changed here.
func (c *Checker) review(ctx context.Context, t evidence.CheckTarget, reports []Report, out Outcome) Outcome {
	ch := &out.Checked
	if ch.Status == evidence.StatusFound && ch.Excerpt != "" {
		if ms := evidence.CompareClaim(t.ClaimText, t.Quote, ch.Excerpt); len(ms) > 0 {
			ch.Consistency = ms
			said := make([]string, len(ms))
			for i, m := range ms {
				said[i] = m.String()
			}
			id := addSeam(&out, evidence.SeamContradiction, t, fmt.Sprintf(
				"The quote is on the page at %s, but the claim does not say what the page says: %s. The claim: “%s”. The page: “%s”.",
				t.URL, strings.Join(said, "; "), t.ClaimText, ch.Excerpt))
			ch.Note += "; but " + strings.Join(said, "; ") + " (seam " + id + ")"
		}
	}
	if c.models == nil {
		return out
	}
	var page *Report
	for i := range reports {
		if p := reports[i].Page; p != nil && ch.Document != nil && PageHash(p) == ch.Document.SHA256 {
			page = &reports[i]
			break
		}
	}
	switch {
	case page == nil || ch.Status == evidence.StatusUnreachable || page.Page.Status < 200 || page.Page.Status > 299:
		ch.Support = &evidence.Support{Skipped: "the page could not be read, so no model judged it",
			Judgements: []evidence.SupportJudgement{}, Calls: []evidence.ModelCall{}, ResidualRisk: evidence.SupportResidualRisk}
		return out
	}
	s := c.models.JudgeSupport(ctx, t, page.Page)
	ch.Support = s
	if s.Skipped != "" {
		ch.Note += "; support not judged: " + s.Skipped
		return out
	}
	switch {
	case s.Verdict == evidence.VerdictContradicted:
		id := addSeam(&out, evidence.SeamContradiction, t, fmt.Sprintf(
			"The model verifiers read the page at %s as contradicting the claim “%s”. The page's own words: %s.",
			t.URL, t.ClaimText, quoteAll(decidingEvidence(s))))
		ch.Note += "; support: the page contradicts the claim (" + decidedBy(s) + ", seam " + id + ")"
	case s.Verdict == "":
		id := addSeam(&out, evidence.SeamDisagreement, t, fmt.Sprintf(
			"The model verifiers split on whether the page at %s supports the claim “%s” (%s); a person must decide.",
			t.URL, t.ClaimText, judgementList(s)))
		ch.Note += "; support: the model verifiers split (seam " + id + ")"
	case s.Verdict == evidence.VerdictSupported && ch.Status == evidence.StatusNotFound:
		id := addSeam(&out, evidence.SeamDisagreement, t, fmt.Sprintf(
			"The quote is not on the page at %s, but the model verifiers found the page supports the claim “%s” in its own words: %s. A person may accept the page's sentences as the citation's evidence (resolve found_at_source) or keep it not_found.",
			t.URL, t.ClaimText, quoteAll(decidingEvidence(s))))
		ch.Note += "; support: the page supports the claim in its own words: " + quoteAll(decidingEvidence(s)) + " (" + decidedBy(s) + ", seam " + id + ")"
	case s.Verdict == evidence.VerdictNotFound && ch.Status == evidence.StatusFound:
		id := addSeam(&out, evidence.SeamDisagreement, t, fmt.Sprintf(
			"The quote is on the page at %s, but the model verifiers found that the page does not address the claim “%s”; a person must decide whether the quote supports it.",
			t.URL, t.ClaimText))
		ch.Note += "; support: the page does not address the claim (" + decidedBy(s) + ", seam " + id + ")"
	default:
		ch.Note += "; support: " + string(s.Verdict) + " (" + decidedBy(s) + ")"
	}
	return out
}

// addSeam gives the outcome a seam of kind about t and returns its id. An outcome has one
// seam at most: when it has one already, the summaries are joined and the seam is a
// contradiction if either is.
func addSeam(out *Outcome, kind evidence.SeamKind, t evidence.CheckTarget, summary string) string {
	if out.Seam == nil {
		out.Seam = newSeam(kind, t, summary)
		return out.Seam.Seam
	}
	if kind == evidence.SeamContradiction {
		out.Seam.Kind = kind
	}
	out.Seam.Summary += " Also: " + summary
	return out.Seam.Seam
}

func decidedBy(s *evidence.Support) string {
	if s.DecidedBy == evidence.SupportByAdjudicator {
		return "decided by the adjudicator after escalation"
	}
	return "both model verifiers agree"
}

// decidingEvidence returns the evidence sentences of the judgements on their schema that
// gave the deciding verdict, each once, in order.
func decidingEvidence(s *evidence.Support) []string {
	var out []string
	seen := map[string]bool{}
	for _, j := range s.Judgements {
		if j.Problem != "" || j.Verdict != s.Verdict {
			continue
		}
		for _, e := range j.Evidence {
			if !seen[e] {
				seen[e] = true
				out = append(out, e)
			}
		}
	}
	return out
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = "“" + s + "”"
	}
	return strings.Join(q, " ")
}

func judgementList(s *evidence.Support) string {
	var parts []string
	for _, j := range s.Judgements {
		p := j.Verifier + ": " + string(j.Verdict)
		if j.Problem != "" {
			p = j.Verifier + ": off its schema (" + j.Problem + ")"
		}
		parts = append(parts, p)
	}
	if a := s.Adjudication; a != nil {
		if a.Problem != "" {
			parts = append(parts, "adjudicator: off its schema ("+a.Problem+")")
		} else {
			parts = append(parts, fmt.Sprintf("adjudicator: %s, escalate %t", a.Verdict, a.Escalate))
		}
	}
	return strings.Join(parts, "; ")
}
