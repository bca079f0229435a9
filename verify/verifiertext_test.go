package verify

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"evidenceledger/fetch"
)

// TestVerifierTexts: the stored-text view shows what each verifier read, through the same
// extractors, and says why when one could not read the page.
func TestVerifierTexts(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("..", "testdata", "corpus", "pages", "ars-1.html"))
	if err != nil {
		t.Fatal(err)
	}
	texts := VerifierTexts(body, "text/html; charset=utf-8", false)
	if len(texts) != 2 || texts[0].Verifier != NameDOM || texts[1].Verifier != NameTokens {
		t.Fatalf("verifiers %+v", texts)
	}
	for i, extract := range []Extractor{fetch.ExtractDOM, fetch.ExtractTokens} {
		want, err := extract(body, "text/html; charset=utf-8")
		if err != nil || texts[i].Err != nil || texts[i].Text != want.Body || len(want.Body) < 1000 {
			t.Fatalf("%s: %d bytes of text, %v; the extractor gives %d bytes, %v", texts[i].Verifier, len(texts[i].Text), texts[i].Err, len(want.Body), err)
		}
	}
	// A page cut at the size limit is read as far as it goes, as the verifiers read it.
	cut := body[:len(body)/2]
	for i, pt := range VerifierTexts(cut, "text/html; charset=utf-8", true) {
		if pt.Err != nil || pt.Text == "" || len(pt.Text) >= len(texts[i].Text) {
			t.Fatalf("%s of a cut page: %v, %d bytes of %d", pt.Verifier, pt.Err, len(pt.Text), len(texts[i].Text))
		}
	}
	// Nothing visible: each says why, and gives no text.
	for _, pt := range VerifierTexts([]byte("<html><head><script>draw()</script></head><body></body></html>"), "text/html", false) {
		if pt.Err == nil || pt.Text != "" || !errors.Is(pt.Err, fetch.ErrNoText) {
			t.Fatalf("%s of an empty page: %q %v", pt.Verifier, pt.Text, pt.Err)
		}
	}
	if texts := VerifierTexts([]byte("plain words here"), "text/plain", false); texts[0].Text != "plain words here" || texts[1].Text != "plain words here" {
		t.Fatalf("plain text: %+v", texts)
	}
}
