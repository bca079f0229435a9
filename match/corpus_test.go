package match

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/net/html"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
)

// corpusPages is where the saved corpus pages lie, seen from this package's directory.
const corpusPages = "../testdata/corpus/pages"

var updateQuotes = flag.Bool("update", false, "rewrite testdata/quotes/corpus.jsonl from the corpus pages")

// corpusQuote is one line of testdata/quotes/corpus.jsonl: a quote and whether it is on the
// page (Found) or an altered copy that is not. Why names the traps the quote crosses, or the
// alteration.
type corpusQuote struct {
	Page  string `json:"page"`
	Quote string `json:"quote"`
	Found bool   `json:"found"`
	Why   string `json:"why"`
}

// corpusPageNames lists the corpus pages; it fails the test when they are missing.
func corpusPageNames(t testing.TB) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(corpusPages, "*.html"))
	if err != nil || len(names) < 40 {
		t.Fatalf("corpus pages missing: want 40 pages in %s, found %d (err %v)", corpusPages, len(names), err)
	}
	for i, n := range names {
		names[i] = filepath.Base(n)
	}
	return names
}

// TestGenerateCorpusQuotes derives the corpus cases from the pages and checks that
// testdata/quotes/corpus.jsonl holds exactly them; with -update it rewrites the file:
//
//	go test ./match -run TestGenerateCorpusQuotes -update
//
// For each page it takes the text of the visible <p> elements (see visibleParagraphs), scores
// each paragraph by the traps it holds, and quotes about fourteen words around a trap in the
// three best paragraphs, the way a person copies them from a browser: whitespace as single
// spaces, invisible characters gone; the first quote of a page with curly quotes has them
// straightened. Each found quote gets one altered copy that must not be found: one word
// changed, two words swapped, or a number changed. Every case is checked against the
// paragraph text with Quote here; the corpus test checks them against the text the
// fetch extractors produce.
func TestGenerateCorpusQuotes(t *testing.T) {
	var got []corpusQuote
	for _, name := range corpusPageNames(t) {
		body, err := os.ReadFile(filepath.Join(corpusPages, name))
		if err != nil {
			t.Fatal(err)
		}
		paras := visibleParagraphs(t, body)
		text := strings.Join(paras, "\n")
		cases := pageQuotes(name, paras)
		if len(cases) < 6 {
			t.Fatalf("%s: only %d cases; the page needs three quotable paragraphs", name, len(cases))
		}
		for _, c := range cases {
			m, err := Quote(text, c.Quote)
			if err != nil {
				t.Fatalf("%s: %q: %v", name, c.Quote, err)
			}
			if m.Found != c.Found {
				t.Fatalf("%s: %q (%s): found %v, want %v", name, c.Quote, c.Why, m.Found, c.Found)
			}
		}
		got = append(got, cases...)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, c := range got {
		if err := enc.Encode(c); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join("..", "testdata", "quotes", "corpus.jsonl")
	if *updateQuotes {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v (run with -update to write it)", path, err)
	}
	if !bytes.Equal(want, buf.Bytes()) {
		t.Fatalf("%s is out of date: rerun with -update and review the diff", path)
	}
}

// visibleParagraphs returns the text of the <p> and <td> elements a reader sees: outside script, style,
// noscript, template and head; with no hidden, aria-hidden, screen-reader-only, caption or
// display:none element on the way or inside; without <sup> citation markers. <br> is a line
// break. The text keeps the page's own whitespace and characters.
func visibleParagraphs(t testing.TB, body []byte) []string {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && hiddenElement(n) {
			return
		}
		if n.Type == html.ElementNode && (n.Data == "p" || n.Data == "td") {
			var sb strings.Builder
			if paragraphText(n, &sb) {
				out = append(out, sb.String())
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

// hiddenElement reports whether an element and all it holds are out of the visible text.
func hiddenElement(n *html.Node) bool {
	switch n.Data {
	case "script", "style", "noscript", "template", "head", "svg", "math", "iframe":
		return true
	}
	for _, a := range n.Attr {
		v := strings.ToLower(a.Val)
		switch a.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if v == "true" {
				return true
			}
		case "style":
			v = strings.ReplaceAll(v, " ", "")
			if strings.Contains(v, "display:none") || strings.Contains(v, "visibility:hidden") {
				return true
			}
		case "class":
			for _, c := range strings.Fields(v) {
				if strings.HasPrefix(c, "hide") || strings.HasPrefix(c, "sr-only") ||
					strings.Contains(c, "hidden") || strings.Contains(c, "screen-reader") || strings.Contains(c, "caption") || strings.Contains(c, "offscreen") {
					return true
				}
			}
		}
	}
	return false
}

// paragraphText writes the text of n to sb; it reports false when the paragraph holds
// anything whose visible form is in doubt (a skipped element, <sup>, an image, a form field)
// or another block, whose own text is then taken on its own.
func paragraphText(n *html.Node, sb *strings.Builder) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			sb.WriteString(c.Data)
		case html.ElementNode:
			switch {
			case hiddenElement(c), c.Data == "sup", c.Data == "img", c.Data == "input", c.Data == "button", c.Data == "select",
				c.Data == "p", c.Data == "td", c.Data == "div", c.Data == "table", c.Data == "ul", c.Data == "ol":
				return false
			case c.Data == "br":
				sb.WriteString("\n")
			case !paragraphText(c, sb):
				return false
			}
		}
	}
	return true
}

// corpusWord is a word of a paragraph with the whitespace before it.
type corpusWord struct {
	text, sep string
}

// splitParagraphWords splits a paragraph at Unicode whitespace, keeping each separator.
func splitParagraphWords(p string) []corpusWord {
	var ws []corpusWord
	sep := ""
	cur := strings.Builder{}
	for _, r := range p {
		if unicode.IsSpace(r) {
			if cur.Len() > 0 {
				ws = append(ws, corpusWord{cur.String(), sep})
				cur.Reset()
				sep = ""
			}
			sep += string(r)
			continue
		}
		cur.WriteRune(r)
	}
	if cur.Len() > 0 {
		ws = append(ws, corpusWord{cur.String(), sep})
	}
	return ws
}

// wordTraps names what in a word (or the whitespace before it) trips a naive matcher.
func wordTraps(w corpusWord) []string {
	var out []string
	if strings.ContainsAny(w.sep, "\u00a0\u202f") {
		out = append(out, "nbsp")
	}
	if strings.ContainsAny(w.sep, "\n\t\r") || strings.Count(w.sep, " ") > 1 {
		out = append(out, "line-break")
	}
	if strings.ContainsRune(w.sep, '\u3000') || strings.ContainsRune(w.text, '\u3000') {
		out = append(out, "ideographic-space")
	}
	if strings.ContainsFunc(w.text, evidence.IsInvisible) {
		out = append(out, "invisible")
	}
	if strings.ContainsAny(w.text, "“”‘’«»„") {
		out = append(out, "curly-quotes")
	}
	if strings.ContainsAny(w.text, "–—−") {
		out = append(out, "dash")
	}
	if strings.ContainsAny(w.text, "&<>") {
		out = append(out, "entity")
	}
	return out
}

// corpusCandidate is a quote proposed from a paragraph, with the traps it crosses.
type corpusCandidate struct {
	quote string
	why   []string
}

// pageQuotes chooses three quotes from the paragraphs of one page, the ones that cross the
// most kinds of trap, and one altered copy of each.
func pageQuotes(page string, paras []string) []corpusQuote {
	var cands []corpusCandidate
	for _, p := range paras {
		if strings.ContainsFunc(p, func(r rune) bool { return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) }) {
			for _, line := range strings.Split(p, "\n") {
				if c, ok := cjkQuote(line); ok {
					cands = append(cands, c)
				}
			}
			continue
		}
		// A long paragraph gives a candidate for every 40 words.
		for ws := splitParagraphWords(p); len(ws) >= 10; {
			chunk := ws[:min(len(ws), 40)]
			ws = ws[len(chunk):]
			cands = append(cands, wordQuote(chunk))
		}
	}
	sort.SliceStable(cands, func(a, b int) bool { return len(cands[a].why) > len(cands[b].why) })
	var out []corpusQuote
	seen := map[string]bool{}
	for _, c := range cands {
		if len(out) == 6 {
			break
		}
		if seen[c.quote] || len([]rune(c.quote)) < 24 {
			continue
		}
		seen[c.quote] = true
		q, why := c.quote, c.why
		if len(out) == 0 && slices.Contains(why, "curly-quotes") {
			q = strings.NewReplacer("“", `"`, "”", `"`, "‘", "'", "’", "'", "„", `"`).Replace(q)
			why = append(why, "straightened")
		}
		if len(why) == 0 {
			why = []string{"plain"}
		}
		alt, how := alterQuote(q, len(out)/2)
		out = append(out,
			corpusQuote{Page: page, Quote: q, Found: true, Why: strings.Join(why, ",")},
			corpusQuote{Page: page, Quote: alt, Found: false, Why: how})
	}
	return out
}

