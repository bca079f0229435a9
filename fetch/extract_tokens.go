package fetch

import (
	"bytes"
	"fmt"

	"golang.org/x/net/html"
)

// headElements may stand in a document's head; any other start tag, or text that is not
// blank, begins the body.
var headElements = map[string]bool{
	"html": true, "head": true, "meta": true, "link": true, "title": true, "style": true,
	"script": true, "noscript": true, "base": true, "template": true, "basefont": true,
	"bgsound": true,
}

// ExtractTokens returns the title, description and visible body text of a page, from a
// pass over golang.org/x/net/html's tokenizer that builds a tree of its own (simpler than
// the HTML5 tree construction: see tokenTree), with the page's CSS applied. It shares no
// code with [ExtractDOM] beyond the charset decoding, the CSS engine and the list of what
// is visible, so that two verifiers read a page independently. Errors are those of
// ExtractDOM.
func ExtractTokens(body []byte, contentType string) (Text, error) {
	return extractTokens(body, contentType, "", nil)
}

// extractTokens is ExtractTokens for a page at pageURL with the style sheets fetched for it.
func extractTokens(body []byte, contentType, pageURL string, sheets []Sheet) (Text, error) {
	s, err := decode(body, contentType)
	if err != nil {
		return Text{}, err
	}
	if isPlainText(contentType) {
		return plainText(s)
	}
	tt := newTokenTree()
	t := tt.read(html.NewTokenizer(bytes.NewReader(s)))
	if tt.tooDeep {
		return Text{}, fmt.Errorf("fetch: parse HTML: more than %d elements are open at once", maxOpenElements)
	}
	ps, slots := newPageStyle(tt.doc, pageURL, sheets)
	b := newSpaceFolder(len(s) / htmlTextShare)
	if tt.body != nil {
		emitText(tt.html, tt.body, ps, slots, b)
	}
	t, err = finishText(t, b)
	if ps.page.wants && sheets == nil {
		t.restyle = &restyler{read: func(u string, sh []Sheet) (Text, error) { return extractTokens(body, contentType, u, sh) }}
	}
	if err == nil && ps.page.cut != "" {
		err = fmt.Errorf("%w: %s", ErrTruncated, ps.page.cut)
	}
	return t, err
}

// tokenTree builds a document tree from tokens with a stack of open elements and a few
// rules of its own: void elements, the end tags that HTML implies (a block closes an open
// <p>, an <li> the previous <li>, a cell the previous cell, ...), an end tag closes the
// nearest open element of its name unless a table or template boundary comes first, head
// content goes to <head> and everything else to <body>, foreign (SVG, MathML) content ends
// at an HTML element that breaks out of it. It does not reparent misnested formatting
// elements or foster-parent text out of tables, as the HTML5 algorithm does.
type tokenTree struct {
	doc, html, head, body *html.Node
	stack                 []*html.Node // open elements, the innermost last
	tooDeep               bool         // more than maxOpenElements were open at once
}

// maxOpenElements is how deep elements may nest, as golang.org/x/net/html's parser
// allows: a page nested deeper is not read (selectors that look at ancestors would cost
// the depth for every element).
const maxOpenElements = 512

func newTokenTree() *tokenTree {
	doc := &html.Node{Type: html.DocumentNode}
	h := &html.Node{Type: html.ElementNode, Data: "html"}
	doc.AppendChild(h)
	return &tokenTree{doc: doc, html: h, stack: []*html.Node{h}}
}

