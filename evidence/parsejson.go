package evidence

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The key names the JSON reader knows, after lowercasing and removing '_', '-' and spaces,
// in the order they are tried.
var (
	jsonTextKeys = []string{"text", "claim", "statement", "fact", "finding", "assertion", "claimtext"}
	jsonURLKeys  = []string{"url", "urls", "sourceurl", "source", "link", "links", "href", "uri", "sourcelink",
		"sourceuri", "referenceurl", "citationurl"}
	jsonQuoteKeys = []string{"quote", "quotes", "excerpt", "excerpts", "evidence", "supportingquote", "exactquote", "quotation", "snippet",
		"supportingtext", "citedtext", "verbatim", "evidencetext"}
	jsonCitationKeys = []string{"citations", "sources", "references", "cites"}
	jsonListKeys     = []string{"claims", "results", "facts", "findings", "statements", "items", "data", "research"}
)

const jsonShapeHint = `send an array of claims or {"claims":[{"text":"…","citations":[{"url":"…","quote":"…"}]}]}`

// ParseClaimsJSON reads research given as JSON: the API form
// {"claims":[{"text":"…","citations":[{"url":"…","quote":"…"}]}]}, an array of claims, or an
// object holding such an array under a usual key (claims, results, facts, findings, …). A
// claim is an object with its text under text, claim, statement, fact or finding; URLs under
// url, source, source_url, link, href, uri, source_uri, reference_url or citation_url (a
// string, an array, or an object); quotes under quote, quotation, excerpt, evidence,
// supporting_text, cited_text, verbatim or evidence_text; and citations under citations,
// sources or references. A claim may also be a bare string. Key names are matched without
// regard to case, '_' or '-'. Every value it does not read is reported by
// [ParseResearchLeftOut], with its place (docs/parser.md).
//
// The same notes apply as for ParseResearch. An entry with no text is skipped: the reader
// never makes up a claim. The error matches ErrBadResearch when the JSON does not parse or
// the input is larger than MaxPasteBytes, and ErrNothingUsable when no claim was found.
func ParseClaimsJSON(data []byte) (Research, error) {
	res, _, err := readClaimsJSON(data, false)
	return res, err
}

// readClaimsJSON is ParseClaimsJSON; with track set it also returns the string values it did
// not read into any claim, each with its place (LeftOut.Field), in reading order. One pass
// over the decoded value: the time is linear in the size of the JSON.
func readClaimsJSON(data []byte, track bool) (Research, []LeftOut, error) {
	if len(data) > MaxPasteBytes {
		return Research{}, nil, fmt.Errorf("%w: the JSON is %d bytes, more than the limit of %d; split it into smaller batches", ErrBadResearch, len(data), MaxPasteBytes)
	}
	v, err := decodeJSON(data)
	if err != nil {
		return Research{}, nil, err
	}
	r := &jsonReader{track: track}
	var entries []any
	var list *jsonPath // the place of the entries' array; nil for a root array
	single := false    // the root object is the one claim
	switch root := v.(type) {
	case []any:
		entries = root
	case map[string]any:
		obj := normalizeKeys(root)
		if k, l, ok := firstList(obj); ok {
			entries = l
			list = list.member(obj.names[k])
			r.rest(obj, map[string]bool{k: true}, nil)
		} else {
			entries, single = []any{root}, true
		}
	default:
		return Research{}, nil, fmt.Errorf("%w: the JSON is a %s, not an object or an array; %s", ErrNothingUsable, jsonKind(v), jsonShapeHint)
	}
	var claims []Claim
	for i, e := range entries {
		at := list.at(i)
		if single {
			at = nil
		}
		if c, ok := r.claim(e, at); ok {
			claims = append(claims, c)
		}
	}
	if len(claims) == 0 {
		return Research{}, r.unread, fmt.Errorf("%w: the JSON holds no claim with a text; %s", ErrNothingUsable, jsonShapeHint)
	}
	return Research{Claims: claims}, r.unread, nil
}