// wordQuote quotes up to 14 words of ws around the word with the most traps.
func wordQuote(ws []corpusWord) corpusCandidate {
	n := min(len(ws), 14)
	at, best := 0, -1
	for j := 1; j < len(ws)-1; j++ {
		if k := len(wordTraps(ws[j])); k > best {
			at, best = j, k
		}
	}
	lo := max(0, min(at-6, len(ws)-n))
	var q []string
	whySet := map[string]bool{}
	for j, w := range ws[lo : lo+n] {
		for _, tr := range wordTraps(w) {
			if j > 0 || (tr != "nbsp" && tr != "line-break") {
				whySet[tr] = true
			}
		}
		if txt := strings.Map(dropInvisible, w.text); txt != "" {
			q = append(q, txt)
		}
	}
	why := make([]string, 0, len(whySet))
	for k := range whySet {
		why = append(why, k)
	}
	sort.Strings(why)
	return corpusCandidate{quote: strings.Join(q, " "), why: why}
}

// cjkQuote takes 30 runes of a paragraph in a script without spaces, around the first
// ideographic space or mixed punctuation.
func cjkQuote(p string) (corpusCandidate, bool) {
	var why []string
	rs := []rune(strings.Map(dropInvisible, p))
	if len(rs) < 40 {
		return corpusCandidate{}, false
	}
	at := 0
	for i, r := range rs {
		if r == '\u3000' {
			at, why = i, []string{"ideographic-space"}
			break
		}
		if r == '(' || r == '（' {
			at, why = i, []string{"brackets"}
			break
		}
	}
	lo := max(0, min(at-10, len(rs)-30))
	hi := lo + 30
	// A quote starts and ends at word boundaries: never inside a Latin word such as Wi-Fi.
	joined := func(a, b rune) bool {
		return evidence.IsWordRune(b) && (evidence.IsWordRune(a) || a == '-') || b == '-' && evidence.IsWordRune(a)
	}
	for lo > 0 && joined(rs[lo-1], rs[lo]) {
		lo--
	}
	for hi < len(rs) && joined(rs[hi-1], rs[hi]) {
		hi++
	}
	quote := strings.Join(strings.Fields(string(rs[lo:hi])), " ")
	return corpusCandidate{quote: quote, why: why}, len([]rune(quote)) >= 20
}

