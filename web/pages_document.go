package web

import (
	"context"
	"fmt"
	"net/http"
	"unicode/utf8"

	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// storedPages is what the stored-text view needs of the store.
type storedPages interface {
	StoredPage(ctx context.Context, sha256hex string) (ledger.StoredPage, error)
}

// pageText is one verifier's text of a stored page, cut into segments with the quote's
// match marked.
type pageText struct {
	Verifier string
	Problem  string
	Segments []segment
	Found    bool
	Runes    int
}

type documentData struct {
	Page     ledger.StoredPage
	Citation *ledger.CitationView
	Texts    []pageText
	// PDF: the page is a PDF, so its raw bytes are a download, not text.
	PDF bool
	// Sheets is how many style sheets the page links: the verifiers applied them, this
	// view reads the stored page without them.
	Sheets int
}

// pageDocumentText is GET /documents/{sha}/text?claim=ID&citation=ID: the stored page as
// the text each verifier read, with the citation's quote marked where it matches. Without a
// citation nothing is marked. The raw bytes stay at /documents/{sha}.
func (s *server) pageDocumentText(w http.ResponseWriter, r *http.Request) {
	p, err := s.documents().StoredPage(r.Context(), r.PathValue("sha"))
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	d := documentData{Page: p, PDF: verify.IsPDF(p.ContentType, p.Body), Sheets: verify.LinkedSheets(p.Body, p.ContentType, p.FinalURL)}
	if claim, citation := r.URL.Query().Get("claim"), r.URL.Query().Get("citation"); claim != "" || citation != "" {
		c, err := s.documents().Claim(r.Context(), claim)
		if err != nil {
			s.pageError(w, r, viewer{}, err)
			return
		}
		for i := range c.Citations {
			if c.Citations[i].ID == citation {
				d.Citation = &c.Citations[i]
			}
		}
		if d.Citation == nil {
			s.pageError(w, r, viewer{}, fmt.Errorf("claim %s has no citation %q: %w", claim, citation, ledger.ErrNotFound))
			return
		}
	}
	for _, t := range verify.VerifierTexts(p.Body, p.ContentType, p.Truncated) {
		pt := pageText{Verifier: t.Verifier, Runes: utf8.RuneCountInString(t.Text)}
		switch {
		case t.Err != nil:
			pt.Problem = t.Err.Error()
		case d.Citation != nil:
			pt.Segments = highlight(t.Text, d.Citation.Quote)
			for _, sg := range pt.Segments {
				pt.Found = pt.Found || sg.Mark
			}
		default:
			pt.Segments = []segment{{Text: t.Text}}
		}
		d.Texts = append(d.Texts, pt)
	}
	s.render(w, r, http.StatusOK, "document", "", view{Title: "Stored page", Data: d})
}

// documentStore is the store as the stored-document page sees it.
type documentStore interface {
	storedPages
	Claim(ctx context.Context, id string) (ledger.ClaimView, error)
}

// documents is the store as the stored-document page sees it.
func (s *server) documents() documentStore { return s.cfg.Ledger }
