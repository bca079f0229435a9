package evidence

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	reEmptyParens = regexp.MustCompile(`(?i)\(\s*(?:(?:source|sources|via|see|link|url|ref)\s*:?)?\s*[,;]?\s*\)|\[\s*\]`)
	reSpaceBefore = regexp.MustCompile(`\s+([.,;:!?)\]”’]+)(\s|$)`)
	reSpaceAfter  = regexp.MustCompile(`(^|\s)([(\[“‘„]+)\s+`)
	reDangling    = regexp.MustCompile(`(?i)(?:\s*[—–-]\s*|\s+)(?:see|via|source|sources|link)\s*:?\s*([.;,]?)$`)
)

// abbreviations end with a period that does not end a sentence.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "inc": true, "ltd": true,
	"co": true, "corp": true, "vs": true, "etc": true, "st": true, "jr": true, "sr": true,
	"no": true, "fig": true, "approx": true, "est": true, "al": true, "gen": true, "gov": true,
	"sen": true, "rep": true, "dept": true, "univ": true, "jan": true, "feb": true, "mar": true,
	"apr": true, "jun": true, "jul": true, "aug": true, "sep": true, "sept": true, "oct": true,
	"nov": true, "dec": true, "p": true, "pp": true, "vol": true,
}

// inline reads a statement: its text without markup, links reduced to their text, and the
// URLs, markers and quoted passages in it as tokens.
func (p *parser) inline(text string) (string, []token) {
	spans := scanInline(text, p.activeRefs(), p.parens)
	return p.build(text, spans, 0, len(text))
}

// build assembles the clean text and the tokens of text[a:b], given the spans of text.
func (p *parser) build(text string, spans []span, a, b int) (string, []token) {
	var sb strings.Builder
	var toks []token
	pos := a
	for _, sp := range spans {
		if sp.start < a || sp.end > b {
			continue
		}
		// A removed URL or marker leaves a space, so the words around it stay apart.
		sb.WriteString(text[pos:sp.start])
		pos = sp.end
		if sp.kind != spanQuote {
			sb.WriteByte(' ')
		}
		switch sp.kind {
		case spanLink:
			// A link whose text is a URL or a citation number ([3](https://…)) leaves no text.
			if schemeLen(strings.TrimSpace(sp.text)) == 0 && !isMarkerSpan(text, sp) {
				sb.WriteString(sp.text)
				sb.WriteByte(' ')
			}
			toks = append(toks, token{url: sp.url, isURL: true})
		case spanURL:
			toks = append(toks, token{url: sp.url, isURL: true})
		case spanMarker:
			for _, id := range sp.refs {
				toks = append(toks, p.markerTokens(id)...)
			}
		case spanQuote:
			sb.WriteString(text[sp.start:sp.end])
			if q := cleanQuote(sp.text); quoteChars(q) >= MinQuoteLen {
				toks = append(toks, token{quote: q})
			}
		}
	}
	sb.WriteString(text[pos:b])
	return cleanText(sb.String()), toks
}

// cleanText removes Markdown emphasis and code marks, empty brackets left by removed URLs,
// and extra white space.
func cleanText(s string) string {
	s = stripEmphasis(s)
	s = strings.Join(strings.Fields(s), " ")
	if strings.ContainsAny(s, "([") {
		s = reEmptyParens.ReplaceAllString(s, " ")
		s = reSpaceAfter.ReplaceAllString(s, "$1$2")
	}
	s = reSpaceBefore.ReplaceAllString(s, "$1$2")
	if tail := strings.ToLower(strings.TrimRight(s[max(0, len(s)-12):], ".;,: ")); strings.HasSuffix(tail, "see") ||
		strings.HasSuffix(tail, "via") || strings.HasSuffix(tail, "source") || strings.HasSuffix(tail, "sources") || strings.HasSuffix(tail, "link") {
		s = reDangling.ReplaceAllString(s, "$1")
	}
	s = strings.Join(strings.Fields(s), " ")
	if d := dropUnmatchedClose(s); d != s {
		s = reSpaceBefore.ReplaceAllString(strings.Join(strings.Fields(d), " "), "$1$2")
	}
	return strings.Trim(s, " -–—|,;")
}

// dropUnmatchedClose turns closing parentheses that no opening one matches, as left by a
// URL whose wrapping parenthesis was trimmed, into spaces.
func dropUnmatchedClose(s string) string {
	if !strings.Contains(s, ")") {
		return s
	}
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			if depth == 0 {
				b.WriteByte(' ')
				continue
			}
			depth--
		}
		b.WriteRune(r)
	}
	return b.String()
}