// dropInvisible removes invisible format characters, as a browser's copy does.
func dropInvisible(r rune) rune {
	if evidence.IsInvisible(r) {
		return -1
	}
	return r
}

// alterQuote returns a copy of q that must not be found: kind 0 changes one word, kind 1 swaps two
// neighbouring words, kind 2 changes a number (or, without digits, a word).
func alterQuote(q string, kind int) (string, string) {
	rs := []rune(q)
	if kind == 2 {
		for i := len(rs) / 3; i < len(rs); i++ {
			if rs[i] >= '0' && rs[i] <= '9' {
				rs[i] = '0' + (rs[i]-'0'+1)%10
				return string(rs), "number-changed"
			}
		}
	}
	ws := strings.Split(q, " ")
	if len(ws) < 6 {
		// No spaces (CJK): change one character in the middle.
		mid := len(rs) / 2
		rs[mid] = '国'
		if rs[mid] == []rune(q)[mid] {
			rs[mid] = '人'
		}
		return string(rs), "character-changed"
	}
	mid := len(ws) / 2
	if kind == 1 {
		for j := mid; j+1 < len(ws); j++ {
			if !strings.EqualFold(ws[j], ws[j+1]) {
				ws[j], ws[j+1] = ws[j+1], ws[j]
				return strings.Join(ws, " "), "words-swapped"
			}
		}
	}
	if strings.EqualFold(ws[mid], "elephants") {
		ws[mid] = "giraffes"
	} else {
		ws[mid] = "elephants"
	}
	return strings.Join(ws, " "), "word-changed"
}

