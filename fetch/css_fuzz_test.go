package fetch

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzMarker is the word the generated documents put only in elements whose style
// attribute says display: none !important, which nothing in a sheet can override.
const fuzzMarker = "zqxhiddenmarker"

// docGen writes a well-formed document from fuzz bytes: nested elements of a small
// vocabulary (blocks, phrasing, lists, details, dialogs, ruby, sup and sub, q, templates,
// shadow roots with slots) with classes, ids and styles that the fuzzed sheet can select,
// nested as the HTML5 parser nests them, so that both extractors build the same tree.
type docGen struct {
	in    []byte
	i     int
	b     strings.Builder
	nodes int
}

func (g *docGen) next() int {
	if g.i >= len(g.in) {
		return 0
	}
	g.i++
	return int(g.in[g.i-1])
}

var (
	genWords   = []string{"alpha", "beta", "10", "6", "2019", "gamma", "délta", "三", "n", "+"}
	genClasses = []string{"a", "b", "c", "hide", "show"}
	genStyles  = []string{"", "display:none", "visibility:hidden", "visibility:visible", "color:#fff",
		"font-size:0", "opacity:0", "position:absolute;left:-9999px", "display:block",
		"height:0;overflow:hidden", "color:red", "text-indent:-9999px", "transform:scale(0)",
		"--v:none", "display:var(--v)", "display:contents", "display:inline"}
)

func (g *docGen) attrs() {
	switch k := g.next(); {
	case k%3 == 1:
		g.b.WriteString(` class="` + genClasses[g.next()%len(genClasses)] + ` ` + genClasses[g.next()%len(genClasses)] + `"`)
	case k%3 == 2:
		g.b.WriteString(` id="` + []string{"x", "y"}[g.next()%2] + `"`)
	}
	if s := genStyles[g.next()%len(genStyles)]; s != "" && g.next()%2 == 0 {
		g.b.WriteString(` style="` + s + `"`)
	}
	if g.next()%11 == 0 {
		g.b.WriteString(" hidden")
	}
}

func (g *docGen) marker(block bool) {
	if block {
		g.b.WriteString(`<div style="display:none !important" class="show">` + fuzzMarker + ` <p class="show" style="display:block!important;visibility:visible">` + fuzzMarker + `</p></div>`)
		return
	}
	g.b.WriteString(`<span class="show" style="display: none!important">` + fuzzMarker + `<b style="display:inline!important">` + fuzzMarker + `</b></span>`)
}

// phrasing writes inline content; inA is true inside an <a>.
func (g *docGen) phrasing(depth int, inA bool) {
	for range g.next() % 4 {
		if g.nodes++; g.nodes > 200 || depth > 8 {
			return
		}
		switch k := g.next() % 12; k {
		case 0, 1, 2:
			g.b.WriteString(genWords[g.next()%len(genWords)] + " ")
		case 3:
			g.marker(false)
		case 4, 5, 6, 7:
			tag := []string{"span", "b", "em", "sup", "sub", "q", "span", "a"}[g.next()%8]
			if tag == "a" && inA {
				tag = "em"
			}
			g.b.WriteString("<" + tag)
			g.attrs()
			g.b.WriteString(">")
			g.phrasing(depth+1, inA || tag == "a")
			g.b.WriteString("</" + tag + ">")
		case 8:
			g.b.WriteString("<ruby>" + genWords[g.next()%len(genWords)] + "<rp>(</rp><rt>" + genWords[g.next()%len(genWords)] + "</rt><rp>)</rp></ruby>")
		case 9:
			g.b.WriteString("<br>")
		default:
			g.b.WriteString(genWords[g.next()%len(genWords)])
		}
	}
}

