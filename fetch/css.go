// CSS tokens, rules and style sheets for the visible-text extractor, in one file: the
// tokens, the sheet parser (rules, nesting, at-rules) and the style set a page's sheets add
// to. They are one grammar read in one pass. Values are in css_value.go, the computed style
// in css_style.go, media queries in css_media.go.

package fetch

import (
	"bytes"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/andybalholm/cascadia"
	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/css"
	"golang.org/x/net/html"
)

// The limits on the CSS read for one page (docs/fetch.md, "Style sheets"). A page that goes
// past one is still read with the styles that fit, and its text comes with an error wrapping
// ErrTruncated, as a body cut at its size limit does.
const (
	// MaxSheets is the most linked and imported style sheets fetched for one page.
	MaxSheets = 16
	// MaxSheetBytes caps one linked or imported style sheet; a longer one is cut there.
	MaxSheetBytes = 2 << 20
	// maxCSSBytes caps all the CSS of a page that is parsed: <style> elements, linked and
	// imported sheets (not style attributes, which the body's own cap bounds).
	maxCSSBytes = 4 << 20
	// maxSelectors caps the selectors compiled for a page, over all its sheets.
	maxSelectors = 50_000
)

// cssKind is the kind of a [cssToken].
type cssKind uint8

const (
	tokIdent      cssKind = iota + 1 // text: unescaped, lower case
	tokNumber                        // num
	tokDimension                     // num, text: the unit in lower case
	tokPercentage                    // num
	tokHash                          // text: after the '#', unescaped
	tokFunction                      // text: the name in lower case ("" for a bare parenthesis); the arguments follow up to the matching tokClose
	tokClose                         // ')'
	tokComma                         // ','
	tokColon                         // ':'
	tokDelim                         // text: the character
	tokString                        // text: the contents
	tokURL                           // text: the address
	tokOther                         // anything else (brackets, braces, ranges)
)

// cssToken is one component value of a declaration, media query or supports condition.
type cssToken struct {
	kind cssKind
	num  float64
	text string
}

// toTokens converts the parser's tokens of a value, dropping whitespace.
func toTokens(in []lexTok) []cssToken {
	out := make([]cssToken, 0, len(in))
	for _, t := range in {
		if c, ok := convertToken(t.tt, t.data); ok {
			out = append(out, c)
		}
	}
	return out
}

// lexTokens tokenizes raw CSS text (a custom property's value, a media attribute).
func lexTokens(s string) []cssToken {
	l := css.NewLexer(parse.NewInputString(s))
	var out []cssToken
	for {
		tt, data := l.Next()
		if tt == css.ErrorToken {
			return out
		}
		if c, ok := convertToken(tt, data); ok {
			out = append(out, c)
		}
	}
}

func convertToken(tt css.TokenType, data []byte) (cssToken, bool) {
	switch tt {
	case css.WhitespaceToken, css.CommentToken, css.CDOToken, css.CDCToken:
		return cssToken{}, false
	case css.IdentToken, css.CustomPropertyNameToken:
		name := cssUnescape(data)
		if tt == css.IdentToken {
			name = strings.ToLower(name)
		}
		return cssToken{kind: tokIdent, text: name}, true
	case css.FunctionToken:
		return cssToken{kind: tokFunction, text: strings.ToLower(cssUnescape(data[:len(data)-1]))}, true
	case css.LeftParenthesisToken:
		return cssToken{kind: tokFunction}, true
	case css.RightParenthesisToken:
		return cssToken{kind: tokClose}, true
	case css.CommaToken:
		return cssToken{kind: tokComma}, true
	case css.ColonToken:
		return cssToken{kind: tokColon}, true
	case css.HashToken:
		return cssToken{kind: tokHash, text: cssUnescape(data[1:])}, true
	case css.NumberToken:
		n, _ := strconv.ParseFloat(string(data), 64)
		return cssToken{kind: tokNumber, num: n}, true
	case css.PercentageToken:
		n, _ := strconv.ParseFloat(string(data[:len(data)-1]), 64)
		return cssToken{kind: tokPercentage, num: n}, true
	case css.DimensionToken:
		i := numberPrefix(data)
		n, _ := strconv.ParseFloat(string(data[:i]), 64)
		return cssToken{kind: tokDimension, num: n, text: strings.ToLower(cssUnescape(data[i:]))}, true
	case css.DelimToken:
		return cssToken{kind: tokDelim, text: string(data)}, true
	case css.StringToken:
		return cssToken{kind: tokString, text: cssStringValue(data)}, true
	case css.URLToken:
		return cssToken{kind: tokURL, text: cssURLValue(data)}, true
	}
	return cssToken{kind: tokOther, text: string(data)}, true
}

// numberPrefix returns the length of the number at the start of a dimension token.
func numberPrefix(b []byte) int {
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	for i < len(b) && (b[i] >= '0' && b[i] <= '9' || b[i] == '.') {
		i++
	}
	if i+1 < len(b) && (b[i] == 'e' || b[i] == 'E') {
		j := i + 1
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if j < len(b) && b[j] >= '0' && b[j] <= '9' {
			for j < len(b) && b[j] >= '0' && b[j] <= '9' {
				j++
			}
			i = j
		}
	}
	return i
}

