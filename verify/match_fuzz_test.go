package verify

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

// quoteSeed is one line of testdata/quotes/seeds.jsonl: a page text and a quote.
type quoteSeed struct {
	Page  string `json:"page"`
	Quote string `json:"quote"`
}

// readJSONL decodes every line of a JSON-lines file under testdata/quotes into a T.
func readJSONL[T any](t testing.TB, name string) []T {
	t.Helper()
	path := filepath.Join("..", "testdata", "quotes", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if len(out) == 0 {
		t.Fatalf("%s holds no cases", path)
	}
	return out
}

// FuzzMatchQuote checks the contract of MatchQuote on any input: no panic; only
// ErrQuoteTooShort as an error; spans of a found quote in range and in order; the excerpt is
// the page's own text and holds the matched text; a quote that is literally in the page is
// found at TierExact; a hint is never a match and locates page text.
func FuzzMatchQuote(f *testing.F) {
	for _, s := range readJSONL[quoteSeed](f, "seeds.jsonl") {
		f.Add(s.Page, s.Quote)
	}
	for _, c := range append(readJSONL[corpusQuote](f, "corpus.jsonl"), readJSONL[corpusQuote](f, "corpus-traps.jsonl")...) {
		f.Add("Some page text before. "+c.Quote+" And after.", c.Quote)
	}
	f.Fuzz(func(t *testing.T, page, quote string) {
		m, err := MatchQuote(page, quote)
		if err != nil {
			if !errors.Is(err, ErrQuoteTooShort) {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		trimmed := strings.TrimSpace(quote)
		if strings.Contains(page, trimmed) && (!m.Found || m.Tier != TierExact) {
			t.Fatalf("quote %q is in the page literally, got Found=%v Tier=%v", trimmed, m.Found, m.Tier)
		}
		if !m.Found {
			if m.Spans != nil || m.Excerpt != "" || m.Highlight != nil {
				t.Fatalf("not found, yet Spans=%v Excerpt=%q", m.Spans, m.Excerpt)
			}
			if h := m.Hint; h != nil {
				if h.Similarity < MinHintSimilarity || h.Similarity > 100 {
					t.Fatalf("hint similarity %d out of range", h.Similarity)
				}
				if h.Span.Start < 0 || h.Span.End > len(page) || h.Span.Start > h.Span.End || page[h.Span.Start:h.Span.End] != h.Text {
					t.Fatalf("hint span %v does not locate %q", h.Span, h.Text)
				}
			}
			return
		}
		if m.Hint != nil {
			t.Fatalf("found, yet Hint = %+v", m.Hint)
		}
		if len(m.Spans) == 0 || len(m.Spans) != len(m.Highlight) {
			t.Fatalf("found with %d spans and %d highlights", len(m.Spans), len(m.Highlight))
		}
		for i, s := range m.Spans {
			if s.Start < 0 || s.End > len(page) || s.Start >= s.End {
				t.Fatalf("span %d %v out of range for a page of %d bytes", i, s, len(page))
			}
			if i > 0 && (s.Start < m.Spans[i-1].Start || s.End < m.Spans[i-1].End) {
				t.Fatalf("spans out of order: %v", m.Spans)
			}
			h := m.Highlight[i]
			if h.Start < 0 || h.End > len(m.Excerpt) || m.Excerpt[h.Start:h.End] != page[s.Start:s.End] {
				t.Fatalf("highlight %v does not mark span %v in the excerpt", h, s)
			}
		}
		ex := m.ExcerptSpan
		if ex.Start < 0 || ex.End > len(page) || page[ex.Start:ex.End] != m.Excerpt {
			t.Fatalf("excerpt span %v does not locate the excerpt", ex)
		}
		matched := page[m.Spans[0].Start:m.Spans[len(m.Spans)-1].End]
		if !strings.Contains(m.Excerpt, matched) {
			t.Fatalf("excerpt %q lacks the matched text %q", m.Excerpt, matched)
		}
		if utf8.ValidString(page) && !utf8.ValidString(m.Excerpt) {
			t.Fatalf("excerpt of a valid page is not valid UTF-8: %q", m.Excerpt)
		}
	})
}
