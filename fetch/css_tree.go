package fetch

import (
	"bytes"
	"mime"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// Sheet is a style sheet a page links or imports, as the fetcher fetched it for the page
// ([Result.Sheets]).
type Sheet struct {
	URL         string // the address asked for, resolved, without fragment
	FinalURL    string // after redirects
	Hops        []Hop  // every request made for it
	ContentType string
	Body        []byte
	Truncated   bool // cut at MaxSheetBytes
	// Capped: not fetched, because the page links and imports more than MaxSheets sheets.
	Capped bool
	// Err is why the sheet was not fetched or cannot be used (robots.txt, the address
	// guard, a status, a type that is not CSS); such a sheet is not applied.
	Err error
}

// sheetText returns a sheet's text as UTF-8: a byte-order mark, then the Content-Type
// charset, then an @charset rule decide; otherwise UTF-8 (CSS Syntax §3.2).
func sheetText(sh *Sheet) []byte {
	b := sh.Body
	switch {
	case bytes.HasPrefix(b, []byte("\xef\xbb\xbf")):
		return bytes.ToValidUTF8(b[3:], []byte("\ufffd"))
	case bytes.HasPrefix(b, []byte("\xfe\xff")), bytes.HasPrefix(b, []byte("\xff\xfe")):
		if out, err := decode(b, ""); err == nil {
			return out
		}
		return nil
	}
	label := ""
	if _, params, err := mime.ParseMediaType(sh.ContentType); err == nil {
		label = params["charset"]
	}
	if label == "" && bytes.HasPrefix(b, []byte(`@charset "`)) {
		if end := bytes.IndexByte(b[10:], '"'); end > 0 {
			label = string(b[10 : 10+end])
		}
	}
	if label != "" && !isASCII(b) && !utf8.Valid(b) {
		if enc, name := charset.Lookup(label); enc != nil && name != "utf-8" {
			if out, err := enc.NewDecoder().Bytes(b); err == nil {
				return out
			}
		}
	}
	return bytes.ToValidUTF8(b, []byte("\ufffd"))
}

// linkedSheet reads a <link> element's attributes: the address of the style sheet it
// applies and its media list; ok is false when it applies none. rel must name stylesheet
// (not an alternate one) and the link must not be disabled. Two script-driven patterns
// of loading CSS late are read as a browser with scripts ends up with them: a sheet with
// media="print" whose onload sets its media, and a preloaded style sheet whose onload makes
// it a stylesheet.
func linkedSheet(attrs []html.Attribute) (href, media string, ok bool) {
	var rel, as, onload, typ string
	disabled, hasType := false, false
	for _, a := range attrs {
		if a.Namespace != "" {
			continue
		}
		switch a.Key {
		case "rel":
			rel = strings.ToLower(a.Val)
		case "href":
			href = a.Val
		case "media":
			media = a.Val
		case "as":
			as = strings.ToLower(strings.TrimSpace(a.Val))
		case "onload":
			onload = a.Val
		case "disabled":
			disabled = true
		case "type":
			typ, hasType = strings.ToLower(strings.TrimSpace(a.Val)), true
		}
	}
	sheet, alternate, preload := false, false, false
	for _, r := range strings.Fields(rel) {
		switch r {
		case "stylesheet":
			sheet = true
		case "alternate":
			alternate = true
		case "preload":
			preload = true
		}
	}
	if preload && as == "style" && strings.Contains(onload, "stylesheet") {
		sheet = true
	}
	if strings.Contains(onload, "media") {
		media = ""
	}
	if !sheet || alternate || disabled || strings.TrimSpace(href) == "" || hasType && typ != "" && typ != "text/css" {
		return "", "", false
	}
	return href, media, true
}

// styleElement reports whether a <style> element's type is CSS, and its media list.
func styleElement(attrs []html.Attribute) (media string, ok bool) {
	ok = true
	for _, a := range attrs {
		switch {
		case a.Namespace != "":
		case a.Key == "type":
			t := strings.ToLower(strings.TrimSpace(a.Val))
			ok = t == "" || t == "text/css"
		case a.Key == "media":
			media = a.Val
		}
	}
	return media, ok
}

// documentBase returns the URL relative addresses of a page resolve against: its first
// <base href>, resolved against the page's own URL. It is nil for a page with no URL.
func documentBase(pageURL string, baseHref string, hasBase bool) *url.URL {
	u, err := url.Parse(pageURL)
	if err != nil || pageURL == "" {
		return nil
	}
	if hasBase {
		if b, err := u.Parse(strings.TrimSpace(baseHref)); err == nil {
			return b
		}
	}
	return u
}

// shadowHosts are the elements a declarative shadow root may be attached to, besides
// custom elements (DOM §4.2.14).
var shadowHosts = map[string]bool{
	"article": true, "aside": true, "blockquote": true, "body": true, "div": true,
	"footer": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"header": true, "main": true, "nav": true, "p": true, "section": true, "span": true,
}

// shadowRoot is a declarative shadow root: a <template shadowrootmode> taken out of its
// host, whose children a browser draws instead of the host's.
type shadowRoot struct {
	root   *html.Node // a document node holding the shadow tree
	styles *styleSet
}

// slotted is what a <slot> draws: the host's children assigned to it, styled by the sheets
// of the host's tree.
type slotted struct {
	nodes []*html.Node
	set   *styleSet
}

// attachShadowRoots takes each declarative shadow root (<template shadowrootmode="open"
// or "closed">, or the older shadowroot attribute) out of its host, as an HTML parser does,
// and returns them by host. A host takes its first such template; a template elsewhere is
// an ordinary template, whose content is not drawn.
func attachShadowRoots(root *html.Node) map[*html.Node]*shadowRoot {
	out := map[*html.Node]*shadowRoot{}
	stack := []*html.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Type == html.ElementNode && n.Namespace == "" && (shadowHosts[n.Data] || strings.Contains(n.Data, "-")) {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if !isShadowTemplate(c) {
					continue
				}
				sr := &html.Node{Type: html.DocumentNode}
				for c.FirstChild != nil {
					k := c.FirstChild
					c.RemoveChild(k)
					sr.AppendChild(k)
				}
				n.RemoveChild(c)
				out[n] = &shadowRoot{root: sr}
				stack = append(stack, sr)
				break
			}
		}
		if n.Type == html.ElementNode && n.Data == "template" && n.Namespace == "" {
			continue
		}
		for c := n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, c)
		}
	}
	return out
}

