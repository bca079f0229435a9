package pdf

import (
	"math"
	"unicode"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/structs"
)

// rect is a rectangle in a page's space, in points (y upwards).
type rect struct{ x0, y0, x1, y1 float64 }

func (r rect) contains(x, y float64) bool { return r.x0 <= x && x <= r.x1 && r.y0 <= y && y <= r.y1 }

func (r rect) intersect(o rect) rect {
	return rect{max(r.x0, o.x0), max(r.y0, o.y0), min(r.x1, o.x1), min(r.y1, o.y1)}
}

// normRect is the rectangle with corners (x0, y0) and (x1, y1), in either order.
func normRect(x0, y0, x1, y1 float64) rect {
	return rect{min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)}
}

// affine is a PDF transformation matrix [a b c d e f]: a point (x, y) goes to
// (a x + c y + e, b x + d y + f).
type affine struct{ a, b, c, d, e, f float64 }

var identity = affine{a: 1, d: 1}

func affineOf(m structs.FPDF_FS_MATRIX) affine {
	return affine{float64(m.A), float64(m.B), float64(m.C), float64(m.D), float64(m.E), float64(m.F)}
}

// then is the transformation m followed by n.
func (m affine) then(n affine) affine {
	return affine{
		a: m.a*n.a + m.b*n.c, b: m.a*n.b + m.b*n.d,
		c: m.c*n.a + m.d*n.c, d: m.c*n.b + m.d*n.d,
		e: m.e*n.a + m.f*n.c + n.e, f: m.e*n.b + m.f*n.d + n.f,
	}
}

func (m affine) apply(x, y float64) (float64, float64) {
	return m.a*x + m.c*y + m.e, m.b*x + m.d*y + m.f
}

// scale is the smaller of the lengths m gives a unit of width and a unit of height: how
// much smaller than its font size a glyph drawn through m is, at most.
func (m affine) scale() float64 { return min(math.Hypot(m.a, m.b), math.Hypot(m.c, m.d)) }

// maxFormDepth is how deep form XObjects nested in one another are looked into.
const maxFormDepth = 16

// pdfiumPage is one page of a document open in PDFium, with its text page, read the way
// this package reads every page (openPDFiumPage): the extraction and the ink check see the
// same characters at the same indices.
type pdfiumPage struct {
	inst pdfium.Pdfium
	page references.FPDF_PAGE
	text references.FPDF_TEXTPAGE
	// box is the page's visible area: its crop box within its media box.
	box rect
	// suspect: some text object of the page is hidden (render mode 3 or 7), smaller than
	// minTextSize, clipped within the page or not inside its visible area, so each
	// character's own object and place are looked at.
	suspect bool
	// The object of the last character looked at, by its matrix (see visible).
	lastMatrix  affine
	lastVisible func(x, y float64) bool
}

// openPDFiumPage loads page index of doc, looks at its text objects (walk), takes every
// /ActualText off them, so that the text page reads the glyphs drawn, and makes the text
// page. The caller closes it.
func openPDFiumPage(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, index int) (*pdfiumPage, error) {
	pg, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: index})
	if err != nil {
		return nil, err
	}
	p := &pdfiumPage{inst: inst, page: pg.Page}
	ref := requests.Page{ByReference: &p.page}
	bb, err := inst.FPDF_GetPageBoundingBox(&requests.FPDF_GetPageBoundingBox{Page: ref})
	if err != nil {
		p.close()
		return nil, err
	}
	p.box = normRect(float64(bb.Rect.Left), float64(bb.Rect.Bottom), float64(bb.Rect.Right), float64(bb.Rect.Top))
	var actual []references.FPDF_PAGEOBJECT
	n, err := inst.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: ref})
	if err != nil {
		p.close()
		return nil, err
	}
	for i := range n.Count {
		o, err := inst.FPDFPage_GetObject(&requests.FPDFPage_GetObject{Page: ref, Index: i})
		if err != nil {
			p.close()
			return nil, err
		}
		if err := p.walk(o.PageObject, identity, 0, &actual); err != nil {
			p.close()
			return nil, err
		}
	}
	// The glyphs drawn are read, never an /ActualText in their place: what the page shows
	// is what it says.
	for _, obj := range actual {
		if err := takeOffActualText(inst, obj); err != nil {
			p.close()
			return nil, err
		}
	}
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: ref})
	if err != nil {
		p.close()
		return nil, err
	}
	p.text = tp.TextPage
	return p, nil
}

