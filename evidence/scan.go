// The inline scanner of the paste parser, in one file: one left-to-right pass that finds
// quotes, links and reference marks, with the nesting rules of each quotation-mark
// family. The rules decide together where a quote ends.

package evidence

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// spanKind is what a span of inline text is.
type spanKind int

const (
	spanLink   spanKind = iota // [text](url)
	spanURL                    // a bare URL or <url>
	spanMarker                 // a resolved citation marker: [1], [^1], ¹, (1)
	spanQuote                  // a quoted passage
)

// span is a piece of inline text the scanner recognized, at s[start:end].
type span struct {
	kind       spanKind
	start, end int
	url        string   // spanLink, spanURL
	text       string   // spanLink: the link text; spanQuote: the passage
	refs       []string // spanMarker: reference ids
}

// maxLinkText caps how far a link text or marker may run, which keeps scanning linear.
const maxLinkText = 1000

// quotePairs are the quotation marks the scanner knows, opener and closers.
var quotePairs = []struct {
	open    string
	closers []string
}{
	{"“", []string{"”", "“", "\""}},
	{"„", []string{"“", "”", "\""}},
	{"«", []string{"»"}},
	{"‘", []string{"’"}},
	{"\"", []string{"\""}},
}

// scanner finds links, URLs, markers and quotes in one piece of text. It remembers where the
// next closing mark of each kind is, so that unmatched openers cost nothing: the whole scan is
// linear in the length of the text.
type scanner struct {
	s       string
	refs    map[string]*reference
	parens  bool // resolve (1) markers
	closeAt map[string]int
	closeOK map[string]int
	nest    [famCount]*nesting // built on first use
}

func scanInline(s string, refs map[string]*reference, parens bool) []span {
	sc := &scanner{s: s, refs: refs, parens: parens, closeAt: map[string]int{}, closeOK: map[string]int{}}
	return sc.scan()
}

// nextClose returns the index of the first closer at or after from, or -1. Results are
// cached: calls come with increasing from.
func (sc *scanner) nextClose(closer string, from int) int {
	if at, ok := sc.closeAt[closer]; ok && (at == -1 || (at >= from && sc.closeOK[closer] <= from)) {
		return at
	}
	at := from
	for {
		k := strings.Index(sc.s[at:], closer)
		if k < 0 {
			at = -1
			break
		}
		at += k
		// A right single quotation mark followed by a letter is an apostrophe (it’s).
		if closer == "’" {
			r, _ := utf8.DecodeRuneInString(sc.s[at+len(closer):])
			if unicode.IsLetter(r) {
				at += len(closer)
				continue
			}
		}
		break
	}
	sc.closeAt[closer] = at
	sc.closeOK[closer] = from
	return at
}