// stripEmphasis removes **, __, ~~ and backticks, and a * or _ at the edge of a word.
func stripEmphasis(s string) string {
	s = strings.NewReplacer("**", "", "__", "", "~~", "", "`", "").Replace(s)
	if !strings.ContainsAny(s, "*_") {
		return s
	}
	fields := strings.Fields(s)
	for i, f := range fields {
		fields[i] = strings.Trim(f, "*_")
		if fields[i] == "" {
			fields[i] = f
		}
	}
	return strings.Join(fields, " ")
}

// quoteChars counts the letters and digits of a quoted passage, as QuoteParts does: a passage
// with fewer than MinQuoteLen is a title or a scare quote, not a quote to look for.
func quoteChars(q string) int {
	n, _, _ := measure(q)
	return n
}

// cleanQuote is a quote's text with white space folded and emphasis removed.
func cleanQuote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.NewReplacer("**", "", "__", "").Replace(s)
	return strings.TrimSpace(strings.Trim(s, "*_"))
}

// sentences splits a paragraph of prose into sentences, each with its own tokens. Citation
// markers after a sentence's final punctuation belong to that sentence (see
// sentenceEndAfter).
func (p *parser) sentences(text string) []sentence {
	spans := scanInline(text, p.activeRefs(), p.parens)
	var out []sentence
	for _, r := range sentenceRanges(text, spans) {
		s, toks := p.build(text, spans, r[0], r[1])
		out = append(out, sentence{s, toks})
	}
	return out
}

// sentenceRanges returns the sentences of text as byte ranges [start, end), in order, given
// the spans of text. A sentence starts where the one before it ended, after white space; the
// last ends at the end of text.
func sentenceRanges(text string, spans []span) [][2]int {
	var out [][2]int
	start, si := 0, 0
	for i := 0; i < len(text); i++ {
		for si < len(spans) && spans[si].end <= i {
			si++
		}
		if si < len(spans) && spans[si].start <= i {
			sp := spans[si]
			i = sp.end - 1
			// A quotation that ends with its own full stop ("… is done." Then …) ends the
			// sentence at its closing mark.
			if sp.kind != spanQuote || !strings.ContainsAny(lastRune(sp.text), ".!?") {
				continue
			}
			end, next, ok := sentenceEndAfter(text, spans, si+1, sp.end)
			if !ok {
				continue
			}
			out = append(out, [2]int{start, end})
			start = next
			i = next - 1
			continue
		}
		c := text[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		end, next, ok := sentenceEnd(text, spans, si, i)
		if !ok {
			continue
		}
		out = append(out, [2]int{start, end})
		start = next
		i = next - 1
	}
	if start < len(text) {
		out = append(out, [2]int{start, len(text)})
	}
	return out
}

// sentenceEnd decides whether the punctuation at text[i] ends a sentence. It returns the end
// of the sentence (after closing marks and markers) and the start of the next.
func sentenceEnd(text string, spans []span, si, i int) (end, next int, ok bool) {
	if text[i] == '.' && isAbbreviation(text, i) {
		return 0, 0, false
	}
	return sentenceEndAfter(text, spans, si, i+1)
}

// sentenceEndAfter decides whether a sentence ends at text[j], just after its final
// punctuation (or after a quotation that ends with it). What follows still belongs to the
// sentence: closing marks and emphasis; a URL or link right after them; and every citation
// marker that follows, also after white space, and separated from the next by white space,
// a comma or a semicolon (`free." [1] [2]`, `free.[1], [3]`, `free.¹ ²`). A link whose
// text is a number (`[3](https://…)`) is such a marker, and so is a parenthesis holding only
// markers, links and URLs (`free. ([wired.com](https://…))`). A marker never starts a
// sentence: it cites what comes before it. The next sentence must start, after white space,
// with a capital, a digit, an opening mark or a bracket.
func sentenceEndAfter(text string, spans []span, si, j int) (end, next int, ok bool) {
	for j < len(text) && strings.ContainsRune(")]\"'”’»*_", rune(text[j])) && text[j] < 0x80 {
		j++
	}
	for j < len(text) {
		r, size := utf8.DecodeRuneInString(text[j:])
		if r != '”' && r != '’' && r != '»' {
			break
		}
		j += size
	}
	for k := si; k < len(spans) && spans[k].start <= j; k++ {
		if spans[k].start == j && (spans[k].kind == spanMarker || spans[k].kind == spanURL || spans[k].kind == spanLink) {
			j = spans[k].end
		}
	}
	j = trailingMarkers(text, spans, si, j)
	k := j
	for k < len(text) && (text[k] == ' ' || text[k] == '\n' || text[k] == '\t') {
		k++
	}
	if k == j || k >= len(text) {
		return 0, 0, false
	}
	r, _ := utf8.DecodeRuneInString(text[k:])
	if !unicode.IsUpper(r) && !unicode.IsDigit(r) && !strings.ContainsRune("“\"‘«„*[", r) {
		return 0, 0, false
	}
	return j, k, true
}

// trailingMarkers returns the end of the citation markers that follow text[j] (see
// sentenceEndAfter), or j when none does. spans[si:] are the spans that may start at or
// after j.
func trailingMarkers(text string, spans []span, si, j int) int {
	for si < len(spans) && spans[si].start < j {
		si++
	}
	took := false // a marker was taken, so a comma or semicolon may come before the next
	for si < len(spans) {
		k := skipBlank(text, j)
		if took && k < len(text) && (text[k] == ',' || text[k] == ';') {
			k = skipBlank(text, k+1)
		}
		if spans[si].start == k && isMarkerSpan(text, spans[si]) {
			j, si, took = spans[si].end, si+1, true
			continue
		}
		if k < len(text) && text[k] == '(' {
			if end, next := citationParen(text, spans, si, k); end > 0 {
				j, si, took = end, next, true
				continue
			}
		}
		break
	}
	return j
}

// citationParen reads a parenthesis at text[k] that holds only markers, links and URLs,
// separated by white space, commas or semicolons. It returns the end of the parenthesis and
// the index of the first span after it, or 0 when the parenthesis holds anything else.
// spans[si] is the first span that starts after k.
func citationParen(text string, spans []span, si, k int) (end, next int) {
	at, n := k+1, 0
	for {
		at = skipBlank(text, at)
		if n > 0 && at < len(text) && (text[at] == ',' || text[at] == ';') {
			at = skipBlank(text, at+1)
		}
		if n > 0 && at < len(text) && text[at] == ')' {
			return at + 1, si
		}
		if si >= len(spans) {
			return 0, 0
		}
		sp := spans[si]
		if sp.start != at || sp.kind == spanQuote {
			return 0, 0
		}
		at, si, n = sp.end, si+1, n+1
	}
}

// isMarkerSpan reports whether a span is a citation marker: a resolved marker, or a link
// whose text is a number, a caret note or a superscript ([3](https://…), [^2](…), [¹](…)).
func isMarkerSpan(text string, sp span) bool {
	switch sp.kind {
	case spanMarker:
		return true
	case spanLink:
		t := strings.Trim(strings.TrimSpace(sp.text), "[]^")
		return len(t) <= 8 && (allDigits(t) || (t != "" && digitsOfSuper(t) != "" && utf8.RuneCountInString(t) == len(digitsOfSuper(t))))
	}
	return false
}

// skipBlank returns the index of the first byte at or after i that is not a space, a tab or
// a line break.
func skipBlank(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t') {
		i++
	}
	return i
}