// read consumes the tokens, building the tree, and returns the title and description.
func (tt *tokenTree) read(z *html.Tokenizer) Text {
	var (
		t                 Text
		og                string
		inTitle, hadTitle bool
		hadHTML           bool
	)
	for !tt.tooDeep {
		tok := z.Next()
		switch tok {
		case html.ErrorToken:
			if t.Description == "" {
				t.Description = og
			}
			return t
		case html.TextToken:
			text := z.Text()
			if inTitle {
				t.Title += string(text)
				continue
			}
			if tt.body == nil && isBlank(text) {
				continue
			}
			tt.text(string(text))
		case html.StartTagToken, html.SelfClosingTagToken:
			name, attrs := tagOf(z)
			if name == "html" && !hadHTML {
				t.Lang, hadHTML = documentLang(attrs), true
			}
			if name == "meta" {
				if content, preferred, ok := description(attrs); ok {
					if preferred && t.Description == "" {
						t.Description = content
					} else if !preferred && og == "" {
						og = content
					}
				}
			}
			foreign := tt.foreign()
			if foreign {
				z.NextIsNotRawText()
			}
			if name == "title" && !hadTitle && !foreign {
				inTitle, hadTitle = true, true
			}
			tt.start(name, attrs, tok == html.SelfClosingTagToken)
			z.AllowCDATA(tt.foreign())
		case html.EndTagToken:
			raw, _ := z.TagName()
			name := string(raw)
			if inTitle && name == "title" {
				inTitle = false
				t.Title = foldSpace(t.Title)
			}
			tt.end(name)
			z.AllowCDATA(tt.foreign())
		}
	}
	return t
}

// tagOf returns a start tag's name and attributes.
func tagOf(z *html.Tokenizer) (string, []html.Attribute) {
	raw, more := z.TagName()
	name := string(raw)
	var attrs []html.Attribute
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		attrs = append(attrs, html.Attribute{Key: string(k), Val: string(v)})
	}
	return name, attrs
}

func (tt *tokenTree) cur() *html.Node { return tt.stack[len(tt.stack)-1] }

func (tt *tokenTree) foreign() bool { return tt.cur().Namespace != "" }

// inBody makes sure the body is open: content other than head content starts it.
func (tt *tokenTree) inBody() {
	if tt.body != nil {
		return
	}
	tt.stack = tt.stack[:1]
	tt.body = &html.Node{Type: html.ElementNode, Data: "body"}
	tt.html.AppendChild(tt.body)
	tt.stack = append(tt.stack, tt.body)
}

func (tt *tokenTree) text(s string) {
	if tt.body == nil && tt.cur() == tt.html || tt.cur() == tt.head {
		tt.inBody()
	}
	c := tt.cur()
	if last := c.LastChild; last != nil && last.Type == html.TextNode {
		last.Data += s
		return
	}
	c.AppendChild(&html.Node{Type: html.TextNode, Data: s})
}

// Start tags that end foreign content (HTML §13.2.6.5).
var breakout = map[string]bool{
	"b": true, "big": true, "blockquote": true, "body": true, "br": true, "center": true,
	"code": true, "dd": true, "div": true, "dl": true, "dt": true, "em": true, "embed": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "head": true,
	"hr": true, "i": true, "img": true, "li": true, "listing": true, "menu": true, "meta": true,
	"nobr": true, "ol": true, "p": true, "pre": true, "ruby": true, "s": true, "small": true,
	"span": true, "strong": true, "strike": true, "sub": true, "sup": true, "table": true,
	"tt": true, "u": true, "ul": true, "var": true,
}

// closesP are the start tags that close an open <p>.
var closesP = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true, "center": true,
	"details": true, "dialog": true, "dir": true, "div": true, "dl": true, "fieldset": true,
	"figcaption": true, "figure": true, "footer": true, "form": true, "h1": true, "h2": true,
	"h3": true, "h4": true, "h5": true, "h6": true, "header": true, "hgroup": true, "hr": true,
	"main": true, "menu": true, "nav": true, "ol": true, "p": true, "pre": true, "section": true,
	"summary": true, "table": true, "ul": true, "li": true, "dd": true, "dt": true,
	"plaintext": true, "xmp": true, "listing": true, "search": true,
}

// scopeEdge are the open elements an implied or explicit end tag does not reach past.
var scopeEdge = map[string]bool{
	"html": true, "body": true, "table": true, "td": true, "th": true, "caption": true,
	"template": true, "marquee": true, "object": true, "applet": true,
}