func (sc *scanner) scan() []span {
	s := sc.s
	var out []span
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '[':
			if sp, ok := sc.link(i); ok {
				out = append(out, sp)
				i = sp.end
				continue
			}
			if sp, ok := sc.bracketMarker(i); ok {
				out = append(out, sp)
				i = sp.end
				continue
			}
		case c == '<':
			if end := strings.IndexByte(s[i:], '>'); end > 0 {
				inner := s[i+1 : i+end]
				if schemeLen(inner) > 0 && !strings.ContainsAny(inner, " \t\n<") {
					out = append(out, span{kind: spanURL, start: i, end: i + end + 1, url: inner})
					i += end + 1
					continue
				}
			}
		case c >= '1' && c <= '9' && sc.parens && i >= 2 && (s[i-1] == '.' || s[i-1] == '"' || s[i-1] == ')' || s[i-1] >= 0x80):
			if sp, ok := sc.plainMarker(i); ok {
				out = append(out, sp)
				i = sp.end
				continue
			}
		case c == '(' && sc.parens:
			if end := strings.IndexByte(s[i:], ')'); end > 1 && end < 6 {
				id := s[i+1 : i+end]
				if allDigits(id) && sc.refs[id] != nil {
					out = append(out, span{kind: spanMarker, start: i, end: i + end + 1, refs: []string{id}})
					i += end + 1
					continue
				}
			}
		case isASCIILetter(c) && (i == 0 || !isSchemeByte(s[i-1])):
			if n := schemeLen(s[i:]); n > 0 {
				end := i + n
				for end < len(s) && !urlStop(s, end) {
					end++
				}
				raw := trimURL(s[i:end])
				if len(raw) > n {
					out = append(out, span{kind: spanURL, start: i, end: i + len(raw), url: raw})
					i += len(raw)
					continue
				}
			}
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(s[i:])
			if _, ok := superDigit(r); ok {
				if sp, ok := sc.superMarker(i); ok {
					out = append(out, sp)
					i = sp.end
					continue
				}
				// not a marker: skip the whole run of superscript digits
				for i < len(s) {
					r, size := utf8.DecodeRuneInString(s[i:])
					if !isSuperDigit(r) {
						break
					}
					i += size
				}
				continue
			}
			if sp, ok := sc.quote(i); ok {
				out = append(out, sp)
				i = sp.end
				continue
			}
			i += size
			continue
		case c == '"':
			if sp, ok := sc.quote(i); ok {
				out = append(out, sp)
				i = sp.end
				continue
			}
		}
		i++
	}
	return out
}

// quote recognizes a quoted passage opening at i.
func (sc *scanner) quote(i int) (span, bool) {
	for _, q := range quotePairs {
		if !strings.HasPrefix(sc.s[i:], q.open) {
			continue
		}
		from := i + len(q.open)
		if q.open == "\"" {
			if end, ok := sc.straightClose(from); ok {
				if text := strings.TrimSpace(sc.s[from:end]); text != "" {
					return span{kind: spanQuote, start: i, end: end + 1, text: text}, true
				}
			}
		}
		if q.open == "“" || q.open == "«" {
			if end, size, ok := sc.nestedClose(from, q.open); ok {
				if text := strings.TrimSpace(sc.s[from:end]); text != "" {
					return span{kind: spanQuote, start: i, end: end + size, text: text}, true
				}
			}
		}
		best, bestLen := -1, 0
		for _, cl := range q.closers {
			if at := sc.nextClose(cl, from); at >= 0 && (best < 0 || at < best) {
				best, bestLen = at, len(cl)
			}
		}
		if best < 0 {
			return span{}, false
		}
		text := strings.TrimSpace(sc.s[from:best])
		if text == "" {
			return span{}, false
		}
		return span{kind: spanQuote, start: i, end: best + bestLen, text: text}, true
	}
	return span{}, false
}

// maxNestedQuote bounds how far a quoted passage with quotations inside it is followed;
// beyond it the first closing mark ends the passage.
const maxNestedQuote = 2000

// The families of quotation marks whose passages may nest (nesting).
const (
	famStraight  = iota // "
	famCurly            // “ ” and "
	famGuillemet        // « »
	famCount
)

// nesting is, for one family of quotation marks in the whole text, where each passage
// closes. Each mark of the family is an event: it opens (+1) or closes (−1). A passage opened
// by the mark at events[k] closes at the first later event where the running depth falls
// below its depth at k: computed for every mark at once with a stack, so the whole text
// costs linear time however the marks are arranged.
type nesting struct {
	pos   []int       // the byte offset of each event, in order
	size  []int       // the length of its mark
	close []int       // the event that closes a passage opened at the event, or -1
	index map[int]int // the event at a byte offset
}

