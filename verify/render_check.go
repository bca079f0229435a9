package verify

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"strings"
	"sync"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
	"evidenceledger/match"
)

// RenderFacts is what the rendering verifier learnt of a quote on a web page.
type RenderFacts struct {
	// Sight: seen, unseen, or not rendered (visibility rests on the style rules alone).
	Sight evidence.Sight
	// Why says, when Sight is not SightSeen, why: what the rendering showed, or why the
	// page was not rendered.
	Why string
	// Scripts: the text was read from the page as its scripts draw it.
	Scripts bool
}

// renderState is what a capture learnt from rendering: the verdicts on quotes' parts, kept
// for the quotes to come, and for a page its scripts draw, the text they draw.
type renderState struct {
	mu sync.Mutex
	// seen holds, by the parts of a quote (partsKey), the browser's answer.
	seen map[string]sight
	// scripted is the text of the page as its scripts draw it, once read; scriptErr is why
	// it could not be read.
	scripted  *match.PageText
	scriptRun bool
	scriptErr error
}

func partsKey(parts []string) string { return strings.Join(parts, "\x00") }

// matchedParts returns the page's own text of each part of a found match.
func matchedParts(text string, m match.Match) []string {
	out := make([]string, len(m.Spans))
	for i, sp := range m.Spans {
		out[i] = text[sp.Start:sp.End]
	}
	return out
}

// isHTMLPage reports whether the capture is an HTML page (what a browser lays out).
func isHTMLPage(p *fetch.Result) bool {
	if p == nil {
		return false
	}
	mt, _, err := mime.ParseMediaType(p.ContentType)
	return err == nil && (mt == "text/html" || mt == "application/xhtml+xml")
}

// hasScript reports whether an HTML body has a <script> element.
func hasScript(body []byte) bool {
	return bytes.Contains(bytes.ToLower(body), []byte("<script"))
}

// hasExternalScript reports whether an HTML body has a <script> element with a src, which
// the fetcher never fetches, so that it never runs in a rendering.
func hasExternalScript(body []byte) bool {
	low := bytes.ToLower(body)
	for i := 0; ; {
		j := bytes.Index(low[i:], []byte("<script"))
		if j < 0 {
			return false
		}
		i += j + len("<script")
		end := bytes.IndexByte(low[i:], '>')
		if end < 0 {
			return false
		}
		if bytes.Contains(low[i:i+end], []byte("src")) {
			return true
		}
	}
}

// sightOf confirms in the rendering verifier a quote found in the capture's static text
// (m, found in c.Text): the browser is asked once per capture, with the first placement of
// every quote the run will look for there (Capture.expected) besides this one, and its
// answers are kept.
func (c *Capture) sightOf(ctx context.Context, quote string, m match.Match) RenderFacts {
	if c.render == nil {
		return RenderFacts{Sight: evidence.SightStyleOnly, Why: "no rendering verifier is configured"}
	}
	text := c.Text.Text()
	parts := matchedParts(text, m)
	key := partsKey(parts)
	c.sights.mu.Lock()
	defer c.sights.mu.Unlock()
	if c.sights.seen == nil {
		c.sights.seen = map[string]sight{}
	}
	if s, ok := c.sights.seen[key]; ok {
		return factsOf(s)
	}
	// The other verifier's capture of the page, when it holds the same bytes (page and
	// sheets), is the same rendering: within a run it is rendered once.
	var shared *memoEntry
	if c.memo != nil {
		shared = c.memo.entry(contentKey(c.Page))
		shared.mu.Lock()
		defer shared.mu.Unlock()
		if s, ok := shared.seen[quote]; ok {
			c.sights.seen[key] = s
			return factsOf(s)
		}
	}
	batch := [][]string{parts}
	asked := []string{quote}
	keys := map[string]bool{key: true}
	for _, q := range c.expected {
		if q == quote {
			continue
		}
		qm, err := c.Text.Match(q)
		if err != nil || !qm.Found {
			continue
		}
		p := matchedParts(text, qm)
		if k := partsKey(p); !keys[k] {
			if _, done := c.sights.seen[k]; !done {
				keys[k] = true
				batch = append(batch, p)
				asked = append(asked, q)
			}
		}
	}
	out, err := c.render.render(ctx, sightJob{page: c.Page, parts: batch})
	if err != nil {
		// Not kept: a later quote may render.
		return RenderFacts{Sight: evidence.SightStyleOnly, Why: plainRenderError(err)}
	}
	for i, p := range batch {
		c.sights.seen[partsKey(p)] = out[i]
		if shared != nil {
			shared.seen[asked[i]] = out[i]
		}
	}
	return factsOf(out[0])
}

