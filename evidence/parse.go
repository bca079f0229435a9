// The research-paste parser's structure, in one file: items, their parts (text,
// references, quotes) and how they become claims. Inline quotes are in inline.go and
// scan.go, JSON in parsejson.go, what is left out in parse_leftout.go; this is the loop
// that calls them.

package evidence

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxPasteBytes is the largest paste the parser reads, the same limit as the API's body.
const MaxPasteBytes = 2 << 20

// ErrNothingUsable is matched (with errors.Is) by the error of ParseResearch and
// ParseClaimsJSON when the input holds no claim at all.
var ErrNothingUsable = errors.New("no claim found in the research")

// ErrBadResearch is matched (with errors.Is) by the error of ParseResearch and
// ParseClaimsJSON when the input cannot be read at all: too large, not UTF-8, or JSON that
// does not parse.
var ErrBadResearch = errors.New("research cannot be read")

// Research is what a paste states: its claims, in the order they appear.
type Research struct {
	Claims []Claim `json:"claims"`
}

// reference is an entry of a Sources list or a footnote definition, by id.
type reference struct {
	lines []string
}

// ParseResearch finds the claims in pasted research, each with its citations (URL and quote)
// and the notes that say why a citation cannot be checked. It reads labelled lists, prose
// with links and quotes, numbered citation markers resolved from a Sources list or footnote
// definitions, blockquotes, Markdown tables and JSON (whole or in a fenced block); see
// docs/parser.md. It is deterministic, uses no model, and never returns a claim text, a URL or
// a quote that is not in the paste (up to the Markdown markup it removes).
//
// Every claim has at least one citation and status StatusReported; each citation carries the
// note CitationNote gives it. The error matches ErrBadResearch when the paste is larger than
// MaxPasteBytes, is not valid UTF-8, or looks like JSON but does not parse; it matches
// ErrNothingUsable when no claim was found.
func ParseResearch(text string) (Research, error) {
	res, _, err := parseResearch(text)
	return res, err
}

// parseResearch is ParseResearch that also returns what the parser left out of the claims
// (see ParseResearchLeftOut).
func parseResearch(text string) (Research, []LeftOut, error) {
	pv, err := parsePreview(text)
	return pv.Research, pv.Left, err
}

