// The computed style of each element, in one file: the cascade (origin, importance, layer,
// specificity, order), inheritance and the derived facts (displayed, seen, clipped) that
// say whether an element's text is visible. Each step reads the previous one's output.

package fetch

import (
	"strings"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/css"
	"golang.org/x/net/html"
)

// What makes text unseen, in CSS pixels and shares (docs/fetch.md, "Style sheets").
const (
	// minFontPx: text in a smaller font cannot be read.
	minFontPx = 3
	// offPagePx: an offset or indent this far to the left or top moves a box off the page.
	offPagePx = 2000
	// tinyBoxPx: a box this narrow or low that clips what overflows shows nothing.
	tinyBoxPx = 1
	// nearColor: text whose colour, blended by its alpha and opacity, is this close to its
	// background on every channel (0..1) is not seen; opacity at or under it hides all.
	nearColor = 10.0 / 255
)

// displayKind is what a computed display makes of an element's box.
type displayKind uint8

const (
	displayInline   displayKind = iota // an inline box: width, height, overflow and transforms do not apply
	displayNone                        // no box, nothing inside is drawn
	displayContents                    // no box of its own; its children are drawn
	displayBlock                       // a block container (block, list-item, flow-root, table-cell, inline-block, ...)
	displayFlex                        // a flex or grid container: its children are blockified
	displayOther                       // table parts and the like: a box that does not clip its content
)

// vstyle is an element's style in one viewport, as far as it bears on what is seen.
type vstyle struct {
	vderived
	// toks are the computed values of the properties, for what is derived and for a
	// child's inherit keyword.
	toks [numProps][]cssToken
}

// vderived is what is derived from an element's computed values in one viewport.
type vderived struct {
	gone        bool // nothing in the element is seen
	contentGone bool // content-visibility: hidden: nothing inside is seen
	hiddenVis   bool // visibility: hidden or collapse
	fontPx      float64
	color       rgba
	colorKnown  bool
	fill        rgba // -webkit-text-fill-color when it is not currentcolor
	fillSet     bool
	fillKnown   bool
	bg          rgba // the opaque colour behind the element's text
	bgKnown     bool // false over an image or a colour that cannot be read
	opacity     float64
	indentVal   bool // the computed text-indent moves a line off the page
	indentOff   bool // the first line of the nearest block container is off the page
	shadow      bool // text-shadow other than none
	stroke      bool // -webkit-text-stroke-width above 0
	clipText    bool // an ancestor paints its background through its text
	display     displayKind
	position    string
}

// computed is an element's style in every viewport.
type computed struct {
	v    [numViewports]vstyle
	vars [numViewports]map[string][]cssToken // custom properties, when the page uses var()
}

// rootStyle is the style above the root element: the initial values, on a white canvas.
func rootStyle() computed {
	var c computed
	for i := range c.v {
		c.v[i].vderived = vderived{fontPx: 16, color: black, colorKnown: true, bg: white, bgKnown: true, opacity: 1, display: displayBlock}
	}
	return c
}

// textSeen reports whether text directly inside an element with this style is seen in
// some viewport.
func (c *computed) textSeen() bool {
	for i := range c.v {
		if c.v[i].textSeen() {
			return true
		}
	}
	return false
}

// allGone reports whether nothing inside an element with this style is seen in any
// viewport, so that its subtree need not be read.
func (c *computed) allGone() bool {
	for i := range c.v {
		if !c.v[i].gone && !c.v[i].contentGone {
			return false
		}
	}
	return true
}

func (v *vstyle) textSeen() bool {
	if v.gone || v.contentGone || v.hiddenVis || v.fontPx < minFontPx || v.indentOff {
		return false
	}
	if v.shadow || v.stroke || v.clipText {
		return true
	}
	fg, known := v.color, v.colorKnown
	if v.fillSet {
		fg, known = v.fill, v.fillKnown
	}
	if !known {
		return true
	}
	alpha := fg.a * v.opacity
	if !v.bgKnown {
		return alpha > nearColor
	}
	seen := rgba{fg.r, fg.g, fg.b, alpha}.over(v.bg)
	return seen.distance(v.bg) > nearColor
}

// winner is the declaration that won the cascade for one property, and its priority.
type winner struct {
	prio uint64
	d    *cssDecl
}