// firstList is the first list key of obj that holds a value, when that value is an array.
func firstList(obj jsonObject) (string, []any, bool) {
	for _, k := range jsonListKeys {
		if v, ok := obj.vals[k]; ok && v != nil {
			list, isList := v.([]any)
			return k, list, isList
		}
	}
	return "", nil, false
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

// jsonObject is a JSON object with its keys normalized: lowercased, without '_', '-' and
// spaces. names gives each normalized key the key as written; dropped are the keys as
// written that another key took the place of.
type jsonObject struct {
	vals    map[string]any
	names   map[string]string
	dropped []string
	raw     map[string]any
}

// normalizeKeys normalizes the keys of obj. When two keys collide, the one that sorts first
// wins, so the result does not depend on map order; the other is not read.
func normalizeKeys(obj map[string]any) jsonObject {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := jsonObject{vals: make(map[string]any, len(obj)), names: make(map[string]string, len(obj)), raw: obj}
	for _, k := range keys {
		n := strings.ToLower(keyReplacer.Replace(k))
		if _, dup := out.vals[n]; dup {
			out.dropped = append(out.dropped, k)
			continue
		}
		out.vals[n] = obj[k]
		out.names[n] = k
	}
	return out
}

var keyReplacer = strings.NewReplacer("_", "", "-", "", " ", "")

// jsonPath is the place of a value in a JSON paste: a member name or an array index under
// its parent. It is spelled out only for a value reported as not read.
type jsonPath struct {
	up    *jsonPath
	key   string
	index int // when key is ""
}

func (p *jsonPath) member(key string) *jsonPath { return &jsonPath{up: p, key: key} }

func (p *jsonPath) at(i int) *jsonPath { return &jsonPath{up: p, index: i} }

// String spells a place as claims[3].source_uri; a member name that is not a plain word is
// quoted (claims[0]["source link"]).
func (p *jsonPath) String() string {
	if p == nil {
		return ""
	}
	up := p.up.String()
	if p.key == "" {
		return up + "[" + strconv.Itoa(p.index) + "]"
	}
	if !plainKey(p.key) {
		return up + "[" + strconv.Quote(p.key) + "]"
	}
	if up == "" {
		return p.key
	}
	return up + "." + p.key
}

func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-' {
			return false
		}
	}
	return true
}

// jsonReader reads claims from a decoded JSON value. With track set it records every string
// value it does not read into a claim (unread), with its place.
type jsonReader struct {
	track  bool
	unread []LeftOut
}

// skip records the strings of a value the reader does not read.
func (r *jsonReader) skip(v any, at *jsonPath) {
	if !r.track {
		return
	}
	switch x := v.(type) {
	case string:
		if hasLetterOrDigit(x) {
			r.unread = append(r.unread, LeftOut{Text: strings.TrimSpace(x), Reason: LeftJSON, Field: at.String()})
		}
	case []any:
		for i, e := range x {
			r.skip(e, at.at(i))
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			r.skip(x[k], at.member(k))
		}
	}
}

// rest records the members of obj that are not in read, and the members another key took
// the place of.
func (r *jsonReader) rest(obj jsonObject, read map[string]bool, at *jsonPath) {
	if !r.track {
		return
	}
	keys := make([]string, 0, len(obj.vals))
	for k := range obj.vals {
		if !read[k] {
			keys = append(keys, obj.names[k])
		}
	}
	keys = append(keys, obj.dropped...)
	sort.Strings(keys)
	for _, k := range keys {
		r.skip(obj.raw[k], at.member(k))
	}
}

// hasLetterOrDigit reports whether s holds a letter or a digit.
func hasLetterOrDigit(s string) bool {
	for _, c := range s {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			return true
		}
	}
	return false
}

