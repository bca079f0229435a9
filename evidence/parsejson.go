package evidence

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The key names the JSON reader knows, after lowercasing and removing '_', '-' and spaces,
// in the order they are tried.
var (
	jsonTextKeys     = []string{"text", "claim", "statement", "fact", "finding", "assertion", "claimtext"}
	jsonURLKeys      = []string{"url", "urls", "sourceurl", "source", "link", "links", "href", "uri", "sourcelink"}
	jsonQuoteKeys    = []string{"quote", "quotes", "excerpt", "excerpts", "evidence", "supportingquote", "exactquote", "quotation", "snippet"}
	jsonCitationKeys = []string{"citations", "sources", "references", "cites"}
	jsonListKeys     = []string{"claims", "results", "facts", "findings", "statements", "items", "data", "research"}
)

const jsonShapeHint = `send an array of claims or {"claims":[{"text":"…","citations":[{"url":"…","quote":"…"}]}]}`

// ParseClaimsJSON reads research given as JSON: the API form
// {"claims":[{"text":"…","citations":[{"url":"…","quote":"…"}]}]}, an array of claims, or an
// object holding such an array under a usual key (claims, results, facts, findings, …). A
// claim is an object with its text under text, claim, statement, fact or finding; URLs under
// url, source, source_url or link (a string, an array, or an object); quotes under quote,
// excerpt or evidence; and citations under citations, sources or references. A claim may also
// be a bare string. Key names are matched without regard to case, '_' or '-'.
//
// The same notes apply as for ParseResearch. An entry with no text is skipped: the reader
// never makes up a claim. The error matches ErrBadResearch when the JSON does not parse or
// the input is larger than MaxPasteBytes, and ErrNothingUsable when no claim was found.
func ParseClaimsJSON(data []byte) (Research, error) {
	if len(data) > MaxPasteBytes {
		return Research{}, fmt.Errorf("%w: the JSON is %d bytes, more than the limit of %d; split it into smaller batches", ErrBadResearch, len(data), MaxPasteBytes)
	}
	v, err := decodeJSON(data)
	if err != nil {
		return Research{}, err
	}
	var entries []any
	switch root := v.(type) {
	case []any:
		entries = root
	case map[string]any:
		obj := normalizeKeys(root)
		if list, ok := firstValue(obj, jsonListKeys).([]any); ok {
			entries = list
		} else {
			entries = []any{root}
		}
	default:
		return Research{}, fmt.Errorf("%w: the JSON is a %s, not an object or an array; %s", ErrNothingUsable, jsonKind(v), jsonShapeHint)
	}
	var claims []Claim
	for _, e := range entries {
		if c, ok := jsonClaim(e); ok {
			claims = append(claims, c)
		}
	}
	if len(claims) == 0 {
		return Research{}, fmt.Errorf("%w: the JSON holds no claim with a text; %s", ErrNothingUsable, jsonShapeHint)
	}
	return Research{Claims: claims}, nil
}

func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: the JSON does not parse (at byte %d): %w; %s", ErrBadResearch, dec.InputOffset(), err, jsonShapeHint)
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: unexpected data after the JSON value at byte %d; send one JSON value", ErrBadResearch, dec.InputOffset())
	}
	return v, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "value"
}

// normalizeKeys lowercases keys and drops '_', '-' and spaces. When two keys collide, the
// one that sorts first wins, so the result does not depend on map order.
func normalizeKeys(obj map[string]any) map[string]any {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]any, len(obj))
	for _, k := range keys {
		n := strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "").Replace(k))
		if _, dup := out[n]; !dup {
			out[n] = obj[k]
		}
	}
	return out
}

func firstValue(obj map[string]any, keys []string) any {
	for _, k := range keys {
		if v, ok := obj[k]; ok && v != nil {
			return v
		}
	}
	return nil
}

// jsonClaim reads one entry: a string or an object.
func jsonClaim(e any) (Claim, bool) {
	switch v := e.(type) {
	case string:
		p := &parser{}
		text, toks := p.inline(v)
		if isTalk(text) {
			return Claim{}, false
		}
		return Claim{Text: text, Status: StatusReported, Citations: pair(toks)}, true
	case map[string]any:
		obj := normalizeKeys(v)
		var text string
		for _, k := range jsonTextKeys {
			if s, ok := obj[k].(string); ok && strings.TrimSpace(s) != "" {
				text = strings.Join(strings.Fields(s), " ")
				break
			}
		}
		if isTalk(text) {
			return Claim{}, false
		}
		var cits []Citation
		cits = append(cits, jsonCitations(obj)...)
		for _, k := range jsonCitationKeys {
			switch list := obj[k].(type) {
			case []any:
				for _, c := range list {
					cits = append(cits, jsonCitation(c)...)
				}
			case map[string]any:
				cits = append(cits, jsonCitation(list)...)
			}
		}
		return Claim{Text: text, Status: StatusReported, Citations: finishCitations(cits)}, true
	}
	return Claim{}, false
}

// jsonCitation reads one element of a citations list: a URL string or an object.
func jsonCitation(c any) []Citation {
	switch v := c.(type) {
	case string:
		var out []Citation
		for _, u := range jsonURLs(v) {
			out = append(out, Citation{URL: u})
		}
		return out
	case map[string]any:
		return jsonCitations(normalizeKeys(v))
	}
	return nil
}