// flow writes block content.
func (g *docGen) flow(depth int) {
	for range g.next()%4 + 1 {
		if g.nodes++; g.nodes > 200 || depth > 8 {
			return
		}
		switch k := g.next() % 14; k {
		case 0:
			g.marker(true)
		case 1, 2, 3:
			tag := []string{"div", "section", "article", "dialog open", "dialog", "aside"}[g.next()%6]
			g.b.WriteString("<" + tag)
			g.attrs()
			g.b.WriteString(">")
			g.flow(depth + 1)
			g.b.WriteString("</" + strings.Fields(tag)[0] + ">")
		case 4, 5, 6:
			tag := []string{"p", "h2", "p"}[g.next()%3]
			g.b.WriteString("<" + tag)
			g.attrs()
			g.b.WriteString(">")
			g.phrasing(depth+1, false)
			g.b.WriteString("</" + tag + ">")
		case 7:
			g.b.WriteString("<ul")
			g.attrs()
			g.b.WriteString(">")
			for range g.next()%3 + 1 {
				g.b.WriteString("<li")
				g.attrs()
				g.b.WriteString(">")
				g.flow(depth + 1)
				g.b.WriteString("</li>")
			}
			g.b.WriteString("</ul>")
		case 8:
			g.b.WriteString("<details")
			if g.next()%2 == 0 {
				g.b.WriteString(" open")
			}
			g.b.WriteString("><summary>")
			g.phrasing(depth+1, false)
			g.b.WriteString("</summary>")
			g.flow(depth + 1)
			g.b.WriteString("</details>")
		case 9:
			g.b.WriteString("<template>")
			g.flow(depth + 1)
			g.b.WriteString("</template>")
		case 10:
			g.b.WriteString("<div")
			g.attrs()
			g.b.WriteString(`><template shadowrootmode="open">`)
			if g.next()%2 == 0 {
				g.b.WriteString("<style>.a{display:none} p{color:#fff}</style>")
			}
			g.flow(depth + 1)
			g.b.WriteString(`<slot name="s"></slot><slot></slot></template>`)
			g.flow(depth + 1)
			g.b.WriteString(`<p slot="s">`)
			g.phrasing(depth+1, false)
			g.b.WriteString(`</p></div>`)
		case 11:
			g.b.WriteString("<progress>" + genWords[g.next()%len(genWords)] + "</progress>")
		default:
			g.phrasing(depth+1, false)
		}
	}
}

// fuzzDocument builds the document: the fuzzed sheet (kept inside its <style>) and the
// generated body.
func fuzzDocument(css string, shape []byte) []byte {
	g := &docGen{in: shape}
	css = strings.ReplaceAll(css, "<", " ")
	g.b.WriteString("<!doctype html><html><head><title>t</title><style>" + css + "</style></head><body><p>Always seen.</p>")
	g.flow(0)
	g.b.WriteString("</body></html>")
	return []byte(g.b.String())
}

var styleContents = regexp.MustCompile(`(?s)<style>(.*?)</style>`)

// FuzzCSSVisibility fuzzes a page's style sheet and the shape of its document: text in an
// element whose style attribute says display: none !important (which no sheet overrides)
// is never read, and on these well-formed documents the two extractors read the same
// text.
func FuzzCSSVisibility(f *testing.F) {
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "pages", "css", "*.html"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seeds in testdata/pages/css: %v", err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		css := ""
		if m := styleContents.FindSubmatch(b); m != nil {
			css = string(m[1])
		}
		f.Add(css, b[len(b)/2:])
	}
	f.Fuzz(func(t *testing.T, css string, shape []byte) {
		doc := fuzzDocument(css, shape)
		var bodies []string
		var errs []error
		for _, x := range extractors {
			got, err := x.fn(doc, "text/html")
			if err != nil && !errors.Is(err, ErrNoText) && !errors.Is(err, ErrCharset) && !errors.Is(err, ErrTruncated) {
				t.Fatalf("%s: unexpected error %v", x.name, err)
			}
			if strings.Contains(got.Body, fuzzMarker) {
				t.Fatalf("%s reads text an element with display:none !important holds:\n%s\n=> %q", x.name, doc, got.Body)
			}
			if !utf8.ValidString(got.Body) || got.Body != foldSpace(got.Body) {
				t.Fatalf("%s: text %q is not valid, folded UTF-8", x.name, got.Body)
			}
			bodies, errs = append(bodies, got.Body), append(errs, err)
		}
		if bodies[0] != bodies[1] || (errs[0] == nil) != (errs[1] == nil) {
			t.Fatalf("the extractors disagree on\n%s\nDOM    %q (%v)\ntokens %q (%v)", doc, bodies[0], errs[0], bodies[1], errs[1])
		}
	})
}