// buildNesting finds the events of a family in s.
func buildNesting(s string, fam int) *nesting {
	n := &nesting{index: map[int]int{}}
	var depth []int
	d := 0
	for at := 0; at < len(s); {
		r, size := utf8.DecodeRuneInString(s[at:])
		delta := 0
		switch fam {
		case famStraight:
			if r == '"' {
				delta = -1
				if opensQuote(s, at) {
					delta = 1
				}
			}
		case famCurly:
			switch r {
			case '”':
				delta = -1
			case '“', '"':
				delta = -1
				if opensQuote(s, at) {
					delta = 1
				}
			}
		case famGuillemet:
			switch r {
			case '«':
				delta = 1
			case '»':
				delta = -1
			}
		}
		if delta != 0 {
			n.index[at] = len(n.pos)
			n.pos = append(n.pos, at)
			n.size = append(n.size, size)
			n.close = append(n.close, -1)
			d += delta
			depth = append(depth, d)
		}
		at += size
	}
	var stack []int
	for j := range n.pos {
		for len(stack) > 0 && depth[stack[len(stack)-1]] > depth[j] {
			n.close[stack[len(stack)-1]] = j
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, j)
	}
	return n
}

// nestedEnd finds the mark that closes a passage of family fam opened by the mark at open,
// when the passage holds quotations of its own. It reports false when the first mark after
// the opener closes the passage anyway (nothing nested: the caller takes the first closing
// mark), or when the marks do not balance within maxNestedQuote bytes.
func (sc *scanner) nestedEnd(fam, open int) (end, size int, ok bool) {
	if sc.nest[fam] == nil {
		sc.nest[fam] = buildNesting(sc.s, fam)
	}
	n := sc.nest[fam]
	k, found := n.index[open]
	if !found {
		return 0, 0, false
	}
	c := n.close[k]
	from := open + n.size[k]
	if c < 0 || c == k+1 || n.pos[c]-from >= maxNestedQuote {
		return 0, 0, false
	}
	return n.pos[c], n.size[c], true
}

// straightClose finds the straight quotation mark that closes a passage opened just before
// from, when the passage holds straight quotes of its own: a mark that opens a quotation
// (opensQuote: after a space, an opening bracket, a dash or an elided article, and before a
// word) opens an inner quotation ("so-called "message content" rules"), and any other mark
// closes the innermost one open. It reports false when the first mark after from closes the
// passage anyway, or when the marks do not balance within maxNestedQuote bytes; the caller
// then takes the first closing mark.
func (sc *scanner) straightClose(from int) (int, bool) {
	end, _, ok := sc.nestedEnd(famStraight, from-1)
	return end, ok
}

// nestedClose finds the mark that closes a passage opened by “ or « just before from, when
// the passage holds quotations of its own (“the so-called “message content” rules”,
// «il a dit «non» hier»). Inside a “ passage a “ or " that opens a quotation (opensQuote)
// opens an inner one, and ”, or a “ or " that does not, closes the innermost one open;
// inside a « passage every « opens and every » closes. It reports false when no inner
// quotation opens before the passage closes, or when the marks do not balance within
// maxNestedQuote bytes; the caller then takes the first closing mark.
func (sc *scanner) nestedClose(from int, open string) (end, size int, ok bool) {
	fam := famCurly
	if open == "«" {
		fam = famGuillemet
	}
	return sc.nestedEnd(fam, from-len(open))
}

// opensQuote reports whether the quotation mark at s[at] opens a quotation: at the start or
// after white space, an opening bracket, a dash, another opening mark or an elided article
// (l'"accord", d’“un moment”: an apostrophe right after a letter), and before a letter,
// digit or another opening mark.
func opensQuote(s string, at int) bool {
	prev, size := utf8.DecodeLastRuneInString(s[:at])
	if at > 0 && !unicode.IsSpace(prev) && !strings.ContainsRune("([{—–“‘«„", prev) && !elision(s[:at-size], prev) {
		return false
	}
	_, n := utf8.DecodeRuneInString(s[at:])
	next, _ := utf8.DecodeRuneInString(s[at+n:])
	return unicode.IsLetter(next) || unicode.IsDigit(next) || next == '‘' || next == '\''
}