// cssUnescape resolves the escapes of CSS syntax (§4.3.7): a backslash and up to six hex
// digits (and one whitespace after them) is that code point, a backslash and another
// character is that character. So `\6e one` is "none".
func cssUnescape(b []byte) string {
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b)
	}
	var sb strings.Builder
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			sb.WriteByte(b[i])
			continue
		}
		i++
		j := i
		for j < len(b) && j-i < 6 && isHex(b[j]) {
			j++
		}
		if j == i {
			if b[i] == '\n' || b[i] == '\f' || b[i] == '\r' {
				continue
			}
			sb.WriteByte(b[i])
			continue
		}
		n, _ := strconv.ParseUint(string(b[i:j]), 16, 32)
		r := rune(n)
		if r == 0 || r > utf8.MaxRune || (r >= 0xD800 && r <= 0xDFFF) {
			r = utf8.RuneError
		}
		sb.WriteRune(r)
		if j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\f') {
			j++
		} else if j+1 < len(b) && b[j] == '\r' && b[j+1] == '\n' {
			j += 2
		} else if j < len(b) && b[j] == '\r' {
			j++
		}
		i = j - 1
	}
	return sb.String()
}

// cssStringValue returns the contents of a string token, unescaped.
func cssStringValue(b []byte) string {
	if len(b) >= 2 && (b[0] == '"' || b[0] == '\'') {
		end := len(b)
		if b[end-1] == b[0] {
			end--
		}
		b = b[1:end]
	}
	return cssUnescape(b)
}

// cssURLValue returns the address of a url() token.
func cssURLValue(b []byte) string {
	s := string(b)
	if i := strings.IndexByte(s, '('); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimSuffix(s, ")")
	s = strings.TrimSpace(s)
	if len(s) > 0 && (s[0] == '"' || s[0] == '\'') {
		return cssStringValue([]byte(s))
	}
	return cssUnescape([]byte(s))
}

// ruleBody is the declarations of one style rule that bear on what is seen.
type ruleBody struct {
	decls []cssDecl
	vars  []customDecl
}

// cssDecl is one declaration of a property that bears on what is seen (see cssProp).
type cssDecl struct {
	prop      cssProp
	short     shorthand // non-zero: toks is the whole value of this shorthand, to expand once its var() are substituted
	important bool
	toks      []cssToken
}

// customDecl is one custom property (--name) declaration.
type customDecl struct {
	name      string
	raw       string
	important bool
}

// selRule is one complex selector of a style rule, compiled, with what orders it in the
// cascade.
type selRule struct {
	sel   cascadia.Sel
	body  *ruleBody
	spec  uint32   // specificity: 8 bits each for ids, classes, types
	order uint32   // position in the cascade: later wins among equals
	layer int      // the layer's rank in layer order, -1 when not in a layer
	mask  uint8    // the viewports the rule's conditions allow
	anc   []uint32 // keys some ancestor must have (ancestorFilter)
}

// styleSet is the compiled style sheets of one tree: a document, or a shadow root.
type styleSet struct {
	byID, byClass, byAttr, byTag map[string][]*selRule
	any                          []*selRule
	layers                       map[string]int
	anonLayers                   int
	order                        uint32
	page                         *cssPage
}

// cssPage is what holds for all the CSS of one page, over all its trees: what it used of
// the limits, and the custom properties it reads.
type cssPage struct {
	bytes, selectors int
	cut              string          // why the styles were cut short, "" when they were not
	usesVars         bool            // some declaration of a property that counts uses var()
	wants            bool            // the page links or imports a style sheet
	refs             map[string]bool // the custom properties some var() names
}

func newCSSPage() *cssPage { return &cssPage{refs: map[string]bool{}} }

func (pg *cssPage) exceed(why string) {
	if pg.cut == "" {
		pg.cut = why
	}
}

// missed notes a sheet that was not fetched: one that failed for a reason that may pass
// (a timeout, the network, a server error) cuts the page's styles short, since a reader's
// browser would most likely have had it; one that does not exist, is not CSS, or that
// robots.txt, the address guard or a login wall keep from being fetched is left out.
func (pg *cssPage) missed(sh *Sheet) {
	switch KindOf(sh.Err) {
	case KindTimeout, KindNetwork, KindHTTPStatus:
		pg.exceed("the style sheet " + sh.URL + " could not be fetched (" + sh.Err.Error() + "); the page was read without it")
	}
}

// noteRefs records the custom properties that the var() of toks name.
func (pg *cssPage) noteRefs(toks []cssToken) {
	for i, t := range toks {
		if t.kind == tokFunction && t.text == "var" && i+1 < len(toks) && toks[i+1].kind == tokIdent {
			pg.refs[toks[i+1].text] = true
		}
	}
}

func newStyleSet(pg *cssPage) *styleSet {
	return &styleSet{
		byID: map[string][]*selRule{}, byClass: map[string][]*selRule{},
		byAttr: map[string][]*selRule{}, byTag: map[string][]*selRule{},
		layers: map[string]int{}, page: pg,
	}
}

// sheetSource is one style sheet to add to a styleSet.
type sheetSource struct {
	text  []byte
	base  *url.URL // what its @import addresses are resolved against
	mask  uint8    // the viewports its media attribute or @import media list allow
	layer string   // the layer an @import put it in; "" for none
	// imports returns the sheet fetched for an @import address, or nil; nil when the
	// sheet's own imports are not followed (an imported sheet's).
	imports func(u string) *Sheet
}