// TestCorpusTrapQuotesInParagraphs checks the hand-picked cases of
// testdata/quotes/corpus-traps.jsonl (quotes across the traps the corpus README lists, read
// from the pages' HTML) against the paragraph text of their pages.
func TestCorpusTrapQuotesInParagraphs(t *testing.T) {
	corpusPageNames(t)
	texts := map[string]string{}
	for _, c := range readJSONL[corpusQuote](t, "corpus-traps.jsonl") {
		text, ok := texts[c.Page]
		if !ok {
			body, err := os.ReadFile(filepath.Join(corpusPages, c.Page))
			if err != nil {
				t.Fatal(err)
			}
			text = strings.Join(visibleParagraphs(t, body), "\n")
			texts[c.Page] = text
		}
		m, err := Quote(text, c.Quote)
		if err != nil {
			t.Fatalf("%s: %q: %v", c.Page, c.Quote, err)
		}
		if m.Found != c.Found {
			t.Errorf("%s: %q (%s): found %v, want %v", c.Page, c.Quote, c.Why, m.Found, c.Found)
			continue
		}
		if m.Found {
			t.Logf("%s (%s): tier %v: %q", c.Page, c.Why, m.Tier, text[m.Spans[0].Start:m.Spans[len(m.Spans)-1].End])
		}
	}
}

// TestCorpusQuotes looks for every case of testdata/quotes/corpus.jsonl and
// corpus-traps.jsonl in the body text that each of the two fetch extractors reads from the
// saved page: found quotes must be found, altered copies must not.
func TestCorpusQuotes(t *testing.T) {
	corpusPageNames(t)
	cases := append(readJSONL[corpusQuote](t, "corpus.jsonl"), readJSONL[corpusQuote](t, "corpus-traps.jsonl")...)
	extractors := []struct {
		name    string
		extract func([]byte, string) (fetch.Text, error)
	}{
		{"dom", fetch.ExtractDOM},
		{"tokens", fetch.ExtractTokens},
	}
	for _, ex := range extractors {
		t.Run(ex.name, func(t *testing.T) {
			bodies := map[string]string{}
			tiers := map[Tier]int{}
			for _, c := range cases {
				body, ok := bodies[c.Page]
				if !ok {
					raw, err := os.ReadFile(filepath.Join(corpusPages, c.Page))
					if err != nil {
						t.Fatal(err)
					}
					text, err := ex.extract(raw, "text/html")
					if err != nil {
						t.Fatalf("%s: extract: %v", c.Page, err)
					}
					body = text.Body
					bodies[c.Page] = body
				}
				m, err := Quote(body, c.Quote)
				if err != nil {
					t.Fatalf("%s: %q: %v", c.Page, c.Quote, err)
				}
				if m.Found != c.Found {
					t.Errorf("%s: %q (%s): found %v, want %v", c.Page, c.Quote, c.Why, m.Found, c.Found)
					continue
				}
				if m.Found {
					tiers[m.Tier]++
					if !strings.Contains(m.Excerpt, body[m.Spans[0].Start:m.Spans[len(m.Spans)-1].End]) {
						t.Errorf("%s: excerpt %q lacks the matched text", c.Page, m.Excerpt)
					}
				}
			}
			t.Logf("%d cases over %d pages; found quotes by tier: %v", len(cases), len(bodies), tiers)
		})
	}
}
