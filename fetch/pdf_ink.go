package fetch

import (
	"fmt"
	"math"
	"sort"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// The ink check (docs/pdf.md): a character counts as seen when rendering its page with its
// text object drawn and again with it not drawn changes enough of the pixels in its box.
const (
	// inkDelta is how much a pixel must change, in one colour channel of 255, to be ink: a
	// sixth of the range. Text lighter than about #d7d7d7 on white leaves none.
	inkDelta = 40
	// inkShare is the least share of a character's box (its glyph's tight bounds, one pixel
	// around) that its ink must cover. The thinnest glyphs of the corpus cover about 15% at
	// the scale the check renders at (inkPixelsPerEm).
	inkShare = 0.04
	// inkPixelsPerEm is the size the smallest character of a quote is rendered at, in
	// pixels to the line height, within inkMinScale and inkMaxScale pixels per point and at
	// most inkMaxPixels pixels in all.
	inkPixelsPerEm = 20
	inkMinScale    = 1.0
	inkMaxScale    = 10.0
	inkMaxPixels   = 8 << 20
)

// InkReport is what the ink check found of the characters of a quote.
type InkReport struct {
	// Checked is how many characters were looked at.
	Checked int
	// Unseen are the characters no reader sees, in order: their text object draws nothing
	// (render mode 3 or 7), they lie outside the page's crop box, or drawing them changes
	// too little of the rendered page (white on white, painted over, clipped away, on a layer
	// that is off).
	Unseen []Glyph
}

// Seen reports whether every character looked at, and one at least, is seen.
func (r InkReport) Seen() bool { return r.Checked > 0 && len(r.Unseen) == 0 }

// CheckPDFInk renders with PDFium, within [DefaultPDFLimits], the parts of the PDF body's
// pages where glyphs lie (the characters of a quote found in [ExtractPDFium]'s text, see
// [PDFText.GlyphsIn]) and reports which of them a reader does not see. Each page is rendered
// twice, as it is and with the text objects of its glyphs not drawn; a glyph is seen when
// the two differ (by inkDelta) in at least inkShare of its box. So a glyph counts by its own
// ink, not by what else is drawn where it is: text painted over, clipped, drawn white on
// white or on a layer that is off (PDFium renders only the layers that are on) leaves none,
// and text hidden under other text takes none of that text's ink.
//
// Errors wrap [ErrDamaged], [ErrEncrypted] or [ErrLimit], or say that a glyph is not on
// its page.
func CheckPDFInk(body []byte, glyphs []Glyph) (InkReport, error) {
	return checkPDFInk(body, glyphs, DefaultPDFLimits)
}

func checkPDFInk(body []byte, glyphs []Glyph, limits PDFLimits) (InkReport, error) {
	byPage := map[int][]int{}
	for _, g := range glyphs {
		byPage[g.Page] = append(byPage[g.Page], g.Char)
	}
	pages := make([]int, 0, len(byPage))
	for p := range byPage {
		pages = append(pages, p)
	}
	sort.Ints(pages)
	var rep InkReport
	err := runPDFium(body, limits, "render", func(inst pdfium.Pdfium) error {
		doc, err := inst.OpenDocument(&requests.OpenDocument{File: &body})
		if err != nil {
			return pdfiumError(err)
		}
		defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
		count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
		if err != nil {
			return pdfiumError(err)
		}
		for _, n := range pages {
			if n < 1 || n > count.PageCount {
				return fmt.Errorf("%w: the PDF has no page %d", ErrDamaged, n)
			}
			unseen, err := pageInk(inst, doc.Document, n, byPage[n])
			if err != nil {
				return fmt.Errorf("page %d: %w", n, pdfiumError(err))
			}
			rep.Checked += len(byPage[n])
			rep.Unseen = append(rep.Unseen, unseen...)
		}
		return nil
	})
	if err != nil {
		return InkReport{}, err
	}
	return rep, nil
}

// inkChar is one character of a quote on the page being checked.
type inkChar struct {
	index int
	box   rect // its glyph's tight bounds, page space
	em    float64
	obj   references.FPDF_PAGEOBJECT
	seen  bool
	known bool // whether seen is decided
}

// pageInk checks the characters chars of page n (1 for the first) and returns those unseen.
func pageInk(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, n int, chars []int) ([]Glyph, error) {
	p, err := openPDFiumPage(inst, doc, n-1)
	if err != nil {
		return nil, err
	}
	defer p.close()
	cs := make([]inkChar, len(chars))
	region := emptyRect()
	minEm := math.Inf(1)
	for k, i := range chars {
		c := &cs[k]
		c.index = i
		b, err := inst.FPDFText_GetCharBox(&requests.FPDFText_GetCharBox{TextPage: p.text, Index: i})
		if err != nil {
			c.known = true // no box: nothing drawn
			continue
		}
		c.box = normRect(b.Left, b.Bottom, b.Right, b.Top)
		lb, err := inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: p.text, Index: i})
		if err == nil {
			c.em = math.Abs(float64(lb.Rect.Top - lb.Rect.Bottom))
		}
		obj, err := inst.FPDFText_GetTextObject(&requests.FPDFText_GetTextObject{TextPage: p.text, Index: i})
		if err != nil {
			c.known = true
			continue
		}
		c.obj = obj.TextObject
		mode, err := inst.FPDFTextObj_GetTextRenderMode(&requests.FPDFTextObj_GetTextRenderMode{PageObject: c.obj})
		if err != nil {
			return nil, err
		}
		if hiddenMode(mode.TextRenderMode) || !p.box.contains((c.box.x0+c.box.x1)/2, (c.box.y0+c.box.y1)/2) {
			c.known = true
			continue
		}
		region = rect{min(region.x0, c.box.x0), min(region.y0, c.box.y0), max(region.x1, c.box.x1), max(region.y1, c.box.y1)}
		if c.em > 0 {
			minEm = min(minEm, c.em)
		}
	}
	if region.x0 <= region.x1 {
		if err := renderInk(p, cs, region, minEm); err != nil {
			return nil, err
		}
	}
	var unseen []Glyph
	for _, c := range cs {
		if !c.seen {
			unseen = append(unseen, Glyph{Page: n, Char: c.index})
		}
	}
	return unseen, nil
}