// Priorities in the cascade (CSS Cascade 5 §6): origin and importance, then whether the
// declaration is in a style attribute, then its layer, its specificity and its order.
func prio(important, inline bool, layer int, spec, order uint32) uint64 {
	tier := uint64(1)
	lb := uint64(0xFFFF) // unlayered normal declarations beat layered ones
	if important {
		tier, lb = 2, 0 // and important layered ones beat unlayered, earlier layers first
	}
	if layer >= 0 {
		r := uint64(min(layer, 0xFFFD))
		if important {
			lb = 0xFFFE - r
		} else {
			lb = r + 1
		}
	}
	p := tier<<62 | lb<<45 | uint64(spec&0xFFFFFF)<<21 | uint64(min(order, 1<<21-1))
	if inline {
		p |= 1 << 61
	}
	return p
}

// pageStyle is the CSS of one page: its document's style sheets and those of its shadow
// roots, with the parsed style attributes.
type pageStyle struct {
	doc     *styleSet
	page    *cssPage
	shadows map[*html.Node]*shadowRoot
	inline  map[string]*ruleBody
	lexed   map[string][]cssToken
	matched []*selRule
	// ancestors counts the elements open on the walk's path; the walkers push and pop.
	ancestors ancestorFilter
}

// enter computes the style of element n, whose parent in the flat tree has style parent,
// into out; set is the style sheets of n's tree.
func (ps *pageStyle) enter(n *html.Node, parent *computed, set *styleSet, out *computed) {
	var win [numViewports][numProps]winner
	ps.matched = ps.matched[:0]
	ps.match(n, set)
	for _, r := range ps.matched {
		for i := range r.body.decls {
			d := &r.body.decls[i]
			p := prio(d.important, false, r.layer, r.spec, r.order)
			for vp := range numViewports {
				// >=: of two declarations in one rule, the later wins (no two rules tie).
				if r.mask&(1<<vp) != 0 && p >= win[vp][d.prop].prio {
					win[vp][d.prop] = winner{p, d}
				}
			}
		}
	}
	var inl *ruleBody
	for _, a := range n.Attr {
		if a.Key == "style" && a.Namespace == "" {
			inl = ps.inlineStyle(a.Val)
			for i := range inl.decls {
				d := &inl.decls[i]
				p := prio(d.important, true, -1, 0xFFFFFF, 0)
				for vp := range numViewports {
					if p >= win[vp][d.prop].prio {
						win[vp][d.prop] = winner{p, d}
					}
				}
			}
			break
		}
	}
	for vp := range numViewports {
		out.vars[vp] = parent.vars[vp]
	}
	if ps.page.usesVars {
		ps.customProps(n, inl, parent, out)
	}
	for vp := range numViewports {
		ps.compute(n, &win[vp], &parent.v[vp], &out.v[vp], out.vars[vp], viewports[vp])
	}
}

// match collects the rules of set whose selectors match n, from the buckets n can be in.
func (ps *pageStyle) match(n *html.Node, set *styleSet) {
	try := func(rules []*selRule) {
		for _, r := range rules {
			if ps.ancestors.mayMatch(r) && r.sel.Match(n) {
				ps.matched = append(ps.matched, r)
			}
		}
	}
	for _, a := range n.Attr {
		if a.Namespace != "" {
			continue
		}
		switch a.Key {
		case "id":
			try(set.byID[a.Val])
		case "class":
			classes := strings.Fields(a.Val)
			for i, c := range classes {
				dup := false
				for _, d := range classes[:i] {
					dup = dup || d == c
				}
				if !dup {
					try(set.byClass[c])
				}
			}
		}
		if rules, ok := set.byAttr[a.Key]; ok {
			try(rules)
		}
	}
	try(set.byTag[n.Data])
	try(set.any)
}

// inlineStyle parses a style attribute, once per distinct value on a page.
func (ps *pageStyle) inlineStyle(s string) *ruleBody {
	if b, ok := ps.inline[s]; ok {
		return b
	}
	b := &ruleBody{}
	// Rules nested in a style attribute are not CSS: they go to a set that is dropped.
	scratch := newStyleSet(ps.page)
	text := []byte(s)
	p := &sheetParser{l: css.NewLexer(parse.NewInputBytes(text[:len(text):len(text)])), s: scratch}
	p.blockContents(scope{mask: allViewports}, b)
	ps.inline[s] = b
	return b
}