// isAbbreviation reports whether the full stop at text[i] ends an abbreviation (Inc., U.S.,
// e.g.) or a number's decimal point.
func isAbbreviation(text string, i int) bool {
	w := i
	for w > 0 && text[w-1] != ' ' && text[w-1] != '\n' && text[w-1] != '(' {
		w--
	}
	word := strings.ToLower(strings.Trim(text[w:i], "*_\"“‘()[]”’"))
	if word == "" || strings.Contains(word, "/") || strings.Contains(word, "](") {
		return false
	}
	if strings.Contains(word, ".") {
		return dottedAbbreviation(word)
	}
	if abbreviations[word] {
		return true
	}
	return utf8.RuneCountInString(word) == 1 && unicode.IsUpper(rune(text[w]))
}

// dottedAbbreviation reports whether a word with inner full stops is an abbreviation (U.S,
// e.g, Ph.D, a.m): every piece between the stops is one to three letters. A domain name
// (example.com, "reuters.com") or a number is not, so a full stop after it ends a sentence.
func dottedAbbreviation(word string) bool {
	for piece := range strings.SplitSeq(word, ".") {
		n := 0
		for _, r := range piece {
			if !unicode.IsLetter(r) {
				return false
			}
			n++
		}
		if n > 3 {
			return false
		}
	}
	return true
}

// lastRune returns the last rune of s as a string ("" for "").
func lastRune(s string) string {
	_, size := utf8.DecodeLastRuneInString(s)
	return s[len(s)-size:]
}

// markerTokens returns the tokens of reference id for a marker that names it: those of
// refTokens, each knowing the marker it came through ("[2]").
func (p *parser) markerTokens(id string) []token {
	toks := p.refTokens(id)
	for i := range toks {
		toks[i].via = "[" + id + "]"
	}
	return toks
}

