package pdf

import (
	"fmt"
	"maps"
	"math"
	"slices"
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
	// around) that its ink must cover. The thinnest glyphs of the corpus quotes cover 19% at
	// the scale the check renders at (TestInkShareOfCorpus); a sliver of a glyph left by a
	// clip or a cover does not reach it.
	inkShare = 0.08
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
	// minShare is the least share of its box that the ink of a character seen covers.
	minShare float64
}

// Seen reports whether every character looked at, and one at least, is seen.
func (r InkReport) Seen() bool { return r.Checked > 0 && len(r.Unseen) == 0 }

// CheckInk renders with PDFium, within [DefaultLimits], the parts of the PDF body's
// pages where the characters of each quote lie (a quote's characters found in
// [ExtractPDFium]'s text, see [Text.GlyphsIn]) and reports, for each quote, which of them
// a reader does not see. For each quote, the part of the page it lies on is rendered twice,
// as it is and with the text objects of its characters not drawn; a character is seen when
// the two differ (by inkDelta) in at least inkShare of its box. So a character counts by
// its own ink, not by what else is drawn where it is: text painted over, clipped, drawn
// white on white or on a layer that is off (PDFium renders only the layers that are on)
// leaves none, and text hidden under other text takes none of that text's ink. The quotes
// share one engine and each page is read once.
//
// Errors wrap [ErrDamaged], [ErrEncrypted] or [ErrLimit].
func CheckInk(body []byte, quotes [][]Glyph) ([]InkReport, error) {
	return checkInk(body, quotes, DefaultLimits)
}