// elision reports whether prev, the mark before a quotation mark, is the apostrophe of an
// elided word (l', d', qu', dell’): a straight or typographic apostrophe right after a letter.
func elision(before string, prev rune) bool {
	if prev != '\'' && prev != '’' {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(before)
	return unicode.IsLetter(r)
}

// link recognizes a Markdown link or image [text](target) at i ('[' at i).
func (sc *scanner) link(i int) (span, bool) {
	s := sc.s
	close := -1
	for j := i + 1; j < len(s) && j-i < maxLinkText; j++ {
		if s[j] == ']' {
			close = j
			break
		}
		if s[j] == '[' || s[j] == '\n' {
			return span{}, false
		}
	}
	if close < 0 || close+1 >= len(s) || s[close+1] != '(' {
		return span{}, false
	}
	start := close + 2
	depth := 0
	end, urlEnd := -1, -1
	for j := start; j < len(s) && j-start < 4*maxLinkText && end < 0; j++ {
		switch s[j] {
		case '(':
			depth++
		case ')':
			if depth == 0 {
				end, urlEnd = j, j
			}
			depth--
		case ' ', '\t':
			// [text](url "title"): a title in quotes, then the closing parenthesis
			urlEnd = j
			k := j
			for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
				k++
			}
			if k < len(s) && s[k] == '"' {
				q := strings.IndexByte(s[k+1:min(len(s), k+1+maxLinkText)], '"')
				if q >= 0 {
					k += q + 2
				}
			}
			for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
				k++
			}
			if k >= len(s) || s[k] != ')' {
				return span{}, false
			}
			end = k
		case '[':
			// only an IPv6 host may hold a bracket: http://[::1]/
			if !strings.HasSuffix(s[start:j], "//") {
				return span{}, false
			}
		case '\n':
			return span{}, false
		}
	}
	if end < 0 {
		return span{}, false
	}
	target := strings.TrimSpace(s[start:urlEnd])
	target = strings.TrimSuffix(strings.TrimPrefix(target, "<"), ">")
	if target == "" {
		return span{}, false
	}
	return span{kind: spanLink, start: i, end: end + 1, url: target, text: s[i+1 : close]}, true
}

// bracketMarker recognizes [1], [^1], [^note], [1, 2] or [1][2] at i when the ids name
// references.
func (sc *scanner) bracketMarker(i int) (span, bool) {
	s := sc.s
	var ids []string
	j := i
	for j < len(s) && s[j] == '[' {
		end := strings.IndexByte(s[j:min(len(s), j+66)], ']')
		if end < 0 {
			break
		}
		inner := s[j+1 : j+end]
		var got []string
		if strings.HasPrefix(inner, "^") {
			got = []string{inner[1:]}
		} else {
			for _, part := range strings.Split(inner, ",") {
				got = append(got, markerRange(strings.TrimSpace(part))...)
			}
		}
		ok := len(got) > 0
		for _, id := range got {
			if id == "" || sc.refs[id] == nil {
				ok = false
			}
		}
		if !ok {
			break
		}
		ids = append(ids, got...)
		j += end + 1
	}
	if len(ids) == 0 {
		return span{}, false
	}
	return span{kind: spanMarker, start: i, end: j, refs: ids}, true
}

// maxMarkerRange is the most references a range marker ([1–3]) may name.
const maxMarkerRange = 20

// markerRange expands one id of a bracket marker: a range such as 1–3, 1-3 or 1—3 (its ends
// in order, naming at most maxMarkerRange references) gives every number from one end to the
// other; anything else is the id itself.
func markerRange(id string) []string {
	for _, dash := range []string{"–", "—", "-"} {
		a, b, ok := strings.Cut(id, dash)
		a, b = strings.TrimSpace(a), strings.TrimSpace(b)
		if !ok || !allDigits(a) || !allDigits(b) || len(a) > 4 || len(b) > 4 {
			continue
		}
		from, to := atoiDigits(a), atoiDigits(b)
		if from > to || to-from >= maxMarkerRange {
			return []string{id}
		}
		var out []string
		for n := from; n <= to; n++ {
			out = append(out, strconv.Itoa(n))
		}
		return out
	}
	return []string{id}
}

