package match

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"evidenceledger/fetch"
)

var (
	corpusTextMu sync.Mutex
	corpusTexts  = map[string]string{}
)

// corpusText returns the visible text of a corpus page as fetch.ExtractDOM reads it.
func corpusText(t testing.TB, page string) string {
	t.Helper()
	corpusTextMu.Lock()
	defer corpusTextMu.Unlock()
	if s, ok := corpusTexts[page]; ok {
		return s
	}
	raw, err := os.ReadFile(filepath.Join(corpusPages, page))
	if err != nil {
		t.Fatalf("corpus page %s: %v", page, err)
	}
	text, err := fetch.ExtractDOM(raw, "text/html")
	if err != nil {
		t.Fatalf("%s: extract: %v", page, err)
	}
	corpusTexts[page] = text.Body
	return text.Body
}

// TestNoFalseFound holds every false "found" reported on real pages, each beside the quote
// that is on the page, so that a fix that simply finds nothing fails too.
func TestNoFalseFound(t *testing.T) {
	for _, c := range []struct {
		desc, page string // page: a corpus page, or the text itself when text is set
		text       string
		quote      string
		found      bool
		negation   string // the negation an ellipsis drops, when not found for that
	}{
		{desc: "a word inside a longer word: able in unable", page: "bbc-1.html",
			quote: "able to secure any significant changes to the laws"},
		{desc: "the longer word itself", page: "bbc-1.html",
			quote: "unable to secure any significant changes to the laws", found: true},
		{desc: "possible inside impossible", page: "ebb-org.html",
			quote: "possible for one individual to effectively push forward"},
		{desc: "impossible itself", page: "ebb-org.html",
			quote: "impossible for one individual to effectively push forward", found: true},
		{desc: "3% inside 23%", page: "lwn-1.html",
			quote: "3% of the changes, make up 82% of the developer base"},
		{desc: "23% itself", page: "lwn-1.html",
			quote: "23% of the changes, make up 82% of the developer base", found: true},
		{desc: "a reference number cut short: [15 of [150]", page: "wikipedia-2.html",
			quote: "the country's largest lake, Lake Taupo,[15"},
		{desc: "the whole reference number", page: "wikipedia-2.html",
			quote: "the country's largest lake, Lake Taupo,[150]", found: true},
		{desc: "an ellipsis drops the negation of isn't", page: "nytimes-4.html",
			quote: "No, the United States … at risk of becoming the next Greece", negation: "isn't"},
		{desc: "the same passage quoted with its negation", page: "nytimes-4.html",
			quote: "No, the United States isn't at risk of becoming the next Greece", found: true},
		{desc: "parts from sentences far apart are not one passage", page: "bbc-1.html",
			quote: "unable to secure any significant changes … " + farSentence(t, "bbc-1.html", "unable to secure any significant changes", 1800)},
		{desc: "a number inside a number: 500 of 5\u00a0500", page: "liberation-1.html",
			quote: "500 morts et touche huit des 28 millions"},
		{desc: "the whole number 5\u00a0500, typed with a space", page: "liberation-1.html",
			quote: "près de 5 500 morts et touche huit des 28 millions", found: true},
		{desc: "a number without its minus sign: 25.6 of −25.6", page: "wikipedia-2.html",
			quote: "25.6 °C (−14.08 °F) in Ranfurly"},
		{desc: "the number with its minus sign", page: "wikipedia-2.html",
			quote: "−25.6 °C (−14.08 °F) in Ranfurly", found: true},
		{desc: "the number with its minus sign typed as a hyphen", page: "wikipedia-2.html",
			quote: "and -25.6 °C (-14.08 °F) in Ranfurly", found: true},
		{desc: "4½ is not 41/2", page: "lwn-1.html", quote: "In the 41⁄2 years since its"},
		{desc: "4½ as written", page: "lwn-1.html", quote: "In the 4½ years since its", found: true},
		{desc: "a superscript is not a digit: 10⁶ is not 106", text: "The plant makes 10⁶ tonnes a year of steel.",
			quote: "makes 106 tonnes a year"},
		{desc: "62² is not 622", text: "The area is 62² square metres in all.", quote: "The area is 622 square metres"},
		{desc: "a fraction is not its digits", text: "Prices rose by ½ percent last month.", quote: "rose by 12 percent last month"},
		{desc: "a circled digit is not a digit", text: "Step ① turns the valve to open it.", quote: "Step 1 turns the valve to open"},
		{desc: "a ligature keeps its letters", text: "The ﬁnancial results of the ﬁrm.", quote: "financial results of the firm", found: true},
		{desc: "full-width letters keep their letters", text: "Ｔｈｅ ｑｕｉｃｋ ｂｒｏｗｎ ｆｏｘ", quote: "The quick brown fox", found: true},
		{desc: "a hyphenated prefix is part of the word", text: "These are non-negotiable terms of the deal.", quote: "negotiable terms of the deal"},
		{desc: "a decimal point joins digits", text: "The city has 2.5 million residents today.", quote: "5 million residents today"},
		{desc: "a thousands comma joins digits", text: "The count was 4,812 votes in the end.", quote: "812 votes in the end"},
		{desc: "a soft hyphen does not make a boundary", text: "they were un\u00adable to secure any change",
			quote: "able to secure any change"},
		{desc: "a combining accent changes the last letter", text: "the resume\u0301 of the candidate was long",
			quote: "the resume of the candidate"},
		{desc: "an ellipsis drops not", text: "The new drug is not safe for children under five years.",
			quote: "The new drug is … safe for children under five", negation: "not"},
		{desc: "an ellipsis drops never", text: "She said she would never support the bill in its form.",
			quote: "She said she would … support the bill in its form", negation: "never"},
		{desc: "an ellipsis drops nicht (German)", text: "Die Regierung hat das Gesetz nicht beschlossen, sagte er.",
			quote: "Die Regierung hat das Gesetz … beschlossen, sagte er", negation: "nicht"},
		{desc: "an ellipsis drops ne … pas (French)", text: "Le projet de loi ne sera pas adopté cette année par le Sénat.",
			quote: "Le projet de loi … adopté cette année par le Sénat", negation: "ne"},
		{desc: "an ellipsis that drops no negation", text: "The new drug is, in most trials so far, safe for children under five years.",
			quote: "The new drug is … safe for children under five", found: true},
		{desc: "words at a boundary of punctuation", text: "He said: \"the plan works\" (mostly).",
			quote: "the plan works\" (mostly", found: true},
		{desc: "CJK matches at character boundaries", text: "这是被引用的一句话在这里，然后继续。",
			quote: "被引用的一句话在这里然后", found: false},
		{desc: "CJK inside a longer run", text: "这是被引用的一句话在这里，然后继续。",
			quote: "是被引用的一句话在这里，然", found: true},
	} {
		t.Run(c.desc, func(t *testing.T) {
			text := c.text
			if text == "" {
				text = corpusText(t, c.page)
			}
			m, err := Quote(text, c.quote)
			if err != nil {
				t.Fatalf("Quote(%q): %v", c.quote, err)
			}
			if m.Found != c.found {
				got := ""
				if m.Found {
					got = text[m.Spans[0].Start:m.Spans[len(m.Spans)-1].End]
				}
				t.Fatalf("found = %v (%q, tier %v), want %v", m.Found, got, m.Tier, c.found)
			}
			if m.Negation != c.negation {
				t.Fatalf("negation = %q, want %q", m.Negation, c.negation)
			}
		})
	}
}