// refTokens returns the URLs and quotes of reference id. Quoted passages count as quotes
// only after the reference's first URL (before it they are usually a title), and so does a
// Quote: label.
func (p *parser) refTokens(id string) []token {
	ref := p.refs[id]
	if ref == nil || p.inRef {
		return nil
	}
	p.inRef = true
	defer func() { p.inRef = false }()
	var toks []token
	sawURL := false
	for _, line := range ref.lines {
		if k, v, ok := label(strings.TrimSpace(line)); ok {
			switch k {
			case partURL:
				toks = append(toks, p.urlField(v)...)
				sawURL = true
				continue
			case partQuote:
				toks = append(toks, p.quoteField(v)...)
				continue
			}
		}
		for _, sp := range scanInline(line, nil, false) {
			switch sp.kind {
			case spanLink, spanURL:
				toks = append(toks, token{url: sp.url, isURL: true})
				sawURL = true
			case spanQuote:
				if sawURL {
					toks = append(toks, token{quote: cleanQuote(sp.text), explicit: true})
				}
			}
		}
	}
	return toks
}

// urlField reads the value of a Source:/URL:/Link: field: its links, URLs and markers, and
// quoted passages after a URL. A value that holds no URL but is one word with a dot, such as
// "www.example.org/report", is kept as written.
func (p *parser) urlField(text string) []token {
	spans := scanInline(text, p.activeRefs(), p.parens)
	var toks []token
	sawURL := false
	for _, sp := range spans {
		switch sp.kind {
		case spanLink, spanURL:
			toks = append(toks, token{url: sp.url, isURL: true})
			sawURL = true
		case spanMarker:
			for _, id := range sp.refs {
				toks = append(toks, p.markerTokens(id)...)
			}
			sawURL = true
		case spanQuote:
			if sawURL {
				toks = append(toks, token{quote: cleanQuote(sp.text), explicit: true})
			}
		}
	}
	if !sawURL {
		v := strings.Trim(strings.TrimSpace(text), "*_`")
		v = trimURL(strings.TrimSuffix(v, ">"))
		if v != "" && !strings.ContainsAny(v, " \t\n") && strings.Contains(strings.Trim(v, "."), ".") {
			toks = append(toks, token{url: v, isURL: true})
		}
	}
	return toks
}

// quoteField reads the value of a Quote:/Excerpt:/Evidence: field. A value that opens with a
// quotation mark gives its quoted passages; otherwise the quote is the text before the first
// link or URL. Links and URLs in the value follow the quote, so the quote is theirs.
func (p *parser) quoteField(text string) []token {
	return p.quoteText(strings.Join(strings.Fields(text), " "), nil)
}

// blockquote reads the lines of a > blockquote: the quote, and an attribution line
// ("— Reuters, https://…") whose links and URLs follow it. Text after an attribution line
// starts another quote.
func (p *parser) blockquote(text string) []token {
	var toks []token
	var body []string
	flush := func(after []token) {
		toks = append(toks, p.quoteText(strings.Join(strings.Fields(strings.Join(body, " ")), " "), after)...)
		body = nil
	}
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if isAttribution(t) {
			flush(p.urlField(t))
		} else {
			body = append(body, t)
		}
	}
	flush(nil)
	return toks
}

func isAttribution(t string) bool {
	for _, pre := range []string{"—", "–", "--", "―", "~", "- ", "Source:", "source:"} {
		if strings.HasPrefix(t, pre) {
			return true
		}
	}
	return false
}

func (p *parser) quoteText(t string, after []token) []token {
	if t == "" {
		return after
	}
	spans := scanInline(t, p.activeRefs(), p.parens)
	var quotes, urls []token
	quoted := startsWithQuote(t)
	cut := len(t)
	for _, sp := range spans {
		switch sp.kind {
		case spanLink, spanURL:
			urls = append(urls, token{url: sp.url, isURL: true})
			cut = min(cut, sp.start)
		case spanMarker:
			for _, id := range sp.refs {
				urls = append(urls, p.markerTokens(id)...)
			}
			cut = min(cut, sp.start)
		case spanQuote:
			if quoted {
				quotes = append(quotes, token{quote: cleanQuote(sp.text), explicit: true})
			}
		}
	}
	if !quoted {
		q := strings.TrimRight(t[:cut], " —–-(:,;[")
		if q = cleanQuote(q); q != "" {
			quotes = append(quotes, token{quote: q, explicit: true})
		}
	}
	out := append(quotes, urls...)
	return append(out, after...)
}

// activeRefs are the references markers may name: none while a reference is being read, so
// a reference that cites itself cannot loop.
func (p *parser) activeRefs() map[string]*reference {
	if p.inRef {
		return nil
	}
	return p.refs
}