// find returns the index in the stack of the innermost open HTML element with one of the
// names, not past a scope edge (nor past an element of stop), or -1.
func (tt *tokenTree) find(names map[string]bool, stop map[string]bool) int {
	for i := len(tt.stack) - 1; i > 0; i-- {
		n := tt.stack[i]
		if n.Namespace == "" && names[n.Data] {
			return i
		}
		if n.Namespace == "" && (scopeEdge[n.Data] || stop[n.Data]) {
			return -1
		}
	}
	return -1
}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

var (
	setP        = set("p")
	setLi       = set("li")
	setListStop = set("ul", "ol", "menu")
	setDdDt     = set("dd", "dt")
	setDlStop   = set("dl")
	setOption   = set("option")
	setOptGroup = set("option", "optgroup")
	setCell     = set("td", "th")
	setRow      = set("tr")
	setSection  = set("thead", "tbody", "tfoot")
	setHeading  = set("h1", "h2", "h3", "h4", "h5", "h6")
	setRubyText = set("rt", "rp")
	setA        = set("a")
	setButton   = set("button")
	setTable    = set("table")
	setNone     = set()
)

func (tt *tokenTree) popTo(i int) {
	if i > 0 {
		tt.stack = tt.stack[:i]
	}
}

// start opens an element for a start tag.
func (tt *tokenTree) start(name string, attrs []html.Attribute, selfClosing bool) {
	switch name {
	case "html":
		mergeAttrs(tt.html, attrs)
		return
	case "head":
		if tt.head == nil && tt.body == nil {
			tt.head = &html.Node{Type: html.ElementNode, Data: "head", Attr: attrs}
			tt.html.AppendChild(tt.head)
			tt.stack = append(tt.stack[:1], tt.head)
		}
		return
	case "body":
		tt.inBody()
		mergeAttrs(tt.body, attrs)
		return
	}
	ns := tt.cur().Namespace
	if ns != "" && breakout[name] {
		for len(tt.stack) > 1 && tt.cur().Namespace != "" {
			tt.stack = tt.stack[:len(tt.stack)-1]
		}
		ns = ""
	}
	switch {
	case name == "svg":
		ns = "svg"
	case name == "math":
		ns = "math"
	}
	if tt.body == nil {
		if headElements[name] && ns == "" {
			if tt.head == nil {
				tt.head = &html.Node{Type: html.ElementNode, Data: "head"}
				tt.html.AppendChild(tt.head)
				tt.stack = append(tt.stack[:1], tt.head)
			}
		} else {
			tt.inBody()
		}
	}
	if ns == "" {
		tt.implyEnds(name)
	}
	n := &html.Node{Type: html.ElementNode, Data: name, Namespace: ns, Attr: attrs}
	tt.cur().AppendChild(n)
	if ns == "" && voidElements[name] || ns != "" && selfClosing {
		return
	}
	tt.stack = append(tt.stack, n)
	if len(tt.stack) > maxOpenElements {
		tt.tooDeep = true
	}
}

// mergeAttrs adds to n the attributes it does not have, as a second <html> or <body> tag
// does.
func mergeAttrs(n *html.Node, attrs []html.Attribute) {
	for _, a := range attrs {
		if !hasAttr(n, a.Key) {
			n.Attr = append(n.Attr, a)
		}
	}
}

// implyEnds closes the open elements a start tag ends.
func (tt *tokenTree) implyEnds(name string) {
	if closesP[name] {
		tt.popTo(tt.find(setP, setButton))
	}
	switch name {
	case "li":
		tt.popTo(tt.find(setLi, setListStop))
	case "dd", "dt":
		tt.popTo(tt.find(setDdDt, setDlStop))
	case "option":
		tt.popTo(tt.find(setOption, setNone))
	case "optgroup":
		tt.popTo(tt.find(setOptGroup, setNone))
	case "h1", "h2", "h3", "h4", "h5", "h6":
		if c := tt.cur(); c.Namespace == "" && setHeading[c.Data] {
			tt.stack = tt.stack[:len(tt.stack)-1]
		}
	case "rt", "rp":
		tt.popTo(tt.find(setRubyText, set("ruby")))
	case "a":
		tt.popTo(tt.find(setA, setNone))
	case "button":
		tt.popTo(tt.find(setButton, setNone))
	case "td", "th":
		tt.popTo(tt.findIn(setCell, setRow))
	case "tr":
		tt.popTo(tt.findIn(set("tr", "td", "th"), setSection))
	case "thead", "tbody", "tfoot":
		tt.popTo(tt.findIn(set("thead", "tbody", "tfoot", "tr", "td", "th"), setTable))
	}
}

