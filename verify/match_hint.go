package verify

import (
	"unicode"
	"unicode/utf8"
)

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
// parts are folded at the same tier (the highest). It runs in one pass over the page's words
// with a map lookup per word.
func findHint(pageText string, page *folded, parts []string) *Hint {
	want := map[string]int{}
	m := 0
	for _, p := range parts {
		for _, t := range hintTokens(p) {
			want[p[t.start:t.end]]++
			m++
		}
	}
	words := hintTokens(page.text)
	if m == 0 || len(words) == 0 {
		return nil
	}
	win := min(m, len(words))
	have := make(map[string]int, len(want))
	overlap, best, bestAt := 0, 0, 0
	for i, w := range words {
		corpusWord := page.text[w.start:w.end]
		if n, ok := want[corpusWord]; ok {
			if have[corpusWord] < n {
				overlap++
			}
			have[corpusWord]++
		}
		if i >= win {
			old := page.text[words[i-win].start:words[i-win].end]
			if n, ok := want[old]; ok {
				have[old]--
				if have[old] < n {
					overlap--
				}
			}
		}
		if i >= win-1 && overlap > best {
			best, bestAt = overlap, i-win+1
		}
	}
	sim := best * 100 / m
	if sim < MinHintSimilarity {
		return nil
	}
	sp := page.span(int(words[bestAt].start), int(words[bestAt+win-1].end))
	return &Hint{Text: pageText[sp.Start:sp.End], Span: sp, Similarity: sim}
}

// hintTokens splits a folded text into words: runs of letters, marks and digits, except that
// each Han, Hiragana and Katakana character is a word of its own (those scripts do not
// separate words by spaces).
func hintTokens(s string) []hintToken {
	var out []hintToken
	start := -1
	for i, r := range s {
		ideo := r >= 0x2E80 && (unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana))
		corpusWord := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
		if start >= 0 && (!corpusWord || ideo) {
			out = append(out, hintToken{int32(start), int32(i)})
			start = -1
		}
		if ideo {
			out = append(out, hintToken{int32(i), int32(i + utf8.RuneLen(r))})
		} else if corpusWord && start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, hintToken{int32(start), int32(len(s))})
	}
	return out
}
