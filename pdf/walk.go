// The content-stream walk of the ledongthuc engine, in one file: fonts and their widths,
// optional content, page boxes, colour and the text operators, building the fragments
// layout.go orders. They form one interpreter over one state; split, the state would be
// passed between files.

package pdf

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// This file is the content walk of the ledongthuc/pdf extractor: it runs the engine's
// interpreter over a page's content stream, keeps the graphics and text state itself, and
// turns what is drawn, and seen, into fragments of text (pdfFrag).

// walkFont is what the walk needs of a font: its decoding to Unicode, its glyph widths, and
// how many bytes one of its codes takes.
type walkFont struct {
	enc pdf.TextEncoding
	// width is the advance of a code in em; ok is false when the font does not say (the
	// walk then takes half an em).
	width   func(code int) (w float64, ok bool)
	codeLen int // 1, or 2 for a composite (Type0) font
}

// newWalkFont reads the font resource f.
func newWalkFont(f pdf.Font) *walkFont {
	wf := &walkFont{enc: f.Encoder(), codeLen: 1}
	v := f.V
	if v.Key("Subtype").Name() == "Type0" {
		wf.codeLen = 2
		wf.width = cidWidths(v.Key("DescendantFonts").Index(0), v.Key("Encoding").Name())
		return wf
	}
	scale := 0.001 // glyph space to text space
	if v.Key("Subtype").Name() == "Type3" {
		if m := v.Key("FontMatrix"); m.Len() == 6 {
			scale = m.Index(0).Float64()
		}
	}
	first, widths := int(v.Key("FirstChar").Int64()), v.Key("Widths")
	missing := v.Key("FontDescriptor").Key("MissingWidth").Float64()
	wf.width = func(code int) (float64, bool) {
		if i := code - first; i >= 0 && i < widths.Len() {
			return widths.Index(i).Float64() * scale, true
		}
		if missing > 0 {
			return missing * scale, true
		}
		return 0, false
	}
	return wf
}

// cidWidths reads the widths of a CIDFont (/W and /DW); codes are CIDs under the
// Identity encodings, and take the default width under any other.
func cidWidths(cid pdf.Value, encoding string) func(int) (float64, bool) {
	dw := 1000.0
	if d := cid.Key("DW"); d.Kind() == pdf.Integer || d.Kind() == pdf.Real {
		dw = d.Float64()
	}
	type span struct {
		first, last int
		w           []float64 // one per CID, or one for the whole span
	}
	var spans []span
	w := cid.Key("W")
	for i := 0; i+1 < w.Len() && len(spans) < 1<<16; {
		first := int(w.Index(i).Int64())
		if next := w.Index(i + 1); next.Kind() == pdf.Array {
			ws := make([]float64, 0, min(next.Len(), 1<<16))
			for j := 0; j < next.Len() && j < 1<<16; j++ {
				ws = append(ws, next.Index(j).Float64())
			}
			spans = append(spans, span{first, first + len(ws) - 1, ws})
			i += 2
			continue
		}
		if i+2 >= w.Len() {
			break
		}
		spans = append(spans, span{first, int(w.Index(i + 1).Int64()), []float64{w.Index(i + 2).Float64()}})
		i += 3
	}
	identity := encoding == "Identity-H" || encoding == "Identity-V"
	return func(code int) (float64, bool) {
		if identity {
			for _, s := range spans {
				if code >= s.first && code <= s.last {
					if len(s.w) == 1 && s.last != s.first {
						return s.w[0] / 1000, true
					}
					if k := code - s.first; k < len(s.w) {
						return s.w[k] / 1000, true
					}
				}
			}
		}
		return dw / 1000, true
	}
}

// optionalContent is what the document says of its optional content (layers) by default:
// which groups are off. Groups are told apart by their dictionaries' contents, so a group
// that looks like one that is off counts as off too.
type optionalContent struct {
	off, on map[string]bool
	baseOff bool // /BaseState /OFF: every group not in /ON is off
}