// jsonCitations pairs the URLs and quotes given directly in obj.
func jsonCitations(obj map[string]any) []Citation {
	var urls, quotes []string
	var nested []Citation
	for _, k := range jsonURLKeys {
		switch v := obj[k].(type) {
		case string:
			urls = append(urls, jsonURLs(v)...)
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					urls = append(urls, jsonURLs(s)...)
				} else {
					nested = append(nested, jsonCitation(e)...)
				}
			}
		case map[string]any:
			nested = append(nested, jsonCitation(v)...)
		}
	}
	for _, k := range jsonQuoteKeys {
		switch v := obj[k].(type) {
		case string:
			if q := unquote(v); q != "" {
				quotes = append(quotes, q)
			}
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					if q := unquote(s); q != "" {
						quotes = append(quotes, q)
					}
				}
			}
		}
	}
	return append(pairLists(urls, quotes), nested...)
}

// pairLists pairs URLs and quotes given as two lists: by position when the counts agree,
// every quote to a single URL, a single quote to every URL, else by position with extra
// quotes going to the last URL.
func pairLists(urls, quotes []string) []Citation {
	var out []Citation
	switch {
	case len(urls) == 0:
		for _, q := range quotes {
			out = append(out, Citation{Quote: q})
		}
	case len(quotes) == 0:
		for _, u := range urls {
			out = append(out, Citation{URL: u})
		}
	case len(urls) == 1:
		for _, q := range quotes {
			out = append(out, Citation{URL: urls[0], Quote: q})
		}
	case len(quotes) == 1:
		for _, u := range urls {
			out = append(out, Citation{URL: u, Quote: quotes[0]})
		}
	default:
		for i, u := range urls {
			c := Citation{URL: u}
			if i < len(quotes) {
				c.Quote = quotes[i]
			}
			out = append(out, c)
		}
		for _, q := range quotes[min(len(urls), len(quotes)):] {
			out = append(out, Citation{URL: urls[len(urls)-1], Quote: q})
		}
	}
	return out
}

// finishCitations removes duplicates, sets status and notes, and gives a claim without any
// citation the one empty citation that carries NoteNoSource.
func finishCitations(cits []Citation) []Citation {
	if len(cits) == 0 {
		cits = []Citation{{}}
	}
	out := make([]Citation, 0, len(cits))
	seen := map[[2]string]bool{}
	for _, c := range cits {
		key := [2]string{c.URL, c.Quote}
		if seen[key] {
			continue
		}
		seen[key] = true
		c.Status = StatusReported
		c.Note = CitationNote(c.URL, c.Quote)
		out = append(out, c)
	}
	return out
}

// jsonURLs reads a URL value: the URLs in it, or the value itself when it is one word with a
// dot or a scheme ("Reuters" is a name, not a URL).
func jsonURLs(s string) []string {
	p := &parser{}
	if toks := p.urlField(s); len(toks) > 0 {
		var out []string
		for _, t := range toks {
			if t.isURL {
				out = append(out, t.url)
			}
		}
		return out
	}
	return nil
}

// quoteMarks pairs each opening quotation mark with the marks that close it.
var quoteMarks = map[rune]string{
	'"': `"`, '“': "”“", '„': "“”", '«': "»", '»': "«", '‘': "’‘", '‚': "‘’", '\'': "'",
	'「': "」", '『': "』", '‹': "›", '《': "》",
}

// unquote is the quote of a JSON quote field: the researcher's exact string, never split,
// cut at a URL or otherwise edited. It trims white space from s and removes one pair of
// quotation marks when it wraps the whole of s: s opens with a quotation mark, closes with a
// mark that closes it, and no mark inside closes it first. Inner quotations stay as they are, so "so-called "message content"
// rules" loses only its outer pair, while "Super Mario Run" is … "Super Mario" keeps both
// of its quotations. Straight marks inside count as opening after white space (or an opening
// bracket or dash) and before a word, and as closing otherwise; an apostrophe between two
// letters is neither.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	open, size := utf8.DecodeRuneInString(s)
	closers, ok := quoteMarks[open]
	last, lsize := utf8.DecodeLastRuneInString(s)
	if !ok || len(s) < size+lsize || !strings.ContainsRune(closers, last) {
		return s
	}
	inner := s[size : len(s)-lsize]
	depth := 1
	for i, r := range inner {
		switch {
		case r == open && !strings.ContainsRune(closers, r):
			depth++
		case strings.ContainsRune(closers, r) && r != open:
			depth--
		case r == open: // a straight mark (or one that opens and closes alike)
			prev, _ := utf8.DecodeLastRuneInString(inner[:i])
			next, _ := utf8.DecodeRuneInString(inner[i+utf8.RuneLen(r):])
			switch {
			case unicode.IsLetter(prev) && unicode.IsLetter(next):
				// an apostrophe (don't)
			case opensQuote(inner, i):
				depth++
			default:
				depth--
			}
		}
		if depth == 0 {
			return s
		}
	}
	if depth != 1 {
		return s
	}
	return strings.TrimSpace(inner)
}
