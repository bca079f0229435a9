// CSS property values, in one file: every property the visibility rules read, its valid
// values, the shorthands that set it and the lengths it takes. It is a table of
// properties; split by property, the shared value grammar would be copied.

package fetch

import (
	"math"
	"strconv"
	"strings"
)

// cssProp is a property that bears on whether text is seen; declarations of others are
// not kept.
type cssProp uint8

const (
	propDisplay cssProp = iota
	propVisibility
	propOpacity
	propContentVisibility
	propPosition
	propFloat
	propLeft
	propTop
	propRight
	propBottom
	propMarginLeft
	propMarginTop
	propTextIndent
	propWidth
	propHeight
	propMaxWidth
	propMaxHeight
	propOverflowX
	propOverflowY
	propClip
	propClipPath
	propTransform
	propScale
	propTranslate
	propFilter
	propFontSize
	propColor
	propTextFill
	propBackgroundColor
	propBackgroundImage
	propBackgroundClip
	propTextShadow
	propTextStroke
	numProps
)

// inheritedProps are the properties an element takes from its parent when no rule sets
// them.
var inheritedProps = [numProps]bool{
	propVisibility: true, propTextIndent: true, propFontSize: true, propColor: true,
	propTextFill: true, propTextShadow: true, propTextStroke: true,
}

// longhands maps property names (and their aliases) to the property.
var longhands = map[string]cssProp{
	"display": propDisplay, "visibility": propVisibility, "opacity": propOpacity,
	"content-visibility": propContentVisibility, "position": propPosition, "float": propFloat,
	"left": propLeft, "top": propTop, "right": propRight, "bottom": propBottom,
	"inset-inline-start": propLeft, "inset-block-start": propTop,
	"inset-inline-end": propRight, "inset-block-end": propBottom,
	"margin-left": propMarginLeft, "margin-top": propMarginTop,
	"margin-inline-start": propMarginLeft, "margin-block-start": propMarginTop,
	"text-indent": propTextIndent,
	"width":       propWidth, "height": propHeight, "max-width": propMaxWidth, "max-height": propMaxHeight,
	"inline-size": propWidth, "block-size": propHeight,
	"max-inline-size": propMaxWidth, "max-block-size": propMaxHeight,
	"overflow-x": propOverflowX, "overflow-y": propOverflowY,
	"overflow-inline": propOverflowX, "overflow-block": propOverflowY,
	"clip": propClip, "clip-path": propClipPath, "-webkit-clip-path": propClipPath,
	"transform": propTransform, "-webkit-transform": propTransform,
	"scale": propScale, "translate": propTranslate,
	"filter": propFilter, "-webkit-filter": propFilter,
	"font-size": propFontSize, "color": propColor, "-webkit-text-fill-color": propTextFill,
	"background-color": propBackgroundColor, "background-image": propBackgroundImage,
	"background-clip": propBackgroundClip, "-webkit-background-clip": propBackgroundClip,
	"text-shadow": propTextShadow, "-webkit-text-stroke-width": propTextStroke,
}

// shorthand is a shorthand property whose longhands count.
type shorthand uint8

const (
	shortNone shorthand = iota
	shortInset
	shortInsetInline
	shortInsetBlock
	shortMargin
	shortMarginInline
	shortMarginBlock
	shortOverflow
	shortBackground
	shortFont
	shortTextStroke
)

var shorthands = map[string]shorthand{
	"inset": shortInset, "inset-inline": shortInsetInline, "inset-block": shortInsetBlock,
	"margin": shortMargin, "margin-inline": shortMarginInline, "margin-block": shortMarginBlock,
	"overflow": shortOverflow, "background": shortBackground, "font": shortFont,
	"-webkit-text-stroke": shortTextStroke,
}

// shorthandProps are the longhands each shorthand sets, of those that count.
var shorthandProps = map[shorthand][]cssProp{
	shortInset:        {propTop, propRight, propBottom, propLeft},
	shortInsetInline:  {propLeft, propRight},
	shortInsetBlock:   {propTop, propBottom},
	shortMargin:       {propMarginTop, propMarginLeft},
	shortMarginInline: {propMarginLeft},
	shortMarginBlock:  {propMarginTop},
	shortOverflow:     {propOverflowX, propOverflowY},
	shortBackground:   {propBackgroundColor, propBackgroundImage, propBackgroundClip},
	shortFont:         {propFontSize},
	shortTextStroke:   {propTextStroke},
}