// customProps computes n's custom properties: its parent's, with those its rules and
// style attribute declare, var() in them substituted.
func (ps *pageStyle) customProps(n *html.Node, inl *ruleBody, parent *computed, out *computed) {
	type cw struct {
		prio uint64
		raw  string
	}
	var win [numViewports]map[string]cw
	add := func(vars []customDecl, inline bool, layer int, spec, order uint32, mask uint8) {
		for _, d := range vars {
			if !ps.page.refs[d.name] {
				continue // never read
			}
			p := prio(d.important, inline, layer, spec, order)
			for vp := range numViewports {
				if mask&(1<<vp) == 0 {
					continue
				}
				if win[vp] == nil {
					win[vp] = map[string]cw{}
				}
				if w, ok := win[vp][d.name]; !ok || p >= w.prio {
					win[vp][d.name] = cw{p, d.raw}
				}
			}
		}
	}
	for _, r := range ps.matched {
		add(r.body.vars, false, r.layer, r.spec, r.order, r.mask)
	}
	if inl != nil {
		add(inl.vars, true, -1, 0xFFFFFF, 0, allViewports)
	}
	for vp := range numViewports {
		if len(win[vp]) == 0 {
			continue
		}
		m := make(map[string][]cssToken, len(parent.vars[vp])+len(win[vp]))
		for k, v := range parent.vars[vp] {
			m[k] = v
		}
		raw := map[string]string{}
		for k, w := range win[vp] {
			raw[k] = w.raw
		}
		for k := range raw {
			v, ok := ps.resolveCustom(k, raw, m, 0)
			if ok {
				m[k] = v
			} else {
				delete(m, k)
			}
		}
		out.vars[vp] = m
	}
}

// maxVarDepth bounds the chain of custom properties one var() may go through.
const maxVarDepth = 16

// resolveCustom substitutes the var() of the custom property k declared on the element
// (raw), against the element's other declarations and what it inherits (m).
func (ps *pageStyle) resolveCustom(k string, raw map[string]string, m map[string][]cssToken, depth int) ([]cssToken, bool) {
	if depth > maxVarDepth {
		return nil, false
	}
	r, ok := raw[k]
	if !ok {
		v, ok := m[k]
		return v, ok
	}
	toks := ps.lex(r)
	if !hasVar(toks) {
		return toks, true
	}
	return ps.substitute(toks, func(name string) ([]cssToken, bool) {
		if name == k {
			return nil, false // a cycle
		}
		if _, declared := raw[name]; declared {
			return ps.resolveCustom(name, raw, m, depth+1)
		}
		v, ok := m[name]
		return v, ok
	}, 0)
}

func (ps *pageStyle) lex(s string) []cssToken {
	if v, ok := ps.lexed[s]; ok {
		return v
	}
	v := lexTokens(s)
	ps.lexed[s] = v
	return v
}

// substitute replaces each var(--name, fallback) in toks; ok is false when a var() has
// no value and no fallback (the declaration is then invalid at computed-value time).
func (ps *pageStyle) substitute(toks []cssToken, lookup func(string) ([]cssToken, bool), depth int) ([]cssToken, bool) {
	if depth > maxVarDepth {
		return nil, false
	}
	out := make([]cssToken, 0, len(toks))
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tokFunction || (t.text != "var" && t.text != "env" && t.text != "attr") {
			out = append(out, t)
			continue
		}
		end := closeOf(toks, i)
		args := toks[i+1 : min(end, len(toks))]
		i = end
		if t.text != "var" || len(args) == 0 || args[0].kind != tokIdent || !strings.HasPrefix(args[0].text, "--") {
			if j := commaIndex(args); j >= 0 {
				fb, ok := ps.substitute(args[j+1:], lookup, depth+1)
				if !ok {
					return nil, false
				}
				out = append(out, fb...)
				continue
			}
			return nil, false
		}
		if v, ok := lookup(args[0].text); ok {
			out = append(out, v...)
			continue
		}
		j := commaIndex(args)
		if j < 0 {
			return nil, false
		}
		fb, ok := ps.substitute(args[j+1:], lookup, depth+1)
		if !ok {
			return nil, false
		}
		out = append(out, fb...)
	}
	return out, true
}