// readOptionalContent reads the catalog's /OCProperties /D.
func readOptionalContent(r *pdf.Reader) *optionalContent {
	d := r.Trailer().Key("Root").Key("OCProperties").Key("D")
	oc := &optionalContent{off: map[string]bool{}, on: map[string]bool{}, baseOff: d.Key("BaseState").Name() == "OFF"}
	for _, k := range []struct {
		key string
		set map[string]bool
	}{{"OFF", oc.off}, {"ON", oc.on}} {
		a := d.Key(k.key)
		for i := 0; i < a.Len() && i < 1<<16; i++ {
			k.set[a.Index(i).String()] = true
		}
	}
	return oc
}

// hidden reports whether content marked with the optional content v (an /OCG, or an /OCMD
// with its /OCGs and /P policy, or its /VE expression) is hidden by default. A membership
// dictionary this walk cannot read hides its content.
func (oc *optionalContent) hidden(v pdf.Value, depth int) bool {
	if depth > 32 {
		return true
	}
	if v.Kind() != pdf.Dict {
		return false
	}
	if v.Key("Type").Name() != "OCMD" {
		k := v.String()
		if oc.baseOff {
			return !oc.on[k] || oc.off[k]
		}
		return oc.off[k]
	}
	if ve := v.Key("VE"); ve.Kind() == pdf.Array {
		return !oc.visibleExpr(ve, depth+1)
	}
	groups := v.Key("OCGs")
	var states []bool // visible, per group
	if groups.Kind() == pdf.Dict {
		states = append(states, !oc.hidden(groups, depth+1))
	}
	for i := 0; i < groups.Len() && i < 1<<10; i++ {
		if g := groups.Index(i); g.Kind() == pdf.Dict {
			states = append(states, !oc.hidden(g, depth+1))
		}
	}
	if len(states) == 0 {
		return false
	}
	all, any := true, false
	for _, s := range states {
		all, any = all && s, any || s
	}
	switch v.Key("P").Name() {
	case "AllOn":
		return !all
	case "AnyOff":
		return all
	case "AllOff":
		return any
	}
	return !any // AnyOn, the default
}

// visibleExpr evaluates a visibility expression: [/And e...], [/Or e...], [/Not e] or a
// group.
func (oc *optionalContent) visibleExpr(e pdf.Value, depth int) bool {
	if depth > 32 {
		return false
	}
	if e.Kind() == pdf.Dict {
		return !oc.hidden(e, depth+1)
	}
	if e.Kind() != pdf.Array || e.Len() < 2 {
		return false
	}
	op := e.Index(0).Name()
	switch op {
	case "Not":
		return !oc.visibleExpr(e.Index(1), depth+1)
	case "And", "Or":
		v := op == "And"
		for i := 1; i < e.Len() && i < 1<<10; i++ {
			if op == "And" {
				v = v && oc.visibleExpr(e.Index(i), depth+1)
			} else {
				v = v || oc.visibleExpr(e.Index(i), depth+1)
			}
		}
		return v
	}
	return false
}

// pageBox is a page's visible area: its crop box (its media box when it has none) within
// its media box, both inherited from the page tree.
func pageBox(p pdf.Page) rect {
	inherited := func(key string) pdf.Value {
		v := p.V
		for range 64 {
			if v.IsNull() {
				break
			}
			if r := v.Key(key); r.Kind() == pdf.Array && r.Len() == 4 {
				return r
			}
			v = v.Key("Parent")
		}
		return pdf.Value{}
	}
	toRect := func(a pdf.Value) rect {
		return normRect(a.Index(0).Float64(), a.Index(1).Float64(), a.Index(2).Float64(), a.Index(3).Float64())
	}
	box := rect{0, 0, 612, 792} // US Letter, as readers take a page without a media box
	if m := inherited("MediaBox"); !m.IsNull() {
		box = toRect(m)
	}
	if c := inherited("CropBox"); !c.IsNull() {
		box = box.intersect(toRect(c))
	}
	return box
}

// walkState is the graphics state the walk keeps (q saves it, Q restores it).
type walkState struct {
	ctm  affine
	clip rect // the clip path's bounding box, in the page's space
	font *walkFont
	size float64
	// the text state
	tc, tw, th, tl, rise float64
	mode                 int
	// the colours, with the components of their colour spaces (0: not read)
	fill, stroke       colour
	fillComps, stComps int
	// the constant alphas (ca, CA), and whether paint covers what is under it: the blend
	// mode is Normal and there is no soft mask
	fillAlpha, strokeAlpha float64
	opaque                 bool
}