// findIn is find inside a table: it stops at an element of stop, and at the table.
func (tt *tokenTree) findIn(names, stop map[string]bool) int {
	for i := len(tt.stack) - 1; i > 0; i-- {
		n := tt.stack[i]
		if n.Namespace != "" {
			continue
		}
		if names[n.Data] {
			return i
		}
		if stop[n.Data] || n.Data == "table" || n.Data == "template" || n.Data == "body" {
			return -1
		}
	}
	return -1
}

// end closes the nearest open element of an end tag's name.
func (tt *tokenTree) end(name string) {
	switch name {
	case "html", "body":
		return
	case "head":
		if tt.cur() == tt.head {
			tt.stack = tt.stack[:len(tt.stack)-1]
		}
		return
	case "br":
		tt.start("br", nil, false)
		return
	}
	for i := len(tt.stack) - 1; i > 0; i-- {
		n := tt.stack[i]
		if n.Data == name {
			tt.stack = tt.stack[:i]
			return
		}
		if n.Namespace == "" && scopeEdge[n.Data] {
			return
		}
	}
}

// emitText writes the visible text of the body, element by element, keeping the open
// elements on a stack of its own.
func emitText(root, body *html.Node, ps *pageStyle, slots map[*html.Node]slotted, b *spaceFolder) {
	type open struct {
		el     *html.Node
		cur    flatCursor
		st     computed
		text   bool
		brk    bool
		sup    bool
		sub    bool
		from   mark
		closeQ string
	}
	var outer, top computed
	top = rootStyle()
	ps.enter(root, &top, ps.doc, &outer)
	stack := make([]open, 1, 64)
	ps.ancestors.push(root)
	ps.enter(body, &outer, ps.doc, &stack[0].st)
	if stack[0].st.allGone() {
		return
	}
	ps.ancestors.push(body)
	stack[0].el = body
	stack[0].cur, stack[0].text = ps.open(body, ps.doc, slots), stack[0].st.textSeen()
	depthQ := 0
	for len(stack) > 0 {
		o := &stack[len(stack)-1]
		n := o.cur.pop()
		if n == nil {
			if o.sup || o.sub {
				b.script(o.from, o.sup)
			}
			if o.closeQ != "" {
				foldInto(b, o.closeQ)
				depthQ--
			}
			if o.brk {
				b.brk()
			}
			ps.ancestors.pop(o.el)
			stack = stack[:len(stack)-1]
			continue
		}
		if n.Type == html.TextNode {
			if o.text {
				foldInto(b, n.Data)
			}
			continue
		}
		if n.Type != html.ElementNode || dropped(n) {
			continue
		}
		from := o.cur.set
		stack = append(stack, open{})
		o, child := &stack[len(stack)-2], &stack[len(stack)-1]
		ps.enter(n, &o.st, from, &child.st)
		if child.st.allGone() {
			stack = stack[:len(stack)-1]
			continue
		}
		child.cur, child.text, child.el = ps.open(n, from, slots), child.st.textSeen(), n
		ps.ancestors.push(n)
		html5 := n.Namespace == ""
		if html5 && blockElements[n.Data] {
			child.brk = true
			b.brk()
		}
		if !html5 {
			continue
		}
		switch n.Data {
		case "sup", "sub":
			child.sup, child.sub, child.from = n.Data == "sup", n.Data == "sub", b.mark()
		case "q":
			if child.text {
				openQ, closeQ := quoteMarks(depthQ)
				foldInto(b, openQ)
				child.closeQ = closeQ
				depthQ++
			}
		}
	}
}