// renderInk renders region of page p twice, with and without the text objects of cs, and
// decides, for each character of cs not yet decided, whether its own ink is there.
func renderInk(p *pdfiumPage, cs []inkChar, region rect, minEm float64) error {
	inst := p.inst
	ref := requests.Page{ByReference: &p.page}
	w, err := inst.FPDF_GetPageWidthF(&requests.FPDF_GetPageWidthF{Page: ref})
	if err != nil {
		return err
	}
	h, err := inst.FPDF_GetPageHeightF(&requests.FPDF_GetPageHeightF{Page: ref})
	if err != nil {
		return err
	}
	region = rect{region.x0 - 1, region.y0 - 1, region.x1 + 1, region.y1 + 1}.intersect(p.box)
	scale := inkMaxScale
	if !math.IsInf(minEm, 1) {
		scale = min(max(inkPixelsPerEm/minEm, inkMinScale), inkMaxScale)
	}
	if area := (region.x1 - region.x0) * (region.y1 - region.y0); area*scale*scale > inkMaxPixels {
		scale = math.Sqrt(inkMaxPixels / area)
	}
	sizeX, sizeY := int(math.Ceil(float64(w.PageWidth)*scale)), int(math.Ceil(float64(h.PageHeight)*scale))
	// The device's map of the page's space, read from three points far apart so that
	// PDFium's whole pixels lose no precision.
	dev := func(x, y float64) (float64, float64, error) {
		d, err := inst.FPDF_PageToDevice(&requests.FPDF_PageToDevice{Page: ref, SizeX: sizeX, SizeY: sizeY, PageX: x, PageY: y})
		if err != nil {
			return 0, 0, err
		}
		return float64(d.DeviceX), float64(d.DeviceY), nil
	}
	const far = 10000
	x0, y0, err := dev(0, 0)
	if err != nil {
		return err
	}
	x1, y1, err := dev(far, 0)
	if err != nil {
		return err
	}
	x2, y2, err := dev(0, far)
	if err != nil {
		return err
	}
	toDev := affine{a: (x1 - x0) / far, b: (y1 - y0) / far, c: (x2 - x0) / far, d: (y2 - y0) / far, e: x0, f: y0}
	devBox := func(r rect) (int, int, int, int) {
		bx := emptyRect()
		for _, pt := range [][2]float64{{r.x0, r.y0}, {r.x1, r.y0}, {r.x0, r.y1}, {r.x1, r.y1}} {
			x, y := toDev.apply(pt[0], pt[1])
			bx = rect{min(bx.x0, x), min(bx.y0, y), max(bx.x1, x), max(bx.y1, y)}
		}
		return int(math.Floor(bx.x0)), int(math.Floor(bx.y0)), int(math.Ceil(bx.x1)), int(math.Ceil(bx.y1))
	}
	rx0, ry0, rx1, ry1 := devBox(region)
	bw, bh := rx1-rx0, ry1-ry0
	if bw <= 0 || bh <= 0 {
		return nil
	}
	render := func() ([]byte, int, error) {
		bm, err := inst.FPDFBitmap_Create(&requests.FPDFBitmap_Create{Width: bw, Height: bh, Alpha: 0})
		if err != nil {
			return nil, 0, err
		}
		defer inst.FPDFBitmap_Destroy(&requests.FPDFBitmap_Destroy{Bitmap: bm.Bitmap})
		if _, err := inst.FPDFBitmap_FillRect(&requests.FPDFBitmap_FillRect{Bitmap: bm.Bitmap, Width: bw, Height: bh, Color: 0xFFFFFFFF}); err != nil {
			return nil, 0, err
		}
		if _, err := inst.FPDF_RenderPageBitmap(&requests.FPDF_RenderPageBitmap{Bitmap: bm.Bitmap, Page: ref, StartX: -rx0, StartY: -ry0, SizeX: sizeX, SizeY: sizeY, Flags: enums.FPDF_RENDER_FLAG_ANNOT}); err != nil {
			return nil, 0, err
		}
		stride, err := inst.FPDFBitmap_GetStride(&requests.FPDFBitmap_GetStride{Bitmap: bm.Bitmap})
		if err != nil {
			return nil, 0, err
		}
		buf, err := inst.FPDFBitmap_GetBuffer(&requests.FPDFBitmap_GetBuffer{Bitmap: bm.Bitmap})
		if err != nil {
			return nil, 0, err
		}
		return append([]byte(nil), buf.Buffer...), stride.Stride, nil
	}
	drawn, stride, err := render()
	if err != nil {
		return err
	}
	for _, c := range cs {
		if !c.known {
			if _, err := inst.FPDFTextObj_SetTextRenderMode(&requests.FPDFTextObj_SetTextRenderMode{PageObject: c.obj, TextRenderMode: enums.FPDF_TEXTRENDERMODE_INVISIBLE}); err != nil {
				return err
			}
		}
	}
	bare, _, err := render()
	if err != nil {
		return err
	}
	for k := range cs {
		c := &cs[k]
		if c.known {
			continue
		}
		gx0, gy0, gx1, gy1 := devBox(c.box)
		gx0, gy0 = max(gx0-1-rx0, 0), max(gy0-1-ry0, 0)
		gx1, gy1 = min(gx1+1-rx0, bw), min(gy1+1-ry0, bh)
		area, ink := 0, 0
		for y := gy0; y < gy1; y++ {
			for x := gx0; x < gx1; x++ {
				area++
				i := y*stride + 4*x
				for ch := range 3 { // BGRx
					if d := int(drawn[i+ch]) - int(bare[i+ch]); d >= inkDelta || d <= -inkDelta {
						ink++
						break
					}
				}
			}
		}
		c.seen = area > 0 && ink > 0 && float64(ink) >= inkShare*float64(area)
	}
	return nil
}