// parseDeclaration turns a declaration into the declarations of the longhands that count;
// usesVar reports a var() to substitute when the element's custom properties are known.
func parseDeclaration(name string, toks []cssToken, important bool) (decls []cssDecl, usesVar bool) {
	if len(toks) == 0 {
		return nil, false
	}
	usesVar = hasVar(toks)
	if p, ok := longhands[name]; ok {
		if !usesVar && !validValue(p, toks) {
			return nil, false // dropped when parsed: an earlier declaration stays
		}
		return []cssDecl{{prop: p, important: important, toks: toks}}, usesVar
	}
	sh, ok := shorthands[name]
	if !ok {
		return nil, false
	}
	if usesVar {
		for _, p := range shorthandProps[sh] {
			decls = append(decls, cssDecl{prop: p, short: sh, important: important, toks: toks})
		}
		return decls, true
	}
	for p, v := range expandShorthand(sh, toks) {
		if !validValue(p, v) {
			return nil, false
		}
		decls = append(decls, cssDecl{prop: p, important: important, toks: v})
	}
	return decls, false
}

// validValue reports whether a value can be one of the property: a browser drops a
// declaration it cannot read when it parses the sheet, so that an earlier one stays in
// force. It accepts what this package reads and, leniently, functions it does not read.
func validValue(p cssProp, toks []cssToken) bool {
	if len(toks) == 0 {
		return false
	}
	if len(toks) == 1 && isWideKeyword(toks[0]) {
		return true
	}
	one := func(words ...string) bool {
		if len(toks) != 1 || toks[0].kind != tokIdent {
			return false
		}
		for _, w := range words {
			if toks[0].text == w {
				return true
			}
		}
		return false
	}
	switch p {
	case propDisplay:
		_, ok := displayOf(toks)
		return ok
	case propVisibility:
		return one("visible", "hidden", "collapse")
	case propContentVisibility:
		return one("visible", "hidden", "auto")
	case propPosition:
		return one("static", "relative", "absolute", "fixed", "sticky", "-webkit-sticky")
	case propFloat:
		return one("none", "left", "right", "inline-start", "inline-end")
	case propOverflowX, propOverflowY:
		return one("visible", "hidden", "clip", "scroll", "auto", "overlay", "-moz-hidden-unscrollable")
	case propOpacity:
		_, ok := number(toks)
		return ok || isFunctionValue(toks)
	case propLeft, propTop, propRight, propBottom, propMarginLeft, propMarginTop, propWidth, propHeight,
		propMaxWidth, propMaxHeight, propTextIndent:
		if len(toks) == 1 && toks[0].kind == tokIdent {
			switch toks[0].text {
			case "auto", "none", "min-content", "max-content", "fit-content", "stretch",
				"-webkit-fill-available", "-moz-available", "-webkit-min-content", "-webkit-max-content":
				return true
			}
			return false
		}
		for _, t := range toks {
			switch {
			case t.kind == tokIdent && (t.text == "hanging" || t.text == "each-line"):
			case t.kind == tokPercentage, t.kind == tokNumber && t.num == 0:
			case t.kind == tokDimension:
				if _, ok := unitPx(1, t.text, lengthCtx{fontPx: 16, vp: viewports[0]}); !ok {
					return false
				}
			case t.kind == tokFunction:
				return true
			default:
				return false
			}
		}
		return true
	case propFontSize:
		_, ok := fontSize(toks, 16, viewports[0])
		return ok || isFunctionValue(toks)
	case propColor, propTextFill, propBackgroundColor:
		if _, k := colorValue(toks); k != 0 {
			return true
		}
		return isFunctionValue(toks) || len(toks) == 1 && toks[0].kind == tokIdent && toks[0].text == "-webkit-link"
	case propTextStroke:
		if one("thin", "medium", "thick") {
			return true
		}
		_, k := length(toks, lengthCtx{fontPx: 16, vp: viewports[0]})
		return k == lenPx || isFunctionValue(toks)
	case propClip:
		return one("auto") || toks[0].kind == tokFunction && toks[0].text == "rect"
	case propTransform, propFilter, propBackgroundImage, propClipPath:
		if one("none") {
			return true
		}
		for _, t := range toks {
			if t.kind == tokFunction || t.kind == tokURL {
				return true
			}
		}
		return p == propClipPath && toks[0].kind == tokIdent
	}
	return true
}

// isFunctionValue reports a value that is one function (a colour or math function this
// package does not read).
func isFunctionValue(toks []cssToken) bool {
	return len(toks) > 0 && toks[0].kind == tokFunction && closeOf(toks, 0) == len(toks)-1
}

