package evidence

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestUnquote(t *testing.T) {
	for _, c := range []struct{ desc, in, want string }{
		{"no marks", "  the reform is finished  ", "the reform is finished"},
		{"one straight pair wraps it", `"the reform is finished"`, "the reform is finished"},
		{"one curly pair wraps it", "“the reform is finished”", "the reform is finished"},
		{"guillemets", "« la réforme est finie »", "la réforme est finie"},
		{"German marks", "„die Reform ist fertig“", "die Reform ist fertig"},
		{"inner straight quotes stay", `"so-called "message content" rules"`, `so-called "message content" rules`},
		{"two quotations are not one pair", `"Super Mario Run" is essentially a regular, side-scrolling "Super Mario" game`,
			`"Super Mario Run" is essentially a regular, side-scrolling "Super Mario" game`},
		{"two quotations ending the quote", `"A" and "B"`, `"A" and "B"`},
		{"two curly quotations", "“A” and “B”", "“A” and “B”"},
		{"an unmatched opening mark stays", `"the reform is finished`, `"the reform is finished`},
		{"an unmatched closing mark stays", `the reform is finished"`, `the reform is finished"`},
		{"an apostrophe inside", `'we don't know yet'`, `we don't know yet`},
		{"a URL inside stays", `see https://example.org/a?b=1 for "details"`, `see https://example.org/a?b=1 for "details"`},
		{"a list bullet and a colon stay", "- the figures are these:", "- the figures are these:"},
		{"a lone mark", `"`, `"`},
	} {
		t.Run(c.desc, func(t *testing.T) {
			if got := unquote(c.in); got != c.want {
				t.Fatalf("unquote(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// corpusQuotes reads the quotes of testdata/quotes/corpus*.jsonl: real quotes of the corpus
// pages, as a person copies them (testdata/corpus/README.md).
func corpusQuotes(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, name := range []string{"corpus.jsonl", "corpus-traps.jsonl"} {
		f, err := os.Open(filepath.Join("..", "testdata", "quotes", name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var q struct{ Quote string }
			if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
				t.Fatal(err)
			}
			out = append(out, q.Quote)
		}
		f.Close()
	}
	if len(out) < 240 {
		t.Fatalf("%d corpus quotes, want at least 240", len(out))
	}
	return out
}

// TestJSONQuotesRoundTrip: every corpus quote sent in the API form comes back exactly as
// sent, as one citation, in every place a quote may be given.
func TestJSONQuotesRoundTrip(t *testing.T) {
	quotes := corpusQuotes(t)
	type cit struct {
		URL   string `json:"url"`
		Quote string `json:"quote"`
	}
	type claim struct {
		Text      string `json:"text"`
		Citations []cit  `json:"citations"`
	}
	var api struct {
		Claims []claim `json:"claims"`
	}
	for i, q := range quotes {
		api.Claims = append(api.Claims, claim{Text: "Claim " + string(rune('A'+i%26)) + " holds.", Citations: []cit{{URL: "https://example.org/page", Quote: q}}})
	}
	body, _ := json.Marshal(api)
	_, r, err := ReadRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Claims) != len(quotes) {
		t.Fatalf("%d claims, want %d", len(r.Claims), len(quotes))
	}
	kept := 0
	for i, c := range r.Claims {
		if len(c.Citations) != 1 || c.Citations[0].Quote != strings.TrimSpace(quotes[i]) {
			t.Errorf("quote %d %q came back as %+v", i, quotes[i], c.Citations)
			continue
		}
		kept++
	}
	t.Logf("%d of %d corpus quotes kept exactly", kept, len(quotes))
	// The same quotes under the other keys and shapes the reader knows.
	for _, q := range quotes[:40] {
		for _, shape := range []string{
			`[{"claim":"A claim.","source_url":"https://example.org/p","exact_quote":%s}]`,
			`[{"text":"A claim.","url":"https://example.org/p","quotes":[%s]}]`,
			`{"results":[{"statement":"A claim.","sources":[{"link":"https://example.org/p","excerpt":%s}]}]}`,
		} {
			qj, _ := json.Marshal(q)
			r, err := ParseClaimsJSON([]byte(strings.Replace(shape, "%s", string(qj), 1)))
			if err != nil || len(r.Claims) != 1 || len(r.Claims[0].Citations) != 1 || r.Claims[0].Citations[0].Quote != q {
				t.Errorf("shape %s: quote %q came back as %+v (%v)", shape, q, r.Claims, err)
			}
		}
	}
}

// TestJSONQuoteNeverSplit: a quote with two quotations in it is one citation with the whole
// quote, not one citation per quotation; a quote wrapped in one pair loses only that pair.
func TestJSONQuoteNeverSplit(t *testing.T) {
	q := `"Super Mario Run" is essentially a regular, side-scrolling "Super Mario" game`
	body, _ := json.Marshal(map[string]any{"claims": []any{map[string]any{"text": "Nintendo's game is a side-scroller.",
		"citations": []any{map[string]any{"url": "https://msn.example/mario", "quote": q}}}}})
	_, r, err := ReadRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	if cs := r.Claims[0].Citations; len(cs) != 1 || cs[0].Quote != q {
		t.Fatalf("citations %+v, want one with the whole quote", cs)
	}
	body, _ = json.Marshal(map[string]any{"claims": []any{map[string]any{"text": "A claim.",
		"citations": []any{map[string]any{"url": "https://a.example/", "quote": `  "so-called "message content" rules apply"  `}}}}})
	_, r, err = ReadRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Claims[0].Citations[0].Quote; got != `so-called "message content" rules apply` {
		t.Fatalf("quote %q, want the outer pair removed only", got)
	}
}

// TestChatterIsNotAClaim: greetings, offers of help, lead-ins and questions are not claims,
// in a paste or in JSON; a statement that merely starts like one is.
func TestChatterIsNotAClaim(t *testing.T) {
	for _, c := range []struct {
		text  string
		claim bool
	}{
		{"Hello!", false},
		{"Hi, here is what I found.", false},
		{"Here's a concise briefing on the bill, with sources.", false},
		{"Sure, I can help with that.", false},
		{"Would you like me to expand any of these points", false},
		{"Let me know if you need more detail.", false},
		{"Is the bill law yet?", false},
		{"Great question!", false},
		{"Great Britain exported 4,812 tonnes of steel in 2025.", true},
		{"Hi-tech firms grew by 12% in 2025.", true},
		{"Hello Kitty turned 50 in 2024.", true},
	} {
		t.Run(c.text, func(t *testing.T) {
			if got := !isTalk(c.text); got != c.claim {
				t.Fatalf("claim = %v, want %v", got, c.claim)
			}
			r, _ := ParseResearch(c.text + " ([src](https://example.org/a))")
			if got := len(r.Claims) == 1; got != c.claim {
				t.Fatalf("ParseResearch: %d claims, want claim %v", len(r.Claims), c.claim)
			}
			body, _ := json.Marshal([]any{map[string]any{"text": c.text, "url": "https://example.org/a", "quote": "a quote long enough to check"}})
			r, _ = ParseClaimsJSON(body)
			if got := len(r.Claims) == 1; got != c.claim {
				t.Fatalf("ParseClaimsJSON: %d claims, want claim %v", len(r.Claims), c.claim)
			}
		})
	}
}

// FuzzUnquote: unquote returns the trimmed input, or the trimmed input without its first
// and last rune (and then only when both are quotation marks), trimmed again.
func FuzzUnquote(f *testing.F) {
	for _, q := range corpusQuotes(f) {
		f.Add(q)
		f.Add(`"` + q + `"`)
		f.Add("“" + q + "”")
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := unquote(s)
		trimmed := strings.TrimSpace(s)
		if got == trimmed {
			return
		}
		open, size := utf8.DecodeRuneInString(trimmed)
		_, lsize := utf8.DecodeLastRuneInString(trimmed)
		if _, ok := quoteMarks[open]; !ok || len(trimmed) < size+lsize {
			t.Fatalf("unquote(%q) = %q without an opening mark", s, got)
		}
		if inner := strings.TrimSpace(trimmed[size : len(trimmed)-lsize]); got != inner {
			t.Fatalf("unquote(%q) = %q, want %q or the input", s, got, inner)
		}
	})
}

// TestQuotePartsErrors: the errors of QuoteParts say which rule a quote breaks.
func TestQuotePartsErrors(t *testing.T) {
	for _, c := range []struct {
		quote string
		want  error
		parts int
	}{
		{"the reform would start in spring … every school would get new funds", nil, 2},
		{"被引用的一句话在这里然后 … 这是被引用的一句话在这里", nil, 2},
		{"T … h … e …", ErrNoQuote, 0},
		{"Obama … gun … 2009", ErrNoQuote, 0},
		{"............", ErrNoQuote, 0},
		{strings.Repeat("the reform would start … ", 8), nil, 8},
		{strings.Repeat("the reform would start … ", 9), ErrTooManyParts, 0},
	} {
		parts, err := QuoteParts(c.quote)
		if !errors.Is(err, c.want) || len(parts) != c.parts {
			t.Errorf("QuoteParts(%q) = %d parts, %v; want %d, %v", c.quote, len(parts), err, c.parts, c.want)
		}
	}
}

// TestInnerQuotesAtTheLimit: inner straight quotes are followed for maxNestedQuote bytes;
// past that, marks are paired in order, the first closing mark ending the passage, so the
// whole passage is not one quote (docs/parser.md).
func TestInnerQuotesAtTheLimit(t *testing.T) {
	for _, c := range []struct {
		pad  int
		want string
	}{
		{maxNestedQuote - 60, "whole"},
		{maxNestedQuote + 10, "cut"},
	} {
		inner := `so-called "message content" rules ` + strings.Repeat("x", c.pad)
		text := `The report calls them "` + inner + `" today ([lwn](https://lwn.example/a)).`
		r, err := ParseResearch(text)
		if err != nil {
			t.Fatal(err)
		}
		q := r.Claims[0].Citations[0].Quote
		switch c.want {
		case "whole":
			if q != inner {
				t.Errorf("pad %d: quote %.60q…, want the whole passage", c.pad, q)
			}
		case "cut":
			if q == inner {
				t.Errorf("pad %d: the whole passage past the limit is one quote", c.pad)
			}
		}
	}
}

// TestQuoteLengthAtTheLimit pins the design's minimum: a quote needs 12 letters or digits
// (spaces and punctuation do not count), so weakening MinQuoteLen fails here.
func TestQuoteLengthAtTheLimit(t *testing.T) {
	for _, c := range []struct {
		quote string
		ok    bool
	}{
		{"abcdef ghijk", false},     // 11 letters, 12 runes with the space
		{"abcdef ghijkl", true},     // 12 letters
		{"ab, cd. ef; gh!", false},  // 8 letters among punctuation
		{"rose 12 % in 2019", true}, // 12 letters and digits
		{"   ", false},
	} {
		_, err := QuoteParts(c.quote)
		if (err == nil) != c.ok {
			t.Errorf("QuoteParts(%q): err %v, want ok=%v", c.quote, err, c.ok)
		}
		if !c.ok && !errors.Is(err, ErrNoQuote) {
			t.Errorf("QuoteParts(%q): %v does not wrap ErrNoQuote", c.quote, err)
		}
	}
}