// commaIndex returns the index of the first top-level comma, or -1.
func commaIndex(toks []cssToken) int {
	depth := 0
	for i, t := range toks {
		switch t.kind {
		case tokFunction:
			depth++
		case tokClose:
			depth--
		case tokComma:
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// values writes the computed tokens of each property for one viewport into vals: the winning
// declaration with its var() substituted and its shorthand expanded, the CSS-wide
// keywords resolved; nil for a property at its initial value. inherit of an inherited
// property is reported as inherit (the caller takes the parent's computed value).
func (ps *pageStyle) values(win *[numProps]winner, pv *vstyle, vars map[string][]cssToken, vals *[numProps][]cssToken) (inherit [numProps]bool) {
	var expanded map[*cssDecl]map[cssProp][]cssToken
	for p := range numProps {
		vals[p] = nil
		w := win[p]
		if w.d == nil {
			inherit[p] = inheritedProps[p]
			continue
		}
		toks := w.d.toks
		if w.d.short != shortNone || hasVar(toks) {
			sub, ok := ps.substitute(toks, func(name string) ([]cssToken, bool) {
				v, ok := vars[name]
				return v, ok
			}, 0)
			if !ok {
				// Invalid at computed-value time: unset.
				inherit[p] = inheritedProps[p]
				continue
			}
			toks = sub
			if w.d.short != shortNone {
				e, ok := expanded[w.d]
				if !ok {
					e = expandShorthand(w.d.short, toks)
					if expanded == nil {
						expanded = map[*cssDecl]map[cssProp][]cssToken{}
					}
					expanded[w.d] = e
				}
				toks = e[cssProp(p)]
				if toks == nil {
					inherit[p] = inheritedProps[p]
					continue
				}
			}
		}
		if len(toks) == 1 && isWideKeyword(toks[0]) {
			switch toks[0].text {
			case "inherit":
				inherit[p] = true
				if !inheritedProps[p] {
					vals[p] = pv.toks[p]
					inherit[p] = false
				}
			case "unset", "revert", "revert-layer":
				inherit[p] = inheritedProps[p]
			}
			continue
		}
		vals[p] = toks
	}
	return inherit
}

// compute derives n's style in one viewport from the winning declarations and its
// parent's style.
func (ps *pageStyle) compute(n *html.Node, win *[numProps]winner, pv *vstyle, out *vstyle, vars map[string][]cssToken, vp viewport) {
	vals := &out.toks
	inherit := ps.values(win, pv, vars, vals)
	out.vderived = vderived{}
	ident := func(p cssProp) string {
		if t := vals[p]; len(t) == 1 && t[0].kind == tokIdent {
			return t[0].text
		}
		return ""
	}

	// Inherited values.
	out.fontPx = pv.fontPx
	if !inherit[propFontSize] {
		if px, ok := fontSize(vals[propFontSize], pv.fontPx, vp); ok {
			out.fontPx = px
		}
	}
	lc := lengthCtx{fontPx: out.fontPx, vp: vp}
	// The root and the body are never hidden: a page that hides them (frame-busting styles,
	// fade-ins) is shown by its scripts.
	rootOrBody := isRootOrBody(n)
	out.hiddenVis = pv.hiddenVis
	if !inherit[propVisibility] && !rootOrBody {
		switch ident(propVisibility) {
		case "hidden", "collapse":
			out.hiddenVis = true
		case "visible":
			out.hiddenVis = false
		}
	}
	out.color, out.colorKnown = pv.color, pv.colorKnown
	if !inherit[propColor] && vals[propColor] != nil {
		switch c, k := colorValue(vals[propColor]); k {
		case colorKnown:
			out.color, out.colorKnown = c, true
		case colorCurrent:
		default:
			if !isIdentList(vals[propColor]) {
				out.colorKnown = false // a colour function that is not read (lab(), color-mix())
			}
		}
	}
	out.fill, out.fillSet, out.fillKnown = pv.fill, pv.fillSet, pv.fillKnown
	if !inherit[propTextFill] && vals[propTextFill] != nil {
		switch c, k := colorValue(vals[propTextFill]); k {
		case colorKnown:
			out.fill, out.fillSet, out.fillKnown = c, true, true
		case colorCurrent:
			out.fillSet = false
		default:
			out.fillSet, out.fillKnown = true, false
		}
	}
	out.indentVal = pv.indentVal
	if !inherit[propTextIndent] && vals[propTextIndent] != nil {
		out.indentVal = offPage(vals[propTextIndent], lc)
	}
	out.shadow = pv.shadow
	if !inherit[propTextShadow] && vals[propTextShadow] != nil {
		out.shadow = ident(propTextShadow) != "none"
	}
	out.stroke = pv.stroke
	if !inherit[propTextStroke] && vals[propTextStroke] != nil {
		w, k := length(vals[propTextStroke], lc)
		out.stroke = k == lenPx && w > 0 || ident(propTextStroke) == "thin" || ident(propTextStroke) == "medium" || ident(propTextStroke) == "thick"
	}

	// The box.
	out.position = ident(propPosition)
	disp := uaDisplay(n)
	if vals[propDisplay] != nil {
		if d, ok := displayOf(vals[propDisplay]); ok {
			disp = d
		}
	}
	floated := vals[propFloat] != nil && ident(propFloat) != "none"
	if disp == displayInline && (out.position == "absolute" || out.position == "fixed" || floated || pv.display == displayFlex) {
		disp = displayBlock // blockified
	}
	if rootOrBody && (disp == displayNone || disp == displayContents) {
		disp = displayBlock
	}
	out.display = disp
	out.gone = pv.gone || pv.contentGone || disp == displayNone
	out.opacity = pv.opacity
	out.clipText = pv.clipText
	out.bg, out.bgKnown = pv.bg, pv.bgKnown
	if out.gone || disp == displayContents {
		if disp == displayContents {
			out.indentOff = pv.indentOff
		}
		return
	}
	if !rootOrBody {
		if op, ok := number(vals[propOpacity]); ok && vals[propOpacity] != nil {
			out.opacity *= clamp01(op)
		}
		out.opacity *= filterOpacity(vals[propFilter])
		switch ident(propContentVisibility) {
		case "hidden":
			out.contentGone = true
		case "":
			// The browser's own sheet: [hidden=until-found] { content-visibility: hidden }.
			if v, ok := attrVal(n, "hidden"); ok && n.Namespace == "" && strings.EqualFold(strings.TrimSpace(v), "until-found") {
				out.contentGone = true
			}
		}
	}
	// The background behind the text.
	if img := vals[propBackgroundImage]; img != nil && !(len(img) == 1 && img[0].kind == tokIdent && img[0].text == "none") {
		out.bgKnown = false
	} else if c, k := colorValue(vals[propBackgroundColor]); vals[propBackgroundColor] != nil {
		switch {
		case k == colorCurrent:
			c, k = out.color, colorKnown
			if !out.colorKnown {
				k = 0
			}
			fallthrough
		case k == colorKnown:
			switch {
			case c.a == 0:
			case out.bgKnown:
				out.bg = c.over(out.bg)
			case c.a == 1:
				out.bg, out.bgKnown = c, true
			}
		default:
			out.bgKnown = false
		}
	}
	if bc := vals[propBackgroundClip]; bc != nil {
		for _, t := range bc {
			if t.kind == tokIdent && t.text == "text" {
				out.clipText = true
			}
		}
	}
	if disp == displayBlock || disp == displayFlex {
		out.indentOff = out.indentVal
	} else {
		out.indentOff = pv.indentOff
	}
	if out.opacity <= nearColor || !rootOrBody && boxHidden(vals, out, disp, lc) {
		out.gone = true
	}
}

// isRootOrBody reports the root <html> element and its <body>.
func isRootOrBody(n *html.Node) bool {
	if n.Namespace != "" || n.Parent == nil {
		return false
	}
	switch n.Data {
	case "html":
		return n.Parent.Type == html.DocumentNode
	case "body":
		return n.Parent.Data == "html" && n.Parent.Parent != nil && n.Parent.Parent.Type == html.DocumentNode
	}
	return false
}

// isIdentList reports a value made of identifiers only (an unknown colour keyword, which
// makes the declaration invalid rather than the colour unknown).
func isIdentList(toks []cssToken) bool {
	for _, t := range toks {
		if t.kind != tokIdent {
			return false
		}
	}
	return true
}

// displayOf reads a display value; ok is false when it cannot be read.
func displayOf(toks []cssToken) (displayKind, bool) {
	if len(toks) == 0 || len(toks) > 3 {
		return 0, false
	}
	inline, flex, other, block := false, false, false, false
	for _, t := range toks {
		if t.kind != tokIdent {
			return 0, false
		}
		switch t.text {
		case "none":
			return displayNone, len(toks) == 1
		case "contents":
			return displayContents, len(toks) == 1
		case "inline":
			inline = true
		case "block", "list-item", "flow-root", "flow", "run-in", "-webkit-box", "-moz-box", "table-cell", "table-caption":
			block = true
		case "inline-block", "inline-list-item", "-webkit-inline-box":
			block = true
		case "flex", "grid", "inline-flex", "inline-grid", "-webkit-flex", "-webkit-inline-flex", "-ms-flexbox", "-ms-grid", "-ms-inline-flexbox":
			flex = true
		case "table", "inline-table", "table-row", "table-row-group", "table-header-group",
			"table-footer-group", "table-column", "table-column-group", "ruby", "ruby-base",
			"ruby-text", "ruby-base-container", "ruby-text-container", "math", "inline-math", "block-math":
			other = true
		default:
			return 0, false
		}
	}
	switch {
	case flex:
		return displayFlex, true
	case other:
		if inline && len(toks) == 1 {
			return displayInline, true
		}
		return displayOther, true
	case block:
		return displayBlock, true
	}
	return displayInline, true // inline, or inline flow
}

// uaDisplay is the display the browser's own style sheet gives an element (HTML §15).
func uaDisplay(n *html.Node) displayKind {
	if n.Namespace != "" {
		return displayInline
	}
	hidden, untilFound := false, false
	for _, a := range n.Attr {
		if a.Key == "hidden" && a.Namespace == "" {
			hidden = true
			untilFound = strings.EqualFold(strings.TrimSpace(a.Val), "until-found")
		}
	}
	if hidden && !untilFound {
		return displayNone
	}
	switch n.Data {
	case "address", "article", "aside", "blockquote", "body", "center", "dd", "details", "dir",
		"div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3",
		"h4", "h5", "h6", "header", "hgroup", "hr", "html", "legend", "listing", "main", "menu",
		"nav", "ol", "optgroup", "p", "plaintext", "pre", "search", "section", "summary", "ul",
		"xmp", "li", "td", "th", "caption", "button", "frameset", "frame":
		return displayBlock
	case "dialog":
		if !hasAttr(n, "open") {
			return displayNone
		}
		return displayBlock
	case "table", "tr", "thead", "tbody", "tfoot", "col", "colgroup", "ruby", "rt":
		return displayOther
	case "area", "base", "basefont", "datalist", "head", "link", "meta", "noembed", "noframes",
		"param", "rp", "script", "style", "template", "title":
		return displayNone
	case "slot":
		return displayContents
	case "input":
		for _, a := range n.Attr {
			if a.Key == "type" && strings.EqualFold(a.Val, "hidden") {
				return displayNone
			}
		}
	}
	return displayInline
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return true
		}
	}
	return false
}

// attrVal returns the value of an attribute, and whether the element has it.
func attrVal(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return a.Val, true
		}
	}
	return "", false
}