// expandShorthand returns the value of each longhand that counts.
func expandShorthand(sh shorthand, toks []cssToken) map[cssProp][]cssToken {
	out := map[cssProp][]cssToken{}
	if len(toks) == 1 && isWideKeyword(toks[0]) {
		for _, p := range shorthandProps[sh] {
			out[p] = toks
		}
		return out
	}
	vals := components(toks)
	switch sh {
	case shortInset, shortMargin:
		if len(vals) < 1 || len(vals) > 4 {
			return nil
		}
		top, right, left := vals[0], vals[0], vals[0]
		if len(vals) >= 2 {
			right, left = vals[1], vals[1]
		}
		if len(vals) == 4 {
			left = vals[3]
		}
		if sh == shortMargin {
			out[propMarginTop], out[propMarginLeft] = top, left
			return out
		}
		bottom := top
		if len(vals) >= 3 {
			bottom = vals[2]
		}
		out[propTop], out[propRight], out[propBottom], out[propLeft] = top, right, bottom, left
	case shortInsetInline, shortInsetBlock, shortMarginInline, shortMarginBlock:
		if len(vals) < 1 || len(vals) > 2 {
			return nil
		}
		end := vals[0]
		if len(vals) == 2 {
			end = vals[1]
		}
		switch sh {
		case shortInsetInline:
			out[propLeft], out[propRight] = vals[0], end
		case shortInsetBlock:
			out[propTop], out[propBottom] = vals[0], end
		case shortMarginInline:
			out[propMarginLeft] = vals[0]
		case shortMarginBlock:
			out[propMarginTop] = vals[0]
		}
	case shortOverflow:
		if len(vals) < 1 || len(vals) > 2 {
			return nil
		}
		out[propOverflowX], out[propOverflowY] = vals[0], vals[len(vals)-1]
	case shortBackground:
		out[propBackgroundColor] = []cssToken{{kind: tokIdent, text: "transparent"}}
		out[propBackgroundImage] = []cssToken{{kind: tokIdent, text: "none"}}
		out[propBackgroundClip] = []cssToken{{kind: tokIdent, text: "border-box"}}
		layers := splitComma(toks)
		for i, layer := range layers {
			for _, v := range components(layer) {
				switch {
				case len(v) > 0 && v[0].kind == tokURL, len(v) > 0 && v[0].kind == tokFunction && (strings.Contains(v[0].text, "gradient") || v[0].text == "url" || v[0].text == "image" || v[0].text == "image-set" || v[0].text == "-webkit-image-set" || v[0].text == "cross-fade" || v[0].text == "element" || v[0].text == "paint"):
					out[propBackgroundImage] = v
				case len(v) == 1 && v[0].kind == tokIdent && v[0].text == "text":
					out[propBackgroundClip] = v
				case i == len(layers)-1:
					if _, ok := parseColor(v); ok {
						out[propBackgroundColor] = v
					}
				}
			}
		}
	case shortFont:
		if len(vals) == 1 && len(vals[0]) == 1 && vals[0][0].kind == tokIdent {
			switch vals[0][0].text {
			case "caption", "icon", "menu", "message-box", "small-caption", "status-bar":
				out[propFontSize] = []cssToken{{kind: tokDimension, num: 13, text: "px"}}
			}
			return out
		}
		for _, v := range vals {
			if len(v) == 0 {
				continue
			}
			t := v[0]
			switch {
			case t.kind == tokDimension, t.kind == tokPercentage, t.kind == tokNumber && t.num == 0,
				t.kind == tokFunction && (t.text == "calc" || t.text == "clamp" || t.text == "min" || t.text == "max"),
				t.kind == tokIdent && fontSizeKeywords[t.text] > 0, t.kind == tokIdent && (t.text == "smaller" || t.text == "larger"):
				out[propFontSize] = v
				return out
			}
		}
	case shortTextStroke:
		out[propTextStroke] = []cssToken{{kind: tokNumber}}
		for _, v := range vals {
			if len(v) == 1 && (v[0].kind == tokDimension || v[0].kind == tokNumber || v[0].kind == tokIdent && (v[0].text == "thin" || v[0].text == "medium" || v[0].text == "thick")) {
				out[propTextStroke] = v
			}
		}
	}
	return out
}

// components splits a value into its top-level component values (a token, or a function
// with its arguments), dropping '/' separators.
func components(toks []cssToken) [][]cssToken {
	var out [][]cssToken
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == tokFunction:
			end := closeOf(toks, i)
			out = append(out, toks[i:min(end+1, len(toks))])
			i = end
		case t.kind == tokDelim && t.text == "/", t.kind == tokComma:
		default:
			out = append(out, toks[i:i+1])
		}
	}
	return out
}