func isShadowTemplate(n *html.Node) bool {
	if n.Type != html.ElementNode || n.Data != "template" || n.Namespace != "" {
		return false
	}
	for _, a := range n.Attr {
		if (a.Key == "shadowrootmode" || a.Key == "shadowroot") && a.Namespace == "" {
			m := strings.ToLower(strings.TrimSpace(a.Val))
			return m == "open" || m == "closed"
		}
	}
	return false
}

// newPageStyle reads the CSS of a page's tree: the style sheets of the document (its
// <style> elements and the <link>ed sheets found in linked) and of each shadow root, in
// tree order, and its style attributes. pageURL is the page's final URL, for the
// addresses of links and imports; linked may be nil (a page read alone).
func newPageStyle(root *html.Node, pageURL string, linked []Sheet) (*pageStyle, map[*html.Node]slotted) {
	pg := newCSSPage()
	ps := &pageStyle{page: pg, shadows: attachShadowRoots(root), inline: map[string]*ruleBody{}, lexed: map[string][]cssToken{}}
	byURL := map[string]*Sheet{}
	for i := range linked {
		if _, dup := byURL[linked[i].URL]; !dup {
			byURL[linked[i].URL] = &linked[i]
		}
	}
	lookup := func(u string) *Sheet { return byURL[u] }
	baseHref, hasBase := firstBase(root)
	base := documentBase(pageURL, baseHref, hasBase)
	slots := map[*html.Node]slotted{}
	ps.doc = ps.readTree(root, base, lookup)
	// The hosts of the document tree, then those of each shadow tree, with the sheets of the
	// tree each host is in.
	type hostIn struct {
		host *html.Node
		set  *styleSet
	}
	var trees []hostIn
	hostsIn := func(tree *html.Node, set *styleSet) {
		eachElement(tree, func(n *html.Node) {
			if _, ok := ps.shadows[n]; ok {
				trees = append(trees, hostIn{n, set})
			}
		})
	}
	hostsIn(root, ps.doc)
	for i := 0; i < len(trees); i++ {
		sr := ps.shadows[trees[i].host]
		sr.styles = ps.readTree(sr.root, base, lookup)
		assignSlots(trees[i].host, sr, trees[i].set, slots)
		hostsIn(sr.root, sr.styles)
	}
	return ps, slots
}

// firstBase returns the href of the document's first <base> element that has one.
func firstBase(root *html.Node) (string, bool) {
	var href string
	found := false
	eachElement(root, func(n *html.Node) {
		if !found && n.Data == "base" && n.Namespace == "" {
			href, found = attrVal(n, "href")
		}
	})
	return href, found
}

