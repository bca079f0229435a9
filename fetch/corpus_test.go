package fetch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusDir holds the real saved pages the extractors are tested against.
const corpusDir = "../testdata/corpus/pages"

// corpusPages returns the corpus page paths, failing the test when the corpus is missing.
func corpusPages(tb testing.TB) []string {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(corpusDir, "*.html"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("the corpus of saved pages is missing at %s: %v", corpusDir, err)
	}
	return paths
}

func readCorpus(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(corpusDir, name))
	if err != nil {
		tb.Fatalf("read corpus page %s: %v", name, err)
	}
	return b
}

// wordSimilarity is the Dice coefficient of the two texts' word multisets: 1 when they hold
// the same words, whatever their order.
func wordSimilarity(a, b string) float64 {
	count := map[string]int{}
	wa, wb := strings.Fields(a), strings.Fields(b)
	for _, w := range wa {
		count[w]++
	}
	common := 0
	for _, w := range wb {
		if count[w] > 0 {
			count[w]--
			common++
		}
	}
	if len(wa)+len(wb) == 0 {
		return 1
	}
	return 2 * float64(common) / float64(len(wa)+len(wb))
}

func TestExtractorsAgreeOnCorpus(t *testing.T) {
	identical := 0
	pages := corpusPages(t)
	for _, p := range pages {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		dom, err := ExtractDOM(body, "text/html")
		if err != nil {
			t.Errorf("%s: ExtractDOM: %v", filepath.Base(p), err)
			continue
		}
		tok, err := ExtractTokens(body, "text/html")
		if err != nil {
			t.Errorf("%s: ExtractTokens: %v", filepath.Base(p), err)
			continue
		}
		if dom.Title != tok.Title || dom.Description != tok.Description {
			t.Errorf("%s: title/description differ:\nDOM    %q / %q\ntokens %q / %q", filepath.Base(p), dom.Title, dom.Description, tok.Title, tok.Description)
		}
		if dom.Body == tok.Body {
			identical++
			continue
		}
		sim := wordSimilarity(dom.Body, tok.Body)
		t.Logf("%s: bodies differ, word similarity %.4f (DOM %d bytes, tokens %d bytes)", filepath.Base(p), sim, len(dom.Body), len(tok.Body))
		if sim < 0.99 {
			t.Errorf("%s: the extractors disagree: word similarity %.4f", filepath.Base(p), sim)
		}
	}
	t.Logf("identical bodies on %d of %d pages", identical, len(pages))
	// Measured: 40 of 40. A change that makes more than two pages differ is a regression.
	if identical < len(pages)-2 {
		t.Errorf("the extractors give identical bodies on only %d of %d pages", identical, len(pages))
	}
}
