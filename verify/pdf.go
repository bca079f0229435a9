package verify

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
	"evidenceledger/match"
	"evidenceledger/pdf"
)

// PDFEngine reads the text of a PDF body: pdf.ExtractPDFium or pdf.ExtractPDFText.
type PDFEngine func(body []byte) (pdf.Text, error)

// reader is how a verifier reads a fetched body: a web page with its HTML extractor, a PDF
// (see fetch.IsPDF) with its PDF engine. Each verifier pairs its HTML extractor with a
// different PDF engine, so the two verifiers share no extraction code for PDFs either.
type reader struct {
	html Extractor
	pdf  PDFEngine
}

// The readers of the default verifiers. The verifiers and the stored-text view
// (VerifierTexts) read through these, so a page is shown as its verifier read it.
var (
	readDOM    = reader{html: fetch.ExtractDOM, pdf: pdf.ExtractPDFium}
	readTokens = reader{html: fetch.ExtractTokens, pdf: pdf.ExtractPDFText}
)

// ReadDOM reads a fetched body as the verifier [NameDOM] does: a web page with
// fetch.ExtractDOM, a PDF with pdf.ExtractPDFium. A PDF cut at its size limit is not read (the
// error wraps fetch.ErrTruncated). The model tier's model-a and model-c read through it.
func ReadDOM(page *fetch.Result) (fetch.Text, error) {
	t, _, err := readDOM.read(page)
	return t, err
}

// ReadTokens reads a fetched body as the verifier [NameTokens] does: a web page with
// fetch.ExtractTokens, a PDF with pdf.ExtractPDFText; a PDF cut at its size limit is not
// read, as with [ReadDOM]. The model tier's model-b reads through it.
func ReadTokens(page *fetch.Result) (fetch.Text, error) {
	t, _, err := readTokens.read(page)
	return t, err
}

// read returns the visible text of a fetched body and, for a PDF, what its engine read of
// its pages (nil for a web page). A web page is read by fetch.Result.Extract, with the
// style sheets the fetcher fetched. A PDF cut at its size limit is not read at all: its
// cross-reference table is at its end, so no part of it can be read with confidence; the
// error wraps fetch.ErrTruncated.
func (rd reader) read(r *fetch.Result) (fetch.Text, *pdf.Text, error) {
	if !fetch.IsPDF(r.ContentType, r.Body) {
		t, err := r.Extract(rd.html)
		return t, nil, err
	}
	if r.Truncated {
		return fetch.Text{}, nil, fmt.Errorf("%w: the PDF was cut off at %d bytes, and a PDF cut off is not read", fetch.ErrTruncated, len(r.Body))
	}
	p, err := rd.pdf(r.Body)
	return fetch.Text{Body: p.Body}, &p, err
}

// PDFFacts is what a verifier learnt of a PDF it read.
type PDFFacts struct {
	Pages     int    // the page count
	Extractor string // the engine and its version
	FoundOn   int    // the page the quote was found on; 0 when it was not found
	// Unseen says, when the quote's words are in the text but a reader does not read them
	// there (the ink check found them not drawn visibly, or an ellipsis joins two columns),
	// what was found; "" otherwise.
	Unseen string
}

// columnBarrier stands, in the text a PDF's quotes are matched in, for each space between
// two lines that a column gap separates (pdf.Text.Breaks): a byte no quote holds, so no
// match runs across it.
const columnBarrier = '\x1f'

// barred returns text with the spaces at breaks made column barriers.
func barred(text string, breaks []int) string {
	if len(breaks) == 0 {
		return text
	}
	b := []byte(text)
	for _, i := range breaks {
		if i >= 0 && i < len(b) && b[i] == ' ' {
			b[i] = columnBarrier
		}
	}
	return string(b)
}

// unbarred is s with its column barriers shown as the spaces they are.
func unbarred(s string) string { return strings.ReplaceAll(s, string(columnBarrier), " ") }

// setText keeps the extracted text in c, ready to be matched: the text, and for a PDF
// (doc, nil for a web page) its pages and its other reading, each with its column gaps made
// barriers.
func (c *Capture) setText(text fetch.Text, doc *pdf.Text) {
	c.PDF = doc
	if doc == nil {
		c.Text = match.NewPageText(text.Body).InLanguage(text.Lang)
		return
	}
	c.Text = match.NewPageText(barred(doc.Body, doc.Breaks)).InLanguage(doc.Lang)
	if doc.Alt != "" {
		c.alt = match.NewPageText(barred(doc.Alt, doc.AltBreaks)).InLanguage(doc.Lang)
	}
}

// maxUnseenRetries is how many placements of a quote whose words are not drawn visibly are
// passed over, each time looking for one further on, before the quote is not found.
const maxUnseenRetries = 3