// scope is what the blocks around a rule say of it.
type scope struct {
	mask  uint8    // the viewports its conditions allow; 0 for none
	layer string   // its cascade layer, "" for none
	sels  *selList // inside a style rule: that rule's selectors (CSS Nesting); nil outside
}

// selToken is one token of a selector, as written.
type selToken struct {
	tt   css.TokenType
	data string
}

// lexTok is one token of the lexer; data points into the sheet's text.
type lexTok struct {
	tt   css.TokenType
	data []byte
}

// maxBlockDepth is how deep blocks are read; blocks nested deeper are skipped.
const maxBlockDepth = 32

// sheetParser reads the rules of a sheet (CSS Syntax Level 3 §5, with CSS Nesting) from
// tdewolff's lexer. The library's own parser is not used for the rule structure: on a
// stray closing bracket it leaves a block without telling, so the blocks after it would be
// read inside the wrong one.
type sheetParser struct {
	l              *css.Lexer
	back           []lexTok
	bufs           [maxBlockDepth + 2][]lexTok // a prelude or declaration being read, per depth
	s              *styleSet
	src            sheetSource
	importsAllowed bool
	depth          int
}

func (p *sheetParser) next() lexTok {
	if n := len(p.back); n > 0 {
		t := p.back[n-1]
		p.back = p.back[:n-1]
		return t
	}
	for {
		tt, data := p.l.Next()
		if tt != css.CommentToken {
			return lexTok{tt, data}
		}
	}
}

func (p *sheetParser) unread(t lexTok) { p.back = append(p.back, t) }

// add parses one sheet into s, in cascade order after what is there.
func (s *styleSet) add(src sheetSource) {
	if s.page.bytes+len(src.text) > maxCSSBytes {
		s.page.exceed(fmt.Sprintf("the page's CSS is longer than %d bytes; the rest was not applied", maxCSSBytes))
		return
	}
	s.page.bytes += len(src.text)
	text := src.text
	if bytes.IndexByte(text, 0) >= 0 {
		text = bytes.ReplaceAll(text, []byte{0}, []byte("\uFFFD"))
	}
	// A full slice expression: the lexer writes a NUL past the end of a slice with room.
	p := &sheetParser{l: css.NewLexer(parse.NewInputBytes(text[:len(text):len(text)])), s: s, src: src, importsAllowed: true}
	p.rules(scope{mask: src.mask, layer: src.layer}, false)
}

// rules reads a list of rules up to the end of the sheet, or of the block when nested.
func (p *sheetParser) rules(sc scope, nested bool) {
	for {
		t := p.next()
		switch t.tt {
		case css.ErrorToken:
			return
		case css.WhitespaceToken, css.CDOToken, css.CDCToken, css.SemicolonToken:
			if t.tt == css.SemicolonToken && !nested {
				p.unread(t)
				p.qualifiedRule(sc, nested)
			}
		case css.RightBraceToken:
			if nested {
				return
			}
			p.unread(t)
			p.qualifiedRule(sc, nested)
		case css.AtKeywordToken:
			p.atRule(t, sc, nested)
		default:
			p.unread(t)
			p.qualifiedRule(sc, nested)
		}
	}
}

// component appends the component value that starts with t: a token, or a block or a
// function up to its matching closing bracket.
func (p *sheetParser) component(t lexTok, out []lexTok) []lexTok {
	out = append(out, t)
	var closers []css.TokenType
	if c, ok := closerOf(t.tt); ok {
		closers = append(closers, c)
	}
	for len(closers) > 0 {
		t = p.next()
		if t.tt == css.ErrorToken {
			return out
		}
		out = append(out, t)
		if t.tt == closers[len(closers)-1] {
			closers = closers[:len(closers)-1]
		} else if c, ok := closerOf(t.tt); ok {
			closers = append(closers, c)
		}
	}
	return out
}

func closerOf(tt css.TokenType) (css.TokenType, bool) {
	switch tt {
	case css.FunctionToken, css.LeftParenthesisToken:
		return css.RightParenthesisToken, true
	case css.LeftBracketToken:
		return css.RightBracketToken, true
	case css.LeftBraceToken:
		return css.RightBraceToken, true
	}
	return 0, false
}

// prelude reads up to a '{' (block true, the '{' consumed), a ';' (consumed) or the end.
// In a nested list a '}' ends it too, and is left for the block.
func (p *sheetParser) prelude(nested bool) (toks []lexTok, block bool) {
	for {
		t := p.next()
		switch t.tt {
		case css.ErrorToken:
			return toks, false
		case css.LeftBraceToken:
			return toks, true
		case css.SemicolonToken:
			return toks, false
		case css.RightBraceToken:
			if nested {
				p.unread(t)
				return toks, false
			}
			toks = append(toks, t)
		default:
			toks = p.component(t, toks)
		}
	}
}

// skipBlock skips the rest of a block whose '{' was read.
func (p *sheetParser) skipBlock() {
	for depth := 1; depth > 0; {
		switch p.next().tt {
		case css.ErrorToken:
			return
		case css.LeftBraceToken:
			depth++
		case css.RightBraceToken:
			depth--
		}
	}
}

