package evidence

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var reQuotePrefix = regexp.MustCompile(`(?m)^[ \t]*>[> \t]*`)

// flatten is the input as the parser may quote it: blockquote marks at line starts and
// Markdown emphasis removed, white space folded to single spaces.
func flatten(s string) string {
	s = reQuotePrefix.ReplaceAllString(s, "")
	s = strings.NewReplacer("**", "", "__", "").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// haystack is the text the parser's output must come from: the input, and for JSON the
// decoded strings in it.
func haystack(in string) string {
	var v any
	if err := json.Unmarshal([]byte(strings.TrimSpace(strings.TrimPrefix(in, "\ufeff"))), &v); err != nil {
		// A fenced JSON block: add its decoded strings too.
		var sb strings.Builder
		sb.WriteString(in)
		for _, block := range strings.Split(in, "```") {
			block = strings.TrimPrefix(block, "json")
			var w any
			if json.Unmarshal([]byte(strings.TrimSpace(block)), &w) == nil {
				collectStrings(w, &sb)
			}
		}
		return sb.String()
	}
	var sb strings.Builder
	sb.WriteString(in)
	collectStrings(v, &sb)
	return sb.String()
}

func collectStrings(v any, sb *strings.Builder) {
	switch x := v.(type) {
	case string:
		sb.WriteString("\n")
		sb.WriteString(x)
	case []any:
		for _, e := range x {
			collectStrings(e, sb)
		}
	case map[string]any:
		for _, e := range x {
			collectStrings(e, sb)
		}
	}
}

// assertFromInput checks that the parser invented nothing: every URL is in the input as
// written, every quote is in the flattened input, and every word of every claim text is in
// the input (or in the input without emphasis and code marks).
func assertFromInput(t *testing.T, in string, r Research) {
	t.Helper()
	hay := haystack(in)
	flat := flatten(hay)
	// Claim texts lose Markdown emphasis and code marks, which may join what they separated.
	unmarked := strings.NewReplacer("**", "", "__", "", "~~", "", "`", "").Replace(hay)
	for _, c := range r.Claims {
		if c.Text == "" {
			t.Errorf("claim with empty text: %+v", c)
		}
		if len(c.Citations) == 0 {
			t.Errorf("claim %q has no citation", c.Text)
		}
		for _, w := range strings.Fields(c.Text) {
			w = strings.TrimFunc(w, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) })
			if w != "" && !strings.Contains(hay, w) && !strings.Contains(unmarked, w) {
				t.Errorf("claim %q: word %q is not in the input", c.Text, w)
			}
		}
		for _, cit := range c.Citations {
			if cit.URL != "" && !strings.Contains(hay, cit.URL) {
				t.Errorf("claim %q: URL %q is not in the input", c.Text, cit.URL)
			}
			if cit.Quote != "" && !strings.Contains(flat, flatten(cit.Quote)) {
				t.Errorf("claim %q: quote %q is not in the input", c.Text, cit.Quote)
			}
			if cit.Note != CitationNote(cit.URL, cit.Quote) {
				t.Errorf("claim %q: note %q, want %q", c.Text, cit.Note, CitationNote(cit.URL, cit.Quote))
			}
			if cit.Status != StatusReported {
				t.Errorf("claim %q: citation status %q, want reported", c.Text, cit.Status)
			}
		}
		if c.Status != StatusReported {
			t.Errorf("claim %q: status %q, want reported", c.Text, c.Status)
		}
	}
}