// offPage reports a length or percentage that moves a box off the page to the left or top:
// offPagePx or more, or at least the width of its container or of the window.
func offPage(toks []cssToken, lc lengthCtx) bool {
	v, k := length(toks, lc)
	switch k {
	case lenPx:
		return v <= -offPagePx
	case lenPercent:
		return v <= -100
	}
	if len(toks) == 1 && toks[0].kind == tokDimension && (toks[0].text == "vw" || toks[0].text == "vh") {
		return toks[0].num <= -100
	}
	return false
}

// boxHidden reports whether an element's box, as its style places and clips it, shows
// none of its content.
func boxHidden(vals *[numProps][]cssToken, v *vstyle, disp displayKind, lc lengthCtx) bool {
	pos := v.position
	positioned := pos == "relative" || pos == "absolute" || pos == "fixed"
	if positioned {
		// The left edge: left wins over right; the top edge: top over bottom.
		if vals[propLeft] != nil && !isAuto(vals[propLeft]) {
			if offPage(vals[propLeft], lc) {
				return true
			}
		} else if vals[propRight] != nil && negOffPage(vals[propRight], lc) {
			return true
		}
		if vals[propTop] != nil && !isAuto(vals[propTop]) {
			if offPage(vals[propTop], lc) {
				return true
			}
		} else if vals[propBottom] != nil && negOffPage(vals[propBottom], lc) {
			return true
		}
	}
	if (pos == "absolute" || pos == "fixed") && clipEmpty(vals[propClip], lc) {
		return true
	}
	if clipPathEmpty(vals[propClipPath], lc) {
		return true
	}
	if offPage(vals[propMarginLeft], lc) || disp != displayInline && offPage(vals[propMarginTop], lc) {
		return true
	}
	if disp == displayInline {
		return false
	}
	if transformHides(vals[propTransform], lc) || scaleHides(vals[propScale]) || translateHides(vals[propTranslate], lc) {
		return true
	}
	if disp != displayBlock && disp != displayFlex {
		return false
	}
	ox, oy := overflowOf(vals[propOverflowX]), overflowOf(vals[propOverflowY])
	if ox == "visible" && oy != "visible" && oy != "clip" {
		ox = "auto"
	}
	if oy == "visible" && ox != "visible" && ox != "clip" {
		oy = "auto"
	}
	tinyW := tiny(vals[propWidth], lc, true) || tiny(vals[propMaxWidth], lc, true)
	tinyH := tiny(vals[propHeight], lc, false) || tiny(vals[propMaxHeight], lc, false)
	return tinyW && ox != "visible" || tinyH && oy != "visible"
}

