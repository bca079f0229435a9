package fetch

import (
	"strings"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/css"
)

// viewport is a screen a page is read on. Text counts as seen when it is seen on one of
// them: a desktop window and a phone (docs/fetch.md, "Style sheets").
type viewport struct {
	width, height float64 // CSS pixels
	dppx          float64 // device pixels per CSS pixel
	coarse        bool    // a touch screen: coarse pointer, no hover
}

// viewports are the screens of a media query; bit i of a mask stands for viewports[i].
var viewports = [numViewports]viewport{
	{width: 1280, height: 800, dppx: 1},
	{width: 390, height: 844, dppx: 3, coarse: true},
}

const (
	numViewports = 2
	allViewports = uint8(1<<numViewports - 1)
)

// tri is a three-valued truth: media queries and supports conditions may be unknown, which
// counts as false in the end.
type tri int8

const (
	triFalse tri = iota
	triTrue
	triUnknown
)

func triOf(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}

func (t tri) not() tri {
	switch t {
	case triTrue:
		return triFalse
	case triFalse:
		return triTrue
	}
	return triUnknown
}

func triAnd(a, b tri) tri {
	if a == triFalse || b == triFalse {
		return triFalse
	}
	if a == triUnknown || b == triUnknown {
		return triUnknown
	}
	return triTrue
}

func triOr(a, b tri) tri {
	if a == triTrue || b == triTrue {
		return triTrue
	}
	if a == triUnknown || b == triUnknown {
		return triUnknown
	}
	return triFalse
}

// evalMediaList returns the viewports a media query list (Media Queries 4) matches. An
// empty list matches all; a query that cannot be read matches none.
func evalMediaList(toks []cssToken) uint8 {
	if len(toks) == 0 {
		return allViewports
	}
	var mask uint8
	for _, q := range splitComma(toks) {
		for i, vp := range viewports {
			if evalMediaQuery(q, vp) == triTrue {
				mask |= 1 << i
			}
		}
	}
	return mask
}

// splitComma splits tokens at their top-level commas.
func splitComma(toks []cssToken) [][]cssToken {
	var out [][]cssToken
	depth, start := 0, 0
	for i, t := range toks {
		switch t.kind {
		case tokFunction:
			depth++
		case tokClose:
			depth--
		case tokComma:
			if depth == 0 {
				out, start = append(out, toks[start:i]), i+1
			}
		}
	}
	return append(out, toks[start:])
}

// mediaTypes are the media types known, and whether a screen is of the type.
var mediaTypes = map[string]bool{
	"all": true, "screen": true,
	"print": false, "speech": false, "tty": false, "tv": false, "projection": false,
	"handheld": false, "braille": false, "embossed": false, "aural": false,
}

func evalMediaQuery(q []cssToken, vp viewport) tri {
	if len(q) == 0 {
		return triFalse
	}
	i, neg := 0, false
	if q[0].kind == tokIdent && (q[0].text == "not" || q[0].text == "only") && len(q) > 1 && q[1].kind == tokIdent {
		i, neg = 1, q[0].text == "not"
	}
	if q[i].kind != tokIdent || i == 0 && q[0].text == "not" {
		// A media condition.
		res, ok := evalMediaCondition(q, vp)
		if !ok {
			return triFalse
		}
		return res
	}
	// [not|only]? <media-type> [and <media-condition-without-or>]?
	res := triOf(mediaTypes[q[i].text])
	i++
	if i < len(q) {
		if q[i].kind != tokIdent || q[i].text != "and" || i+1 >= len(q) {
			return triFalse
		}
		cond, ok := evalMediaCondition(q[i+1:], vp)
		if !ok {
			return triFalse
		}
		res = triAnd(res, cond)
	}
	if neg {
		if res == triUnknown {
			return triFalse
		}
		res = res.not()
	}
	return res
}

// evalMediaCondition evaluates not/and/or of parenthesised conditions.
func evalMediaCondition(toks []cssToken, vp viewport) (tri, bool) {
	return evalCondition(toks, func(inner []cssToken) tri { return evalMediaInParens(inner, vp) })
}