// qualifiedRule reads a style rule: a selector list and a block.
func (p *sheetParser) qualifiedRule(sc scope, nested bool) {
	p.importsAllowed = false
	pre := p.bufs[p.depth][:0]
	defer func() { p.bufs[p.depth] = pre[:0] }()
	for {
		t := p.next()
		switch t.tt {
		case css.ErrorToken:
			return
		case css.LeftBraceToken:
			p.styleBlock(pre, sc)
			return
		case css.SemicolonToken:
			if nested {
				return
			}
			pre = append(pre, t)
		case css.RightBraceToken:
			if nested {
				p.unread(t)
				return
			}
			pre = append(pre, t)
		default:
			pre = p.component(t, pre)
		}
	}
}

// styleBlock reads the block of a style rule whose '{' was read: its declarations, and the
// rules nested in it.
func (p *sheetParser) styleBlock(prelude []lexTok, sc scope) {
	if p.depth >= maxBlockDepth || sc.mask == 0 {
		p.skipBlock()
		return
	}
	p.depth++
	defer func() { p.depth-- }()
	sels := &selList{prelude: prelude, parent: sc.sels}
	inner := scope{mask: sc.mask, layer: sc.layer, sels: sels}
	order := p.s.nextOrder()
	body := &ruleBody{}
	p.blockContents(inner, body)
	// Most rules declare nothing that counts: their selectors are not compiled.
	if len(body.decls) > 0 || len(body.vars) > 0 {
		p.s.rule(sels.get(), sc, body, order)
	}
}

// selList is the selectors of a style rule, split and resolved against those of the rule
// it is nested in when first needed: most rules declare nothing that counts.
type selList struct {
	prelude []lexTok // valid while the rule's block is read
	parent  *selList
	sels    [][]selToken
	done    bool
}

func (l *selList) get() [][]selToken {
	if !l.done {
		l.sels, l.done = splitSelectors(l.prelude), true
		if l.parent != nil {
			l.sels = nestSelectors(l.parent.get(), l.sels)
		}
	}
	return l.sels
}

// blockContents reads declarations and nested rules up to the '}' that ends the block;
// declarations go to body (nil: not applied).
func (p *sheetParser) blockContents(sc scope, body *ruleBody) {
	for {
		t := p.next()
		switch t.tt {
		case css.ErrorToken, css.RightBraceToken:
			return
		case css.WhitespaceToken, css.SemicolonToken:
		case css.AtKeywordToken:
			p.atRule(t, sc, true)
		default:
			// A declaration, or a nested rule when a '{' comes before the ';'.
			toks := p.bufs[p.depth][:0]
			custom, rule := t.tt == css.CustomPropertyNameToken, false
			t0 := t
			for {
				if t.tt == css.ErrorToken {
					break
				}
				if t.tt == css.SemicolonToken {
					break
				}
				if t.tt == css.RightBraceToken {
					p.unread(t)
					break
				}
				if t.tt == css.LeftBraceToken && !custom {
					p.styleBlock(toks, sc)
					rule = true
					break
				}
				toks = p.component(t, toks)
				t = p.next()
			}
			if !rule && len(toks) > 0 && body != nil {
				body.declaration(t0, toks, p.s)
			}
			p.bufs[p.depth] = toks[:0]
		}
	}
}

// atRule reads an at-rule whose name is t.
func (p *sheetParser) atRule(t lexTok, sc scope, nested bool) {
	name := strings.ToLower(cssUnescape(t.data))
	pre, block := p.prelude(nested)
	if !block {
		switch {
		case name == "@import" && p.importsAllowed && !nested:
			p.s.addImport(p.src, pre)
		case name == "@layer" && sc.sels == nil:
			for _, n := range layerNames(pre) {
				p.s.layerRank(joinLayer(sc.layer, n))
			}
		case name == "@charset" && !nested:
		default:
			p.importsAllowed = false
		}
		return
	}
	p.importsAllowed = false
	if p.depth >= maxBlockDepth {
		p.skipBlock()
		return
	}
	inner := sc
	switch name {
	case "@media":
		inner.mask &= evalMediaList(toTokens(pre))
	case "@supports":
		if !evalSupports(toTokens(pre)) {
			inner.mask = 0
		}
	case "@layer":
		n := ""
		if names := layerNames(pre); len(names) > 0 {
			n = names[0]
		} else {
			p.s.anonLayers++
			n = fmt.Sprintf("\x00anonymous %d", p.s.anonLayers)
		}
		inner.layer = joinLayer(sc.layer, n)
		p.s.layerRank(inner.layer)
	case "@container":
		// Container sizes are not known without a layout: the rules apply.
	default:
		p.skipBlock()
		return
	}
	p.depth++
	defer func() { p.depth-- }()
	if sc.sels == nil {
		p.rules(inner, true)
		// rules returns at the '}' it read, or at the end of the sheet.
		return
	}
	// Inside a style rule: declarations of that rule under the condition, and rules.
	var body *ruleBody
	order := p.s.nextOrder()
	if inner.mask != 0 {
		body = &ruleBody{}
	}
	p.blockContents(inner, body)
	if body != nil && (len(body.decls) > 0 || len(body.vars) > 0) {
		p.s.rule(sc.sels.get(), inner, body, order)
	}
}

// nextOrder returns the place in cascade order of the next rule.
func (s *styleSet) nextOrder() uint32 {
	s.order++
	return s.order
}