// walk looks at one page object (and, for a form XObject, at the objects inside it, with
// form, the matrix from the form's space to the page's): a text object hidden, too small,
// clipped or reaching out of the page's visible area makes the page suspect, and a text
// object under /ActualText is added to actual.
func (p *pdfiumPage) walk(obj references.FPDF_PAGEOBJECT, form affine, depth int, actual *[]references.FPDF_PAGEOBJECT) error {
	inst := p.inst
	ty, err := inst.FPDFPageObj_GetType(&requests.FPDFPageObj_GetType{PageObject: obj})
	if err != nil {
		return err
	}
	switch ty.Type {
	case enums.FPDF_PAGEOBJ_FORM:
		if depth >= maxFormDepth {
			p.suspect = true
			return nil
		}
		m, err := inst.FPDFPageObj_GetMatrix(&requests.FPDFPageObj_GetMatrix{PageObject: obj})
		if err != nil {
			return err
		}
		inner := affineOf(m.Matrix).then(form)
		n, err := inst.FPDFFormObj_CountObjects(&requests.FPDFFormObj_CountObjects{PageObject: obj})
		if err != nil {
			return err
		}
		for i := range n.Count {
			o, err := inst.FPDFFormObj_GetObject(&requests.FPDFFormObj_GetObject{PageObject: obj, Index: uint64(i)})
			if err != nil {
				return err
			}
			if err := p.walk(o.PageObject, inner, depth+1, actual); err != nil {
				return err
			}
		}
		return nil
	case enums.FPDF_PAGEOBJ_TEXT:
	default:
		return nil
	}
	if !p.suspect {
		mode, err := inst.FPDFTextObj_GetTextRenderMode(&requests.FPDFTextObj_GetTextRenderMode{PageObject: obj})
		if err != nil {
			return err
		}
		size, err := inst.FPDFTextObj_GetFontSize(&requests.FPDFTextObj_GetFontSize{PageObject: obj})
		if err != nil {
			return err
		}
		m, err := inst.FPDFPageObj_GetMatrix(&requests.FPDFPageObj_GetMatrix{PageObject: obj})
		if err != nil {
			return err
		}
		clip, err := p.clipBox(obj, form)
		if err != nil {
			return err
		}
		b, err := inst.FPDFPageObj_GetBounds(&requests.FPDFPageObj_GetBounds{PageObject: obj})
		if err != nil {
			return err
		}
		// The object's bounds are in the space of the form XObject it is in.
		bounds := emptyRect()
		for _, c := range [][2]float32{{b.Left, b.Bottom}, {b.Right, b.Bottom}, {b.Left, b.Top}, {b.Right, b.Top}} {
			x, y := form.apply(float64(c[0]), float64(c[1]))
			bounds = rect{min(bounds.x0, x), min(bounds.y0, y), max(bounds.x1, x), max(bounds.y1, y)}
		}
		switch {
		case hiddenMode(mode.TextRenderMode),
			math.Abs(float64(size.FontSize))*affineOf(m.Matrix).then(form).scale() < minTextSize,
			clip != nil && clip.intersect(p.box) != p.box,
			bounds.intersect(p.box) != bounds:
			p.suspect = true
		}
	}
	marks, err := inst.FPDFPageObj_CountMarks(&requests.FPDFPageObj_CountMarks{PageObject: obj})
	if err != nil {
		return err
	}
	for i := range marks.Count {
		mark, err := inst.FPDFPageObj_GetMark(&requests.FPDFPageObj_GetMark{PageObject: obj, Index: uint64(i)})
		if err != nil {
			return err
		}
		if _, err := inst.FPDFPageObjMark_GetParamStringValue(&requests.FPDFPageObjMark_GetParamStringValue{PageObjectMark: mark.Mark, Key: "ActualText"}); err == nil {
			*actual = append(*actual, obj)
			break
		}
	}
	return nil
}

