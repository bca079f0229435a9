package verify

import (
	"fmt"
	"slices"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
)

// The extractors of the default verifiers: each verifier's HTML extractor, with its own
// PDF engine for PDFs. The verifiers and the stored-text view (VerifierTexts) read through
// these, so a page is shown as its verifier read it.
var (
	extractDOM    = withPDF(fetch.ExtractDOM, fetch.ExtractPDFium)
	extractTokens = withPDF(fetch.ExtractTokens, fetch.ExtractPDFText)
)

// withPDF returns an extractor that reads a PDF (see fetch.IsPDF) with pdf and every other
// body with html. Each verifier pairs its HTML extractor with a different PDF engine, so
// the two verifiers share no extraction code for PDFs either.
func withPDF(html, pdf Extractor) Extractor {
	return func(body []byte, contentType string) (fetch.Text, error) {
		if fetch.IsPDF(contentType, body) {
			return pdf(body, contentType)
		}
		return html(body, contentType)
	}
}

// PDFFacts is what a verifier learnt of a PDF it read.
type PDFFacts struct {
	Pages     int    // the page count
	Extractor string // the engine and its version
	FoundOn   int    // the page the quote was found on; 0 when it was not found
}

// setText keeps the extracted text in c, ready to be matched: the text, and for a PDF its
// pages and its other reading.
func (c *Capture) setText(text fetch.Text) {
	c.Text = NewPageText(text.Body)
	c.PDF = text.PDF
	if text.PDF != nil && text.PDF.Alt != "" {
		c.alt = NewPageText(text.PDF.Alt)
	}
}

// match looks for quote in c's text. For a PDF with line-end hyphens its layout could not
// settle (fetch.PDFText.Alt), the quote is looked for in the other reading too when it is
// not in the first: the page prints both. It returns the match and, for a PDF, what was
// learnt of it (nil for a web page).
func (c *Capture) match(quote string) (Match, *PDFFacts, error) {
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
		facts.FoundOn = c.PDF.PageAt(m.Spans[0].Start, alt)
	}
	return m, facts, nil
}

// foundNote is the note of a found quote: the page's own words, and for a PDF the page.
func foundNote(m Match, pdf *PDFFacts) string {
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
			if r.PDF == nil || r.Page == nil || pageHash(r.Page) != d.SHA256 {
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