func hasVar(toks []cssToken) bool {
	for _, t := range toks {
		if t.kind == tokFunction && (t.text == "var" || t.text == "env" || t.text == "attr") {
			return true
		}
	}
	return false
}

// isWideKeyword reports a CSS-wide keyword: inherit, initial, unset, revert, revert-layer.
func isWideKeyword(t cssToken) bool {
	if t.kind != tokIdent {
		return false
	}
	switch t.text {
	case "inherit", "initial", "unset", "revert", "revert-layer":
		return true
	}
	return false
}

// lengthKind says what a length-percentage value turned out to be.
type lengthKind uint8

const (
	lenUnknown lengthKind = iota
	lenPx
	lenPercent
	lenAuto
)

// lengthCtx is what relative lengths are resolved against.
type lengthCtx struct {
	fontPx float64
	vp     viewport
}

// length reads a length or percentage: px for lengths (relative ones resolved), the
// percentage for a percentage.
func length(toks []cssToken, c lengthCtx) (float64, lengthKind) {
	if len(toks) == 0 {
		return 0, lenUnknown
	}
	t := toks[0]
	switch t.kind {
	case tokNumber:
		if t.num == 0 && len(toks) == 1 {
			return 0, lenPx
		}
	case tokPercentage:
		if len(toks) == 1 {
			return t.num, lenPercent
		}
	case tokDimension:
		if len(toks) == 1 {
			if px, ok := unitPx(t.num, t.text, c); ok {
				return px, lenPx
			}
		}
	case tokIdent:
		if t.text == "auto" && len(toks) == 1 {
			return 0, lenAuto
		}
	case tokFunction:
		switch t.text {
		case "calc", "min", "max", "clamp":
			if v, ok := calc(toks, c); ok {
				return v, lenPx
			}
		}
	}
	return 0, lenUnknown
}

// unitPx converts a dimension to px.
func unitPx(n float64, unit string, c lengthCtx) (float64, bool) {
	switch unit {
	case "px":
		return n, true
	case "em":
		return n * c.fontPx, true
	case "rem":
		return n * 16, true
	case "ex", "ch", "cap", "ic":
		return n * c.fontPx / 2, true
	case "lh":
		return n * c.fontPx * 1.2, true
	case "rlh":
		return n * 16 * 1.2, true
	case "pt":
		return n * 4 / 3, true
	case "pc":
		return n * 16, true
	case "in":
		return n * 96, true
	case "cm":
		return n * 96 / 2.54, true
	case "mm":
		return n * 96 / 25.4, true
	case "q":
		return n * 96 / 101.6, true
	case "vw", "svw", "lvw", "dvw", "vi", "svi", "lvi", "dvi":
		return n * c.vp.width / 100, true
	case "vh", "svh", "lvh", "dvh", "vb", "svb", "lvb", "dvb":
		return n * c.vp.height / 100, true
	case "vmin", "svmin", "lvmin", "dvmin":
		return n * math.Min(c.vp.width, c.vp.height) / 100, true
	case "vmax", "svmax", "lvmax", "dvmax":
		return n * math.Max(c.vp.width, c.vp.height) / 100, true
	}
	return 0, false
}

// calc evaluates calc(), min(), max() and clamp() over lengths and numbers, in px. A
// percentage, or anything else it cannot resolve, makes it fail.
func calc(toks []cssToken, c lengthCtx) (float64, bool) {
	e := calcEval{toks: toks, c: c}
	v, isLen, ok := e.value()
	if !ok || e.i != len(toks) || !isLen && v != 0 {
		return 0, false
	}
	return v, true
}

type calcEval struct {
	toks  []cssToken
	i     int
	c     lengthCtx
	depth int
}