// hiddenMode reports whether text in this render mode draws nothing: 3 (invisible) and 7
// (a clip only).
func hiddenMode(m enums.FPDF_TEXT_RENDERMODE) bool {
	return m == enums.FPDF_TEXTRENDERMODE_INVISIBLE || m == enums.FPDF_TEXTRENDERMODE_CLIP
}

// clipBox returns the bounding box, in the page's space, of the clip path of obj (whose
// space goes to the page's by form): the part of the page where it can be seen; nil when it
// has none.
func (p *pdfiumPage) clipBox(obj references.FPDF_PAGEOBJECT, form affine) (*rect, error) {
	inst := p.inst
	cp, err := inst.FPDFPageObj_GetClipPath(&requests.FPDFPageObj_GetClipPath{PageObject: obj})
	if err != nil {
		return nil, nil // no clip path
	}
	paths, err := inst.FPDFClipPath_CountPaths(&requests.FPDFClipPath_CountPaths{ClipPath: cp.ClipPath})
	if err != nil || paths.Count <= 0 {
		return nil, nil // a clip path of text only, or none: the ink check sees it
	}
	box := rect{math.Inf(-1), math.Inf(-1), math.Inf(1), math.Inf(1)}
	for i := range paths.Count {
		segs, err := inst.FPDFClipPath_CountPathSegments(&requests.FPDFClipPath_CountPathSegments{ClipPath: cp.ClipPath, PathIndex: i})
		if err != nil {
			return nil, err
		}
		pb := rect{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
		for j := range segs.Count {
			seg, err := inst.FPDFClipPath_GetPathSegment(&requests.FPDFClipPath_GetPathSegment{ClipPath: cp.ClipPath, PathIndex: i, SegmentIndex: j})
			if err != nil {
				return nil, err
			}
			pt, err := inst.FPDFPathSegment_GetPoint(&requests.FPDFPathSegment_GetPoint{PathSegment: seg.PathSegment})
			if err != nil {
				return nil, err
			}
			x, y := form.apply(float64(pt.X), float64(pt.Y))
			pb = rect{min(pb.x0, x), min(pb.y0, y), max(pb.x1, x), max(pb.y1, y)}
		}
		box = box.intersect(pb) // the clip is the intersection of its paths
	}
	return &box, nil
}

// takeOffActualText takes the /ActualText off every content mark of the text object obj
// that has one, so that the text page reads its glyphs.
func takeOffActualText(inst pdfium.Pdfium, obj references.FPDF_PAGEOBJECT) error {
	marks, err := inst.FPDFPageObj_CountMarks(&requests.FPDFPageObj_CountMarks{PageObject: obj})
	if err != nil {
		return err
	}
	for i := marks.Count - 1; i >= 0; i-- {
		mark, err := inst.FPDFPageObj_GetMark(&requests.FPDFPageObj_GetMark{PageObject: obj, Index: uint64(i)})
		if err != nil {
			return err
		}
		if _, err := inst.FPDFPageObjMark_GetParamStringValue(&requests.FPDFPageObjMark_GetParamStringValue{PageObjectMark: mark.Mark, Key: "ActualText"}); err != nil {
			continue
		}
		// The /ActualText goes, the mark stays: it may be an optional-content mark, whose
		// layer the renderer must still see.
		if _, err := inst.FPDFPageObjMark_RemoveParam(&requests.FPDFPageObjMark_RemoveParam{PageObject: obj, PageObjectMark: mark.Mark, Key: "ActualText"}); err != nil {
			return err
		}
	}
	return nil
}

func (p *pdfiumPage) close() {
	if p.text != "" {
		p.inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: p.text})
	}
	p.inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: p.page})
}