func isAuto(toks []cssToken) bool {
	return len(toks) == 1 && toks[0].kind == tokIdent && toks[0].text == "auto"
}

// negOffPage reports a right or bottom offset that moves a box off the page to the left or
// top.
func negOffPage(toks []cssToken, lc lengthCtx) bool {
	v, k := length(toks, lc)
	switch k {
	case lenPx:
		return v >= offPagePx
	case lenPercent:
		return v >= 100
	}
	return false
}

func overflowOf(toks []cssToken) string {
	if len(toks) == 1 && toks[0].kind == tokIdent {
		switch t := toks[0].text; t {
		case "hidden", "clip", "scroll", "auto":
			return t
		case "overlay", "-moz-hidden-unscrollable":
			return "auto"
		}
	}
	return "visible"
}

// tiny reports a width or height of at most tinyBoxPx. A percentage counts for widths
// only: a percentage height of an element whose container's height is not set is auto.
func tiny(toks []cssToken, lc lengthCtx, width bool) bool {
	v, k := length(toks, lc)
	switch k {
	case lenPx:
		return v <= tinyBoxPx
	case lenPercent:
		return width && v <= 0
	}
	return false
}

// clipEmpty reports a clip: rect() that leaves no area.
func clipEmpty(toks []cssToken, lc lengthCtx) bool {
	if len(toks) < 2 || toks[0].kind != tokFunction || toks[0].text != "rect" {
		return false
	}
	var edges []cssToken
	for _, t := range toks[1:] {
		if t.kind == tokComma || t.kind == tokClose {
			continue
		}
		edges = append(edges, t)
	}
	if len(edges) != 4 {
		return false
	}
	px := func(t cssToken) (float64, bool) {
		v, k := length([]cssToken{t}, lc)
		return v, k == lenPx
	}
	top, okT := px(edges[0])
	right, okR := px(edges[1])
	bottom, okB := px(edges[2])
	left, okL := px(edges[3])
	return okR && okL && right-left <= 0 || okT && okB && bottom-top <= 0
}