// renderMemo is a run's renderings, by the bytes rendered (contentKey), shared by the two
// verifiers' captures of a page when they hold the same bytes: the browser shows the same
// bytes the same way, so the page is rendered once per run, not once per verifier. Each
// verifier still matches the quote in its own text; the browser looks for the words
// folded (render.js), which the two extractors' texts of the same page agree on.
type renderMemo struct {
	mu      sync.Mutex
	entries map[string]*memoEntry
}

// memoEntry is what one rendering of a page said, by quote. Its lock is held while the
// page renders, so the other verifier waits for the answer rather than rendering too.
type memoEntry struct {
	mu   sync.Mutex
	seen map[string]sight
}

func (m *renderMemo) entry(key string) *memoEntry {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries == nil {
		m.entries = map[string]*memoEntry{}
	}
	e := m.entries[key]
	if e == nil {
		e = &memoEntry{seen: map[string]sight{}}
		m.entries[key] = e
	}
	return e
}

func (m *renderMemo) drop(url string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.entries {
		if strings.HasPrefix(k, url+"\x00") {
			delete(m.entries, k)
		}
	}
}

// contentKey names what a rendering of the page shows: its address, its bytes and the
// bytes of every style sheet fetched for it (a sheet that was not fetched is named failed).
func contentKey(p *fetch.Result) string {
	h := sha256.New()
	h.Write(p.Body)
	for _, sh := range p.Sheets {
		fmt.Fprintf(h, "\x00%s\x00%s\x00%v\x00%v\x00", sh.URL, sh.FinalURL, sh.Err != nil, sh.Capped)
		h.Write(sh.Body)
	}
	return p.RequestedURL + "\x00" + p.FinalURL + "\x00" + hex.EncodeToString(h.Sum(nil))
}

func factsOf(s sight) RenderFacts {
	if s.Seen {
		return RenderFacts{Sight: evidence.SightSeen}
	}
	return RenderFacts{Sight: evidence.SightUnseen, Why: s.Why}
}

func plainRenderError(err error) string {
	if errors.Is(err, errNoBrowser) {
		return err.Error()
	}
	return "the page could not be rendered: " + err.Error()
}

// scriptable reports whether the scripts-on rule reads this capture: an HTML page whose
// static text has no words (fetch.ErrNoText) and that has a script, checked by a verifier
// whose renderer has scripts on.
func (c *Capture) scriptable() bool {
	return c.render != nil && c.render.cfg.Scripts && c.Text == nil && errors.Is(c.ExtractErr, fetch.ErrNoText) &&
		isHTMLPage(c.Page) && hasScript(c.Page.Body)
}

// scriptedMatch looks for quote in the text the page's scripts draw: the page is rendered
// once per capture with its inline scripts on, its document as they left it is read with
// the verifier's own extractor (and the capture's style sheets), every quote the run will
// look for is matched in that text, and the browser, in the same tab, says which are drawn
// where a reader sees them. It returns the match (not found when the words are unseen), the
// facts, and the text (nil when the page could not be rendered).
func (c *Capture) scriptedMatch(ctx context.Context, quote string) (match.Match, RenderFacts, *match.PageText, error) {
	c.sights.mu.Lock()
	defer c.sights.mu.Unlock()
	if c.sights.seen == nil {
		c.sights.seen = map[string]sight{}
	}
	if !c.sights.scriptRun {
		c.sights.scriptRun = true
		quotes := append([]string{quote}, c.expected...)
		var batch [][]string
		read := func(html string) [][]string {
			r := *c.Page
			r.Body, r.ContentType, r.Truncated = []byte(html), "text/html; charset=utf-8", false
			t, err := r.Extract(c.extract)
			if err != nil && !errors.Is(err, fetch.ErrTruncated) {
				c.sights.scriptErr = err
				return nil
			}
			c.sights.scripted = match.NewPageText(t.Body)
			seen := map[string]bool{}
			for _, q := range quotes {
				m, err := c.sights.scripted.Match(q)
				if err != nil || !m.Found {
					continue
				}
				p := matchedParts(c.sights.scripted.Text(), m)
				if k := partsKey(p); !seen[k] {
					seen[k] = true
					batch = append(batch, p)
				}
			}
			return batch
		}
		out, err := c.render.render(ctx, sightJob{page: c.Page, scripts: true, read: read})
		switch {
		case err != nil:
			c.sights.scripted, c.sights.scriptErr = nil, err
		default:
			for i, p := range batch {
				c.sights.seen[partsKey(p)] = out[i]
			}
		}
	}
	pt := c.sights.scripted
	if pt == nil {
		err := c.sights.scriptErr
		if err == nil {
			err = errors.New("the rendered page could not be read")
		}
		return match.Match{}, RenderFacts{Sight: evidence.SightStyleOnly, Why: plainRenderError(err), Scripts: true}, nil, err
	}
	m, err := pt.Match(quote)
	if err != nil || !m.Found {
		return m, RenderFacts{Scripts: true}, pt, err
	}
	s, ok := c.sights.seen[partsKey(matchedParts(pt.Text(), m))]
	if !ok {
		// A quote the run did not announce: its placement differs from the ones judged.
		return match.Match{}, RenderFacts{Sight: evidence.SightStyleOnly, Why: "the quote was not among those the rendering was asked about", Scripts: true}, pt, nil
	}
	f := factsOf(s)
	f.Scripts = true
	return m, f, pt, nil
}