// visible reports whether character i, centred at (x, y), can be seen: its page's visible
// area holds it, and on a suspect page its text object draws it (render mode neither 3 nor
// 7), at minTextSize or more, inside its clip. The object's verdict is kept for the
// characters after it with the same matrix (the same object, or one drawn at the same place,
// whose ink the ink check looks at).
func (p *pdfiumPage) visible(i int, x, y float64) (bool, error) {
	if !p.box.contains(x, y) {
		return false, nil
	}
	if !p.suspect {
		return true, nil
	}
	inst := p.inst
	cm, err := inst.FPDFText_GetMatrix(&requests.FPDFText_GetMatrix{TextPage: p.text, Index: i})
	if err != nil {
		return false, nil // no object: a character PDFium made up
	}
	m := affineOf(cm.Matrix)
	if p.lastVisible != nil && m == p.lastMatrix {
		return p.lastVisible(x, y), nil
	}
	p.lastMatrix, p.lastVisible = m, func(float64, float64) bool { return false }
	obj, err := inst.FPDFText_GetTextObject(&requests.FPDFText_GetTextObject{TextPage: p.text, Index: i})
	if err != nil {
		return false, nil
	}
	mode, err := inst.FPDFTextObj_GetTextRenderMode(&requests.FPDFTextObj_GetTextRenderMode{PageObject: obj.TextObject})
	if err != nil {
		return false, err
	}
	size, err := inst.FPDFText_GetFontSize(&requests.FPDFText_GetFontSize{TextPage: p.text, Index: i})
	if err != nil {
		return false, err
	}
	if hiddenMode(mode.TextRenderMode) || math.Abs(size.FontSize)*m.scale() < minTextSize {
		return false, nil
	}
	// The clip path of an object inside a form XObject is in the form's space; the form's
	// matrix is the character's matrix without the object's own.
	om, err := inst.FPDFPageObj_GetMatrix(&requests.FPDFPageObj_GetMatrix{PageObject: obj.TextObject})
	if err != nil {
		return false, err
	}
	form := identity
	if inv, ok := affineOf(om.Matrix).invert(); ok {
		form = inv.then(m)
	}
	clip, err := p.clipBox(obj.TextObject, form)
	if err != nil {
		return false, err
	}
	p.lastVisible = func(x, y float64) bool { return clip == nil || clip.contains(x, y) }
	return p.lastVisible(x, y), nil
}

// invert returns the inverse of m, and false when it has none.
func (m affine) invert() (affine, bool) {
	det := m.a*m.d - m.b*m.c
	if det == 0 || math.IsNaN(det) || math.IsInf(det, 0) {
		return affine{}, false
	}
	a, b, c, d := m.d/det, -m.b/det, -m.c/det, m.a/det
	return affine{a: a, b: b, c: c, d: d, e: -(m.e*a + m.f*c), f: -(m.e*b + m.f*d)}, true
}