// farSentence returns about fourteen words of the page text that start at least far bytes
// after anchor.
func farSentence(t *testing.T, page, anchor string, far int) string {
	t.Helper()
	text := corpusText(t, page)
	i := strings.Index(text, anchor)
	if i < 0 {
		t.Fatalf("%s: %q not in the page", page, anchor)
	}
	rest := text[i+far:]
	if j := strings.Index(rest, ". "); j >= 0 {
		rest = rest[j+2:]
	}
	words := strings.Fields(rest)
	return strings.Join(words[:14], " ")
}

// TestQuotePartsRefused: an ellipsis part that is one word, or a letter, is no quote to look
// for; neither is a quote of dots or of two short numbers; more than MaxQuoteParts parts are
// refused with their own error.
func TestQuotePartsRefused(t *testing.T) {
	page := "The cat sat on the mat. Obama spoke about gun laws in 2009. T h e."
	for _, c := range []struct {
		desc, quote string
		want        error
	}{
		{"a letter each", "T … h … e …", ErrQuoteTooShort},
		{"a word each", "Obama … gun … 2009", ErrQuoteTooShort},
		{"one long word as a part", "Obama spoke about gun laws … internationally", ErrQuoteTooShort},
		{"twelve dots", "............", ErrQuoteTooShort},
		{"two short numbers", "n 2025 ... 4,812", ErrQuoteTooShort},
		{"more parts than the cap", strings.Repeat("the cat sat on the mat … ", 9), ErrTooManyParts},
	} {
		t.Run(c.desc, func(t *testing.T) {
			_, err := Quote(page, c.quote)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
		})
	}
}