// judgeScripted is Judge for a capture the scripts-on rule reads (Capture.scriptable).
func (v *QuoteVerifier) judgeScripted(ctx context.Context, t evidence.CheckTarget, c *Capture) Report {
	page := c.Page
	m, rf, pt, err := c.scriptedMatch(ctx, t.Quote)
	if pt == nil {
		return v.unreachable(page, extractEstimate(c.ExtractErr),
			"the page's text cannot be read: "+ReadProblem(c.ExtractErr)+"; reading it with its scripts failed: "+rf.Why,
			fmt.Sprintf("fetched %s (HTTP %d, %d bytes): its static text has no words, and rendering it with its scripts on failed: %v", page.FinalURL, page.Status, len(page.Body), err))
	}
	if err != nil {
		return v.unreachable(page, 90, "the quote could not be looked for: "+err.Error(),
			fmt.Sprintf("looking for the quote in %s as its scripts draw it failed: %v", page.FinalURL, err))
	}
	verdict := evidence.SightVerdict(m.Found, rf.Sight)
	if verdict == evidence.VerdictSupported {
		est := tierEstimate[m.Tier] - 5
		r := Report{
			Result: evidence.VerifierResult{
				Verifier:         v.name,
				Verdict:          verdict,
				AccuracyEstimate: est,
				Reasoning: fmt.Sprintf("the page at %s has no words without its scripts; rendered in headless Chromium with its inline scripts on (the fetcher fetches no script file), the quote is in the text they draw as read by the %s extractor; %s",
					page.FinalURL, v.name, tierReason[m.Tier]) + renderReasoning(rf),
			},
			Note:   "found on the page as its scripts draw it: “" + m.Excerpt + "”" + renderNote(rf),
			Page:   page,
			Match:  &m,
			Render: &rf,
		}
		return r
	}
	if rf.Sight == evidence.SightUnseen {
		return Report{
			Result: evidence.VerifierResult{
				Verifier:         v.name,
				Verdict:          evidence.VerdictNotFound,
				AccuracyEstimate: 88,
				Reasoning:        fmt.Sprintf("the page at %s draws the quote's words with its scripts, but rendered in headless Chromium they are not where a reader sees them: %s", page.FinalURL, rf.Why),
			},
			Note:   evidence.NoteUnseen + ": " + rf.Why,
			Page:   page,
			Render: &rf,
		}
	}
	if hasExternalScript(page.Body) {
		return v.unreachable(page, 70, "the quote is not in the text the page's inline scripts draw, and its script files are never fetched, so it may be in what they draw",
			fmt.Sprintf("the page at %s has no words without its scripts; with its inline scripts on the quote is not in what they draw (as read by the %s extractor), and the page loads script files, which the fetcher does not fetch, so the quote may be in the text they would draw", page.FinalURL, v.name))
	}
	return Report{
		Result: evidence.VerifierResult{
			Verifier:         v.name,
			Verdict:          evidence.VerdictNotFound,
			AccuracyEstimate: 85,
			Reasoning:        fmt.Sprintf("the page at %s has no words without its scripts and no script file; rendered with its inline scripts on, the quote is not in the text they draw, as read by the %s extractor", page.FinalURL, v.name),
		},
		Note:   "the quote is not on the page at " + page.FinalURL + ", as its scripts draw it",
		Page:   page,
		Match:  &m,
		Render: &rf,
	}
}

// renderNote is added to the note of a found quote on a web page.
func renderNote(rf RenderFacts) string {
	if rf.Sight == evidence.SightStyleOnly {
		return "; " + evidence.NoteStyleOnly + " (" + rf.Why + ")"
	}
	return ""
}

// renderReasoning is added to the reasoning of a verdict on a web page.
func renderReasoning(rf RenderFacts) string {
	switch rf.Sight {
	case evidence.SightSeen:
		return "; rendered in headless Chromium with every request answered from the capture, the words are drawn where a reader sees them"
	case evidence.SightUnseen:
		return "; rendered in headless Chromium with every request answered from the capture, the words are not where a reader sees them: " + rf.Why
	}
	return "; the page was not rendered (" + rf.Why + "), so that the words are visible rests on the style rules alone"
}
