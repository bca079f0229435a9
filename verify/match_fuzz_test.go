package verify

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"evidenceledger/evidence"
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
// ErrQuoteTooShort and ErrTooManyParts as errors; spans of a found quote in range and in
// order, one per part; the excerpt is the page's own text and holds the matched text; a
// one-part quote that is literally in the page between spaces is found at TierExact; a hint
// is never a match and locates page text. And the invariant against a false found: each
// span, unfolded, holds every letter and digit of its part in order (compared after case
// folding), exactly the decimal digits of the part (no superscript or fraction read as a
// digit), and starts and ends at word boundaries.
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
			if !errors.Is(err, ErrQuoteTooShort) && !errors.Is(err, ErrTooManyParts) {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		trimmed := strings.TrimSpace(quote)
		parts, perr := evidence.QuoteParts(quote)
		if perr != nil {
			t.Fatalf("MatchQuote accepted a quote QuoteParts refuses: %v", perr)
		}
		if len(parts) == 1 && strings.Contains(" "+page+" ", " "+trimmed+" ") && (!m.Found || m.Tier != TierExact) {
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
		if len(m.Spans) != len(parts) || len(m.Spans) != len(m.Highlight) {
			t.Fatalf("found with %d spans and %d highlights for %d parts", len(m.Spans), len(m.Highlight), len(parts))
		}
		for i, s := range m.Spans {
			if s.Start < 0 || s.End > len(page) || s.Start >= s.End {
				t.Fatalf("span %d %v out of range for a page of %d bytes", i, s, len(page))
			}
			span := page[s.Start:s.End]
			if got, want := alnum(span), alnum(parts[i]); got != want {
				t.Fatalf("span %q of part %q: letters and digits %q, want %q", span, parts[i], got, want)
			}
			if got, want := decimals(span), decimals(parts[i]); got != want {
				t.Fatalf("span %q of part %q: digits %q, want %q", span, parts[i], got, want)
			}
			first, _ := utf8.DecodeRuneInString(parts[i])
			prev := lastVisible(page[:s.Start])
			if asciiAlnum(first) && asciiAlnum(prev) {
				t.Fatalf("span %q starts inside a word (after %q)", span, prev)
			}
			last, _ := utf8.DecodeLastRuneInString(parts[i])
			next := firstVisible(page[s.End:])
			if asciiAlnum(last) && asciiAlnum(next) {
				t.Fatalf("span %q ends inside a word (before %q)", span, next)
			}
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

// alnum returns the letters and digits of s, each case-folded (ß as ss), and of compatibility
// forms only the full-width and ligature ones, which keep their letters.
func alnum(s string) string {
	var b strings.Builder
	for _, r := range norm.NFC.String(s) {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			continue
		}
		if (r >= 0xFB00 && r <= 0xFB06) || (r >= 0xFF00 && r <= 0xFFEF) {
			for _, c := range norm.NFKC.String(string(r)) {
				b.WriteString(strings.ToLower(string(c)))
			}
			continue
		}
		b.WriteString(foldedLetter(r))
	}
	return b.String()
}

// foldedLetter folds the case of one letter as the case tier does, independently of it:
// lower case of the smallest member of its case orbit, ß and ẞ as ss, İ as i.
func foldedLetter(r rune) string {
	switch r {
	case 'ß', 'ẞ':
		return "ss"
	case 'İ':
		return "i"
	}
	least := r
	for c := unicode.SimpleFold(r); c != r; c = unicode.SimpleFold(c) {
		least = min(least, c)
	}
	return strings.ToLower(norm.NFC.String(string(least)))
}

// decimals returns the decimal digits (category Nd) of s as their values.
func decimals(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.Is(unicode.Nd, r) {
			b.WriteString(norm.NFKC.String(string(r)))
		}
	}
	return b.String()
}

func asciiAlnum(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

// lastVisible and firstVisible return the rune next to a span, looking through format
// characters (category Cf); 0 at the edge of the page.
func lastVisible(s string) rune {
	for s != "" {
		r, size := utf8.DecodeLastRuneInString(s)
		if !unicode.Is(unicode.Cf, r) {
			return r
		}
		s = s[:len(s)-size]
	}
	return 0
}

func firstVisible(s string) rune {
	for _, r := range s {
		if !unicode.Is(unicode.Cf, r) {
			return r
		}
	}
	return 0
}