// claim reads one entry: a string or an object.
func (r *jsonReader) claim(e any, at *jsonPath) (Claim, bool) {
	switch v := e.(type) {
	case string:
		p := &parser{}
		text, toks := p.inline(v)
		if isTalk(text) {
			r.skip(v, at)
			return Claim{}, false
		}
		return Claim{Text: text, Status: StatusReported, Citations: pair(toks)}, true
	case map[string]any:
		obj := normalizeKeys(v)
		var text string
		read := map[string]bool{}
		for _, k := range jsonTextKeys {
			if s, ok := obj.vals[k].(string); ok && strings.TrimSpace(s) != "" {
				text = strings.Join(strings.Fields(s), " ")
				read[k] = true
				break
			}
		}
		if isTalk(text) {
			r.skip(v, at)
			return Claim{}, false
		}
		var cits []Citation
		cits = append(cits, r.citations(obj, read, at)...)
		for _, k := range jsonCitationKeys {
			switch list := obj.vals[k].(type) {
			case []any:
				read[k] = true
				for i, c := range list {
					cits = append(cits, r.citation(c, at.member(obj.names[k]).at(i))...)
				}
			case map[string]any:
				read[k] = true
				cits = append(cits, r.citation(list, at.member(obj.names[k]))...)
			}
		}
		r.rest(obj, read, at)
		return Claim{Text: text, Status: StatusReported, Citations: finishCitations(cits)}, true
	}
	r.skip(e, at)
	return Claim{}, false
}

// citation reads one element of a citations list: a URL string or an object.
func (r *jsonReader) citation(c any, at *jsonPath) []Citation {
	switch v := c.(type) {
	case string:
		var out []Citation
		for _, u := range r.urls(v, at) {
			out = append(out, Citation{URL: u})
		}
		return out
	case map[string]any:
		obj := normalizeKeys(v)
		read := map[string]bool{}
		out := r.citations(obj, read, at)
		r.rest(obj, read, at)
		return out
	}
	r.skip(c, at)
	return nil
}

// citations pairs the URLs and quotes given directly in obj, and adds the keys it reads to
// read.
func (r *jsonReader) citations(obj jsonObject, read map[string]bool, at *jsonPath) []Citation {
	var urls, quotes []string
	var nested []Citation
	for _, k := range jsonURLKeys {
		v, ok := obj.vals[k]
		if !ok {
			continue
		}
		read[k] = true
		kat := at.member(obj.names[k])
		switch v := v.(type) {
		case string:
			urls = append(urls, r.urls(v, kat)...)
		case []any:
			for i, e := range v {
				if s, ok := e.(string); ok {
					urls = append(urls, r.urls(s, kat.at(i))...)
				} else {
					nested = append(nested, r.citation(e, kat.at(i))...)
				}
			}
		case map[string]any:
			nested = append(nested, r.citation(v, kat)...)
		default:
			r.skip(v, kat)
		}
	}
	for _, k := range jsonQuoteKeys {
		v, ok := obj.vals[k]
		if !ok {
			continue
		}
		read[k] = true
		kat := at.member(obj.names[k])
		switch v := v.(type) {
		case string:
			if q := unquote(v); q != "" {
				quotes = append(quotes, q)
			}
		case []any:
			for i, e := range v {
				if s, ok := e.(string); ok {
					if q := unquote(s); q != "" {
						quotes = append(quotes, q)
					}
				} else {
					r.skip(e, kat.at(i))
				}
			}
		default:
			r.skip(v, kat)
		}
	}
	return append(pairLists(urls, quotes), nested...)
}

// urls reads a URL value: the URLs in it, or the value itself when it is one word with a dot
// or a scheme ("Reuters" is a name, not a URL, and is not read).
func (r *jsonReader) urls(s string, at *jsonPath) []string {
	p := &parser{}
	var out []string
	for _, t := range p.urlField(s) {
		if t.isURL {
			out = append(out, t.url)
		}
	}
	if len(out) == 0 {
		r.skip(s, at)
	}
	return out
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
	out, _ := finishCitationsVia(cits, nil)
	return out
}

// finishCitationsVia is finishCitations that keeps via, the marker of each citation (or
// nil), in step: a duplicate keeps the marker of its first occurrence.
func finishCitationsVia(cits []Citation, via []string) ([]Citation, []string) {
	if len(cits) == 0 {
		cits = []Citation{{}}
		via = nil
	}
	out := make([]Citation, 0, len(cits))
	outVia := make([]string, 0, len(cits))
	seen := map[[2]string]bool{}
	for i, c := range cits {
		key := [2]string{c.URL, c.Quote}
		if seen[key] {
			continue
		}
		seen[key] = true
		c.Status = StatusReported
		c.Note = CitationNote(c.URL, c.Quote)
		out = append(out, c)
		v := ""
		if i < len(via) {
			v = via[i]
		}
		outVia = append(outVia, v)
	}
	return out, outVia
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