// value reads one operand: a number, a length or a math function.
func (e *calcEval) value() (v float64, isLen, ok bool) {
	if e.i >= len(e.toks) || e.depth > 16 {
		return 0, false, false
	}
	t := e.toks[e.i]
	switch t.kind {
	case tokNumber:
		e.i++
		return t.num, false, true
	case tokDimension:
		e.i++
		px, ok := unitPx(t.num, t.text, e.c)
		return px, true, ok
	case tokFunction:
		e.i++
		e.depth++
		defer func() { e.depth-- }()
		var args []float64
		argLen := false
		for {
			a, l, ok := e.sum()
			if !ok {
				return 0, false, false
			}
			args, argLen = append(args, a), argLen || l
			if e.i < len(e.toks) && e.toks[e.i].kind == tokComma {
				e.i++
				continue
			}
			break
		}
		if e.i >= len(e.toks) || e.toks[e.i].kind != tokClose {
			return 0, false, false
		}
		e.i++
		switch t.text {
		case "calc", "":
			if len(args) == 1 {
				return args[0], argLen, true
			}
		case "min":
			m := args[0]
			for _, a := range args[1:] {
				m = math.Min(m, a)
			}
			return m, argLen, true
		case "max":
			m := args[0]
			for _, a := range args[1:] {
				m = math.Max(m, a)
			}
			return m, argLen, true
		case "clamp":
			if len(args) == 3 {
				return math.Max(args[0], math.Min(args[1], args[2])), argLen, true
			}
		}
	}
	return 0, false, false
}

// sum reads operands joined by + - * /.
func (e *calcEval) sum() (float64, bool, bool) {
	v, l, ok := e.product()
	for ok && e.i < len(e.toks) && e.toks[e.i].kind == tokDelim && (e.toks[e.i].text == "+" || e.toks[e.i].text == "-") {
		op := e.toks[e.i].text
		e.i++
		var w float64
		var wl bool
		w, wl, ok = e.product()
		if op == "+" {
			v += w
		} else {
			v -= w
		}
		l = l || wl
	}
	// "10px -5px" lexes as two dimensions: a sign inside the second one.
	for ok && e.i < len(e.toks) && (e.toks[e.i].kind == tokDimension || e.toks[e.i].kind == tokNumber) && e.toks[e.i].num < 0 {
		var w float64
		var wl bool
		w, wl, ok = e.product()
		v, l = v+w, l || wl
	}
	return v, l, ok
}

func (e *calcEval) product() (float64, bool, bool) {
	v, l, ok := e.value()
	for ok && e.i < len(e.toks) && e.toks[e.i].kind == tokDelim && (e.toks[e.i].text == "*" || e.toks[e.i].text == "/") {
		op := e.toks[e.i].text
		e.i++
		var w float64
		var wl bool
		w, wl, ok = e.value()
		if op == "*" {
			v, l = v*w, l || wl
		} else if w != 0 && !wl {
			v /= w
		} else {
			return 0, false, false
		}
	}
	return v, l, ok
}

// number reads a number or a percentage (as a fraction).
func number(toks []cssToken) (float64, bool) {
	if len(toks) != 1 {
		if len(toks) > 0 && toks[0].kind == tokFunction && toks[0].text == "calc" {
			v, isLen, ok := (&calcEval{toks: toks}).value()
			return v, ok && !isLen
		}
		return 0, false
	}
	switch toks[0].kind {
	case tokNumber:
		return toks[0].num, true
	case tokPercentage:
		return toks[0].num / 100, true
	}
	return 0, false
}

// fontSizeKeywords are the absolute font-size keywords, in px.
var fontSizeKeywords = map[string]float64{
	"xx-small": 9, "x-small": 10, "small": 13, "medium": 16, "large": 18, "x-large": 24,
	"xx-large": 32, "xxx-large": 48,
}

// fontSize resolves a font-size value against the parent's font size; ok is false when it
// cannot be read (the declaration is then invalid).
func fontSize(toks []cssToken, parentPx float64, vp viewport) (float64, bool) {
	if len(toks) == 1 && toks[0].kind == tokIdent {
		if px, ok := fontSizeKeywords[toks[0].text]; ok {
			return px, true
		}
		switch toks[0].text {
		case "smaller":
			return parentPx / 1.2, true
		case "larger":
			return parentPx * 1.2, true
		}
		return 0, false
	}
	if len(toks) == 1 && toks[0].kind == tokDimension && toks[0].text == "em" {
		return toks[0].num * parentPx, toks[0].num >= 0
	}
	v, k := length(toks, lengthCtx{fontPx: parentPx, vp: vp})
	switch k {
	case lenPx:
		return v, v >= 0
	case lenPercent:
		return v * parentPx / 100, v >= 0
	}
	return 0, false
}

// rgba is a colour with alpha, each channel 0..1.
type rgba struct{ r, g, b, a float64 }

var (
	white       = rgba{1, 1, 1, 1}
	black       = rgba{0, 0, 0, 1}
	transparent = rgba{}
)

