package model

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
	"evidenceledger/match"
	"evidenceledger/verify"
)

// On the realistic batch of BenchmarkModelTier (the 31 real claims and quotes of
// testdata/consistency/cases.json on their corpus pages), each verifier is sent, in its own
// request, the page's words where the program found the citation's quote: the smaller
// selections never leave out the passage that holds the claim's evidence. Each verifier's
// selection stays within its budget, and the two selections differ.
func TestModelPassagesHoldTheFoundQuote(t *testing.T) {
	var cases []struct{ Name, Page, Claim, Quote string }
	if err := json.Unmarshal(readTestdata(t, "consistency/cases.json"), &cases); err != nil {
		t.Fatal(err)
	}
	site := newPageServer(t)
	chat := newChatServer(t, func(req chatSeen, n int) chatAnswer {
		return chatAnswer{Content: verdictJSON("not_found", 60, "The passages do not address the claim.")}
	})
	c := tierChecker(t, chat, nil)
	passage := regexp.MustCompile(`(?m)^\[\d+\] (.+)$`)
	found := 0
	for i, cs := range cases {
		before := len(chat.Seen())
		target := evidence.CheckTarget{ClaimID: fmt.Sprintf("c_%016x", i), ClaimText: cs.Claim, CitationID: fmt.Sprintf("ct_%016x", i),
			URL: site.At(fmt.Sprintf("h%d.test", i), "/corpus/"+cs.Page), Quote: cs.Quote}
		out, err := c.Check(context.Background(), target)
		if err != nil {
			t.Fatal(err)
		}
		if out.Checked.Status != evidence.StatusFound {
			continue
		}
		found++
		body := readCorpusPage(t, cs.Page)
		sent := map[string]string{}
		for _, r := range chat.Seen()[before:] {
			sent[r.Role] = r.User
		}
		for _, v := range []struct {
			role    string
			extract verify.Extractor
		}{{nameA, fetch.ExtractDOM}, {nameB, fetch.ExtractTokens}} {
			user, ok := sent[v.role]
			if !ok {
				t.Fatalf("%s: %s was not asked", cs.Name, v.role)
			}
			text, err := v.extract(body, "text/html")
			if err != nil {
				t.Fatal(err)
			}
			m, err := match.Quote(text.Body, cs.Quote)
			if err != nil || !m.Found {
				t.Errorf("%s: the quote is not in %s's reading of the page: %v", cs.Name, v.role, err)
				continue
			}
			words := strings.Join(strings.Fields(text.Body[m.Spans[0].Start:m.Spans[len(m.Spans)-1].End]), " ")
			var passages []string
			runes, sentences := 0, 0
			for _, p := range passage.FindAllStringSubmatch(user, -1) {
				passages = append(passages, p[1])
				runes += len([]rune(p[1])) + 1
				sentences += len(pageSentences(p[1]))
			}
			if !strings.Contains(strings.Join(strings.Fields(strings.Join(passages, " ")), " "), words) {
				t.Errorf("%s: %s was not sent the page's words where the quote is found, %q; it was sent %q", cs.Name, v.role, words, passages)
			}
			if sentences > maxSentences+len(m.Spans)+2 || runes > maxPassageRunes+2*maxSentenceRunes {
				t.Errorf("%s: %s was sent %d sentences, %d runes: far past its budget of %d sentences, %d runes", cs.Name, v.role, sentences, runes, maxSentences, maxPassageRunes)
			}
		}
		if sent[nameA] == sent[nameB] {
			t.Errorf("%s: model-a and model-b were sent the same passages", cs.Name)
		}
	}
	if found < len(cases)*3/4 {
		t.Fatalf("only %d of %d quotes were found on their pages: the test must look at most of the batch", found, len(cases))
	}
}

// The anchor sentences are those a found quote overlaps, found even when the quote crosses
// a sentence's end; a quote not found anchors nothing.
func TestAnchorSentences(t *testing.T) {
	text := "First sentence here. The registry counted 4,812 companies. It grew. The last sentence here."
	sentences, spans := sentenceSpans(text)
	if len(sentences) != 4 {
		t.Fatalf("sentences %q", sentences)
	}
	for i, s := range sentences {
		if text[spans[i].Start:spans[i].End] != s {
			t.Errorf("span %d is %q, sentence %q", i, text[spans[i].Start:spans[i].End], s)
		}
	}
	for _, tc := range []struct {
		quote string
		want  []int
	}{
		{"The registry counted 4,812 companies", []int{1}},
		{"counted 4,812 companies. It grew", []int{1, 2}},
		{"First sentence here … The last sentence here", []int{0, 3}},
		{"The registry counted 9,999 companies", nil},
	} {
		m, err := match.Quote(text, tc.quote)
		if err != nil {
			t.Fatal(err)
		}
		if got := anchorSentences(spans, m); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%q: anchors %v, want %v", tc.quote, got, tc.want)
		}
	}
	// A sentence cut at maxSentenceRunes keeps spans that slice the text exactly.
	long := "  " + strings.Repeat("word ", 300) + "end."
	sentences, spans = sentenceSpans(long)
	if len(sentences) < 3 {
		t.Fatalf("a sentence of %d runes was cut into %d", len(long), len(sentences))
	}
	for i, s := range sentences {
		if long[spans[i].Start:spans[i].End] != s || len([]rune(s)) > maxSentenceRunes {
			t.Errorf("cut %d: span %q, sentence %q", i, long[spans[i].Start:spans[i].End], s)
		}
	}
}