// eachElement calls fn on every element of a tree in tree order, without entering
// template contents.
func eachElement(root *html.Node, fn func(*html.Node)) {
	stack := []*html.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Type == html.ElementNode {
			fn(n)
			if n.Data == "template" && n.Namespace == "" {
				continue
			}
		}
		for c := n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, c)
		}
	}
}

// readTree compiles the style sheets of one tree, in tree order, and parses its style
// attributes.
func (ps *pageStyle) readTree(root *html.Node, base *url.URL, lookup func(string) *Sheet) *styleSet {
	set := newStyleSet(ps.page)
	eachElement(root, func(n *html.Node) {
		for _, a := range n.Attr {
			if a.Key == "style" && a.Namespace == "" {
				ps.inlineStyle(a.Val)
				break
			}
		}
		switch {
		case n.Data == "style" && (n.Namespace == "" || n.Namespace == "svg"):
			media, ok := styleElement(n.Attr)
			if !ok {
				return
			}
			var text []byte
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode {
					text = append(text, c.Data...)
				}
			}
			set.add(sheetSource{text: text, base: base, mask: evalMediaList(lexTokens(media)), imports: lookup})
		case n.Data == "link" && n.Namespace == "":
			href, media, ok := linkedSheet(n.Attr)
			if !ok {
				return
			}
			ps.page.wants = true
			if base == nil {
				return
			}
			u, ok := sheetURL(base, href)
			if !ok {
				return
			}
			sh := lookup(u)
			switch {
			case sh == nil:
				return
			case sh.Err != nil:
				ps.page.missed(sh)
				return
			case sh.Capped:
				ps.page.exceed("the page links more than " + strconv.Itoa(MaxSheets) + " style sheets; the rest were not applied")
				return
			case sh.Truncated:
				ps.page.exceed("the style sheet " + sh.URL + " is longer than " + strconv.Itoa(MaxSheetBytes) + " bytes and was cut")
			}
			sbase, err := url.Parse(sh.FinalURL)
			if err != nil || sh.FinalURL == "" {
				sbase = base
			}
			set.add(sheetSource{text: sheetText(sh), base: sbase, mask: evalMediaList(lexTokens(media)), imports: lookup})
		}
	})
	return set
}

// assignSlots assigns a host's children to the slots of its shadow tree (DOM §4.2.2.3): an
// element with a slot attribute to the first slot of that name, any other element and text
// to the first slot without a name.
func assignSlots(host *html.Node, sr *shadowRoot, hostSet *styleSet, out map[*html.Node]slotted) {
	first := map[string]*html.Node{}
	eachElement(sr.root, func(n *html.Node) {
		if n.Data == "slot" && n.Namespace == "" {
			name, _ := attrVal(n, "name")
			if _, ok := first[name]; !ok {
				first[name] = n
			}
		}
	})
	if len(first) == 0 {
		return
	}
	for c := host.FirstChild; c != nil; c = c.NextSibling {
		name := ""
		switch c.Type {
		case html.ElementNode:
			name, _ = attrVal(c, "slot")
		case html.TextNode:
		default:
			continue
		}
		if s, ok := first[name]; ok {
			e := out[s]
			e.nodes, e.set = append(e.nodes, c), hostSet
			out[s] = e
		}
	}
}

// flatCursor walks the children of one element in the flat tree: what a browser draws
// inside it.
type flatCursor struct {
	next *html.Node   // the next child, in a plain list of children
	list []*html.Node // or the rest of a slot's assigned nodes
	set  *styleSet    // the sheets the children are styled with
}

// open returns the cursor over n's children in the flat tree: a host draws its shadow
// tree, a slot the host children assigned to it (or its own children when none are), any
// other element its children.
func (ps *pageStyle) open(n *html.Node, set *styleSet, slots map[*html.Node]slotted) flatCursor {
	if n.Type == html.ElementNode && n.Data == "details" && n.Namespace == "" && !hasAttr(n, "open") {
		// A closed <details> draws its first <summary> only.
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.Data == "summary" && c.Namespace == "" {
				return flatCursor{list: []*html.Node{c}, set: set}
			}
		}
		return flatCursor{set: set}
	}
	if sr, ok := ps.shadows[n]; ok {
		return flatCursor{next: sr.root.FirstChild, set: sr.styles}
	}
	if s, ok := slots[n]; ok && len(s.nodes) > 0 {
		return flatCursor{list: s.nodes, set: s.set}
	}
	return flatCursor{next: n.FirstChild, set: set}
}

// pop returns the next child, or nil at the end.
func (c *flatCursor) pop() *html.Node {
	if len(c.list) > 0 {
		n := c.list[0]
		c.list = c.list[1:]
		return n
	}
	n := c.next
	if n != nil {
		c.next = n.NextSibling
	}
	return n
}