// namedColors are the CSS named colours.
var namedColors = map[string]uint32{
	"aliceblue": 0xf0f8ff, "antiquewhite": 0xfaebd7, "aqua": 0x00ffff, "aquamarine": 0x7fffd4,
	"azure": 0xf0ffff, "beige": 0xf5f5dc, "bisque": 0xffe4c4, "black": 0x000000,
	"blanchedalmond": 0xffebcd, "blue": 0x0000ff, "blueviolet": 0x8a2be2, "brown": 0xa52a2a,
	"burlywood": 0xdeb887, "cadetblue": 0x5f9ea0, "chartreuse": 0x7fff00, "chocolate": 0xd2691e,
	"coral": 0xff7f50, "cornflowerblue": 0x6495ed, "cornsilk": 0xfff8dc, "crimson": 0xdc143c,
	"cyan": 0x00ffff, "darkblue": 0x00008b, "darkcyan": 0x008b8b, "darkgoldenrod": 0xb8860b,
	"darkgray": 0xa9a9a9, "darkgreen": 0x006400, "darkgrey": 0xa9a9a9, "darkkhaki": 0xbdb76b,
	"darkmagenta": 0x8b008b, "darkolivegreen": 0x556b2f, "darkorange": 0xff8c00,
	"darkorchid": 0x9932cc, "darkred": 0x8b0000, "darksalmon": 0xe9967a,
	"darkseagreen": 0x8fbc8f, "darkslateblue": 0x483d8b, "darkslategray": 0x2f4f4f,
	"darkslategrey": 0x2f4f4f, "darkturquoise": 0x00ced1, "darkviolet": 0x9400d3,
	"deeppink": 0xff1493, "deepskyblue": 0x00bfff, "dimgray": 0x696969, "dimgrey": 0x696969,
	"dodgerblue": 0x1e90ff, "firebrick": 0xb22222, "floralwhite": 0xfffaf0,
	"forestgreen": 0x228b22, "fuchsia": 0xff00ff, "gainsboro": 0xdcdcdc, "ghostwhite": 0xf8f8ff,
	"gold": 0xffd700, "goldenrod": 0xdaa520, "gray": 0x808080, "green": 0x008000,
	"greenyellow": 0xadff2f, "grey": 0x808080, "honeydew": 0xf0fff0, "hotpink": 0xff69b4,
	"indianred": 0xcd5c5c, "indigo": 0x4b0082, "ivory": 0xfffff0, "khaki": 0xf0e68c,
	"lavender": 0xe6e6fa, "lavenderblush": 0xfff0f5, "lawngreen": 0x7cfc00,
	"lemonchiffon": 0xfffacd, "lightblue": 0xadd8e6, "lightcoral": 0xf08080,
	"lightcyan": 0xe0ffff, "lightgoldenrodyellow": 0xfafad2, "lightgray": 0xd3d3d3,
	"lightgreen": 0x90ee90, "lightgrey": 0xd3d3d3, "lightpink": 0xffb6c1,
	"lightsalmon": 0xffa07a, "lightseagreen": 0x20b2aa, "lightskyblue": 0x87cefa,
	"lightslategray": 0x778899, "lightslategrey": 0x778899, "lightsteelblue": 0xb0c4de,
	"lightyellow": 0xffffe0, "lime": 0x00ff00, "limegreen": 0x32cd32, "linen": 0xfaf0e6,
	"magenta": 0xff00ff, "maroon": 0x800000, "mediumaquamarine": 0x66cdaa,
	"mediumblue": 0x0000cd, "mediumorchid": 0xba55d3, "mediumpurple": 0x9370db,
	"mediumseagreen": 0x3cb371, "mediumslateblue": 0x7b68ee, "mediumspringgreen": 0x00fa9a,
	"mediumturquoise": 0x48d1cc, "mediumvioletred": 0xc71585, "midnightblue": 0x191970,
	"mintcream": 0xf5fffa, "mistyrose": 0xffe4e1, "moccasin": 0xffe4b5, "navajowhite": 0xffdead,
	"navy": 0x000080, "oldlace": 0xfdf5e6, "olive": 0x808000, "olivedrab": 0x6b8e23,
	"orange": 0xffa500, "orangered": 0xff4500, "orchid": 0xda70d6, "palegoldenrod": 0xeee8aa,
	"palegreen": 0x98fb98, "paleturquoise": 0xafeeee, "palevioletred": 0xdb7093,
	"papayawhip": 0xffefd5, "peachpuff": 0xffdab9, "peru": 0xcd853f, "pink": 0xffc0cb,
	"plum": 0xdda0dd, "powderblue": 0xb0e0e6, "purple": 0x800080, "rebeccapurple": 0x663399,
	"red": 0xff0000, "rosybrown": 0xbc8f8f, "royalblue": 0x4169e1, "saddlebrown": 0x8b4513,
	"salmon": 0xfa8072, "sandybrown": 0xf4a460, "seagreen": 0x2e8b57, "seashell": 0xfff5ee,
	"sienna": 0xa0522d, "silver": 0xc0c0c0, "skyblue": 0x87ceeb, "slateblue": 0x6a5acd,
	"slategray": 0x708090, "slategrey": 0x708090, "snow": 0xfffafa, "springgreen": 0x00ff7f,
	"steelblue": 0x4682b4, "tan": 0xd2b48c, "teal": 0x008080, "thistle": 0xd8bfd8,
	"tomato": 0xff6347, "turquoise": 0x40e0d0, "violet": 0xee82ee, "wheat": 0xf5deb3,
	"white": 0xffffff, "whitesmoke": 0xf5f5f5, "yellow": 0xffff00, "yellowgreen": 0x9acd32,
}