// parsePreview reads a paste as ParseResearchLeftOut does, and also says through which
// citation marker each citation got its URL (Preview.Via).
func parsePreview(text string) (Preview, error) {
	if len(text) > MaxPasteBytes {
		return Preview{}, fmt.Errorf("%w: the paste is %d bytes, more than the limit of %d; split it into smaller batches", ErrBadResearch, len(text), MaxPasteBytes)
	}
	if !utf8.ValidString(text) {
		return Preview{}, fmt.Errorf("%w: the paste is not valid UTF-8 text; save it as UTF-8 and try again", ErrBadResearch)
	}
	text = strings.TrimPrefix(text, "\ufeff")
	trimmed := strings.TrimSpace(text)
	if IsJSON(trimmed) {
		res, left, err := readClaimsJSON([]byte(trimmed), true)
		via := make([][]string, len(res.Claims))
		for i, c := range res.Claims {
			via[i] = make([]string, len(c.Citations))
		}
		return Preview{Research: res, Left: left, Via: via}, err
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	p := &parser{text: text, lines: strings.Split(text, "\n")}
	p.run()
	left := p.leftOut()
	if len(p.claims) == 0 {
		return Preview{Left: left}, fmt.Errorf("%w: no statement, list item, labelled claim, table row or JSON claim was recognized; paste the research itself, one claim per list item or paragraph, with its URL and quote", ErrNothingUsable)
	}
	return Preview{Research: Research{Claims: p.claims}, Left: left, Via: p.via}, nil
}

// partKind is what a piece of an item holds.
type partKind int

const (
	partClaim      partKind = iota // the statement, with inline links, markers and quotes
	partURL                        // a Source:/URL:/Link: field
	partQuote                      // a Quote:/Excerpt:/Evidence: field
	partBlockquote                 // the lines of a > blockquote
)

type part struct {
	kind  partKind
	lines []string
}

func (pt part) text() string { return strings.Join(pt.lines, "\n") }

type itemKind int

const (
	itemPara itemKind = iota
	itemList
	itemLabelled
)

// item is one claim being assembled from its lines.
type item struct {
	kind   itemKind
	indent int // the column of a list item's marker
	parts  []part
	blank  bool // a blank line followed the last line
}

func (it *item) add(k partKind, text string) {
	var lines []string
	if text != "" {
		lines = []string{text}
	}
	it.parts = append(it.parts, part{kind: k, lines: lines})
}

// appendText continues the last part with another line.
func (it *item) appendText(text string) {
	last := &it.parts[len(it.parts)-1]
	last.lines = append(last.lines, text)
}

type parser struct {
	text     string
	lines    []string
	skip     []bool
	jsonAt   map[int][]Claim   // claims of a fenced JSON block, by the line of its fence
	jsonLeft map[int][]LeftOut // the values of a fenced JSON block not read into its claims
	refs     map[string]*reference
	parens   bool // references came from a numbered Sources list, so (1) is a marker
	inRef    bool // a reference is being read
	markers  map[string]int
	claims   []Claim
	cur      *item
	lastPart partKind
	// listField: the last label (Sources:, Quotes:) had no value, so bullets below it are
	// its values
	listField bool
	left      []LeftOut  // what the parser took out of the claims, and why (parse_leftout.go)
	via       [][]string // for each claim and citation, the marker it came through (Preview.Via)
}

var (
	reFence     = regexp.MustCompile("^\\s*(```+|~~~+)\\s*([A-Za-z0-9_+-]*)")
	reHeading   = regexp.MustCompile(`^#{1,6}(\s|$)`)
	reRule      = regexp.MustCompile(`^(\*\s*){3,}$|^(-\s*){3,}$|^(_\s*){3,}$|^=+$`)
	reSetext    = regexp.MustCompile(`^(=+|-+)$`)
	reBoldLine  = regexp.MustCompile(`^(\*\*|__)[^*_]+(\*\*|__):?$`)
	reList      = regexp.MustCompile(`^(\s*)([-*+•·‣▪◦–]|\d{1,4}[.)]|\(\d{1,4}\)|[a-zA-Z][.)])\s+`)
	reLabel     = regexp.MustCompile(`^(?:\*\*|__)?\s*([A-Za-z][A-Za-z ]{0,24}?)\s*(?:#?\d{1,4})?\s*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(.*)$`)
	reDef       = regexp.MustCompile(`^\s{0,3}\[\^?([A-Za-z0-9_-]{1,32})\]:\s*(.*)$`)
	reRefEntry  = regexp.MustCompile(`^\s*(?:[-*•]\s*)?(?:\[\^?(\d{1,4})\]:?|\((\d{1,4})\)|(\d{1,4})[.)]|([⁰¹²³⁴⁵⁶⁷⁸⁹]{1,4}))\s*(.*)$`)
	reLooseDef  = regexp.MustCompile(`^\s{0,3}(\[\d{1,4}\]|[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,4})\s*:?\s+(.*)$`)
	reMarkerAny = regexp.MustCompile(`\[\d{1,4}\]|[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,4}`)
	reTableSep  = regexp.MustCompile(`^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$`)
	reSourcesHd = regexp.MustCompile(`(?i)^(?:#{1,6}\s*)?(?:\*\*|__)?\s*(sources?|references?|citations?|footnotes?|notes|works cited|bibliography|sources cited|links)\s*(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?$`)
	reChatter   = regexp.MustCompile(`(?i)^((hello|hi|hey|greetings|absolutely|great|okay|ok|good (morning|afternoon|evening))([,!.]|\s*$)|welcome\b|here( is| are|'s|’s)|below (is|are)|i (found|have|'ve|’ve|hope|can|could|will|searched|looked|was|did)\b|i'm|i’m|i'll|i’ll|i'd|i’d|let me\b|let's|let’s|caveat|disclaimer|hope this|sure[,!. ]|sure$|certainly|of course|great question|feel free|please (note|let|verify|check)|note:|would you like|if you( want| need| would| have|'d|’d| 'd| ’d)|happy to|based on my (search|research)|thanks|thank you|as an ai|((key )?findings|research (summary|results)|overview|summary)\W*$)`)
)

var labelKinds = map[string]partKind{
	"claim": partClaim, "fact": partClaim, "statement": partClaim, "finding": partClaim, "assertion": partClaim,
	"source": partURL, "sources": partURL, "url": partURL, "urls": partURL, "link": partURL, "links": partURL,
	"source url": partURL, "reference": partURL, "citation": partURL, "source link": partURL,
	"quote": partQuote, "quotes": partQuote, "excerpt": partQuote, "evidence": partQuote,
	"supporting quote": partQuote, "exact quote": partQuote, "verbatim quote": partQuote,
	"quotation": partQuote, "supporting evidence": partQuote, "key quote": partQuote, "snippet": partQuote,
}

var reInlineLabel = regexp.MustCompile(`(?i)(?:^|[\s|;—–])\s*(?:\*\*|__)?(source url|source|url|link|quote|excerpt|evidence)(?:\*\*|__)?\s*:(?:\*\*|__)?\s*`)

// splitFields splits a labelled value that holds more labels on the same line
// ("Claim: … Source: … Quote: …") into its fields.
func splitFields(k partKind, v string) []part {
	var out []part
	for {
		loc := reInlineLabel.FindStringSubmatchIndex(v)
		if loc == nil {
			break
		}
		out = append(out, part{kind: k, lines: []string{strings.TrimRight(strings.TrimSpace(v[:loc[0]]), "|;—–")}})
		k = labelKinds[strings.ToLower(v[loc[2]:loc[3]])]
		v = v[loc[1]:]
	}
	return append(out, part{kind: k, lines: []string{strings.TrimSpace(v)}})
}

// label recognizes a field label at the start of content ("**Claim 1:** …", "Source: …").
func label(content string) (partKind, string, bool) {
	if !strings.ContainsAny(content, ":：") {
		return 0, "", false
	}
	m := reLabel.FindStringSubmatch(content)
	if m == nil {
		return 0, "", false
	}
	k, ok := labelKinds[strings.ToLower(strings.TrimSpace(m[1]))]
	if !ok {
		return 0, "", false
	}
	value := strings.TrimSpace(m[2])
	value = strings.TrimPrefix(value, "**")
	return k, strings.TrimSpace(value), true
}

func (p *parser) run() {
	p.skip = make([]bool, len(p.lines))
	p.jsonAt = map[int][]Claim{}
	p.jsonLeft = map[int][]LeftOut{}
	p.refs = map[string]*reference{}
	p.fences()
	p.collectRefs()
	for i := 0; i < len(p.lines); i++ {
		if p.skip[i] {
			// A line taken out (a reference definition, a fence, a sources list) ends the
			// item it interrupts: text on either side of it is never joined into one claim
			// or quote that the input does not hold.
			p.finish()
			if cl, ok := p.jsonAt[i]; ok {
				p.claims = append(p.claims, cl...)
				for _, c := range cl {
					p.via = append(p.via, make([]string, len(c.Citations)))
				}
			}
			continue
		}
		i = p.line(i)
	}
	p.finish()
}

// fences marks fenced code blocks. A block of JSON claims becomes claims at its place; a
// block of Markdown or plain text is read like the rest; any other code is skipped.
func (p *parser) fences() {
	for i := 0; i < len(p.lines); i++ {
		m := reFence.FindStringSubmatch(p.lines[i])
		if m == nil {
			continue
		}
		end := len(p.lines)
		for j := i + 1; j < len(p.lines); j++ {
			if strings.HasPrefix(strings.TrimSpace(p.lines[j]), m[1]) {
				end = j
				break
			}
		}
		body := strings.Join(p.lines[i+1:min(end, len(p.lines))], "\n")
		lang := strings.ToLower(m[2])
		p.skip[i] = true
		if end < len(p.lines) {
			p.skip[end] = true
		}
		switch {
		case lang == "json" || (lang == "" && IsJSON(body)):
			if r, left, err := readClaimsJSON([]byte(body), true); err == nil {
				p.jsonAt[i] = r.Claims
				p.jsonLeft[i] = left
				for j := i + 1; j < end; j++ {
					p.skip[j] = true
				}
			} else if lang == "json" {
				for j := i + 1; j < end; j++ {
					p.skip[j] = true
				}
			}
		case lang == "" || lang == "md" || lang == "markdown" || lang == "text" || lang == "txt" || lang == "plaintext":
			// read the body like the rest of the paste
		default:
			for j := i + 1; j < end; j++ {
				p.skip[j] = true
			}
		}
		i = end
	}
}

// collectRefs gathers footnote and link definitions ([^1]: …, [1]: …) anywhere, and the
// entries of a Sources or References list. Their lines are never claims.
func (p *parser) collectRefs() {
	for i := 0; i < len(p.lines); i++ {
		if p.skip[i] {
			continue
		}
		if m := reDef.FindStringSubmatch(p.lines[i]); m != nil {
			lines := []string{m[2]}
			p.skip[i] = true
			for i+1 < len(p.lines) && !p.skip[i+1] && strings.HasPrefix(p.lines[i+1], "    ") && strings.TrimSpace(p.lines[i+1]) != "" {
				i++
				p.skip[i] = true
				lines = append(lines, strings.TrimSpace(p.lines[i]))
			}
			if _, dup := p.refs[m[1]]; !dup {
				p.refs[m[1]] = &reference{lines: lines}
			}
			continue
		}
		if m := reLooseDef.FindStringSubmatch(p.lines[i]); m != nil && hasURL(m[2]) && p.markerCount(m[1]) >= 2 {
			id := strings.Trim(m[1], "[]")
			if d := digitsOfSuper(id); d != "" {
				id = d
			}
			p.skip[i] = true
			if _, dup := p.refs[id]; !dup {
				p.refs[id] = &reference{lines: []string{m[2]}}
			}
			continue
		}
		if reSourcesHd.MatchString(strings.TrimSpace(p.lines[i])) {
			i = p.sourcesList(i)
		}
	}
}

// markerCount counts the occurrences of a marker ([1] or ¹) in the paste, counting all
// markers in one pass the first time.
func (p *parser) markerCount(m string) int {
	if p.markers == nil {
		p.markers = map[string]int{}
		for _, found := range reMarkerAny.FindAllString(p.text, -1) {
			p.markers[found]++
		}
	}
	return p.markers[m]
}

// sourcesList reads the entries under a Sources heading at line h, when there are any, and
// returns the last line it consumed.
func (p *parser) sourcesList(h int) int {
	next := h + 1
	for next < len(p.lines) && strings.TrimSpace(p.lines[next]) == "" {
		next++
	}
	if next >= len(p.lines) || p.skip[next] {
		return h
	}
	first := strings.TrimSpace(p.lines[next])
	numbered := reRefEntry.MatchString(first)
	bulleted := !numbered && reList.MatchString(p.lines[next]) && hasURL(first)
	if !numbered && !bulleted {
		return h
	}
	if hd := strings.TrimSpace(p.lines[h]); !strings.HasPrefix(hd, "#") && !strings.HasPrefix(hd, "**") && !strings.HasPrefix(hd, "__") &&
		h > 0 && strings.TrimSpace(p.lines[h-1]) != "" && !p.skip[h-1] {
		// "Sources:" right under a claim is that claim's field, not a list of references
		return h
	}
	p.skip[h] = true
	if numbered {
		p.parens = true
	}
	var curID string
	count := 0
	blank := false
	last := h
	for j := next; j < len(p.lines); j++ {
		if p.skip[j] {
			break
		}
		t := strings.TrimSpace(p.lines[j])
		if t == "" {
			blank = true
			continue
		}
		id, text := "", ""
		if m := reRefEntry.FindStringSubmatch(t); m != nil && numbered {
			id = m[1] + m[2] + m[3] + digitsOfSuper(m[4])
			text = m[5]
		} else if bulleted && reList.MatchString(p.lines[j]) {
			count++
			id = fmt.Sprint(count)
			text = reList.ReplaceAllString(p.lines[j], "")
		}
		switch {
		case id != "":
			curID = id
			if _, dup := p.refs[id]; !dup {
				p.refs[id] = &reference{lines: []string{text}}
			}
		case !blank && curID != "" && !reHeading.MatchString(t):
			p.refs[curID].lines = append(p.refs[curID].lines, t)
		default:
			return last
		}
		p.skip[j] = true
		last = j
		blank = false
	}
	return last
}

func digitsOfSuper(s string) string {
	var b strings.Builder
	for _, r := range s {
		if d, ok := superDigit(r); ok {
			b.WriteByte(d)
		}
	}
	return b.String()
}

func hasURL(s string) bool {
	for i := 0; i < len(s); i++ {
		if isASCIILetter(s[i]) && (i == 0 || !isSchemeByte(s[i-1])) && schemeLen(s[i:]) > 0 {
			return true
		}
	}
	return false
}

func indentOf(line string) int {
	n := 0
	for _, r := range line {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

// line reads the line at i (and, for a table, the lines after it) and returns the last line
// it consumed.
func (p *parser) line(i int) int {
	raw := p.lines[i]
	t := strings.TrimSpace(raw)
	if t == "" {
		if p.cur != nil {
			p.cur.blank = true
		}
		return i
	}
	if reSetext.MatchString(t) && p.cur != nil && p.cur.kind == itemPara && !p.cur.blank && len(p.cur.parts) == 1 && len(p.cur.parts[0].lines) <= 1 {
		p.leaveItem(p.cur, LeftHeading) // the paragraph was a heading
		p.cur = nil
		return i
	}
	if isHeadingOrRule(t) {
		p.finish()
		p.leave(t, LeftHeading)
		return i
	}
	if strings.Contains(t, "|") && i+1 < len(p.lines) && !p.skip[i+1] && reTableSep.MatchString(p.lines[i+1]) && strings.Contains(p.lines[i+1], "|") {
		p.finish()
		return p.table(i)
	}
	if strings.HasPrefix(t, ">") {
		content := strings.TrimSpace(strings.TrimLeft(t, "> "))
		if p.cur == nil {
			p.cur = &item{kind: itemPara}
		}
		if k, v, ok := label(content); ok && k != partClaim {
			p.cur.add(k, v)
			p.lastPart = k
			return i
		}
		n := len(p.cur.parts)
		if n > 0 && p.cur.parts[n-1].kind == partBlockquote && p.lastPart == partBlockquote {
			p.cur.appendText(content)
		} else {
			p.cur.add(partBlockquote, content)
			p.lastPart = partBlockquote
		}
		p.cur.blank = false
		return i
	}
	content, indent, isList := t, indentOf(raw), false
	if loc := reList.FindStringSubmatchIndex(raw); loc != nil {
		content = strings.TrimSpace(raw[loc[1]:])
		isList = true
	}
	if k, v, ok := label(content); ok {
		if k == partClaim {
			p.finish()
			p.cur = &item{kind: itemLabelled, indent: indent}
		} else if p.cur == nil {
			p.cur = &item{kind: itemLabelled, indent: indent}
		}
		for _, f := range splitFields(k, v) {
			p.cur.add(f.kind, f.lines[0])
			p.lastPart = f.kind
			p.listField = f.lines[0] == "" && f.kind != partClaim
		}
		p.cur.blank = false
		return i
	}
	cur := p.cur
	if !isList {
		p.listField = false
	}
	switch {
	case cur != nil && isList && p.listField && indent >= cur.indent:
		// a bullet under "Sources:" or "Quotes:"
		cur.add(p.lastPart, content)
		cur.blank = false
	case isList && cur != nil && cur.kind != itemPara && indent > cur.indent:
		// a nested bullet: part of the item above; a bullet that opens with a quotation
		// mark is its quote
		k := partClaim
		if startsWithQuote(content) {
			k = partQuote
		}
		cur.add(k, content)
		p.lastPart = k
		cur.blank = false
	case isList:
		p.finish()
		p.cur = &item{kind: itemList, indent: indent}
		p.cur.add(partClaim, content)
		p.lastPart = partClaim
	case cur != nil && (!cur.blank || (indent > cur.indent && cur.kind != itemPara)):
		if p.lastPart == partBlockquote {
			// a line after a blockquote, such as its attribution
			cur.add(partClaim, content)
			p.lastPart = partClaim
		} else {
			cur.appendText(content)
		}
		cur.blank = false
	default:
		p.finish()
		p.cur = &item{kind: itemPara}
		p.cur.add(partClaim, content)
		p.lastPart = partClaim
	}
	return i
}

// table reads a Markdown table whose header is at line h and returns its last line.
func (p *parser) table(h int) int {
	header := splitRow(p.lines[h])
	roles := make([]partKind, len(header))
	known := make([]bool, len(header))
	claimCol := -1
	for c, name := range header {
		k, ok := columnRole(name)
		roles[c], known[c] = k, ok
		if ok && k == partClaim && claimCol < 0 {
			claimCol = c
		}
	}
	if claimCol < 0 {
		// No claim column: the first column that is neither URL nor quote holds the claim.
		for c := range header {
			if !known[c] {
				roles[c], known[c] = partClaim, true
				claimCol = c
				break
			}
		}
	}
	j := h + 2
	for ; j < len(p.lines); j++ {
		if p.skip[j] || !strings.Contains(p.lines[j], "|") {
			break
		}
		cells := splitRow(p.lines[j])
		it := &item{kind: itemLabelled}
		for _, want := range []partKind{partClaim, partURL, partQuote} {
			for c, cell := range cells {
				if c < len(roles) && known[c] && roles[c] == want && (want != partClaim || c == claimCol) {
					it.add(want, strings.TrimSpace(cell))
				}
			}
		}
		p.cur = it
		p.finish()
	}
	return j - 1
}

func columnRole(name string) (partKind, bool) {
	n := strings.ToLower(strings.Trim(strings.TrimSpace(name), "*_`"))
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(n, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("quote", "excerpt", "evidence", "verbatim", "snippet"):
		return partQuote, true
	case has("claim", "statement", "fact", "finding", "assertion"):
		return partClaim, true
	case has("url", "source", "link", "reference", "citation"):
		return partURL, true
	}
	return 0, false
}

// splitRow splits a table row at unescaped pipes, without the empty cells outside a leading
// or trailing pipe.
func splitRow(line string) []string {
	t := strings.TrimSpace(line)
	t = strings.TrimPrefix(t, "|")
	if strings.HasSuffix(t, "|") && !strings.HasSuffix(t, "\\|") {
		t = t[:len(t)-1]
	}
	var cells []string
	start := 0
	for k := 0; k < len(t); k++ {
		if t[k] == '\\' {
			k++
			continue
		}
		if t[k] == '|' {
			cells = append(cells, t[start:k])
			start = k + 1
		}
	}
	return append(cells, t[start:])
}

// finish turns the current item into claims.
func (p *parser) finish() {
	it := p.cur
	p.cur = nil
	p.lastPart = partClaim
	p.listField = false
	if it == nil || len(it.parts) == 0 {
		return
	}
	if it.kind == itemPara && len(it.parts) == 1 && it.parts[0].kind == partClaim {
		if isTitle(it.parts[0].text()) {
			p.leave(it.parts[0].text(), LeftTitle)
			return
		}
		for _, c := range p.sentences(it.parts[0].text()) {
			p.emit(c.text, c.toks)
		}
		return
	}
	var texts []string
	var toks []token
	for _, pt := range it.parts {
		switch pt.kind {
		case partClaim:
			text, tk := p.inline(pt.text())
			if text != "" {
				texts = append(texts, text)
			}
			toks = append(toks, tk...)
		case partURL:
			toks = append(toks, p.urlField(pt.text())...)
		case partQuote:
			toks = append(toks, p.quoteField(pt.text())...)
		case partBlockquote:
			toks = append(toks, p.blockquote(pt.text())...)
		}
	}
	p.emit(strings.Join(texts, " "), toks)
}

// isHeadingOrRule reports whether a trimmed line is a Markdown heading, a horizontal rule, or
// a line in bold alone that does not end with a full stop and is not a label ("**Quote:**").
func isHeadingOrRule(t string) bool {
	switch t[0] {
	case '#':
		return reHeading.MatchString(t)
	case '*', '-', '_', '=':
		if strings.Trim(t, "*-_= \t") == "" && reRule.MatchString(t) {
			return true
		}
	}
	if !strings.HasPrefix(t, "**") && !strings.HasPrefix(t, "__") {
		return false
	}
	if _, _, isLabel := label(t); isLabel {
		return false
	}
	return reBoldLine.MatchString(t) && !hasURL(t) && !strings.HasSuffix(strings.TrimRight(t, "*_:"), ".")
}

// startsWithQuote reports whether s, past emphasis marks, opens with a quotation mark.
func startsWithQuote(s string) bool {
	s = strings.TrimLeft(s, "*_ ")
	for _, q := range quotePairs {
		if strings.HasPrefix(s, q.open) {
			return true
		}
	}
	return false
}

// isTitle reports whether a one-line paragraph is a title: short, with no sentence-ending
// punctuation, no URL and no citation marker.
func isTitle(text string) bool {
	t := strings.TrimSpace(text)
	if strings.Contains(t, "\n") || hasURL(t) || strings.ContainsAny(t, "[]()¹²³⁴⁵⁶⁷⁸⁹\"“”") {
		return false
	}
	t = strings.TrimRight(t, "*_ ")
	if t == "" {
		return true
	}
	switch t[len(t)-1] {
	case '.', '!', '?', ';', ',':
		return false
	}
	return len(strings.Fields(t)) <= 12
}

// token is a URL or a quote, in the order the item states them.
type token struct {
	url      string
	quote    string
	isURL    bool
	explicit bool   // a quote from a label, a blockquote, a table column or a reference
	via      string // the citation marker that gave the token ("[2]"), or ""
}

type sentence struct {
	text string
	toks []token
}

// emit adds a claim with its citations, unless its text is empty, chatter, a question or a
// lead-in.
func (p *parser) emit(text string, toks []token) {
	text = strings.TrimSpace(text)
	if !isClaimText(text, toks) {
		p.leaveText(text, toks)
		return
	}
	cits, via := pairVia(toks)
	p.claims = append(p.claims, Claim{Text: text, Status: StatusReported, Citations: cits})
	p.via = append(p.via, via)
}

// isTalk reports whether a statement is a question, a greeting, an offer of help or a
// lead-in (see isChatter), whatever its length. A question is a statement whose last
// sentence mark is a question mark ("Is the bill law yet? (source)").
func isTalk(text string) bool {
	text = strings.TrimSpace(text)
	if text == "" || reChatter.MatchString(text) {
		return true
	}
	i := strings.LastIndexAny(text, ".!?")
	return i >= 0 && text[i] == '?'
}

// isClaimText reports whether a statement of the research is a claim: not chatter (see
// isChatter), and not a lead-in ending with a colon and citing nothing.
func isClaimText(text string, toks []token) bool {
	if isChatter(text) {
		return false
	}
	return !strings.HasSuffix(text, ":") || len(toks) > 0
}

// isChatter reports whether a statement is talk around the research rather than a claim:
// empty or with fewer than three letters or digits, a question, a greeting ("Hello!",
// "Sure,"), an offer of help ("Would you like me to…", "Let me know…", "Feel free…"), a
// lead-in ("Here's a concise briefing…", "Below are…") or a heading word (Summary,
// Findings).
func isChatter(text string) bool {
	if isTalk(text) {
		return true
	}
	letters := 0
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			letters++
		}
	}
	return letters < 3
}

// pair turns tokens into citations. A quote belongs to the URL before it when that URL has no
// quote yet, otherwise to the next URL; quotes left at the end go to the last URL. Implicit
// quotes (quoted words in the statement) count only when no explicit quote was given. A claim
// without a URL keeps its quotes on citations with an empty URL, or one empty citation.
func pair(toks []token) []Citation {
	cits, _ := pairVia(toks)
	return cits
}

// pairVia is pair that also returns, for each citation, the marker its URL came through
// (token.via), or "".
func pairVia(toks []token) ([]Citation, []string) {
	explicit := false
	for _, t := range toks {
		if !t.isURL && t.explicit {
			explicit = true
		}
	}
	type cit struct{ url, quote, via string }
	var cits []cit
	var pending []string
	lastUsed := false // the last citation already has its quote, or was made for a pending one
	for _, t := range toks {
		switch {
		case t.isURL:
			if len(pending) > 0 {
				for _, q := range pending {
					cits = append(cits, cit{t.url, q, t.via})
				}
				pending = nil
				lastUsed = true
			} else {
				cits = append(cits, cit{t.url, "", t.via})
				lastUsed = false
			}
		case explicit && !t.explicit:
		case len(cits) > 0 && !lastUsed:
			cits[len(cits)-1].quote = t.quote
			lastUsed = true
		default:
			pending = append(pending, t.quote)
		}
	}
	if len(pending) > 0 {
		if len(cits) == 0 {
			for _, q := range pending {
				cits = append(cits, cit{"", q, ""})
			}
		} else {
			last := cits[len(cits)-1]
			for _, q := range pending {
				cits = append(cits, cit{last.url, q, last.via})
			}
		}
	}
	out := make([]Citation, 0, len(cits))
	via := make([]string, 0, len(cits))
	for _, c := range cits {
		out = append(out, Citation{URL: c.url, Quote: c.quote})
		via = append(via, c.via)
	}
	return finishCitationsVia(out, via)
}