// match looks for quote in c's text. For a PDF with line-end hyphens its layout could not
// settle (pdf.Text.Alt), the quote is looked for in the other reading too when it is
// not in the first: the page prints both. No quote, and no ellipsis between its parts, is
// read across a column gap. A quote found in the text PDFium read is found only when the
// ink check (pdf.CheckInk) sees every character of it drawn on its page. A placement
// that fails either is passed over for the next one; without one the quote is not found,
// with what was found in PDFFacts.Unseen. It returns
// the match and, for a PDF, what was learnt of it (nil for a web page).
func (c *Capture) match(quote string) (match.Match, *PDFFacts, error) {
	quote = unbarred(quote)
	m, err := c.Text.Match(quote)
	if err != nil || c.PDF == nil {
		return m, nil, err
	}
	facts := &PDFFacts{Pages: len(c.PDF.Pages), Extractor: c.PDF.Extractor}
	alt := false
	if !m.Found && c.alt != nil {
		if am, err := c.alt.Match(quote); err == nil && am.Found {
			m, alt = am, true
		}
	}
	if m.Found {
		m, alt, facts.Unseen = c.settle(quote, m, alt)
	}
	if m.Found {
		facts.FoundOn = c.PDF.PageAt(m.Spans[0].Start, alt)
		m.Excerpt = unbarred(m.Excerpt)
	}
	if m.Hint != nil {
		m.Hint.Text = unbarred(m.Hint.Text)
	}
	return m, facts, nil
}

// inkChecked reports whether quotes found in this PDF text are confirmed by the ink check:
// the text is PDFium's, whose characters the check can render.
func inkChecked(p *pdf.Text) bool {
	return strings.HasPrefix(p.Extractor, pdf.NamePDFium+" ")
}

// settle returns the first placement of quote, from m on (in the other reading when alt),
// that a reader reads (read), looking at the next ones up to maxUnseenRetries; when none is,
// a Match not found and why the first placement is not read.
func (c *Capture) settle(quote string, m match.Match, alt bool) (match.Match, bool, string) {
	orig := c.Text
	if alt {
		orig = c.alt
	}
	text := orig
	first := ""
	for try := 0; ; try++ {
		ok, why := c.read(m, alt)
		if ok {
			return m, alt, ""
		}
		if first == "" {
			first = why
		}
		if try == maxUnseenRetries {
			return match.Match{}, false, first
		}
		// Bar the first rune of this placement and look again: the next placement, if any.
		b := []byte(text.Text())
		_, size := utf8.DecodeRuneInString(text.Text()[m.Spans[0].Start:])
		for i := range size {
			b[m.Spans[0].Start+i] = columnBarrier
		}
		text = match.NewPageText(string(b))
		next, err := text.Match(quote)
		if err != nil || !next.Found {
			return match.Match{}, false, first
		}
		// The excerpt is of the page's text, not of the copy with barred placements.
		m = match.At(orig.Text(), next.Tier, next.Spans)
	}
}

// read reports whether a reader reads the placement m as the quote: no column gap lies
// between two of its parts (an ellipsis leaves text out, not a column), and, in PDFium's
// text, every character of it is seen (inked). When not, it says why.
func (c *Capture) read(m match.Match, alt bool) (bool, string) {
	text := c.Text.Text()
	if alt {
		text = c.alt.Text()
	}
	for k := 1; k < len(m.Spans); k++ {
		if strings.IndexByte(text[m.Spans[k-1].End:m.Spans[k].Start], columnBarrier) >= 0 {
			return false, fmt.Sprintf("the quote's parts are in the PDF's text on p. %d, but in different columns of the page, side by side, that the ellipsis joins", c.PDF.PageAt(m.Spans[0].Start, alt))
		}
	}
	if !inkChecked(c.PDF) {
		return true, ""
	}
	return c.inked(m, alt)
}

// inkCache is what a capture learnt of the ink of the placements of quotes in its PDF:
// for each placement (inkKey), whether it is seen and, when not, why.
type inkCache struct {
	mu   sync.Mutex
	seen map[string]inkVerdict
}

type inkVerdict struct {
	seen bool
	why  string
}

// inkKey names a placement: its reading and its spans.
func inkKey(m match.Match, alt bool) string { return fmt.Sprint(alt, m.Spans) }

