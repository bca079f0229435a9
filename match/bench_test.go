package match

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evidenceledger/fetch"
)

// largestPageText returns the body text that fetch.ExtractDOM reads from the largest corpus
// page, yahoo-3.html (1.3 MB of HTML).
func largestPageText(b *testing.B) string {
	b.Helper()
	raw, err := os.ReadFile(filepath.Join(corpusPages, "yahoo-3.html"))
	if err != nil {
		b.Fatalf("corpus page missing: %v", err)
	}
	text, err := fetch.ExtractDOM(raw, "text/html")
	if err != nil {
		b.Fatal(err)
	}
	return text.Body
}

// quote300 takes about 300 runes of text, from the word after position at, at word
// boundaries.
func quote300(text string, at int) string {
	at += strings.IndexByte(text[at:], ' ') + 1
	rs := []rune(text[at:])[:300]
	q := string(rs)
	return q[:strings.LastIndexByte(q, ' ')]
}

// BenchmarkMatch300InLargestPage looks for a 300-character quote in the body text of the
// largest corpus page: found as it is (exact), found only after every folding (the quote in
// capitals: all six tiers are tried), and not found (one word changed: all tiers and the hint
// search).
func BenchmarkMatch300InLargestPage(b *testing.B) {
	text := largestPageText(b)
	q := quote300(text, len(text)*3/4)
	words := strings.Fields(q)
	words[len(words)/2] = "elephants"
	cases := []struct {
		name  string
		quote string
		found bool
	}{
		{"found-exact", q, true},
		{"found-case", strings.ToUpper(q), true},
		{"not-found", strings.Join(words, " "), false},
	}
	b.Run("floor-strings.Index", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			if i := strings.Index(text, q); i < 0 { // the floor: a plain substring search
				b.Fatal("the quote is not in the text")
			}
		}
	})
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				m, err := Quote(text, c.quote)
				if err != nil || m.Found != c.found {
					b.Fatalf("found %v, err %v; want found %v", m.Found, err, c.found)
				}
			}
		})
	}
}

// BenchmarkMatch25QuotesOnOnePage matches 25 quotes of 300 characters, in capitals (so each
// is found only at the case tier, the last), against the largest corpus page: with one
// PageText shared by the 25 (one fold per tier, as a check run does), and with a fresh
// Quote for each (25 folds per tier). The floor is one fold of the page at every tier
// plus 25 strings.Index calls in the folded text.
func BenchmarkMatch25QuotesOnOnePage(b *testing.B) {
	text := largestPageText(b)
	var quotes, folded []string
	for i := range 25 {
		q := quote300(text, len(text)*i/26)
		quotes = append(quotes, strings.ToUpper(q))
		folded = append(folded, foldText(q, TierCase, false).text)
	}
	b.Run("floor-one-fold-per-tier", func(b *testing.B) {
		for b.Loop() {
			var page string
			for t := TierWhitespace; t <= TierCase; t++ {
				page = foldText(text, t, false).text
			}
			for _, q := range folded {
				if i := strings.Index(page, q); i < 0 {
					b.Fatal("a quote is not in the folded text")
				}
			}
		}
	})
	b.Run("shared-PageText", func(b *testing.B) {
		for b.Loop() {
			pt := NewPageText(text)
			for _, q := range quotes {
				if m, err := pt.Match(q); err != nil || !m.Found {
					b.Fatalf("found %v, err %v", m.Found, err)
				}
			}
		}
	})
	b.Run("fresh-Quote-each", func(b *testing.B) {
		for b.Loop() {
			for _, q := range quotes {
				if m, err := Quote(text, q); err != nil || !m.Found {
					b.Fatalf("found %v, err %v", m.Found, err)
				}
			}
		}
	})
}

// allPagesText returns the body text of every corpus page, as fetch.ExtractDOM reads it,
// joined by spaces.
func allPagesText(b *testing.B) string {
	b.Helper()
	var texts []string
	for _, name := range corpusPageNames(b) {
		raw, err := os.ReadFile(filepath.Join(corpusPages, name))
		if err != nil {
			b.Fatal(err)
		}
		text, err := fetch.ExtractDOM(raw, "text/html")
		if err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		texts = append(texts, text.Body)
	}
	return strings.Join(texts, " ")
}

// BenchmarkMatchLinear shows that the cost grows linearly with the page: the same not-found
// quote (every tier and the hint search) in the body text of all 40 corpus pages, joined,
// once and 4 times over; and in a page of one repeated word with an ellipsis quote whose
// parts occur at every word. MB/s stays about the same from 1x to 4x.
func BenchmarkMatchLinear(b *testing.B) {
	text := allPagesText(b)
	words := strings.Fields(quote300(text, len(text)/2))
	words[len(words)/2] = "elephants"
	missing := strings.Join(words, " ")
	for _, n := range []int{1, 4} {
		page := strings.Repeat(text+" ", n)
		b.Run("page-x"+string(rune('0'+n)), func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			for b.Loop() {
				if m, err := Quote(page, missing); err != nil || m.Found {
					b.Fatalf("found %v, err %v", m.Found, err)
				}
			}
		})
	}
	for _, n := range []int{1, 4} {
		page := strings.Repeat("aaaa ", n*len(text)/20)
		b.Run("repetitive-x"+string(rune('0'+n)), func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			for b.Loop() {
				if m, err := Quote(page, "aaaa aaaa aaaa … aaaa aaaa aaaa … aaaa aaaa aaab"); err != nil || m.Found {
					b.Fatalf("found %v, err %v", m.Found, err)
				}
			}
		})
	}
}