// TestMatchMemoryBound: a quote of 200 ellipsis parts is refused without looking; a quote of
// MaxQuoteParts parts, each on a repetitive 10 MiB page at every other word, costs memory
// linear in the page (its folds and one offset map), not in the number of parts or
// occurrences, and time linear in the page.
func TestMatchMemoryBound(t *testing.T) {
	unit := "the cat sat on the mat and the dog sat on the log. "
	page := strings.Repeat(unit, (10<<20)/len(unit))
	var many []string
	for range 200 {
		many = append(many, "the cat sat on the mat")
	}
	measure := func(quote string) (Match, uint64, error) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m, err := Quote(page, quote)
		runtime.ReadMemStats(&after)
		return m, after.TotalAlloc - before.TotalAlloc, err
	}
	// The bounds below are far under one fold of the 10 MiB page, and leave room for what
	// the runtime and the race detector allocate beside the matcher (TotalAlloc counts the
	// whole process).
	const small = 4 << 20
	if _, alloc, err := measure(strings.Join(many, " … ")); !errors.Is(err, ErrTooManyParts) || alloc > small {
		t.Fatalf("200 parts: err %v after %d bytes allocated; want ErrTooManyParts at once", err, alloc)
	}
	// Found at once: the exact tier needs no fold.
	parts := []string{"the cat sat on the mat", "the dog sat on the log", "the cat sat on the mat", "the dog sat on the log",
		"the cat sat on the mat", "the dog sat on the log", "the cat sat on the mat", "the dog sat on the log"}
	m, alloc, err := measure(strings.Join(parts, " … "))
	if err != nil || !m.Found || alloc > small {
		t.Fatalf("8 parts found at the exact tier: found %v err %v, %d bytes allocated; want found with under %d MiB", m.Found, err, alloc, small>>20)
	}
	// Never found: every tier is folded once, without an offset map; the hint is mapped back
	// by folding once more.
	parts[7] = "the dog sat on the cat"
	m, alloc, err = measure(strings.Join(parts, " … "))
	const limit = 8 * (10 << 20) // 8 times the page: five folds and slack
	if err != nil || m.Found || alloc > limit {
		t.Fatalf("8 parts never found: found %v err %v, %d MiB allocated; want not found with at most %d MiB", m.Found, err, alloc>>20, limit>>20)
	}
	t.Logf("8 parts on a 10 MiB page, not found: %d MiB allocated in all", alloc>>20)
}

// TestEllipsisGapAtTheLimit: the text left out may total MaxEllipsisGap runes, not one more;
// runes, not bytes, are counted (a gap of Cyrillic letters is 2 bytes a rune).
func TestEllipsisGapAtTheLimit(t *testing.T) {
	quote := "the first part is here … the second part is here"
	for _, c := range []struct {
		desc  string
		fill  string // a single-rune filler, repeated
		runes int
		found bool
	}{
		{"ASCII at the limit", "x", MaxEllipsisGap, true},
		{"ASCII past the limit", "x", MaxEllipsisGap + 1, false},
		{"two-byte runes at the limit", "ж", MaxEllipsisGap, true},
		{"two-byte runes past the limit", "ж", MaxEllipsisGap + 1, false},
	} {
		t.Run(c.desc, func(t *testing.T) {
			// The gap is " " + filler + " ": two spaces and runes-2 filler runes.
			page := "the first part is here " + strings.Repeat(c.fill, c.runes-2) + " the second part is here"
			m, err := Quote(page, quote)
			if err != nil || m.Found != c.found {
				t.Fatalf("found %v (err %v) with %d runes left out, want %v", m.Found, err, c.runes, c.found)
			}
		})
	}
}