// systemColors are the CSS system colours, as a light scheme draws them.
var systemColors = map[string]rgba{
	"canvas": white, "canvastext": black, "window": white, "windowtext": black,
	"buttonface": {0.94, 0.94, 0.94, 1}, "buttontext": black, "field": white, "fieldtext": black,
	"graytext": {0.43, 0.43, 0.43, 1}, "linktext": {0, 0, 0.93, 1}, "visitedtext": {0.33, 0.1, 0.55, 1},
	"mark": {1, 1, 0, 1}, "marktext": black, "highlight": {0.71, 0.84, 1, 1}, "highlighttext": black,
}

// colorKind says what a colour value is.
type colorKind uint8

const (
	colorKnown   colorKind = iota + 1
	colorCurrent           // currentcolor
)

// parseColor reads a colour: named, #hex, rgb(), hsl(), hwb(), transparent, currentcolor,
// system colours. ok is false for what it cannot read (lab(), color-mix(), ...).
func parseColor(toks []cssToken) (c rgba, ok bool) {
	c, k := colorValue(toks)
	return c, k != 0
}

func colorValue(toks []cssToken) (rgba, colorKind) {
	if len(toks) == 0 {
		return rgba{}, 0
	}
	t := toks[0]
	switch t.kind {
	case tokIdent:
		if len(toks) != 1 {
			return rgba{}, 0
		}
		switch t.text {
		case "transparent":
			return transparent, colorKnown
		case "currentcolor":
			return rgba{}, colorCurrent
		}
		if v, ok := namedColors[t.text]; ok {
			return rgba{float64(v>>16) / 255, float64(v>>8&0xff) / 255, float64(v&0xff) / 255, 1}, colorKnown
		}
		if v, ok := systemColors[t.text]; ok {
			return v, colorKnown
		}
	case tokHash:
		if len(toks) == 1 {
			if c, ok := hexColor(t.text); ok {
				return c, colorKnown
			}
		}
	case tokFunction:
		if closeOf(toks, 0) != len(toks)-1 {
			return rgba{}, 0
		}
		args := toks[1 : len(toks)-1]
		switch t.text {
		case "rgb", "rgba":
			if c, ok := rgbFunc(args); ok {
				return c, colorKnown
			}
		case "hsl", "hsla", "hwb":
			if c, ok := hslFunc(t.text, args); ok {
				return c, colorKnown
			}
		}
	}
	return rgba{}, 0
}

func hexColor(h string) (rgba, bool) {
	for i := 0; i < len(h); i++ {
		if !isHex(h[i]) {
			return rgba{}, false
		}
	}
	v, err := strconv.ParseUint(h, 16, 32)
	if err != nil {
		return rgba{}, false
	}
	n := float64(15)
	switch len(h) {
	case 3:
		return rgba{float64(v>>8) / n, float64(v>>4&0xf) / n, float64(v&0xf) / n, 1}, true
	case 4:
		return rgba{float64(v>>12) / n, float64(v>>8&0xf) / n, float64(v>>4&0xf) / n, float64(v&0xf) / n}, true
	case 6:
		return rgba{float64(v>>16) / 255, float64(v>>8&0xff) / 255, float64(v&0xff) / 255, 1}, true
	case 8:
		return rgba{float64(v>>24) / 255, float64(v>>16&0xff) / 255, float64(v>>8&0xff) / 255, float64(v&0xff) / 255}, true
	}
	return rgba{}, false
}