// colour is a colour as RGB in [0, 1]; known is false for one the walk does not read (a
// pattern, a separation, an indexed or Lab colour).
type colour struct {
	r, g, b float64
	known   bool
}

var (
	inkBlack   = colour{known: true}
	paperWhite = colour{1, 1, 1, true}
)

// near reports whether two colours known differ by less than inkDelta in every channel: a
// reader does not tell one from the other.
func (c colour) near(o colour) bool {
	d := inkDelta / 255.0
	return c.known && o.known && math.Abs(c.r-o.r) < d && math.Abs(c.g-o.g) < d && math.Abs(c.b-o.b) < d
}

// colourOf reads the components of a colour in a space of that many components (1 gray, 3
// RGB, 4 CMYK).
func colourOf(v []float64, comps int) colour {
	if len(v) != comps {
		return colour{}
	}
	clamp := func(x float64) float64 { return min(max(x, 0), 1) }
	switch comps {
	case 1:
		return colour{clamp(v[0]), clamp(v[0]), clamp(v[0]), true}
	case 3:
		return colour{clamp(v[0]), clamp(v[1]), clamp(v[2]), true}
	case 4:
		k := clamp(v[3])
		return colour{(1 - clamp(v[0])) * (1 - k), (1 - clamp(v[1])) * (1 - k), (1 - clamp(v[2])) * (1 - k), true}
	}
	return colour{}
}

// colourSpaceComps is how many components a colour space has whose colours the walk reads
// as gray, RGB or CMYK; 0 for another (and its colours are not read).
func colourSpaceComps(name string, res pdf.Value) int {
	switch name {
	case "DeviceGray", "G", "CalGray":
		return 1
	case "DeviceRGB", "RGB", "CalRGB":
		return 3
	case "DeviceCMYK", "CMYK":
		return 4
	case "Pattern":
		return 0
	}
	cs := res.Key("ColorSpace").Key(name)
	if cs.Kind() == pdf.Name {
		return colourSpaceComps(cs.Name(), pdf.Value{})
	}
	switch cs.Index(0).Name() {
	case "CalGray":
		return 1
	case "CalRGB":
		return 3
	case "ICCBased":
		if n := int(cs.Index(1).Key("N").Int64()); n == 1 || n == 3 || n == 4 {
			return n
		}
	}
	return 0
}

// paint is an area the page paints over everything drawn before it: an opaque filled
// rectangle, or an image without a mask.
type paint struct {
	area   rect
	colour colour // unknown for an image
	seq    int    // when it is painted, in the page's order of drawing
}

// maxPaints is how many paints of a page the walk remembers; past it, later ones are not
// taken to cover text, and the colour under text drawn after them is not known (the ink
// check still sees both).
const maxPaints = 1024

// walkGlyph is text drawn and seen: one glyph, or a string whose glyphs the walk could not
// tell apart, or an /ActualText that stands for glyphs.
type walkGlyph struct {
	text string
	// The glyph's origin and the end of its advance on the baseline, in page space.
	ox, oy, ex, ey float64
	// ux, uy is the direction of the baseline, a unit vector.
	ux, uy float64
	height float64 // line height (1.15 em), page space
	rough  bool    // the font gives no widths: the end is a guess
	object bool    // the first glyph of a text object (BT)
	// cx, cy is the glyph's centre, qx, qy a quarter of an em up from it, and seq when it
	// is drawn, in the page's order
	cx, cy, qx, qy float64
	seq            int
}

// marked is one open marked-content sequence (BMC or BDC ... EMC).
type marked struct {
	hidden bool        // optional content that is off
	actual *string     // its /ActualText
	glyphs []walkGlyph // the glyphs drawn inside it, while it has an /ActualText
}

// maxForms is how many form XObjects the walk draws on one page, nested or not.
const maxForms = 4096