// clipPathEmpty reports a clip-path shape with no area: inset() of 50% or more from both
// sides, circle() or ellipse() of radius 0, polygon() of one point.
func clipPathEmpty(toks []cssToken, lc lengthCtx) bool {
	if len(toks) < 2 || toks[0].kind != tokFunction {
		return false
	}
	end := closeOf(toks, 0)
	args := toks[1:min(end, len(toks))]
	var vals []cssToken
	for _, t := range args {
		if t.kind == tokIdent && (t.text == "round" || t.text == "at") {
			break
		}
		if t.kind != tokComma {
			vals = append(vals, t)
		}
	}
	switch toks[0].text {
	case "inset":
		if len(vals) < 1 || len(vals) > 4 {
			return false
		}
		top, right := vals[0], vals[0]
		if len(vals) >= 2 {
			right = vals[1]
		}
		bottom, left := top, right
		if len(vals) >= 3 {
			bottom = vals[2]
		}
		if len(vals) == 4 {
			left = vals[3]
		}
		pct := func(t cssToken) (float64, bool) {
			switch t.kind {
			case tokPercentage:
				return t.num, true
			case tokNumber:
				return t.num, t.num == 0
			}
			return 0, false
		}
		t, okT := pct(top)
		b, okB := pct(bottom)
		l, okL := pct(left)
		r, okR := pct(right)
		return okT && okB && t+b >= 100 || okL && okR && l+r >= 100
	case "circle", "ellipse":
		for _, v := range vals {
			if x, k := length([]cssToken{v}, lc); (k == lenPx || k == lenPercent) && x <= 0 {
				return true
			}
		}
	case "polygon":
		var pts []cssToken
		for _, t := range args {
			if t.kind != tokComma && !(t.kind == tokIdent && (t.text == "nonzero" || t.text == "evenodd")) {
				pts = append(pts, t)
			}
		}
		if len(pts) < 2 || len(pts)%2 != 0 {
			return false
		}
		for i := 2; i < len(pts); i += 2 {
			if pts[i] != pts[0] || pts[i+1] != pts[1] {
				return false
			}
		}
		return true
	}
	return false
}