// rule adds a style rule with these selectors, in scope sc, at a place in cascade order.
func (s *styleSet) rule(sels [][]selToken, sc scope, body *ruleBody, order uint32) {
	layer := -1
	if sc.layer != "" {
		layer = s.layerRank(sc.layer)
	}
	for _, sel := range sels {
		if s.page.selectors >= maxSelectors {
			s.page.exceed(fmt.Sprintf("the page's style sheets have more than %d selectors; the rest were not applied", maxSelectors))
			break
		}
		r := compileSelector(sel)
		if r == nil {
			continue
		}
		s.page.selectors++
		r.body, r.order, r.layer, r.mask = body, order, layer, sc.mask
		s.index(r, sel)
	}
}

// addImport reads an @import rule: the sheet, when it was fetched and its imports are
// followed, is added here with the media list and layer the rule gives.
func (s *styleSet) addImport(src sheetSource, prelude []lexTok) {
	if src.imports == nil {
		return
	}
	s.page.wants = true
	if src.base == nil {
		return
	}
	toks := toTokens(prelude)
	if len(toks) == 0 {
		return
	}
	var addr string
	rest := toks[1:]
	switch t := toks[0]; {
	case t.kind == tokURL || t.kind == tokString:
		addr = t.text
	case t.kind == tokFunction && t.text == "url" && len(toks) >= 3 && toks[1].kind == tokString:
		addr, rest = toks[1].text, toks[3:]
	default:
		return
	}
	u, ok := sheetURL(src.base, addr)
	if !ok {
		return
	}
	layer := src.layer
	if len(rest) > 0 && rest[0].kind == tokIdent && rest[0].text == "layer" {
		s.anonLayers++
		layer, rest = joinLayer(src.layer, fmt.Sprintf("\x00anonymous %d", s.anonLayers)), rest[1:]
	} else if len(rest) > 0 && rest[0].kind == tokFunction && rest[0].text == "layer" {
		end := closeOf(rest, 0)
		name := ""
		for _, t := range rest[1:end] {
			switch t.kind {
			case tokIdent, tokDelim:
				name += t.text
			}
		}
		layer, rest = joinLayer(src.layer, name), rest[min(end+1, len(rest)):]
	}
	mask := src.mask
	if len(rest) > 0 && rest[0].kind == tokFunction && rest[0].text == "supports" {
		end := closeOf(rest, 0)
		if !evalSupports(rest[1:end]) {
			return
		}
		rest = rest[min(end+1, len(rest)):]
	}
	if len(rest) > 0 {
		mask &= evalMediaList(rest)
	}
	sh := src.imports(u)
	if sh == nil {
		return
	}
	if sh.Capped {
		s.page.exceed(fmt.Sprintf("the page links more than %d style sheets; the rest were not applied", MaxSheets))
		return
	}
	if sh.Err != nil {
		s.page.missed(sh)
		return
	}
	if sh.Truncated {
		s.page.exceed(fmt.Sprintf("the style sheet %s is longer than %d bytes and was cut", sh.URL, MaxSheetBytes))
	}
	base, err := url.Parse(sh.FinalURL)
	if err != nil {
		base = src.base
	}
	if layer != "" {
		s.layerRank(layer)
	}
	s.add(sheetSource{text: sheetText(sh), base: base, mask: mask, layer: layer})
}

// layerNames reads the names of a @layer prelude: "a.b, c".
func layerNames(prelude []lexTok) []string {
	var names []string
	cur := ""
	for _, t := range prelude {
		switch t.tt {
		case css.IdentToken:
			cur += cssUnescape(t.data)
		case css.DelimToken:
			if string(t.data) == "." {
				cur += "."
			}
		case css.CommaToken:
			if cur != "" {
				names = append(names, cur)
			}
			cur = ""
		}
	}
	if cur != "" {
		names = append(names, cur)
	}
	return names
}

func joinLayer(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// layerRank returns the rank of a layer in layer order, declaring it (and the layers it
// is nested in) when it is new.
func (s *styleSet) layerRank(name string) int {
	if r, ok := s.layers[name]; ok {
		return r
	}
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		s.layerRank(name[:i])
	}
	r := len(s.layers)
	s.layers[name] = r
	return r
}

// declaration keeps a declaration (toks, from its name on) when its property bears on what
// is seen, and every custom property declaration.
func (b *ruleBody) declaration(name lexTok, toks []lexTok, s *styleSet) {
	if name.tt != css.IdentToken && name.tt != css.CustomPropertyNameToken {
		return
	}
	i := 1
	for i < len(toks) && toks[i].tt == css.WhitespaceToken {
		i++
	}
	if i >= len(toks) || toks[i].tt != css.ColonToken {
		return
	}
	value := toks[i+1:]
	if name.tt == css.CustomPropertyNameToken {
		raw, important := customValue(value)
		if strings.Contains(raw, "var(") {
			s.page.noteRefs(lexTokens(raw))
		}
		b.vars = append(b.vars, customDecl{name: string(name.data), raw: raw, important: important})
		return
	}
	prop := strings.ToLower(cssUnescape(name.data))
	if _, ok := longhands[prop]; !ok {
		if _, ok := shorthands[prop]; !ok {
			return // a property that does not bear on what is seen
		}
	}
	vt := toTokens(value)
	important := false
	if n := len(vt); n >= 2 && vt[n-2].kind == tokDelim && vt[n-2].text == "!" && vt[n-1].kind == tokIdent && vt[n-1].text == "important" {
		important, vt = true, vt[:n-2]
	}
	decls, vars := parseDeclaration(prop, vt, important)
	if vars {
		s.page.usesVars = true
		s.page.noteRefs(vt)
	}
	b.decls = append(b.decls, decls...)
}