// frags reads the page's characters, in PDFium's order, into fragments of text (pdfFrag),
// each rune with the index of its character: a line ends where PDFium ends one (and after
// a hyphen PDFium joined across a line end, U+0002), and a fragment ends at a column gap
// (columnGap) or a jump back as wide. Characters that cannot be seen (visible) are left out.
// budget is the bytes of text still allowed, each fragment counted with a byte for its end;
// past it, the read stops with errTextLimit.
//
// PDFium puts a space (its own when the text has none) wherever text moves on by more than
// a word space, so a column gap can only follow a space: on a page that is not suspect, the
// boxes of the characters next to a space or a line end are all the layout needs, and only
// those are asked for.
func (p *pdfiumPage) frags(budget int) ([]pdfFrag, error) {
	inst := p.inst
	n, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: p.text})
	if err != nil {
		return nil, err
	}
	// The first pass reads each character's rune: a letter, a space (' '), a line end
	// ('\n'), a hyphen at a line end ('\x02'), or nothing (0).
	runes := make([]rune, n.Count)
	for i := range runes {
		u, err := inst.FPDFText_GetUnicode(&requests.FPDFText_GetUnicode{TextPage: p.text, Index: i})
		if err != nil {
			return nil, err
		}
		r := rune(u.Unicode)
		switch {
		case r == '\r':
			r = 0
		case r == '\n', r == 0x02:
		case u.Unicode > unicode.MaxRune || r >= 0xD800 && r < 0xE000:
			r = utf8.RuneError
		case r == 0 || r == 0xFFFE || r == 0xFFFF || unicode.IsControl(r) && !unicode.IsSpace(r):
			r = 0
		case unicode.IsSpace(r):
			r = ' '
		}
		runes[i] = r
	}
	// edge reports whether character i (a letter) is next to a space or a line end, or
	// begins or ends the page; characters that stand for nothing are looked past.
	sep := func(k, dir int) bool {
		for k >= 0 && k < len(runes) && runes[k] == 0 {
			k += dir
		}
		return k < 0 || k >= len(runes) || runes[k] == ' ' || runes[k] == '\n' || runes[k] == 0x02
	}
	edge := func(i int) bool { return sep(i-1, -1) || sep(i+1, 1) }
	var (
		out      []pdfFrag
		cur      pdfFrag
		text     []byte
		placed   bool // cur has a character
		boxed    bool // cur has a character with a box
		line     int
		prev     rect // the box of the last character of the line with one
		havePrev bool
		within   bool // letters without a box came after prev: the same word goes on
		size     int
	)
	closeFrag := func() error {
		if placed {
			cur.Text = string(text)
			out = append(out, cur)
			if size += len(text) + 1; size > budget {
				return errTextLimit
			}
		}
		cur, text, placed, boxed = pdfFrag{Line: line}, nil, false, false
		return nil
	}
	newLine := func() error {
		if err := closeFrag(); err != nil {
			return err
		}
		line++
		cur.Line, havePrev, within = line, false, false
		return nil
	}
	add := func(r rune, i int) {
		text = utf8.AppendRune(text, r)
		cur.chars = append(cur.chars, int32(i))
	}
	for i, r := range runes {
		switch r {
		case 0:
			continue
		case '\n':
			if err := newLine(); err != nil {
				return nil, err
			}
			continue
		case 0x02:
			// PDFium's mark of a hyphen at a line end that it joined to the next line.
			if h, err := inst.FPDFText_IsHyphen(&requests.FPDFText_IsHyphen{TextPage: p.text, Index: i}); err == nil && h.IsHyphen && placed {
				add('-', i)
				if err := newLine(); err != nil {
					return nil, err
				}
			}
			continue
		case ' ':
			if placed {
				add(' ', i)
			}
			continue
		}
		if !p.suspect && !edge(i) {
			add(r, i)
			placed, within = true, true
			continue
		}
		lb, err := inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: p.text, Index: i})
		if err != nil {
			continue // a character without a box is not drawn
		}
		box := normRect(float64(lb.Rect.Left), float64(lb.Rect.Bottom), float64(lb.Rect.Right), float64(lb.Rect.Top))
		if p.suspect {
			ok, err := p.visible(i, (box.x0+box.x1)/2, (box.y0+box.y1)/2)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		h := box.y1 - box.y0
		if havePrev && !within {
			em := max(h, prev.y1-prev.y0)
			sameRow := math.Abs((box.y0+box.y1)/2-(prev.y0+prev.y1)/2) < em
			if sameRow && (box.x0-prev.x1 > columnGap*em || box.x0 < prev.x0-columnGap*em) {
				if err := closeFrag(); err != nil {
					return nil, err
				}
			}
		}
		if !boxed {
			cur.X0, cur.X1, cur.Base, cur.Height = box.x0, box.x1, box.y0, h
			boxed = true
		}
		cur.X0, cur.X1, cur.Height = min(cur.X0, box.x0), max(cur.X1, box.x1), max(cur.Height, h)
		add(r, i)
		placed = true
		prev, havePrev, within = box, true, false
	}
	if err := closeFrag(); err != nil {
		return nil, err
	}
	return out, nil
}