// inked reports whether every character of the placement m is drawn visibly on its page,
// and, when not, says what was found. The first placement of every other quote the run
// will look for in this capture (Capture.expected) is checked in the same engine run, and
// every verdict is kept for the quotes to come.
func (c *Capture) inked(m match.Match, alt bool) (bool, string) {
	c.ink.mu.Lock()
	defer c.ink.mu.Unlock()
	if c.ink.seen == nil {
		c.ink.seen = map[string]inkVerdict{}
	}
	key := inkKey(m, alt)
	if v, ok := c.ink.seen[key]; ok {
		return v.seen, v.why
	}
	type placement struct {
		key    string
		page   int
		glyphs []pdf.Glyph
	}
	var batch []placement
	add := func(m match.Match, alt bool) {
		k := inkKey(m, alt)
		if _, done := c.ink.seen[k]; done || slices.ContainsFunc(batch, func(p placement) bool { return p.key == k }) {
			return
		}
		page := c.PDF.PageAt(m.Spans[0].Start, alt)
		var glyphs []pdf.Glyph
		for _, sp := range m.Spans {
			g, ok := c.PDF.GlyphsIn(sp.Start, sp.End, alt)
			if !ok {
				c.ink.seen[k] = inkVerdict{why: "the quote's words are in the PDF's text, but which characters of the page they are cannot be told, so that they are drawn cannot be confirmed"}
				return
			}
			glyphs = append(glyphs, g...)
		}
		if c.Page == nil {
			c.ink.seen[k] = inkVerdict{why: fmt.Sprintf("the quote's words are in the PDF's text on p. %d, but the PDF is not at hand to confirm that they are drawn", page)}
			return
		}
		batch = append(batch, placement{k, page, glyphs})
	}
	add(m, alt)
	for _, q := range c.expected {
		if pm, palt, ok := c.firstPlacement(q); ok {
			add(pm, palt)
		}
	}
	if len(batch) > 0 {
		sets := make([][]pdf.Glyph, len(batch))
		for i, p := range batch {
			sets[i] = p.glyphs
		}
		reps, err := pdf.CheckInk(c.Page.Body, sets)
		for i, p := range batch {
			switch {
			case err != nil:
				c.ink.seen[p.key] = inkVerdict{why: fmt.Sprintf("the quote's words are in the PDF's text on p. %d, but the page could not be rendered to confirm that they are drawn: %v", p.page, err)}
			case reps[i].Seen():
				c.ink.seen[p.key] = inkVerdict{seen: true}
			default:
				c.ink.seen[p.key] = inkVerdict{why: fmt.Sprintf("the quote's words are in the PDF's text on p. %d, but they are not drawn visibly there: %d of their %d characters leave no ink (drawn invisible or white on white, painted over, clipped away, off the page or on a layer that is off)", p.page, len(reps[i].Unseen), reps[i].Checked)}
			}
		}
	}
	v := c.ink.seen[key]
	return v.seen, v.why
}

// firstPlacement returns where quote is first found in c's text, or in its other reading,
// before any ink check.
func (c *Capture) firstPlacement(quote string) (match.Match, bool, bool) {
	quote = unbarred(quote)
	if m, err := c.Text.Match(quote); err == nil && m.Found {
		return m, false, true
	}
	if c.alt != nil {
		if m, err := c.alt.Match(quote); err == nil && m.Found {
			return m, true, true
		}
	}
	return match.Match{}, false, false
}

// unseenNote adds to r, a not_found report of a PDF, what the ink check found when the
// quote's words are in the text but not drawn visibly.
func unseenNote(r *Report, pdf *PDFFacts) {
	if pdf == nil || pdf.Unseen == "" {
		return
	}
	r.Note = pdf.Unseen
	r.Result.Reasoning += "; " + pdf.Unseen + ", so a reader does not see them"
}

// foundNote is the note of a found quote: the page's own words, and for a PDF the page.
func foundNote(m match.Match, pdf *PDFFacts) string {
	if pdf != nil && pdf.FoundOn > 0 {
		return fmt.Sprintf("found on p. %d of the PDF: “%s”", pdf.FoundOn, m.Excerpt)
	}
	return "found on the page: “" + m.Excerpt + "”"
}

// pdfReasoning is added to a verdict's reasoning for a PDF.
func pdfReasoning(pdf *PDFFacts) string {
	if pdf == nil {
		return ""
	}
	s := fmt.Sprintf("; the PDF has %d pages, read by %s", pdf.Pages, pdf.Extractor)
	if pdf.FoundOn > 0 {
		s += fmt.Sprintf("; the quote is on p. %d", pdf.FoundOn)
	}
	return s
}

// recordPDF adds to the stored document d, read by the verifier at index stored, its page
// count and the engines of every verifier that read the same bytes, and to ch the page the
// deciding verifier found the quote on.
func recordPDF(ch *evidence.Checked, reports []Report, stored, decisive int) {
	if d := ch.Document; d != nil && stored >= 0 {
		for _, r := range reports {
			if r.PDF == nil || r.Page == nil || PageHash(r.Page) != d.SHA256 {
				continue
			}
			d.Pages = r.PDF.Pages
			if !slices.Contains(d.Extractors, r.PDF.Extractor) {
				d.Extractors = append(d.Extractors, r.PDF.Extractor)
			}
		}
	}
	if decisive >= 0 && reports[decisive].PDF != nil && ch.Excerpt != "" {
		ch.Page = reports[decisive].PDF.FoundOn
	}
}