// customValue returns a custom property's value as written, and whether it is !important.
func customValue(toks []lexTok) (string, bool) {
	end := len(toks)
	for end > 0 && toks[end-1].tt == css.WhitespaceToken {
		end--
	}
	important := false
	if end >= 2 && toks[end-1].tt == css.IdentToken && strings.EqualFold(string(toks[end-1].data), "important") {
		j := end - 2
		for j >= 0 && toks[j].tt == css.WhitespaceToken {
			j--
		}
		if j >= 0 && toks[j].tt == css.DelimToken && string(toks[j].data) == "!" {
			important, end = true, j
		}
	}
	var b []byte
	for _, t := range toks[:end] {
		b = append(b, t.data...)
	}
	return strings.TrimSpace(string(b)), important
}

// splitSelectors splits a selector list at its top-level commas.
func splitSelectors(prelude []lexTok) [][]selToken {
	var out [][]selToken
	var cur []selToken
	depth := 0
	for _, t := range prelude {
		if t.tt == css.WhitespaceToken && len(cur) > 0 && cur[len(cur)-1].tt == css.WhitespaceToken {
			continue
		}
		switch t.tt {
		case css.FunctionToken, css.LeftParenthesisToken, css.LeftBracketToken:
			depth++
		case css.RightParenthesisToken, css.RightBracketToken:
			depth--
		case css.CommaToken:
			if depth == 0 {
				out = append(out, trimSel(cur))
				cur = nil
				continue
			}
		}
		cur = append(cur, selToken{t.tt, string(t.data)})
	}
	return append(out, trimSel(cur))
}

func trimSel(s []selToken) []selToken {
	for len(s) > 0 && s[0].tt == css.WhitespaceToken {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1].tt == css.WhitespaceToken {
		s = s[:len(s)-1]
	}
	return s
}

// nestSelectors resolves the selectors of a rule nested in another (CSS Nesting): & stands
// for the parent's selectors, and a selector without & is a descendant of them.
func nestSelectors(parents, sels [][]selToken) [][]selToken {
	var is []selToken
	is = append(is, selToken{css.ColonToken, ":"}, selToken{css.FunctionToken, "is("})
	for i, p := range parents {
		if i > 0 {
			is = append(is, selToken{css.CommaToken, ","})
		}
		is = append(is, p...)
	}
	is = append(is, selToken{css.RightParenthesisToken, ")"})
	var out [][]selToken
	for _, s := range sels {
		var r []selToken
		amp := false
		for _, t := range s {
			if t.tt == css.DelimToken && t.data == "&" {
				r, amp = append(r, is...), true
				continue
			}
			r = append(r, t)
		}
		if !amp {
			r = append(append(append([]selToken{}, is...), selToken{css.WhitespaceToken, " "}), s...)
		}
		out = append(out, r)
	}
	return out
}

// Pseudo-classes of states a page read without a person never is in: they match nothing.
var neverPseudo = map[string]bool{
	"hover": true, "active": true, "focus": true, "focus-within": true, "focus-visible": true,
	"target": true, "target-within": true, "visited": true, "autofill": true,
	"-webkit-autofill": true, "user-invalid": true, "user-valid": true, "popover-open": true,
	"modal": true, "fullscreen": true, "picture-in-picture": true, "playing": true,
	"paused": true, "seeking": true, "buffering": true, "stalled": true, "muted": true,
	"volume-locked": true, "current": true, "past": true, "future": true, "local-link": true,
	"read-write": true, "placeholder-shown": true, "-moz-focusring": true, "drop": true,
}

// Legacy pseudo-elements written with one colon.
var legacyPseudoElement = map[string]bool{"before": true, "after": true, "first-line": true, "first-letter": true}

// compileSelector compiles one complex selector, or returns nil when it matches no element
// (a pseudo-element) or cannot be read. The rule keeps its specificity; the caller sets
// the rest.
func compileSelector(sel []selToken) *selRule {
	if len(sel) == 0 {
		return nil
	}
	text, ok := rewriteSelector(sel)
	if !ok {
		return nil
	}
	c, err := cascadia.Parse(text)
	if err != nil {
		return nil
	}
	a, b, cc := specificity(sel)
	return &selRule{sel: c, spec: uint32(min(a, 255))<<16 | uint32(min(b, 255))<<8 | uint32(min(cc, 255))}
}