// atoiDigits is the value of a string of at most four ASCII digits.
func atoiDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// plainMarker recognizes reference numbers written in plain digits right after a full stop,
// as superscripts become when a report is copied as text ("… of the market.12 Firefox …",
// "… the code."2 The …", "… in 2004.4 5 By …"). The first number comes right after a full
// stop (or after a closing quotation mark or parenthesis that follows one) that itself follows
// a letter, a closing quotation mark, a closing parenthesis, or a year (any other digit: 3.5
// and 1.0 are numbers); more numbers may follow, each after one space. Every number has one
// to three digits and names a reference of a numbered Sources list, and a sentence must start
// after them: the end of the text, or white space and a capital or an opening mark.
func (sc *scanner) plainMarker(i int) (span, bool) {
	s := sc.s
	dot := i - 1
	if strings.ContainsRune("\"”’»)", rune(s[dot])) || (s[dot] >= 0x80 && strings.ContainsRune("”’»", lastRuneOf(s[:i]))) {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		dot = i - size - 1
	}
	if dot < 1 || !strings.ContainsRune(".!?", rune(s[dot])) {
		return span{}, false
	}
	prev, _ := utf8.DecodeLastRuneInString(s[:dot])
	if !unicode.IsLetter(prev) && !strings.ContainsRune("\"”’»)", prev) && !isYearBefore(s, dot) {
		return span{}, false
	}
	var ids []string
	j := i
	for {
		k := j
		for k < len(s) && k-j < 4 && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k == j || k-j > 3 || (k < len(s) && s[k] != ' ' && s[k] != '\n' && s[k] != '\t') || sc.refs[s[j:k]] == nil {
			break
		}
		ids = append(ids, s[j:k])
		j = k
		if j+1 < len(s) && s[j] == ' ' && s[j+1] >= '1' && s[j+1] <= '9' {
			j++
			continue
		}
		break
	}
	if len(ids) == 0 {
		return span{}, false
	}
	end := j
	if end > i && s[end-1] == ' ' {
		end--
	}
	k := end
	for k < len(s) && (s[k] == ' ' || s[k] == '\n' || s[k] == '\t') {
		k++
	}
	if r, _ := utf8.DecodeRuneInString(s[k:]); k < len(s) && !unicode.IsUpper(r) && !strings.ContainsRune("“\"‘«„*[#", r) {
		return span{}, false
	}
	return span{kind: spanMarker, start: i, end: end, refs: ids}, true
}