// pageFrags walks a page's content stream, and the form XObjects it draws (maxFormDepth
// deep, maxForms in all), with the engine's interpreter and returns its fragments of text
// in the order they are drawn (docs/pdf.md). A glyph is left out when no
// reader sees it: render mode 3 or 7, smaller than minTextSize, its centre outside the
// page's crop box or outside the clip path's bounding box, or inside optional content that
// is off. A line ends where the baseline moves; a fragment ends at a column gap
// (columnGap) on the line; a space goes between glyphs more than a fifth of an em apart.
// An /ActualText stands for the glyphs it covers only when it spells what they say
// (sameLetters); otherwise the glyphs are read.
//
// budget is the bytes of text still allowed, each fragment counted with a byte for its
// end; the walk panics with errTextLimit as soon as a fragment cannot fit, so a page that
// never ends its line cannot grow it past the limit either.
func pageFrags(p pdf.Page, oc *optionalContent, budget *int) []pdfFrag {
	if p.V.IsNull() || p.V.Key("Contents").Kind() == pdf.Null {
		return nil
	}
	box := pageBox(p)
	lb := &lineBuilder{budget: budget}
	g := walkState{ctm: identity, clip: rect{math.Inf(-1), math.Inf(-1), math.Inf(1), math.Inf(1)}, th: 1,
		fill: inkBlack, stroke: inkBlack, fillComps: 1, stComps: 1, fillAlpha: 1, strokeAlpha: 1, opaque: true}
	tm, tlm := identity, identity // text shown outside BT ... ET, as readers tolerate it
	var (
		stack         []walkState
		open          []marked
		path          = emptyRect()
		clipNext      bool
		textClip      = emptyRect()
		textClipped   bool
		firstInObject bool
		rectsOnly     bool // the path is made of rectangles only
		paints        []paint
		seq           int         // the count of what was drawn, in order
		drawn         []walkGlyph // the glyphs seen, until the page's end tells what paints over them
		drawnBytes    int
	)
	// background is the colour under a point of the page: the last paint before seq that
	// covers it, or the white of the paper.
	paintsFull := false
	background := func(x, y float64, seq int) colour {
		if paintsFull {
			return colour{}
		}
		for i := len(paints) - 1; i >= 0; i-- {
			if paints[i].seq < seq && paints[i].area.contains(x, y) {
				return paints[i].colour
			}
		}
		return paperWhite
	}
	// axisAligned reports whether the transformation keeps a rectangle a rectangle.
	axisAligned := func(m affine) bool { return m.b == 0 && m.c == 0 || m.a == 0 && m.d == 0 }
	addPaint := func(area rect, c colour) {
		if len(paints) == maxPaints {
			paintsFull = true
			return
		}
		seq++
		paints = append(paints, paint{area.intersect(g.clip), c, seq})
	}
	hiddenNow := func() bool {
		for _, m := range open {
			if m.hidden {
				return true
			}
		}
		return false
	}
	emit := func(gl walkGlyph) {
		for i := len(open) - 1; i >= 0; i-- {
			if open[i].actual != nil {
				open[i].glyphs = append(open[i].glyphs, gl)
				return
			}
		}
		if drawnBytes += len(gl.text); drawnBytes > *budget+64 {
			panic(errTextLimit)
		}
		drawn = append(drawn, gl)
	}
	point := func(x, y float64) {
		x, y = g.ctm.apply(x, y)
		path = rect{min(path.x0, x), min(path.y0, y), max(path.x1, x), max(path.y1, y)}
	}
	// inked reports whether a glyph centred at (x, y), drawn now in the current render mode,
	// colours and alphas, differs from what is under it: its fill or its stroke is not
	// (nearly) transparent and not of the colour under it.
	inked := func(x, y float64) bool {
		under := background(x, y, seq+1)
		fills := g.mode == 0 || g.mode == 2 || g.mode == 4 || g.mode == 6
		strokes := g.mode == 1 || g.mode == 2 || g.mode == 5 || g.mode == 6
		return fills && g.fillAlpha >= 0.1 && !g.fill.near(under) || strokes && g.strokeAlpha >= 0.1 && !g.stroke.near(under)
	}
	// show draws the string raw with the current font and advances the text matrix.
	show := func(raw string) {
		f := g.font
		if f == nil {
			f = &walkFont{enc: nil, codeLen: 1, width: func(int) (float64, bool) { return 0, false }}
		}
		s := raw
		if f.enc != nil {
			s = f.enc.Decode(raw)
		}
		s = validUTF8(s)
		codes := (len(raw) + f.codeLen - 1) / f.codeLen
		runes := []rune(s)
		perGlyph := len(runes) == codes
		var whole walkGlyph
		wholeStarted := false
		for k := 0; k < codes; k++ {
			c := raw[k*f.codeLen : min(len(raw), (k+1)*f.codeLen)]
			code := 0
			for i := 0; i < len(c); i++ {
				code = code<<8 | int(c[i])
			}
			w, known := f.width(code)
			if !known {
				w = 0.5
			}
			tx := w*g.size + g.tc
			if f.codeLen == 1 && code == ' ' {
				tx += g.tw
			}
			tx *= g.th
			trm := affine{a: g.size * g.th, d: g.size, f: g.rise}.then(tm).then(g.ctm)
			end := affine{a: 1, d: 1, e: tx}.then(tm).then(g.ctm)
			ox, oy := trm.apply(0, 0)
			ex, ey := end.apply(0, g.rise)
			eff := min(math.Hypot(trm.a, trm.b), math.Hypot(trm.c, trm.d))
			cx, cy := (ox+ex)/2+0.35*trm.c, (oy+ey)/2+0.35*trm.d
			seen := g.mode != 3 && g.mode != 7 && eff >= minTextSize && box.contains(cx, cy) && g.clip.contains(cx, cy) && !hiddenNow() && inked(cx, cy)
			if g.mode >= 4 {
				textClipped = true
				textClip = rect{min(textClip.x0, ox, ex), min(textClip.y0, oy, ey), max(textClip.x1, ox, ex), max(textClip.y1, oy, ey+eff)}
			}
			tm = affine{a: 1, d: 1, e: tx}.then(tm)
			ux, uy := trm.a, trm.b
			if l := math.Hypot(ux, uy); l > 0 {
				ux, uy = ux/l, uy/l
			} else {
				ux, uy = 1, 0
			}
			seq++
			gl := walkGlyph{ox: ox, oy: oy, ex: ex, ey: ey, ux: ux, uy: uy, height: 1.15 * eff, rough: !known, cx: cx, cy: cy, qx: 0.25 * trm.c, qy: 0.25 * trm.d, seq: seq}
			switch {
			case !seen:
				// Text no reader sees still counts against the text limit, a byte a glyph, so
				// that a flood of it ends as soon as visible text would.
				if *budget--; *budget < 0 {
					panic(errTextLimit)
				}
			case perGlyph:
				gl.text, gl.object = string(runes[k]), firstInObject
				firstInObject = false
				emit(gl)
			case !wholeStarted:
				whole, wholeStarted = gl, true
			default:
				whole.ex, whole.ey = gl.ex, gl.ey
				whole.rough = whole.rough || gl.rough
			}
		}
		if wholeStarted {
			whole.text, whole.object = s, firstInObject
			firstInObject = false
			emit(whole)
		}
	}
	// run interprets one content stream, the page's or a form XObject's, with its resources.
	forms := 0
	var run func(strm, res pdf.Value, depth int)
	run = func(strm, res pdf.Value, depth int) {
		fonts := map[string]*walkFont{}
		pdf.Interpret(strm, func(stk *pdf.Stack, op string) {
			n := stk.Len()
			args := make([]pdf.Value, n)
			for i := n - 1; i >= 0; i-- {
				args[i] = stk.Pop()
			}
			num := func(i int) float64 { return args[i].Float64() }
			switch op {
			case "q":
				if len(stack) < 1<<12 {
					stack = append(stack, g)
				}
			case "Q":
				if k := len(stack); k > 0 {
					g, stack = stack[k-1], stack[:k-1]
				}
			case "cm":
				if n == 6 {
					g.ctm = affine{num(0), num(1), num(2), num(3), num(4), num(5)}.then(g.ctm)
				}
			case "m", "l":
				rectsOnly = false
				if n == 2 {
					point(num(0), num(1))
				}
			case "c":
				rectsOnly = false
				if n == 6 {
					point(num(0), num(1))
					point(num(2), num(3))
					point(num(4), num(5))
				}
			case "v", "y":
				rectsOnly = false
				if n == 4 {
					point(num(0), num(1))
					point(num(2), num(3))
				}
			case "re":
				if path.x0 > path.x1 { // the first of the path
					rectsOnly = true
				}
				if n == 4 {
					point(num(0), num(1))
					point(num(0)+num(2), num(1)+num(3))
					point(num(0), num(1)+num(3))
					point(num(0)+num(2), num(1))
				}
			case "W", "W*":
				clipNext = true
			case "S", "s", "f", "F", "f*", "B", "B*", "b", "b*", "n":
				// An opaque fill of rectangles paints over what is under it (other shapes
				// are left to the ink check).
				if fills := op != "S" && op != "s" && op != "n"; fills && rectsOnly && path.x0 <= path.x1 && axisAligned(g.ctm) && g.opaque && g.fillAlpha >= 0.99 && g.fill.known {
					addPaint(path, g.fill)
				}
				if clipNext {
					g.clip = g.clip.intersect(path)
				}
				clipNext, path, rectsOnly = false, emptyRect(), false
			case "g", "G", "rg", "RG", "k", "K":
				vals := make([]float64, n)
				for i := range vals {
					vals[i] = num(i)
				}
				comps := map[string]int{"g": 1, "G": 1, "rg": 3, "RG": 3, "k": 4, "K": 4}[op]
				if op == strings.ToLower(op) {
					g.fill, g.fillComps = colourOf(vals, comps), comps
				} else {
					g.stroke, g.stComps = colourOf(vals, comps), comps
				}
			case "cs", "CS":
				if n == 1 {
					comps := colourSpaceComps(args[0].Name(), res)
					initial := colour{}
					if comps == 1 || comps == 3 {
						initial = inkBlack
					} else if comps == 4 {
						initial = colourOf([]float64{0, 0, 0, 1}, 4)
					}
					if op == "cs" {
						g.fill, g.fillComps = initial, comps
					} else {
						g.stroke, g.stComps = initial, comps
					}
				}
			case "sc", "scn", "SC", "SCN":
				vals := make([]float64, 0, n)
				for i := range n {
					if k := args[i].Kind(); k == pdf.Integer || k == pdf.Real {
						vals = append(vals, num(i))
					}
				}
				if op == "sc" || op == "scn" {
					g.fill = colourOf(vals, g.fillComps)
				} else {
					g.stroke = colourOf(vals, g.stComps)
				}
			case "gs":
				if n == 1 {
					gs := res.Key("ExtGState").Key(args[0].Name())
					if v := gs.Key("ca"); v.Kind() == pdf.Integer || v.Kind() == pdf.Real {
						g.fillAlpha = v.Float64()
					}
					if v := gs.Key("CA"); v.Kind() == pdf.Integer || v.Kind() == pdf.Real {
						g.strokeAlpha = v.Float64()
					}
					if bm := gs.Key("BM"); !bm.IsNull() {
						name := bm.Name()
						if bm.Kind() == pdf.Array {
							name = bm.Index(0).Name()
						}
						g.opaque = name == "Normal" || name == "Compatible"
					}
					if sm := gs.Key("SMask"); !sm.IsNull() && sm.Name() != "None" {
						g.opaque = false
					}
				}
			case "BT":
				tm, tlm = identity, identity
				textClip, textClipped, firstInObject = emptyRect(), false, true
			case "ET":
				if textClipped {
					g.clip = g.clip.intersect(textClip)
				}
			case "BMC":
				open = append(open, marked{})
			case "BDC":
				var m marked
				if n == 2 {
					props := args[1]
					if props.Kind() == pdf.Name {
						props = res.Key("Properties").Key(props.Name())
					}
					if args[0].Name() == "OC" {
						m.hidden = oc.hidden(props, 0)
					}
					if v := props.Key("ActualText"); v.Kind() == pdf.String {
						t := v.Text()
						m.actual = &t
					}
				}
				open = append(open, m)
			case "EMC":
				k := len(open) - 1
				if k < 0 {
					return
				}
				m := open[k]
				open = open[:k]
				if m.actual == nil || len(m.glyphs) == 0 {
					for _, gl := range m.glyphs {
						emit(gl)
					}
					return
				}
				var drawn strings.Builder
				for _, gl := range m.glyphs {
					drawn.WriteString(gl.text)
				}
				if !sameLetters(*m.actual, drawn.String()) {
					for _, gl := range m.glyphs {
						emit(gl) // the glyphs drawn win
					}
					return
				}
				all := m.glyphs[0]
				all.text = *m.actual
				for _, gl := range m.glyphs[1:] {
					all.ex, all.ey, all.height = gl.ex, gl.ey, max(all.height, gl.height)
					all.rough = all.rough || gl.rough
				}
				emit(all)
			case "Do":
				if n != 1 || depth >= maxFormDepth || forms >= maxForms {
					return
				}
				forms++
				xo := res.Key("XObject").Key(args[0].Name())
				if oc.hidden(xo.Key("OC"), 0) {
					return
				}
				if xo.Key("Subtype").Name() == "Image" {
					// An image without a mask paints over its unit square.
					if !xo.Key("ImageMask").Bool() && xo.Key("SMask").IsNull() && xo.Key("Mask").IsNull() && axisAligned(g.ctm) && g.opaque && g.fillAlpha >= 0.99 {
						area := emptyRect()
						for _, c := range [][2]float64{{0, 0}, {1, 1}} {
							x, y := g.ctm.apply(c[0], c[1])
							area = rect{min(area.x0, x), min(area.y0, y), max(area.x1, x), max(area.y1, y)}
						}
						addPaint(area, colour{})
					}
					return
				}
				if xo.Key("Subtype").Name() != "Form" {
					return
				}
				saved, savedStack, savedOpen, savedTm, savedTlm := g, len(stack), len(open), tm, tlm
				if m := xo.Key("Matrix"); m.Len() == 6 {
					g.ctm = affine{m.Index(0).Float64(), m.Index(1).Float64(), m.Index(2).Float64(), m.Index(3).Float64(), m.Index(4).Float64(), m.Index(5).Float64()}.then(g.ctm)
				}
				if b := xo.Key("BBox"); b.Len() == 4 {
					bb := emptyRect()
					for _, c := range [][2]int{{0, 1}, {2, 1}, {0, 3}, {2, 3}} {
						x, y := g.ctm.apply(b.Index(c[0]).Float64(), b.Index(c[1]).Float64())
						bb = rect{min(bb.x0, x), min(bb.y0, y), max(bb.x1, x), max(bb.y1, y)}
					}
					g.clip = g.clip.intersect(bb)
				}
				formRes := xo.Key("Resources")
				if formRes.Kind() != pdf.Dict {
					formRes = res
				}
				run(xo, formRes, depth+1)
				for len(open) > savedOpen { // sequences the form never closed
					k := len(open) - 1
					m := open[k]
					open = open[:k]
					for _, gl := range m.glyphs {
						emit(gl)
					}
				}
				g, stack, tm, tlm = saved, stack[:min(savedStack, len(stack))], savedTm, savedTlm
			case "Tf":
				if n == 2 {
					name := args[0].Name()
					f, ok := fonts[name]
					if !ok {
						f = newWalkFont(pdf.Font{V: res.Key("Font").Key(name)})
						fonts[name] = f
					}
					g.font, g.size = f, num(1)
				}
			case "Tc":
				if n == 1 {
					g.tc = num(0)
				}
			case "Tw":
				if n == 1 {
					g.tw = num(0)
				}
			case "Tz":
				if n == 1 {
					g.th = num(0) / 100
				}
			case "TL":
				if n == 1 {
					g.tl = num(0)
				}
			case "Ts":
				if n == 1 {
					g.rise = num(0)
				}
			case "Tr":
				if n == 1 {
					g.mode = int(args[0].Int64())
				}
			case "Tm":
				if n == 6 {
					tm = affine{num(0), num(1), num(2), num(3), num(4), num(5)}
					tlm = tm
				}
			case "Td", "TD":
				if n == 2 {
					if op == "TD" {
						g.tl = -num(1)
					}
					tlm = affine{a: 1, d: 1, e: num(0), f: num(1)}.then(tlm)
					tm = tlm
				}
			case "T*":
				tlm = affine{a: 1, d: 1, f: -g.tl}.then(tlm)
				tm = tlm
			case "'", "\"":
				if op == "\"" && n == 3 {
					g.tw, g.tc = num(0), num(1)
				}
				tlm = affine{a: 1, d: 1, f: -g.tl}.then(tlm)
				tm = tlm
				if n > 0 {
					show(args[n-1].RawString())
				}
			case "Tj":
				if n == 1 {
					show(args[0].RawString())
				}
			case "TJ":
				if n != 1 {
					return
				}
				v := args[0]
				for i := 0; i < v.Len(); i++ {
					switch x := v.Index(i); x.Kind() {
					case pdf.String:
						show(x.RawString())
					case pdf.Integer, pdf.Real:
						tm = affine{a: 1, d: 1, e: -x.Float64() / 1000 * g.size * g.th}.then(tm)
					}
				}
			}
		})
	}
	run(p.V.Key("Contents"), p.Resources(), 0)
	for len(open) > 0 { // sequences the stream never closed
		k := len(open) - 1
		m := open[k]
		open = open[:k]
		for _, gl := range m.glyphs {
			emit(gl)
		}
	}
	// A glyph painted over afterwards, across the middle half of its height, is not seen (a
	// line struck through it or under it is not a cover).
	for _, gl := range drawn {
		covered := false
		for i := len(paints) - 1; i >= 0 && paints[i].seq > gl.seq && !covered; i-- {
			a := paints[i].area
			covered = a.contains(gl.cx-gl.qx, gl.cy-gl.qy) && a.contains(gl.cx+gl.qx, gl.cy+gl.qy)
		}
		if !covered {
			lb.glyph(gl)
		} else if *budget--; *budget < 0 {
			panic(errTextLimit)
		}
	}
	return lb.done()
}