// rewriteSelector writes a selector for cascadia: :is() and :where() as :not(:not()),
// states never reached as :not(*), a few aliases. ok is false for a pseudo-element (it
// styles no element) and for what is not CSS but cascadia would read (:contains(), regular
// expressions).
func rewriteSelector(sel []selToken) (string, bool) {
	var b strings.Builder
	var closers []string // what each open parenthesis closes with
	for i := 0; i < len(sel); i++ {
		t := sel[i]
		switch t.tt {
		case css.ColonToken:
			if i+1 >= len(sel) {
				return "", false
			}
			n := sel[i+1]
			if n.tt == css.ColonToken {
				return "", false // ::pseudo-element
			}
			name := strings.ToLower(cssUnescape([]byte(n.data)))
			i++
			if n.tt == css.FunctionToken {
				switch name = strings.TrimSuffix(name, "("); name {
				case "is", "where", "-webkit-any", "-moz-any":
					b.WriteString(":not(:not(")
					closers = append(closers, "))")
				case "contains", "containsown", "matches", "matchesown", "haschild":
					return "", false
				default:
					b.WriteString(":" + name + "(")
					closers = append(closers, ")")
				}
				continue
			}
			switch {
			case legacyPseudoElement[name]:
				return "", false
			case neverPseudo[name]:
				b.WriteString(":not(*)")
			case name == "defined":
				b.WriteString(":not(:not(*))")
			case name == "any-link":
				b.WriteString(":link")
			case name == "scope":
				b.WriteString(":root")
			case name == "open":
				b.WriteString("[open]")
			default:
				b.WriteString(":" + n.data)
			}
		case css.FunctionToken, css.LeftParenthesisToken:
			b.WriteString(t.data)
			closers = append(closers, ")")
		case css.RightParenthesisToken:
			if len(closers) == 0 {
				return "", false
			}
			b.WriteString(closers[len(closers)-1])
			closers = closers[:len(closers)-1]
		case css.DelimToken:
			if t.data == "&" {
				b.WriteString(":root")
				continue
			}
			if t.data == "#" {
				return "", false // cascadia's [attr#=regexp]
			}
			b.WriteString(t.data)
		case css.WhitespaceToken:
			b.WriteByte(' ')
		default:
			b.WriteString(t.data)
		}
	}
	if len(closers) > 0 {
		return "", false
	}
	return b.String(), true
}

// specificity computes a complex selector's specificity (Selectors 4 §16): ids, then
// classes, attributes and pseudo-classes, then types. :is(), :not() and :has() count their
// most specific argument, :where() nothing, :nth-child(An+B of S) one more than S.
func specificity(sel []selToken) (a, b, c int) {
	for i := 0; i < len(sel); i++ {
		t := sel[i]
		switch t.tt {
		case css.HashToken:
			a++
		case css.LeftBracketToken:
			b++
			for i < len(sel) && sel[i].tt != css.RightBracketToken {
				i++
			}
		case css.DelimToken:
			if t.data == "." && i+1 < len(sel) && sel[i+1].tt == css.IdentToken {
				b++
				i++
			}
		case css.IdentToken:
			c++
		case css.ColonToken:
			if i+1 >= len(sel) {
				return
			}
			n := sel[i+1]
			i++
			if n.tt == css.ColonToken {
				c++
				i++
				continue
			}
			name := strings.ToLower(strings.TrimSuffix(n.data, "("))
			if n.tt != css.FunctionToken {
				if legacyPseudoElement[name] {
					c++
				} else {
					b++
				}
				continue
			}
			end := i + 1
			for depth := 1; end < len(sel) && depth > 0; end++ {
				switch sel[end].tt {
				case css.FunctionToken, css.LeftParenthesisToken:
					depth++
				case css.RightParenthesisToken:
					depth--
				}
			}
			args := sel[i+1 : max(end-1, i+1)]
			switch name {
			case "where":
			case "is", "not", "has", "-webkit-any", "-moz-any":
				x, y, z := maxSpecificity(args)
				a, b, c = a+x, b+y, c+z
			case "nth-child", "nth-last-child":
				b++
				for k, t := range args {
					if t.tt == css.IdentToken && strings.EqualFold(t.data, "of") {
						x, y, z := maxSpecificity(args[k+1:])
						a, b, c = a+x, b+y, c+z
						break
					}
				}
			default:
				b++
			}
			i = end - 1
		}
	}
	return
}

// maxSpecificity is the largest specificity in a selector list.
func maxSpecificity(list []selToken) (a, b, c int) {
	var parts [][]selToken
	depth, start := 0, 0
	for i, t := range list {
		switch t.tt {
		case css.FunctionToken, css.LeftParenthesisToken, css.LeftBracketToken:
			depth++
		case css.RightParenthesisToken, css.RightBracketToken:
			depth--
		case css.CommaToken:
			if depth == 0 {
				parts, start = append(parts, list[start:i]), i+1
			}
		}
	}
	parts = append(parts, list[start:])
	for _, p := range parts {
		x, y, z := specificity(p)
		if x > a || x == a && (y > b || y == b && z > c) {
			a, b, c = x, y, z
		}
	}
	return
}

// index files a rule under the most selective simple selector of its last compound (an id,
// a class, an attribute name, a type), so that an element is only matched against rules
// that can apply to it, and notes what its ancestors must have (see ancestorFilter).
func (s *styleSet) index(r *selRule, sel []selToken) {
	comps := compounds(sel)
	// Walking left from the subject, a compound followed by a descendant or child
	// combinator is an ancestor of the subject while the chain from the subject is one of
	// ancestors; a sibling combinator ends that chain.
	onChain := true
	for i := len(comps) - 2; i >= 0 && onChain; i-- {
		switch comps[i+1].comb {
		case " ", ">":
			if id, class, _, tag := compoundKey(comps[i].toks); id != "" {
				r.anc = append(r.anc, keyHash('#', id))
			} else if class != "" {
				r.anc = append(r.anc, keyHash('.', class))
			} else if tag != "" {
				r.anc = append(r.anc, keyHash('<', tag))
			}
		default:
			onChain = false
		}
	}
	id, class, attr, tag := compoundKey(comps[len(comps)-1].toks)
	switch {
	case id != "":
		s.byID[id] = append(s.byID[id], r)
	case class != "":
		s.byClass[class] = append(s.byClass[class], r)
	case attr != "":
		s.byAttr[attr] = append(s.byAttr[attr], r)
	case tag != "":
		s.byTag[tag] = append(s.byTag[tag], r)
	default:
		s.any = append(s.any, r)
	}
}