// evalCondition evaluates a condition of the form `not (a)`, `(a) and (b) ...` or
// `(a) or (b) ...`, where leaf evaluates what one pair of parentheses holds. ok is false
// when the tokens are not of that form.
func evalCondition(toks []cssToken, leaf func([]cssToken) tri) (tri, bool) {
	if len(toks) == 0 {
		return triFalse, false
	}
	if toks[0].kind == tokIdent && toks[0].text == "not" {
		v, rest, ok := inParens(toks[1:], leaf)
		if !ok || len(rest) > 0 {
			return triFalse, false
		}
		return v.not(), true
	}
	v, rest, ok := inParens(toks, leaf)
	if !ok {
		return triFalse, false
	}
	op := ""
	for len(rest) > 0 {
		if rest[0].kind != tokIdent || (rest[0].text != "and" && rest[0].text != "or") || (op != "" && rest[0].text != op) {
			return triFalse, false
		}
		op = rest[0].text
		var w tri
		w, rest, ok = inParens(rest[1:], leaf)
		if !ok {
			return triFalse, false
		}
		if op == "and" {
			v = triAnd(v, w)
		} else {
			v = triOr(v, w)
		}
	}
	return v, true
}

// inParens evaluates the parenthesised group (or function: general enclosed, unknown) at
// the start of toks and returns the tokens after it.
func inParens(toks []cssToken, leaf func([]cssToken) tri) (tri, []cssToken, bool) {
	if len(toks) == 0 || toks[0].kind != tokFunction {
		return triFalse, nil, false
	}
	end := closeOf(toks, 0)
	if end >= len(toks) {
		return triFalse, nil, false
	}
	if toks[0].text != "" {
		return leaf(toks[:end+1]), toks[end+1:], true
	}
	return leaf(toks[1:end]), toks[end+1:], true
}

// evalMediaInParens evaluates what a pair of parentheses holds: a nested condition or a
// media feature.
func evalMediaInParens(in []cssToken, vp viewport) tri {
	if len(in) == 0 || in[0].kind == tokFunction && in[0].text != "" {
		return triUnknown // general enclosed
	}
	if in[0].kind == tokFunction || in[0].kind == tokIdent && in[0].text == "not" {
		v, ok := evalMediaCondition(in, vp)
		if !ok {
			return triUnknown
		}
		return v
	}
	// A boolean feature, name: value, or a range.
	if len(in) == 1 && in[0].kind == tokIdent {
		return mediaBoolean(in[0].text, vp)
	}
	if len(in) >= 3 && in[0].kind == tokIdent && in[1].kind == tokColon {
		return mediaFeature(in[0].text, in[2:], vp)
	}
	return mediaRange(in, vp)
}

// mediaBoolean evaluates a feature in a boolean context: true unless its value would be
// zero or none.
func mediaBoolean(name string, vp viewport) tri {
	switch name {
	case "color", "hover", "any-hover", "pointer", "any-pointer", "width", "height",
		"device-width", "device-height", "resolution", "orientation", "aspect-ratio",
		"update", "scan", "overflow-block", "overflow-inline", "color-gamut", "display-mode",
		"prefers-color-scheme", "scripting":
		if (name == "hover" || name == "any-hover") && vp.coarse {
			return triFalse
		}
		return triTrue
	case "monochrome", "grid", "inverted-colors", "forced-colors", "prefers-reduced-motion",
		"prefers-contrast", "prefers-reduced-transparency", "prefers-reduced-data", "color-index":
		return triFalse
	}
	return triUnknown
}

