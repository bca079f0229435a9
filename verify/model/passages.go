package model

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"evidenceledger/evidence"
	"evidenceledger/match"
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
// When the program found the citation's quote on the page that verifier read, the
// sentences holding it (for model-b, the window of three around each) are taken first:
// they are the page's own words where the research says its evidence is, and no smaller
// selection may leave them out. Each selection stops at maxSentences sentences or
// maxPassageRunes runes (the anchor sentences alone may pass the bound when the quote
// spans more) and gives its passages in page order. The two selections are each about
// half of what one reader of the page would take, so that the two verifiers together read
// about what one unverified answer reads. A page where no sentence shares a term with the
// claim and no quote was found gives its first sentences, so that the verifier can say
// the page does not address the claim.
const (
	maxPassageRunes  = 2000
	maxSentences     = 7
	maxSentenceRunes = 600
	fallbackRunes    = 1200
)

// passageBudget bounds a selection: at most so many sentences and so many runes.
type passageBudget struct{ sentences, runes int }

// verifierBudget is the budget of each verifier's selection.
var verifierBudget = passageBudget{sentences: maxSentences, runes: maxPassageRunes}

// pageSentences cuts visible text into sentences at ". ", "! ", "? " and the CJK full stops,
// and cuts a sentence longer than maxSentenceRunes at a space.
func pageSentences(text string) []string {
	out, _ := sentenceSpans(text)
	return out
}

// sentenceSpans is pageSentences with where each sentence lies in text (byte offsets, the
// sentence trimmed of spaces).
func sentenceSpans(text string) ([]string, []match.Span) {
	var out []string
	var spans []match.Span
	start := 0
	add := func(from int, s string) {
		lead := len(s) - len(strings.TrimLeftFunc(s, unicode.IsSpace))
		s = strings.TrimSpace(s)
		if s != "" {
			out = append(out, s)
			spans = append(spans, match.Span{Start: from + lead, End: from + lead + len(s)})
		}
	}
	emit := func(end int) {
		from, s := start, text[start:end]
		for utf8.RuneCountInString(strings.TrimSpace(s)) > maxSentenceRunes {
			lead := len(s) - len(strings.TrimLeftFunc(s, unicode.IsSpace))
			from, s = from+lead, s[lead:]
			cut := runeOffset(s, maxSentenceRunes)
			if sp := strings.LastIndexByte(s[:cut], ' '); sp > 0 {
				cut = sp
			}
			add(from, s[:cut])
			from, s = from+cut, s[cut:]
		}
		add(from, s)
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
	return out, spans
}

// anchorSentences returns the indexes of the sentences that overlap the spans of a found
// quote, in page order; none when m is not found.
func anchorSentences(spans []match.Span, m match.Match) []int {
	if !m.Found {
		return nil
	}
	var out []int
	for i, s := range spans {
		for _, q := range m.Spans {
			if s.Start < q.End && q.Start < s.End {
				out = append(out, i)
				break
			}
		}
	}
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

// terms returns the distinct lower-case terms of s worth matching (evidence.LowerWords):
// words of three letters or more that are not stop words, and every number, whole as the
// matcher reads it.
func terms(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range evidence.LowerWords(s) {
		if stopwords[w] || utf8.RuneCountInString(w) < 3 && !evidence.IsNumberWord(w) {
			continue
		}
		out[w] = true
	}
	return out
}

type scored struct {
	first, last int // sentence indexes, inclusive
	score       float64
}

// pick takes the anchors (candidates that must be sent, in the order given, that may
// overlap one another), then the best candidates that do not overlap what is taken, within
// the budget, and returns their text in page order; with no anchor and no candidate
// scoring above zero, the page's first sentences.
func pick(sentences []string, anchors, cands []scored, limit passageBudget) []string {
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	used := make([]bool, len(sentences))
	var chosen []scored
	runes, count := 0, 0
	for _, a := range anchors {
		for i := a.first; i <= a.last; i++ {
			if !used[i] {
				used[i] = true
				count++
				runes += utf8.RuneCountInString(sentences[i]) + 1
			}
		}
		if n := len(chosen); n > 0 && a.first <= chosen[n-1].last+1 && a.first >= chosen[n-1].first {
			chosen[n-1].last = max(chosen[n-1].last, a.last)
			continue
		}
		chosen = append(chosen, a)
	}
	for _, c := range cands {
		if c.score <= 0 || count >= limit.sentences {
			break
		}
		n, free := 0, true
		for i := c.first; i <= c.last; i++ {
			free = free && !used[i]
			n += utf8.RuneCountInString(sentences[i]) + 1
		}
		if !free || runes+n > limit.runes || count+c.last-c.first+1 > limit.sentences {
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
	sort.SliceStable(chosen, func(i, j int) bool { return chosen[i].first < chosen[j].first })
	out := make([]string, len(chosen))
	for i, c := range chosen {
		out[i] = strings.Join(sentences[c.first:c.last+1], " ")
	}
	return out
}

// chooseSentences is model-a's selection: the anchor sentences, then single sentences by
// the number of the claim's distinct terms they hold.
func chooseSentences(claim string, sentences []string, anchors []int) []string {
	forced, cands := sentenceCandidates(claim, sentences, anchors)
	return pick(sentences, forced, cands, verifierBudget)
}

// sentenceCandidates scores model-a's candidates: the anchors, then every sentence.
func sentenceCandidates(claim string, sentences []string, anchors []int) (forced, cands []scored) {
	ct := terms(claim)
	cands = make([]scored, len(sentences))
	for i, s := range sentences {
		n := 0
		for w := range terms(s) {
			if ct[w] {
				n++
			}
		}
		cands[i] = scored{first: i, last: i, score: float64(n)}
	}
	forced = make([]scored, len(anchors))
	for i, a := range anchors {
		forced[i] = scored{first: a, last: a}
	}
	return forced, cands
}

// chooseWindows is model-b's selection: the window of three sentences centred on each
// anchor sentence, then windows of three sentences, each claim term counted once per
// window and weighted by 1/(1+the number of sentences holding it).
func chooseWindows(claim string, sentences []string, anchors []int) []string {
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
	forced := make([]scored, len(anchors))
	for i, a := range anchors {
		forced[i] = scored{first: max(a-1, 0), last: min(a+1, len(sentences)-1)}
	}
	return pick(sentences, forced, cands, verifierBudget)
}