// compound is one compound selector of a complex selector, with the combinator before it
// ("" for the first).
type compound struct {
	toks []selToken
	comb string
}

// compounds splits a complex selector at its top-level combinators.
func compounds(sel []selToken) []compound {
	var out []compound
	cur := compound{}
	depth := 0
	pending := ""
	for _, t := range sel {
		switch t.tt {
		case css.FunctionToken, css.LeftParenthesisToken, css.LeftBracketToken:
			depth++
		case css.RightParenthesisToken, css.RightBracketToken:
			depth--
		case css.WhitespaceToken:
			if depth == 0 {
				if pending == "" {
					pending = " "
				}
				continue
			}
		case css.DelimToken:
			if depth == 0 && (t.data == ">" || t.data == "+" || t.data == "~") {
				pending = t.data
				continue
			}
		}
		if pending != "" {
			if len(cur.toks) > 0 {
				out = append(out, cur)
			}
			cur, pending = compound{comb: pending}, ""
		}
		cur.toks = append(cur.toks, t)
	}
	return append(out, cur)
}

// compoundKey returns the first id, class, attribute name and type a compound requires
// of an element (what pseudo-class functions hold is not required).
func compoundKey(toks []selToken) (id, class, attr, tag string) {
	depth := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.tt {
		case css.FunctionToken, css.LeftParenthesisToken:
			depth++
		case css.RightParenthesisToken:
			depth--
		case css.LeftBracketToken:
			if depth == 0 && attr == "" && i+1 < len(toks) && toks[i+1].tt == css.IdentToken {
				attr = strings.ToLower(cssUnescape([]byte(toks[i+1].data)))
			}
			depth++
		case css.RightBracketToken:
			depth--
		case css.HashToken:
			if depth == 0 && id == "" {
				id = cssUnescape([]byte(t.data[1:]))
			}
		case css.DelimToken:
			if depth == 0 && t.data == "." && i+1 < len(toks) && toks[i+1].tt == css.IdentToken && class == "" {
				class = cssUnescape([]byte(toks[i+1].data))
				i++
			}
		case css.ColonToken:
			if i+1 < len(toks) && toks[i+1].tt == css.FunctionToken {
				depth++
			}
			i++
		case css.IdentToken:
			if depth == 0 && i == 0 {
				tag = strings.ToLower(cssUnescape([]byte(t.data)))
			}
		}
	}
	return id, class, attr, tag
}

// ancestorBits is the size of an ancestorFilter.
const ancestorBits = 4096

// keyHash hashes an id ('#'), class ('.') or type ('<') for the ancestor filter.
func keyHash(kind byte, s string) uint32 {
	h := uint32(2166136261) ^ uint32(kind)
	h *= 16777619
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h % ancestorBits
}

// ancestorFilter counts the ids, classes and types of the elements open on the way down
// the flat tree (a counting Bloom filter, as browsers keep): a rule whose selector needs
// an ancestor with a key the filter has never seen cannot match, and is not tried. The
// flat tree holds every light-tree ancestor of an element, so the filter never rules out a
// match.
type ancestorFilter [ancestorBits]uint16

func (f *ancestorFilter) add(n *html.Node, delta uint16) {
	f[keyHash('<', n.Data)] += delta
	for _, a := range n.Attr {
		if a.Namespace != "" {
			continue
		}
		switch a.Key {
		case "id":
			f[keyHash('#', a.Val)] += delta
		case "class":
			for c := range strings.FieldsSeq(a.Val) {
				f[keyHash('.', c)] += delta
			}
		}
	}
}

// push counts an element the walk enters; pop uncounts it when the walk leaves it.
func (f *ancestorFilter) push(n *html.Node) { f.add(n, 1) }
func (f *ancestorFilter) pop(n *html.Node)  { f.add(n, ^uint16(0)) }

// mayMatch reports whether every ancestor key a rule needs has been seen.
func (f *ancestorFilter) mayMatch(r *selRule) bool {
	for _, h := range r.anc {
		if f[h] == 0 {
			return false
		}
	}
	return true
}

// closeOf returns the index of the tokClose that ends the function at toks[i], or
// len(toks) when it is not closed.
func closeOf(toks []cssToken, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		switch toks[j].kind {
		case tokFunction:
			depth++
		case tokClose:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(toks)
}

// sheetURL resolves a style sheet address against base, without its fragment; ok is false
// for what cannot be fetched (not http or https).
func sheetURL(base *url.URL, href string) (string, bool) {
	href = strings.TrimSpace(href)
	if href == "" {
		return "", false
	}
	u, err := base.Parse(href)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "", false
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), true
}