// colorArgs splits the arguments of a colour function into its channels and its alpha,
// in the comma syntax or the space syntax with "/ alpha".
func colorArgs(args []cssToken) (ch []cssToken, alpha *cssToken, ok bool) {
	for i := 0; i < len(args); i++ {
		t := args[i]
		switch {
		case t.kind == tokComma:
		case t.kind == tokDelim && t.text == "/":
			if i+1 != len(args)-1 {
				return nil, nil, false
			}
			a := args[i+1]
			return ch, &a, len(ch) == 3
		case t.kind == tokNumber, t.kind == tokPercentage, t.kind == tokDimension, t.kind == tokIdent && t.text == "none":
			ch = append(ch, t)
		default:
			return nil, nil, false
		}
	}
	if len(ch) == 4 {
		a := ch[3]
		return ch[:3], &a, true
	}
	return ch, nil, len(ch) == 3
}

func alphaOf(a *cssToken) float64 {
	if a == nil {
		return 1
	}
	switch a.kind {
	case tokNumber:
		return clamp01(a.num)
	case tokPercentage:
		return clamp01(a.num / 100)
	}
	return 0
}

func clamp01(v float64) float64 { return math.Max(0, math.Min(1, v)) }

func rgbFunc(args []cssToken) (rgba, bool) {
	ch, a, ok := colorArgs(args)
	if !ok {
		return rgba{}, false
	}
	var v [3]float64
	for i, t := range ch {
		switch t.kind {
		case tokNumber:
			v[i] = clamp01(t.num / 255)
		case tokPercentage:
			v[i] = clamp01(t.num / 100)
		case tokIdent:
			v[i] = 0
		default:
			return rgba{}, false
		}
	}
	return rgba{v[0], v[1], v[2], alphaOf(a)}, true
}

func hslFunc(name string, args []cssToken) (rgba, bool) {
	ch, a, ok := colorArgs(args)
	if !ok {
		return rgba{}, false
	}
	h := 0.0
	switch t := ch[0]; {
	case t.kind == tokNumber:
		h = t.num
	case t.kind == tokDimension && t.text == "deg":
		h = t.num
	case t.kind == tokDimension && t.text == "turn":
		h = t.num * 360
	case t.kind == tokDimension && t.text == "rad":
		h = t.num * 180 / math.Pi
	case t.kind == tokDimension && t.text == "grad":
		h = t.num * 0.9
	case t.kind == tokIdent:
	default:
		return rgba{}, false
	}
	pct := func(t cssToken) (float64, bool) {
		switch t.kind {
		case tokPercentage, tokNumber:
			return clamp01(t.num / 100), true
		case tokIdent:
			return 0, true
		}
		return 0, false
	}
	x, ok1 := pct(ch[1])
	y, ok2 := pct(ch[2])
	if !ok1 || !ok2 {
		return rgba{}, false
	}
	h = math.Mod(math.Mod(h, 360)+360, 360) / 360
	if name == "hwb" {
		w, bl := x, y
		if w+bl >= 1 {
			g := w / (w + bl)
			return rgba{g, g, g, alphaOf(a)}, true
		}
		r, g, b := hslToRGB(h, 1, 0.5)
		f := func(c float64) float64 { return c*(1-w-bl) + w }
		return rgba{f(r), f(g), f(b), alphaOf(a)}, true
	}
	r, g, b := hslToRGB(h, x, y)
	return rgba{r, g, b, alphaOf(a)}, true
}

func hslToRGB(h, s, l float64) (float64, float64, float64) {
	m2 := l * (s + 1)
	if l > 0.5 {
		m2 = l + s - l*s
	}
	m1 := l*2 - m2
	return hue(m1, m2, h+1.0/3), hue(m1, m2, h), hue(m1, m2, h-1.0/3)
}

func hue(m1, m2, h float64) float64 {
	if h < 0 {
		h++
	}
	if h > 1 {
		h--
	}
	switch {
	case h*6 < 1:
		return m1 + (m2-m1)*h*6
	case h*2 < 1:
		return m2
	case h*3 < 2:
		return m1 + (m2-m1)*(2.0/3-h)*6
	}
	return m1
}

// over composites c over the opaque background bg.
func (c rgba) over(bg rgba) rgba {
	return rgba{c.r*c.a + bg.r*(1-c.a), c.g*c.a + bg.g*(1-c.a), c.b*c.a + bg.b*(1-c.a), 1}
}

// distance is the largest difference of one channel between two opaque colours, 0..1.
func (c rgba) distance(d rgba) float64 {
	return math.Max(math.Abs(c.r-d.r), math.Max(math.Abs(c.g-d.g), math.Abs(c.b-d.b)))
}
