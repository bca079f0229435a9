package web

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evidenceledger/ledger"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// mdUnescape undoes mdEscape's backslashes (not its line breaks).
func mdUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_[]<>#|~&:@.", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// FuzzReportMarkdown feeds outside words (claims, quotes, page excerpts, notes) to the
// Markdown report. Invariants: the escaped words read back as the words, on one line, with
// no markup character left bare; and a report carrying them has exactly the lines of a
// report carrying plain words, so no input can add a heading, a list item or a block.
func FuzzReportMarkdown(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join("..", "testdata", "pastes", "*"))
	for _, n := range names {
		if b, err := os.ReadFile(n); err == nil && len(b) < 4096 {
			f.Add(string(b))
		}
	}
	f.Add("[x](javascript:alert(1)) <img src=x onerror=alert(1)> **bold** # heading\n- item\r\n> quote | a | b")
	var plain bytes.Buffer
	if err := WriteReport(&plain, withWords(goldenHandOff(), "plain words"), ReportMarkdown); err != nil {
		f.Fatal(err)
	}
	lines := strings.Count(plain.String(), "\n")
	plainLinks := gfmLinks(f, plain.Bytes())
	f.Add(`see http://evil.example/ \<http://evil.example/\> www.evil.example a@b.example`)
	f.Fuzz(func(t *testing.T, s string) {
		e := mdEscape(s)
		if strings.ContainsAny(e, "\r\n") {
			t.Fatalf("mdEscape(%q) = %q spans lines", s, e)
		}
		if want := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s); mdUnescape(e) != want {
			t.Fatalf("mdEscape(%q) = %q reads back as %q", s, e, mdUnescape(e))
		}
		for i := 0; i < len(e); i++ {
			if strings.IndexByte("`*_[]<>#|~&:@", e[i]) >= 0 && !escapedAt(e, i) {
				t.Fatalf("mdEscape(%q) = %q leaves %q bare at %d", s, e, e[i], i)
			}
		}
		if c := mdCode(s); strings.ContainsAny(c, "\r\n") || s != "" && !codeSpanHolds(c) {
			t.Fatalf("mdCode(%q) = %q is not one code span on one line", s, c)
		}
		var got bytes.Buffer
		if err := WriteReport(&got, withWords(goldenHandOff(), s), ReportMarkdown); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(got.String(), "\n"); n != lines {
			t.Fatalf("words %q make the report %d lines, not %d", s, n, lines)
		}
		// Rendered as GitHub renders Markdown (autolinks on), the words make no link.
		if n := gfmLinks(t, got.Bytes()); n != plainLinks {
			t.Fatalf("words %q make %d links in the rendered report, not the report's own %d", s, n, plainLinks)
		}
	})
}

// gfmLinks renders Markdown with GitHub's extensions (tables, autolinks, strikethrough) by
// goldmark and counts the links and images in the HTML.
func gfmLinks(t testing.TB, md []byte) int {
	t.Helper()
	var out bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert(md, &out); err != nil {
		t.Fatal(err)
	}
	return strings.Count(out.String(), "<a ") + strings.Count(out.String(), "<img ")
}

// escapedAt reports whether the byte at i is itself escaped (preceded by an odd run of
// backslashes).
func escapedAt(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// codeSpanHolds reports whether c is one code span: its opening fence of backticks does not
// occur inside it, and it closes with the same fence.
func codeSpanHolds(c string) bool {
	n := len(c) - len(strings.TrimLeft(c, "`"))
	fence := c[:n]
	inner := c[n : len(c)-n]
	return n > 0 && strings.HasSuffix(c, fence) && !strings.Contains(inner, fence) && len(c) >= 2*n
}

// withWords is h with every outside word (claims, quotes, excerpts, notes, names) set to s.
func withWords(h ledger.HandOff, s string) ledger.HandOff {
	h.Batch.ImportedBy = s
	for _, cs := range [][]ledger.HandOffClaim{h.Usable, h.Withheld} {
		for i := range cs {
			cs[i].Text = s
			for j := range cs[i].Citations {
				ct := &cs[i].Citations[j]
				ct.Quote, ct.Excerpt, ct.Note, ct.ResidualRisk = s, s, s, s
			}
		}
	}
	return h
}
