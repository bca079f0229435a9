package verify

import (
	"errors"

	"evidenceledger/fetch"
)

// VerifierText is the visible text one default verifier reads from a page body: the text its
// quote matching ran over.
type VerifierText struct {
	Verifier string
	Text     string
	// Err says why the verifier could not read the text; Text is empty then.
	Err error
}

// IsPDF reports whether a stored body with its content type is read as a PDF, by the
// fetcher's rule ([fetch.IsPDF]), for those that show stored pages.
func IsPDF(contentType string, body []byte) bool { return fetch.IsPDF(contentType, body) }

// LinkedSheets returns how many style sheets a stored HTML page links ([fetch.LinkedSheets]).
// The verifiers applied them when they checked the page; the ledger stores the page alone,
// so [VerifierTexts] reads it without them.
func LinkedSheets(body []byte, contentType, pageURL string) int {
	if IsPDF(contentType, body) {
		return 0
	}
	return fetch.LinkedSheets(body, contentType, pageURL)
}

// VerifierTexts returns, in the order the verifiers run, the text each default verifier
// ([NewDOMVerifier], [NewTokensVerifier]) reads from a stored body with its content type,
// through the same extractors. A body the fetcher cut off at its size limit (truncated) is
// read as far as it goes, as the verifiers read it.
func VerifierTexts(body []byte, contentType string, truncated bool) []VerifierText {
	out := []VerifierText{}
	for _, v := range []struct {
		name string
		read reader
	}{{NameDOM, readDOM}, {NameTokens, readTokens}} {
		page := &fetch.Result{Body: body, ContentType: contentType, Truncated: truncated}
		t, _, err := v.read.read(page)
		if errors.Is(err, fetch.ErrTruncated) {
			err = nil
		}
		if err != nil {
			out = append(out, VerifierText{Verifier: v.name, Err: err})
			continue
		}
		out = append(out, VerifierText{Verifier: v.name, Text: t.Body})
	}
	return out
}