// emptyRect is the bounding box of nothing, ready to grow.
func emptyRect() rect { return rect{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)} }

// lineBuilder makes fragments of the glyphs of a page, in the order they are drawn.
type lineBuilder struct {
	out    []pdfFrag
	cur    pdfFrag
	text   strings.Builder
	placed bool
	line   int
	last   walkGlyph // the last glyph of the line
	budget *int
}

// glyph adds a glyph. Measured along the baseline of the glyph before: on a new line when
// its origin is more than half a point off that baseline; in a new fragment of the line
// across a column gap (columnGap line heights forward from the end of the glyph before, or
// as far back from its origin); after a space when it begins more than a fifth of an em
// after the glyph before ends, or, where a font gives no widths, when it begins a new text
// object and neither side is punctuation that joins.
func (lb *lineBuilder) glyph(g walkGlyph) {
	if g.text == "" {
		return
	}
	if lb.placed {
		l := lb.last
		h := max(g.height, l.height)
		dx, dy := g.ox-l.ex, g.oy-l.ey
		along, off := dx*l.ux+dy*l.uy, dy*l.ux-dx*l.uy
		back := (g.ox-l.ox)*l.ux + (g.oy-l.oy)*l.uy
		switch {
		case math.Abs(off) > 0.5:
			lb.closeFrag()
			lb.line++
		case along > columnGap*h || back < -columnGap*h:
			lb.closeFrag()
		default:
			space := along > 0.2*h/1.15
			r, _ := utf8.DecodeRuneInString(g.text)
			if g.rough || l.rough {
				space = g.object && !strings.ContainsRune(noSpaceAfter, lastRune(lb.text.String())) && !strings.ContainsRune(noSpaceBefore, r)
			}
			if space && !unicode.IsSpace(r) && !unicode.IsSpace(lastRune(lb.text.String())) {
				lb.text.WriteByte(' ')
			}
		}
	}
	x0, x1 := min(g.ox, g.ex), max(g.ox, g.ex)
	if !lb.placed {
		lb.cur = pdfFrag{Line: lb.line, X0: x0, X1: x1, Base: g.oy, Height: g.height}
		lb.placed = true
	}
	if lb.text.Len()+len(g.text) > *lb.budget+64 { // +64: room for spaces trimmed later
		panic(errTextLimit)
	}
	lb.text.WriteString(g.text)
	lb.cur.X0, lb.cur.X1, lb.cur.Height = min(lb.cur.X0, x0), max(lb.cur.X1, x1), max(lb.cur.Height, g.height)
	lb.last = g
}

// closeFrag ends the fragment being built.
func (lb *lineBuilder) closeFrag() {
	if s := strings.TrimSpace(lb.text.String()); lb.placed && s != "" {
		if *lb.budget -= len(s) + 1; *lb.budget < 0 {
			panic(errTextLimit)
		}
		f := lb.cur
		f.Text = s
		round := func(v float64) float64 { return math.Round(v*100) / 100 }
		f.X0, f.X1, f.Base, f.Height = round(f.X0), round(f.X1), round(f.Base), round(f.Height)
		lb.out = append(lb.out, f)
	}
	lb.text.Reset()
	lb.placed = false
}

func (lb *lineBuilder) done() []pdfFrag {
	lb.closeFrag()
	return lb.out
}