// mediaFeature evaluates `(name: value)`, min- and max- prefixes included.
func mediaFeature(name string, value []cssToken, vp viewport) tri {
	cmp := 0 // 0: equal, 1: at least (min-), -1: at most (max-)
	switch {
	case strings.HasPrefix(name, "min-"):
		name, cmp = name[4:], 1
	case strings.HasPrefix(name, "max-"):
		name, cmp = name[4:], -1
	case strings.HasPrefix(name, "-webkit-min-"):
		name, cmp = name[12:], 1
	case strings.HasPrefix(name, "-webkit-max-"):
		name, cmp = name[12:], -1
	case strings.HasPrefix(name, "min--moz-"):
		name, cmp = name[9:], 1
	case strings.HasPrefix(name, "max--moz-"):
		name, cmp = name[9:], -1
	}
	if v, ok := featureNumber(name, vp); ok {
		want, ok := mediaValue(name, value)
		if !ok {
			return triUnknown
		}
		switch cmp {
		case 1:
			return triOf(v >= want)
		case -1:
			return triOf(v <= want)
		}
		return triOf(v == want)
	}
	if cmp != 0 || len(value) != 1 || value[0].kind != tokIdent {
		return triUnknown
	}
	want := value[0].text
	switch name {
	case "orientation":
		if vp.width > vp.height {
			return triOf(want == "landscape")
		}
		return triOf(want == "portrait")
	case "hover", "any-hover":
		if vp.coarse {
			return triOf(want == "none")
		}
		return triOf(want == "hover")
	case "pointer", "any-pointer":
		if vp.coarse {
			return triOf(want == "coarse")
		}
		return triOf(want == "fine")
	case "prefers-color-scheme":
		return triOf(want == "light")
	case "prefers-reduced-motion", "prefers-reduced-transparency", "prefers-reduced-data", "prefers-contrast":
		return triOf(want == "no-preference")
	case "forced-colors", "inverted-colors":
		return triOf(want == "none")
	case "scripting":
		return triOf(want == "enabled")
	case "update":
		return triOf(want == "fast")
	case "scan":
		return triOf(want == "progressive")
	case "display-mode":
		return triOf(want == "browser")
	case "color-gamut":
		return triOf(want == "srgb")
	case "dynamic-range", "video-dynamic-range":
		return triOf(want == "standard")
	case "overflow-block", "overflow-inline":
		return triOf(want == "scroll")
	}
	return triUnknown
}

// featureNumber returns the viewport's value of a numeric feature, in px for lengths,
// dppx for resolutions.
func featureNumber(name string, vp viewport) (float64, bool) {
	switch name {
	case "width", "device-width", "inline-size":
		return vp.width, true
	case "height", "device-height", "block-size":
		return vp.height, true
	case "aspect-ratio", "device-aspect-ratio":
		return vp.width / vp.height, true
	case "resolution", "device-pixel-ratio":
		return vp.dppx, true
	case "color":
		return 8, true
	case "monochrome", "grid", "color-index":
		return 0, true
	}
	return 0, false
}

// mediaValue reads the value of a numeric feature in the unit featureNumber gives.
func mediaValue(name string, v []cssToken) (float64, bool) {
	switch name {
	case "aspect-ratio", "device-aspect-ratio":
		if len(v) == 3 && v[0].kind == tokNumber && v[1].kind == tokDelim && v[1].text == "/" && v[2].kind == tokNumber && v[2].num != 0 {
			return v[0].num / v[2].num, true
		}
		if len(v) == 1 && v[0].kind == tokNumber {
			return v[0].num, true
		}
		return 0, false
	case "resolution", "device-pixel-ratio":
		if len(v) != 1 {
			return 0, false
		}
		switch {
		case v[0].kind == tokNumber:
			return v[0].num, true
		case v[0].kind == tokDimension && (v[0].text == "dppx" || v[0].text == "x"):
			return v[0].num, true
		case v[0].kind == tokDimension && v[0].text == "dpi":
			return v[0].num / 96, true
		case v[0].kind == tokDimension && v[0].text == "dpcm":
			return v[0].num * 2.54 / 96, true
		}
		return 0, false
	case "color", "monochrome", "grid", "color-index":
		if len(v) == 1 && v[0].kind == tokNumber {
			return v[0].num, true
		}
		return 0, false
	}
	if len(v) != 1 {
		return 0, false
	}
	return mediaLength(v[0])
}

// mediaLength reads a length of a media query in px: em and rem are the initial 16px.
func mediaLength(t cssToken) (float64, bool) {
	switch t.kind {
	case tokNumber:
		return t.num, t.num == 0
	case tokDimension:
		switch t.text {
		case "px":
			return t.num, true
		case "em", "rem":
			return t.num * 16, true
		case "pt":
			return t.num * 4 / 3, true
		case "pc":
			return t.num * 16, true
		case "in":
			return t.num * 96, true
		case "cm":
			return t.num * 96 / 2.54, true
		case "mm":
			return t.num * 96 / 25.4, true
		}
	}
	return 0, false
}

