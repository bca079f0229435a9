package verify

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Passage selection for the model verifiers (docs/models.md). Each verifier receives the
// claim and passages of the page's own text, never the researcher's quote, chosen in its
// own way so that the two do not read the same words the same way:
//
//   - model-a (and the third, model-c) takes single sentences, scored by how many of the
//     claim's distinct terms each holds;
//   - model-b takes windows of three consecutive sentences, scored by the claim's terms
//     weighted by how rare each is on the page.
//
// Both stop at maxSentences sentences or maxPassageRunes runes and give their passages in
// page order. A page where
// no sentence shares a term with the claim gives its first sentences, so that the verifier
// can say the page does not address the claim.
const (
	maxPassageRunes  = 4000
	maxSentenceRunes = 600
	maxSentences     = 14
	fallbackRunes    = 1200
)

// pageSentences cuts visible text into sentences at ". ", "! ", "? " and the CJK full stops,
// and cuts a sentence longer than maxSentenceRunes at a space.
func pageSentences(text string) []string {
	var out []string
	start := 0
	emit := func(end int) {
		s := strings.TrimSpace(text[start:end])
		for utf8.RuneCountInString(s) > maxSentenceRunes {
			cut := runeOffset(s, maxSentenceRunes)
			if sp := strings.LastIndexByte(s[:cut], ' '); sp > 0 {
				cut = sp
			}
			out = append(out, strings.TrimSpace(s[:cut]))
			s = strings.TrimSpace(s[cut:])
		}
		if s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i, r := range text {
		switch r {
		case '.', '!', '?':
			if i+1 == len(text) || text[i+1] == ' ' {
				emit(i + 1)
			}
		case '。', '！', '？':
			emit(i + utf8.RuneLen(r))
		}
	}
	emit(len(text))
	return out
}

func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

var stopwords = map[string]bool{"the": true, "and": true, "for": true, "that": true, "with": true, "was": true,
	"were": true, "are": true, "from": true, "this": true, "has": true, "have": true, "had": true, "its": true,
	"his": true, "her": true, "their": true, "which": true, "who": true, "but": true, "not": true, "said": true,
	"been": true, "will": true, "would": true, "into": true, "than": true, "more": true, "also": true, "about": true}

// terms returns the distinct lower-case terms of s worth matching: words of three letters
// or more that are not stop words, and every number.
func terms(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if stopwords[w] || utf8.RuneCountInString(w) < 3 && !isDigits(w) {
			continue
		}
		out[w] = true
	}
	return out
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

type scored struct {
	first, last int // sentence indexes, inclusive
	score       float64
}

// pick takes the best candidates that do not overlap, within the rune budget, and returns
// their text in page order; with no candidate scoring above zero, the page's first
// sentences.
func pick(sentences []string, cands []scored) []string {
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	used := make([]bool, len(sentences))
	var chosen []scored
	runes, count := 0, 0
	for _, c := range cands {
		if c.score <= 0 || count >= maxSentences {
			break
		}
		n, free := 0, true
		for i := c.first; i <= c.last; i++ {
			free = free && !used[i]
			n += utf8.RuneCountInString(sentences[i]) + 1
		}
		if !free || runes+n > maxPassageRunes || count+c.last-c.first+1 > maxSentences {
			continue
		}
		count += c.last - c.first + 1
		for i := c.first; i <= c.last; i++ {
			used[i] = true
		}
		chosen = append(chosen, c)
		runes += n
	}
	if len(chosen) == 0 {
		var out []string
		runes := 0
		for _, s := range sentences {
			if runes > fallbackRunes {
				break
			}
			out = append(out, s)
			runes += utf8.RuneCountInString(s)
		}
		return out
	}
	sort.Slice(chosen, func(i, j int) bool { return chosen[i].first < chosen[j].first })
	out := make([]string, len(chosen))
	for i, c := range chosen {
		out[i] = strings.Join(sentences[c.first:c.last+1], " ")
	}
	return out
}

// chooseSentences is model-a's selection: single sentences by the number of the claim's
// distinct terms they hold.
func chooseSentences(claim string, sentences []string) []string {
	ct := terms(claim)
	cands := make([]scored, len(sentences))
	for i, s := range sentences {
		n := 0
		for w := range terms(s) {
			if ct[w] {
				n++
			}
		}
		cands[i] = scored{first: i, last: i, score: float64(n)}
	}
	return pick(sentences, cands)
}

// chooseWindows is model-b's selection: windows of three sentences, each claim term
// counted once per window and weighted by 1/(1+the number of sentences holding it).
func chooseWindows(claim string, sentences []string) []string {
	ct := terms(claim)
	per := make([]map[string]bool, len(sentences))
	df := map[string]int{}
	for i, s := range sentences {
		per[i] = map[string]bool{}
		for w := range terms(s) {
			if ct[w] {
				per[i][w] = true
				df[w]++
			}
		}
	}
	var cands []scored
	for i := range sentences {
		last := min(i+2, len(sentences)-1)
		seen := map[string]bool{}
		score := 0.0
		for k := i; k <= last; k++ {
			for w := range per[k] {
				if !seen[w] {
					seen[w] = true
					score += 1 / float64(1+df[w])
				}
			}
		}
		cands = append(cands, scored{first: i, last: last, score: score})
	}
	return pick(sentences, cands)
}