func lastRuneOf(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// isYearBefore reports whether s[:dot] ends with a year, 1000 to 2099, standing alone (not
// part of a longer number or of a decimal).
func isYearBefore(s string, dot int) bool {
	if dot < 4 {
		return false
	}
	y := s[dot-4 : dot]
	if !allDigits(y) || (y[0] != '1' && y[0] != '2') || (y[0] == '2' && y[1] != '0') {
		return false
	}
	if dot > 4 {
		c := s[dot-5]
		if (c >= '0' && c <= '9') || c == '.' || c == ',' {
			return false
		}
	}
	return true
}

// superMarker recognizes a run of superscript digits, such as ¹ or ¹², optionally separated by
// commas (¹,²), or a range (¹⁻³, ¹–³: see markerRange). A run names one reference if it
// exists, else one reference per digit.
func (sc *scanner) superMarker(i int) (span, bool) {
	s := sc.s
	var ids []string
	j := i
	for j < len(s) {
		var digits []byte
		k := j
		for k < len(s) {
			r, size := utf8.DecodeRuneInString(s[k:])
			d, ok := superDigit(r)
			if !ok {
				break
			}
			if len(digits) == 4 {
				return span{}, false
			}
			digits = append(digits, d)
			k += size
		}
		if len(digits) == 0 {
			break
		}
		run := string(digits)
		switch {
		case sc.refs[run] != nil:
			ids = append(ids, run)
		default:
			for _, d := range digits {
				if sc.refs[string(d)] == nil {
					return span{}, false
				}
				ids = append(ids, string(d))
			}
		}
		j = k
		// a range: ¹⁻³ or ¹–³, from the run just read to the next one
		if r, size := utf8.DecodeRuneInString(s[j:]); (r == '⁻' || r == '–') && sc.refs[run] != nil {
			e := j + size
			var to []byte
			for e < len(s) && len(to) < 4 {
				r, size := utf8.DecodeRuneInString(s[e:])
				d, ok := superDigit(r)
				if !ok {
					break
				}
				to = append(to, d)
				e += size
			}
			if rng := markerRange(run + "-" + string(to)); len(to) > 0 && len(rng) > 1 && allRefs(sc.refs, rng) {
				ids = append(ids[:len(ids)-1], rng...)
				j = e
			}
		}
		if j < len(s) && s[j] == ',' {
			if r, _ := utf8.DecodeRuneInString(s[j+1:]); isSuperDigit(r) {
				j++
				continue
			}
		}
		break
	}
	if len(ids) == 0 {
		return span{}, false
	}
	return span{kind: spanMarker, start: i, end: j, refs: ids}, true
}

// allRefs reports whether every id names a reference.
func allRefs(refs map[string]*reference, ids []string) bool {
	for _, id := range ids {
		if refs[id] == nil {
			return false
		}
	}
	return true
}

func superDigit(r rune) (byte, bool) {
	switch r {
	case '⁰':
		return '0', true
	case '¹':
		return '1', true
	case '²':
		return '2', true
	case '³':
		return '3', true
	}
	if r >= '⁴' && r <= '⁹' {
		return byte('4' + (r - '⁴')), true
	}
	return 0, false
}

func isSuperDigit(r rune) bool {
	_, ok := superDigit(r)
	return ok
}

// schemeLen returns the length of a "scheme://" prefix of s (a letter, then up to 15
// letters, digits, '+', '-' or '.'), or 0.
func schemeLen(s string) int {
	if s == "" || !isASCIILetter(s[0]) {
		return 0
	}
	for j := 1; j < len(s) && j <= 16; j++ {
		if strings.HasPrefix(s[j:], "://") {
			return j + 3
		}
		if !isSchemeByte(s[j]) {
			return 0
		}
	}
	return 0
}

func isASCIILetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func isSchemeByte(c byte) bool {
	return isASCIILetter(c) || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// urlStop reports whether a bare URL ends at s[i]: white space, angle brackets, a straight
// double quote, a backtick, a pipe or a typographic quotation mark.
func urlStop(s string, i int) bool {
	switch s[i] {
	case ' ', '\t', '\n', '\r', '<', '>', '"', '`', '|':
		return true
	}
	if s[i] < 0x80 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	switch r {
	case '“', '”', '‘', '’', '«', '»', '„', '\u00a0', '\u3000', '。', '、', '，':
		return true
	}
	return unicode.IsSpace(r)
}

// trimURL removes the punctuation that wraps a URL in prose: a trailing . , ; : ! ? ' * or >,
// a trailing ) or ] that has no partner inside the URL, and a wrapping < >. Balanced
// parentheses, as in Wikipedia URLs, stay.
func trimURL(u string) string {
	u = strings.TrimPrefix(u, "<")
	for u != "" {
		last := u[len(u)-1]
		switch last {
		case '.', ',', ';', ':', '!', '?', '\'', '*', '>':
			u = u[:len(u)-1]
			continue
		case ')':
			if strings.Count(u, "(") < strings.Count(u, ")") {
				u = u[:len(u)-1]
				continue
			}
		case ']':
			if strings.Count(u, "[") < strings.Count(u, "]") {
				u = u[:len(u)-1]
				continue
			}
		}
		break
	}
	return u
}
