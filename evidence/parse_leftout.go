package evidence

import (
	"strings"
)

// LeftReason says why the research parser left a piece of text out of the claims.
type LeftReason string

// The reasons of [LeftOut]. They are fixed strings: other programs match on them.
const (
	LeftHeading   LeftReason = "a heading, a rule or a line in bold alone"
	LeftTitle     LeftReason = "a title: a short line without sentence punctuation"
	LeftChatter   LeftReason = "conversational chatter"
	LeftQuestion  LeftReason = "a question"
	LeftLeadIn    LeftReason = "a lead-in ending with a colon"
	LeftShort     LeftReason = "fewer than three letters or digits"
	LeftQuoteOnly LeftReason = "a quote with no statement beside it"
	LeftCode      LeftReason = "a fenced code block"
	LeftOpenFence LeftReason = "text after a code fence that is never closed"
	LeftReference LeftReason = "a reference definition or an entry of a Sources list"
	LeftJSON      LeftReason = "a JSON value the claim reader does not read"
)

// LeftOut is a piece of a paste that the parser did not take into any claim, with the
// reason. Text is as the paste holds it, up to the markup the parser removes.
type LeftOut struct {
	Text   string     `json:"text"`
	Reason LeftReason `json:"reason"`
	// Field is, for a JSON value, its place in the paste: claims[3].source_uri,
	// [0].citations[1].note, summary. It names the member to rename so it is read.
	Field string `json:"field,omitempty"`
}

// ParseResearchLeftOut is [ParseResearch] that also reports, in reading order within each
// kind, what it left out of the claims: headings, titles, chatter, questions, lead-ins, text
// too short to state anything, quotes with no statement beside them, fenced code, reference
// definitions and Sources lists, and, for a JSON paste, every string value that is not a
// claim's text, URL or quote. The claims and the error are those of ParseResearch; the
// left-out parts are returned with ErrNothingUsable too (a paste that is all headings and
// code), and are nil when the paste cannot be read at all (ErrBadResearch).
func ParseResearchLeftOut(text string) (Research, []LeftOut, error) {
	return parseResearch(text)
}

// Preview is what the paste preview shows of a paste ([ReadPastePreview]): the claims, what
// the parser left out of them, and, for each claim i and its citation j, Via[i][j], the
// citation marker of the paste the citation's URL came through ("[2]" for [2], ², (2) or
// [^2]), or "" for a URL written in the claim itself, in a field or in JSON.
type Preview struct {
	Research Research
	Left     []LeftOut
	Via      [][]string
}

// leave records text the parser takes out of the claims.
func (p *parser) leave(text string, why LeftReason) {
	if t := strings.TrimSpace(text); t != "" {
		p.left = append(p.left, LeftOut{Text: t, Reason: why})
	}
}

// leaveItem records the text of an item the parser drops whole.
func (p *parser) leaveItem(it *item, why LeftReason) {
	if it == nil {
		return
	}
	for _, pt := range it.parts {
		p.leave(pt.text(), why)
	}
}

// leaveText records a statement emit refuses, with the first rule of isClaimText that
// refused it. A statement with no text but with quotes (a blockquote with no claim above
// it) is recorded as its quotes.
func (p *parser) leaveText(text string, toks []token) {
	why := LeftShort
	switch {
	case text == "":
		var qs []string
		for _, t := range toks {
			if !t.isURL && strings.TrimSpace(t.quote) != "" {
				qs = append(qs, t.quote)
			}
		}
		text, why = strings.Join(qs, " "), LeftQuoteOnly
	case reChatter.MatchString(text):
		why = LeftChatter
	case strings.HasSuffix(text, "?"):
		why = LeftQuestion
	case strings.HasSuffix(text, ":"):
		why = LeftLeadIn
	}
	p.leave(text, why)
}

// leftOut returns what the parser left out: the parts recorded while reading, then the
// lines run skipped (fenced code, whose block is one part, and reference lines). The lines
// of a fenced block read as JSON claims, or read like the rest, are not left out.
func (p *parser) leftOut() []LeftOut {
	out := append([]LeftOut(nil), p.left...)
	for i := 0; i < len(p.lines); i++ {
		if !p.skip[i] {
			continue
		}
		if m := reFence.FindStringSubmatch(p.lines[i]); m != nil {
			j := i + 1
			var body []string
			for ; j < len(p.lines) && !strings.HasPrefix(strings.TrimSpace(p.lines[j]), m[1]); j++ {
				if p.skip[j] {
					body = append(body, p.lines[j])
				}
			}
			switch _, isJSON := p.jsonAt[i]; {
			case isJSON:
				// The values of the block that are not read into its claims.
				out = append(out, p.jsonLeft[i]...)
			case len(body) == 0:
			case j >= len(p.lines):
				// Never closed: it may be a stray fence over prose, so each line is read.
				for _, l := range body {
					if t := strings.TrimSpace(l); t != "" {
						out = append(out, LeftOut{Text: t, Reason: LeftOpenFence})
					}
				}
			default:
				out = append(out, LeftOut{Text: strings.Join(body, "\n"), Reason: LeftCode})
			}
			i = j
			continue
		}
		if t := strings.TrimSpace(p.lines[i]); t != "" {
			out = append(out, LeftOut{Text: t, Reason: LeftReference})
		}
	}
	return out
}

// NotRead returns the JSON values among left that the reader did not read and that may hold
// research: a URL, or a string with at least MinQuoteLen letters or digits (as long as a
// quote worth looking for). The preview lists them by their place (Field), so that a person
// can rename a member the reader does not know instead of losing its sources silently.
func NotRead(left []LeftOut) []LeftOut {
	var out []LeftOut
	for _, l := range left {
		if l.Reason == LeftJSON && (hasURL(l.Text) || quoteChars(l.Text) >= MinQuoteLen) {
			out = append(out, l)
		}
	}
	return out
}
