package match

import "evidenceledger/evidence"

// MinHintSimilarity is the lowest similarity, in percent, at which a not-found quote gets a
// [Hint].
const MinHintSimilarity = 30

// Hint points an operator at the passage of a page most like a quote that was not found.
// It is never a match: a quote is found only when its words are on the page.
type Hint struct {
	// Text is the page's own text of the passage.
	Text string
	// Span is where Text lies in the page text, in bytes.
	Span Span
	// Similarity is the share of the quote's words, in percent (0..100), that the passage
	// holds: the best token overlap over windows of as many words as the quote has.
	Similarity int
}

// hintToken is a word of a folded text, as a range of bytes in it.
type hintToken struct{ start, end int32 }

// findHint returns the window of page words most like the quote parts, or nil. page and
// parts are folded at tier t (the highest); page is the folded text of pageText. It runs in
// one pass over the page's words with a map lookup per word, keeping only the last window of
// words, and maps the best window back to pageText by folding once more (locate): its memory
// is that of the quote, whatever the size of the page.
func findHint(pageText, page string, t Tier, parts []string) *Hint {
	want := map[string]int{}
	m := 0
	for _, p := range parts {
		for _, tok := range hintTokens(p) {
			want[p[tok.start:tok.end]]++
			m++
		}
	}
	if m == 0 {
		return nil
	}
	ring := make([]hintToken, m) // the last m words: ring[i%m] is word i
	have := make(map[string]int, len(want))
	overlap, best, n := 0, 0, 0
	var bestFirst, bestLast hintToken
	eachHintToken(page, func(w hintToken) {
		word := page[w.start:w.end]
		if k, ok := want[word]; ok {
			if have[word] < k {
				overlap++
			}
			have[word]++
		}
		if n >= m {
			old := ring[n%m]
			oldWord := page[old.start:old.end]
			if k, ok := want[oldWord]; ok {
				have[oldWord]--
				if have[oldWord] < k {
					overlap--
				}
			}
		}
		ring[n%m] = w
		n++
		if n >= m && overlap > best {
			best, bestFirst, bestLast = overlap, ring[n%m], w
		}
	})
	if n > 0 && n < m && overlap > best {
		// A page with fewer words than the quote: the whole page is the window.
		best, bestFirst, bestLast = overlap, ring[0], ring[n-1]
	}
	sim := best * 100 / m
	if sim < MinHintSimilarity {
		return nil
	}
	sp := locate(pageText, t, int(bestFirst.start), int(bestLast.end))
	return &Hint{Text: pageText[sp.Start:sp.End], Span: sp, Similarity: sim}
}

// hintTokens returns the words of s (see eachHintToken).
func hintTokens(s string) []hintToken {
	var out []hintToken
	eachHintToken(s, func(t hintToken) { out = append(out, t) })
	return out
}

// eachHintToken calls f with each word of a folded text, in order: the words of
// evidence.EachWord, the one word splitter (numbers whole, as the quote's numbers are
// matched; each Han, Hiragana and Katakana character a word of its own).
func eachHintToken(s string, f func(hintToken)) {
	evidence.EachWord(s, func(start, end int) { f(hintToken{int32(start), int32(end)}) })
}