// The anchors come first, whatever the claim's terms: a selection given an anchor on a
// sentence that shares no term with the claim still sends it, and model-b sends the window
// around it.
func TestAnchorsComeFirst(t *testing.T) {
	var sentences []string
	for i := range 30 {
		sentences = append(sentences, fmt.Sprintf("The registry counted companies in district %d.", i))
	}
	sentences[12] = "Nothing in this sentence shares a word."
	a := chooseSentences("The registry counted companies.", sentences, []int{12})
	if !strings.Contains(strings.Join(a, " "), sentences[12]) {
		t.Errorf("model-a's selection left out the anchor: %q", a)
	}
	b := chooseWindows("The registry counted companies.", sentences, []int{12})
	if !strings.Contains(strings.Join(b, " "), strings.Join(sentences[11:14], " ")) {
		t.Errorf("model-b's selection left out the window around the anchor: %q", b)
	}
}

// FuzzPassages, seeded from the claims and quotes of testdata/consistency/cases.json on
// their corpus pages: whatever the text, every sentence is non-empty, trimmed, within
// maxSentenceRunes and exactly the text its span slices, spans come in order without
// overlap; and when the quote is found, it anchors at least one sentence, and both
// selections hold every anchor sentence.
func FuzzPassages(f *testing.F) {
	var cases []struct{ Page, Claim, Quote string }
	if err := json.Unmarshal(readTestdata(f, "consistency/cases.json"), &cases); err != nil {
		f.Fatal(err)
	}
	for _, c := range cases[:min(len(cases), 8)] {
		text, err := fetch.ExtractDOM(readCorpusPage(f, c.Page), "text/html")
		if err != nil {
			f.Fatal(err)
		}
		body := text.Body
		if m, err := match.Quote(body, c.Quote); err == nil && m.Found {
			// The page's text around the quote keeps each run of the fuzz quick.
			from, to := max(m.Spans[0].Start-1500, 0), min(m.Spans[len(m.Spans)-1].End+1500, len(body))
			body = strings.ToValidUTF8(body[from:to], "")
		}
		f.Add(body, c.Claim, c.Quote)
	}
	f.Add("a.b. c! d?e。f  "+strings.Repeat("long ", 200)+".", "long", "long long long long")
	f.Fuzz(func(t *testing.T, text, claim, quote string) {
		sentences, spans := sentenceSpans(text)
		if len(sentences) != len(spans) {
			t.Fatalf("%d sentences, %d spans", len(sentences), len(spans))
		}
		end := 0
		for i, s := range sentences {
			sp := spans[i]
			if sp.Start < end || sp.End < sp.Start || sp.End > len(text) || text[sp.Start:sp.End] != s {
				t.Fatalf("sentence %d %q has span %+v (previous end %d)", i, s, sp, end)
			}
			if s == "" || strings.TrimSpace(s) != s || utf8.RuneCountInString(s) > maxSentenceRunes {
				t.Fatalf("sentence %d %q is empty, untrimmed or longer than %d runes", i, s, maxSentenceRunes)
			}
			end = sp.End
		}
		m, err := match.Quote(text, quote)
		if err != nil || !m.Found {
			return
		}
		anchors := anchorSentences(spans, m)
		if len(anchors) == 0 {
			t.Fatalf("quote %q found at %+v anchors no sentence", quote, m.Spans)
		}
		for name, choose := range map[string]func(string, []string, []int) []string{"sentences": chooseSentences, "windows": chooseWindows} {
			got := strings.Join(choose(claim, sentences, anchors), " ")
			for _, a := range anchors {
				if !strings.Contains(got, sentences[a]) {
					t.Fatalf("%s: anchor %q is not in the selection %q", name, sentences[a], got)
				}
			}
		}
	})
}

// The passage terms are the program's words (evidence.LowerWords): a figure is one term,
// whole as the matcher reads it, so a sentence that gives 4,812 scores on the claim's
// 4,812 and not on a stray 812.
func TestTermsAreTheMatchersWords(t *testing.T) {
	got := terms("The registry counted 4,812 companies in 2025; it doesn’t grow 3.5%.")
	for _, w := range []string{"registry", "counted", "4,812", "companies", "2025", "doesn't", "grow", "3.5"} {
		if !got[w] {
			t.Errorf("terms lack %q: %v", w, got)
		}
	}
	for _, w := range []string{"the", "in", "it", "4", "812", "3", "5", "doesn", "t"} {
		if got[w] {
			t.Errorf("terms hold %q: %v", w, got)
		}
	}
}