// transformHides reports a transform that leaves no area (a scale of 0, a matrix with a
// zero determinant) or moves the box off the page.
func transformHides(toks []cssToken, lc lengthCtx) bool {
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tokFunction {
			continue
		}
		end := closeOf(toks, i)
		var args []cssToken
		for _, a := range toks[i+1 : min(end, len(toks))] {
			if a.kind != tokComma {
				args = append(args, a)
			}
		}
		i = end
		num := func(j int) (float64, bool) {
			if j >= len(args) {
				return 0, false
			}
			return number(args[j : j+1])
		}
		switch t.text {
		case "scale", "scale3d":
			for j := range args {
				if j < 2 || t.text == "scale3d" {
					if v, ok := num(j); ok && v == 0 {
						return true
					}
				}
			}
		case "scalex", "scaley":
			if v, ok := num(0); ok && v == 0 {
				return true
			}
		case "matrix":
			a, okA := num(0)
			b, okB := num(1)
			c, okC := num(2)
			d, okD := num(3)
			if okA && okB && okC && okD && a*d-b*c == 0 {
				return true
			}
		case "translate", "translatex", "translatey", "translate3d":
			axes := 2
			if t.text == "translatex" || t.text == "translatey" {
				axes = 1
			}
			for j := range min(len(args), axes) {
				if v, k := length(args[j:j+1], lc); k == lenPx && v <= -offPagePx {
					return true
				}
			}
		}
	}
	return false
}

// scaleHides reports a scale property of 0 on some axis.
func scaleHides(toks []cssToken) bool {
	for i, t := range toks {
		if i < 2 {
			if v, ok := number([]cssToken{t}); ok && v == 0 {
				return true
			}
		}
	}
	return false
}

// translateHides reports a translate property that moves the box off the page.
func translateHides(toks []cssToken, lc lengthCtx) bool {
	for i, t := range toks {
		if i < 2 {
			if v, k := length([]cssToken{t}, lc); k == lenPx && v <= -offPagePx {
				return true
			}
		}
	}
	return false
}

// filterOpacity is the opacity a filter's opacity() functions apply.
func filterOpacity(toks []cssToken) float64 {
	op := 1.0
	for i := 0; i < len(toks); i++ {
		if toks[i].kind == tokFunction && toks[i].text == "opacity" && i+2 < len(toks) && toks[i+2].kind == tokClose {
			if v, ok := number(toks[i+1 : i+2]); ok {
				op *= clamp01(v)
			}
		}
	}
	return op
}