// mediaRange evaluates the range syntax: (width >= 600px), (400px < width <= 700px).
func mediaRange(in []cssToken, vp viewport) tri {
	// Split into values and comparison operators.
	type part struct {
		toks []cssToken
		op   string
	}
	var parts []part
	var cur []cssToken
	for i := 0; i < len(in); i++ {
		t := in[i]
		if t.kind == tokDelim && (t.text == "<" || t.text == ">" || t.text == "=") {
			op := t.text
			if op != "=" && i+1 < len(in) && in[i+1].kind == tokDelim && in[i+1].text == "=" {
				op += "="
				i++
			}
			parts = append(parts, part{toks: cur, op: op})
			cur = nil
			continue
		}
		cur = append(cur, t)
	}
	parts = append(parts, part{toks: cur})
	if len(parts) != 2 && len(parts) != 3 {
		return triUnknown
	}
	name := ""
	for _, p := range parts {
		if len(p.toks) == 1 && p.toks[0].kind == tokIdent {
			name = p.toks[0].text
		}
	}
	v, ok := featureNumber(name, vp)
	if !ok {
		return triUnknown
	}
	vals := make([]float64, len(parts))
	for i, p := range parts {
		if len(p.toks) == 1 && p.toks[0].kind == tokIdent && p.toks[0].text == name {
			vals[i] = v
			continue
		}
		x, ok := mediaValue(name, p.toks)
		if !ok {
			return triUnknown
		}
		vals[i] = x
	}
	res := triTrue
	for i := 0; i+1 < len(parts); i++ {
		a, b := vals[i], vals[i+1]
		var r bool
		switch parts[i].op {
		case "<":
			r = a < b
		case "<=":
			r = a <= b
		case ">":
			r = a > b
		case ">=":
			r = a >= b
		case "=":
			r = a == b
		default:
			return triUnknown
		}
		res = triAnd(res, triOf(r))
	}
	return res
}

// evalSupports evaluates an @supports condition. A declaration is taken to be supported
// unless its property carries another engine's prefix (-ms-, -moz-, -o-); selector() is
// supported when the selector compiles.
func evalSupports(toks []cssToken) bool {
	v, ok := evalCondition(toks, supportsInParens)
	return ok && v == triTrue
}

func supportsInParens(in []cssToken) tri {
	if len(in) > 0 && in[0].kind == tokFunction && in[0].text != "" {
		switch in[0].text {
		case "selector":
			return triOf(supportedSelector(in[1 : len(in)-1]))
		case "font-tech", "font-format":
			return triTrue
		}
		return triFalse
	}
	if len(in) >= 2 && in[0].kind == tokIdent && in[1].kind == tokColon {
		p := in[0].text
		return triOf(!strings.HasPrefix(p, "-ms-") && !strings.HasPrefix(p, "-moz-") && !strings.HasPrefix(p, "-o-"))
	}
	v, ok := evalCondition(in, supportsInParens)
	if !ok {
		return triFalse
	}
	return v
}

// supportedSelector reports whether the selector of a selector() condition compiles (its
// whitespace is lost with the tokens: a descendant combinator reads as nothing).
func supportedSelector(toks []cssToken) bool {
	var b strings.Builder
	for _, t := range toks {
		switch t.kind {
		case tokIdent:
			b.WriteString(t.text)
		case tokHash:
			b.WriteString("#" + t.text)
		case tokFunction:
			b.WriteString(t.text + "(")
		case tokClose:
			b.WriteByte(')')
		case tokColon:
			b.WriteByte(':')
		case tokComma:
			b.WriteByte(',')
		case tokDelim, tokOther:
			b.WriteString(t.text)
		default:
			return false
		}
	}
	text := []byte(b.String())
	l := css.NewLexer(parse.NewInputBytes(text[:len(text):len(text)]))
	var lt []lexTok
	for {
		tt, data := l.Next()
		if tt == css.ErrorToken {
			break
		}
		lt = append(lt, lexTok{tt, data})
	}
	for _, sel := range splitSelectors(lt) {
		if compileSelector(sel) == nil {
			return false
		}
	}
	return len(lt) > 0
}