func checkInk(body []byte, quotes [][]Glyph, limits Limits) ([]InkReport, error) {
	// For each page, the characters of each quote on it.
	byPage := map[int]map[int][]int{}
	for q, glyphs := range quotes {
		for _, g := range glyphs {
			if byPage[g.Page] == nil {
				byPage[g.Page] = map[int][]int{}
			}
			byPage[g.Page][q] = append(byPage[g.Page][q], g.Char)
		}
	}
	pages := make([]int, 0, len(byPage))
	for p := range byPage {
		pages = append(pages, p)
	}
	sort.Ints(pages)
	reps := make([]InkReport, len(quotes))
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
			if err := pageInk(inst, doc.Document, n, byPage[n], reps); err != nil {
				return fmt.Errorf("page %d: %w", n, pdfiumError(err))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return reps, nil
}

// inkChar is one character being checked on the page being checked.
type inkChar struct {
	index int
	box   rect // its glyph's tight bounds, page space
	em    float64
	obj   references.FPDF_PAGEOBJECT
	mode  enums.FPDF_TEXT_RENDERMODE // its object's render mode
	// drawn: its object draws it inside the page's visible area, so its ink is looked at.
	drawn bool
	seen  bool
	share float64 // the share of its box its ink covers
}

// pageInk checks, on page n (1 for the first), the characters of each quote q in quotes
// (by their index on the page) and adds what it found to reps[q].
func pageInk(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, n int, quotes map[int][]int, reps []InkReport) error {
	p, err := openPDFiumPage(inst, doc, n-1)
	if err != nil {
		return err
	}
	defer p.close()
	chars := map[int]*inkChar{}
	for _, q := range slices.Sorted(maps.Keys(quotes)) {
		cs := make([]*inkChar, 0, len(quotes[q]))
		region := emptyRect()
		minEm := math.Inf(1)
		for _, i := range quotes[q] {
			c, err := p.inkChar(chars, i)
			if err != nil {
				return err
			}
			cs = append(cs, c)
			if c.drawn {
				region = rect{min(region.x0, c.box.x0), min(region.y0, c.box.y0), max(region.x1, c.box.x1), max(region.y1, c.box.y1)}
				if c.em > 0 {
					minEm = min(minEm, c.em)
				}
			}
		}
		if region.x0 <= region.x1 {
			if err := renderInk(p, cs, region, minEm); err != nil {
				return err
			}
		}
		reps[q].Checked += len(cs)
		for _, c := range cs {
			if !c.seen {
				reps[q].Unseen = append(reps[q].Unseen, Glyph{Page: n, Char: c.index})
			} else if reps[q].minShare == 0 || c.share < reps[q].minShare {
				reps[q].minShare = c.share
			}
		}
	}
	return nil
}

// inkChar returns what the check needs of character i of the page, read once.
func (p *pdfiumPage) inkChar(chars map[int]*inkChar, i int) (*inkChar, error) {
	if c, ok := chars[i]; ok {
		return &inkChar{index: c.index, box: c.box, em: c.em, obj: c.obj, mode: c.mode, drawn: c.drawn}, nil
	}
	inst := p.inst
	c := &inkChar{index: i}
	chars[i] = c
	b, err := inst.FPDFText_GetCharBox(&requests.FPDFText_GetCharBox{TextPage: p.text, Index: i})
	if err != nil {
		return c, nil // no box: nothing drawn
	}
	c.box = normRect(b.Left, b.Bottom, b.Right, b.Top)
	lb, err := inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: p.text, Index: i})
	if err != nil {
		return c, nil
	}
	// The glyph's bounds come from its font; its place on the line from where it is drawn.
	// The box looked at is the first within half an em of the second, so that a font cannot
	// move a glyph's box over ink that is not its own.
	loose := normRect(float64(lb.Rect.Left), float64(lb.Rect.Bottom), float64(lb.Rect.Right), float64(lb.Rect.Top))
	c.em = loose.y1 - loose.y0
	if w := loose.x1 - loose.x0; w > c.em {
		c.em = w // a glyph turned a quarter: its box is wide
	}
	m := c.em / 2
	c.box = c.box.intersect(rect{loose.x0 - m, loose.y0 - m, loose.x1 + m, loose.y1 + m})
	if c.box.x0 > c.box.x1 || c.box.y0 > c.box.y1 {
		return c, nil
	}
	obj, err := inst.FPDFText_GetTextObject(&requests.FPDFText_GetTextObject{TextPage: p.text, Index: i})
	if err != nil {
		return c, nil // a character PDFium made up
	}
	c.obj = obj.TextObject
	mode, err := inst.FPDFTextObj_GetTextRenderMode(&requests.FPDFTextObj_GetTextRenderMode{PageObject: c.obj})
	if err != nil {
		return nil, err
	}
	c.mode = mode.TextRenderMode
	c.drawn = !hiddenMode(c.mode) && p.box.contains((c.box.x0+c.box.x1)/2, (c.box.y0+c.box.y1)/2)
	return &inkChar{index: c.index, box: c.box, em: c.em, obj: c.obj, mode: c.mode, drawn: c.drawn}, nil
}

// renderInk renders region of page p twice, with and without the text objects of the
// characters cs drawn, and decides, for each of cs its object draws, whether its own ink is
// there. The objects draw again afterwards.
func renderInk(p *pdfiumPage, cs []*inkChar, region rect, minEm float64) error {
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
	setModes := func(hide bool) error {
		for _, c := range cs {
			if !c.drawn {
				continue
			}
			mode := c.mode
			if hide {
				mode = enums.FPDF_TEXTRENDERMODE_INVISIBLE
			}
			if _, err := inst.FPDFTextObj_SetTextRenderMode(&requests.FPDFTextObj_SetTextRenderMode{PageObject: c.obj, TextRenderMode: mode}); err != nil {
				return err
			}
		}
		return nil
	}
	if err := setModes(true); err != nil {
		return err
	}
	bare, _, err := render()
	if err != nil {
		return err
	}
	if err := setModes(false); err != nil {
		return err
	}
	for _, c := range cs {
		if !c.drawn {
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
		if area > 0 {
			c.share = float64(ink) / float64(area)
		}
		c.seen = ink > 0 && c.share >= inkShare
	}
	return nil
}
