package fetch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hiddenSentence is the sentence each page of testdata/pages/css hides (hidden-*.html) or
// shows (visible-*.html), each in its own way.
const hiddenSentence = "The mayor accepted the money from the developer"

// readCSSPage reads a page of testdata/pages/css as the fetcher would have fetched it from
// http://site.test/css/, with its linked sheet.
func readCSSPage(t testing.TB, name string) *Result {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("..", "testdata", "pages", "css", name))
	if err != nil {
		t.Fatal(err)
	}
	res := &Result{Body: body, ContentType: "text/html; charset=utf-8", FinalURL: "http://site.test/css/" + name}
	if strings.Contains(string(body), `href="/css/linked.css"`) {
		sheet, err := os.ReadFile(filepath.Join("..", "testdata", "pages", "css", "linked.css"))
		if err != nil {
			t.Fatal(err)
		}
		res.Sheets = []Sheet{{URL: "http://site.test/css/linked.css", FinalURL: "http://site.test/css/linked.css", ContentType: "text/css", Body: sheet}}
	}
	return res
}

func cssPages(t testing.TB, prefix string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "pages", "css", prefix+"*.html"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no pages %s* in testdata/pages/css: %v", prefix, err)
	}
	for i, p := range paths {
		paths[i] = filepath.Base(p)
	}
	return paths
}

// TestCSSHidesText: on every hidden-*.html page, neither extractor reads the sentence,
// and both read the paragraphs around it.
func TestCSSHidesText(t *testing.T) {
	for _, name := range cssPages(t, "hidden-") {
		for _, x := range extractors {
			t.Run(strings.TrimSuffix(name, ".html")+"/"+x.name, func(t *testing.T) {
				got, err := readCSSPage(t, name).Extract(x.fn)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(got.Body, "mayor accepted") {
					t.Errorf("the hidden sentence is read: %q", got.Body)
				}
				if !strings.Contains(got.Body, "An ordinary paragraph that every reader sees.") || !strings.Contains(got.Body, "Another paragraph that closes the page.") {
					t.Errorf("the visible paragraphs are not read: %q", got.Body)
				}
			})
		}
	}
}

// TestCSSKeepsText: on every visible-*.html page, a rule that looks as if it hides, but
// does not in a browser, leaves the sentence read.
func TestCSSKeepsText(t *testing.T) {
	for _, name := range cssPages(t, "visible-") {
		for _, x := range extractors {
			t.Run(strings.TrimSuffix(name, ".html")+"/"+x.name, func(t *testing.T) {
				got, err := readCSSPage(t, name).Extract(x.fn)
				if err != nil && !errors.Is(err, ErrTruncated) {
					t.Fatal(err)
				}
				if !strings.Contains(got.Body, hiddenSentence) {
					t.Errorf("the sentence is not read: %q", got.Body)
				}
			})
		}
	}
}

// TestExtractRendering: what a browser draws besides the text itself, and what it keeps
// apart: superscripts and subscripts, quotation marks around <q>, shadow roots, closed
// <details>.
func TestExtractRendering(t *testing.T) {
	tests := []struct{ desc, html, want string }{
		{"a power of ten is not a larger number", `<p>10<sup>6</sup> records</p>`, "10⁶ records"},
		{"a footnote marker is not part of the year", `<p>in 2019<sup>3</sup> the</p>`, "in 2019³ the"},
		{"superscript signs and letters", `<p>x<sup>-(n+1)</sup> and e<sup>i</sup></p>`, "x⁻⁽ⁿ⁺¹⁾ and eⁱ"},
		{"a minus sign in a superscript", `<p>10<sup>−3</sup> m</p>`, "10⁻³ m"},
		{"subscripts", `<p>H<sub>2</sub>O and CO<sub>2</sub></p>`, "H₂O and CO₂"},
		{"a superscript that cannot be mapped stays as it is", `<p>2019<sup>a</sup> and 5<sup>th</sup> and XIX<sup>e</sup></p>`, "2019a and 5th and XIXe"},
		{"a bracketed footnote stays against its word", `<p>exceptions.<sup><a href="#n1">[1]</a></sup> Next</p>`, "exceptions.[1] Next"},
		{"digits that cannot be mapped are kept apart from digits before", `<p>2019<sup>3,4</sup> was</p>`, "2019 3,4 was"},
		{"and from digits after", `<p>see<sub>a1</sub>2 and x<sup>b2</sup> y</p>`, "seea1 2 and xb2 y"},
		{"a digit after a mapped superscript", `<p>10<sup>6</sup>7</p>`, "10⁶7"},
		{"spaces in a superscript stay", `<p>10<sup> 6 </sup>records</p>`, "10 ⁶ records"},
		{"a superscript inside a superscript", `<p>e<sup>x<sup>2</sup></sup></p>`, "ex²"},
		{"a hidden superscript is not read", `<p>10<sup style="display:none">6</sup> records</p>`, "10 records"},
		{"q draws curly quotes", `<p>He said <q>yes</q>.</p>`, "He said “yes”."},
		{"nested q draws single quotes inside", `<p><q>She wrote <q>no</q> twice</q></p>`, "“She wrote ‘no’ twice”"},
		{"a hidden q draws no quotes", `<p>a<q style="display:none">b</q>c</p>`, "ac"},
		{"a shadow root draws instead of the host's children", `<div><template shadowrootmode="open"><p>shadow</p></template><p>light</p></div>`, "shadow"},
		{"slotted light children show through the slot", `<div><template shadowrootmode="open"><p>before <slot></slot> after</p></template><b>light</b></div>`, "before light after"},
		{"a plain template stays hidden", `<p>a</p><template><p>b</p></template>`, "a"},
		{"a shadow root of a <p>, not of a <ul>", `<p>a<template shadowrootmode="open">b</template></p><ul><template shadowrootmode="open"><li>c</li></template></ul>`, "b"},
		{"a closed details draws its summary", `<details><summary>Sum</summary>Body text <p>more</p></details>`, "Sum"},
		{"an open details draws all", `<details open><summary>Sum</summary>Body text</details>`, "Sum Body text"},
		{"ruby draws the annotation, not the fallback parentheses", `<p><ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp></ruby></p>`, "漢kan"},
		{"aria-hidden text is seen", `<p aria-hidden="true">seen</p>`, "seen"},
		{"the hidden attribute hides", `<p>a</p><p hidden>b</p>`, "a"},
		{"hidden=until-found hides until found", `<p>a</p><div hidden="until-found">b</div>`, "a"},
		{"a style attribute with a nested rule is not a sheet", `<p style="color:red; .x{display:none}">a</p><p class="x">b</p>`, "a b"},
	}
	for _, tc := range tests {
		for _, x := range extractors {
			t.Run(tc.desc+"/"+x.name, func(t *testing.T) {
				got, err := x.fn([]byte(tc.html), "text/html")
				if err != nil {
					t.Fatal(err)
				}
				if got.Body != tc.want {
					t.Errorf("body = %q, want %q", got.Body, tc.want)
				}
			})
		}
	}
}

// TestExtractDeepNesting: both extractors read a page nested 500 elements deep and refuse
// one nested deeper than 512, golang.org/x/net/html's limit (a selector that looks at
// ancestors costs the depth for every element).
func TestExtractDeepNesting(t *testing.T) {
	nested := func(n int) []byte {
		return []byte("<style>.a div{color:red} div:has(.z){color:blue}</style>" + strings.Repeat("<div>", n) + "deep" + strings.Repeat("</div>", n))
	}
	for _, x := range extractors {
		if got, err := x.fn(nested(500), "text/html"); err != nil || got.Body != "deep" {
			t.Errorf("%s, 500 deep: %q, %v", x.name, got.Body, err)
		}
		if _, err := x.fn(nested(600), "text/html"); err == nil {
			t.Errorf("%s reads a page nested 600 deep", x.name)
		}
	}
}

// TestCSSCascade: which declaration wins, case by case, in both extractors. S is the
// sentence; hidden says whether the page hides it.
func TestCSSCascade(t *testing.T) {
	const S = hiddenSentence
	tests := []struct {
		desc, html string
		hidden     bool
	}{
		{":where() counts nothing, so a later type selector wins", `<style>:where(#main) p{display:none} p{display:block}</style><div id="main"><p>` + S + `</p></div>`, false},
		{":is() counts its argument", `<style>:is(#main) p{display:none} p{display:block}</style><div id="main"><p>` + S + `</p></div>`, true},
		{"important in a layer beats important outside", `<style>@layer a{p{display:none!important}} p{display:block!important}</style><p>` + S + `</p>`, true},
		{"a later layer beats an earlier one", `<style>@layer a, b; @layer b{p{display:none}} @layer a{p{display:block}}</style><p>` + S + `</p>`, true},
		{"a media query no screen matches does not apply", `<style>.x{display:none} @media (min-width:2000px){.x{display:block}}</style><p class="x">` + S + `</p>`, true},
		{"a chain of custom properties", `<style>:root{--b:none} .x{--a:var(--b)} .x{display:var(--a)}</style><p class="x">` + S + `</p>`, true},
		{"a cycle of custom properties is unset", `<style>.x{--a:var(--b);--b:var(--a);display:none} .x{display:var(--a)}</style><p class="x">` + S + `</p>`, false},
		{"a var() fallback", `<style>.x{display:var(--missing, none)}</style><p class="x">` + S + `</p>`, true},
		{"a shorthand with var()", `<style>.x{--m:-9999px;margin:0 0 0 var(--m)}</style><p class="x">` + S + `</p>`, true},
		{"a var() in a style attribute, the property from a sheet", `<style>:root{--gone:none}</style><p style="display:var(--gone)">` + S + `</p>`, true},
		{"a class required on an ancestor through :not()", `<style>.a:not(.b) p{display:none}</style><div class="a"><p>` + S + `</p></div>`, true},
		{":not() alone", `<style>p:not(.shown){display:none}</style><p class="shown">` + S + `</p><p>x</p>`, false},
		{"an adjacent sibling", `<style>h2 + p{display:none}</style><h2>Title</h2><p>` + S + `</p>`, true},
		{":has()", `<style>div:has(.flag) p{display:none}</style><div><i class="flag"></i><p>` + S + `</p></div>`, true},
		{":last-child, known only when the parent ends", `<style>p:last-child{display:none}</style><div><p>x</p><p>` + S + `</p></div>`, true},
		{":empty and :first-child", `<style>b:empty + p{display:none}</style><div><b></b><p>` + S + `</p></div>`, true},
		{"a class on <html>", `<html class="js"><head><style>.js .x{display:none}</style></head><body><p class="x">` + S + `</p></body></html>`, true},
		{"upper case", `<style>.x{DISPLAY: NONE}</style><p class="x">` + S + `</p>`, true},
		{"an important style attribute beats an important rule", `<style>#y{display:block!important}</style><p id="y" style="display:none !IMPORTANT">` + S + `</p>`, true},
		{"a nested rule with &", `<style>.card{&.off{display:none}}</style><p class="card off">` + S + `</p>`, true},
		{"a nested @media with declarations", `<style>.card{@media screen{display:none}}</style><p class="card">` + S + `</p>`, true},
		{"a stray } ends the @media block, not more", `<style>@media print{a){} .x{display:none}} .y{display:none}</style><p class="y">` + S + `</p>`, true},
		{"a stray ; at the top level eats the next rule", `<style>; .x{display:none}</style><p class="x">` + S + `</p>`, false},
		{"a pseudo-element rule styles no element", `<style>.x::before{display:none} .x:after{display:none}</style><p class="x">` + S + `</p>`, false},
		{"a :hover rule does not apply", `<style>.x{display:none} .x:hover{display:block}</style><p class="x">` + S + `</p>`, true},
		{":contains() is not CSS", `<style>p:contains("mayor"){display:none}</style><p>` + S + `</p>`, false},
		{"a rule inside @keyframes", `<style>@keyframes k{p{display:none}}</style><p>` + S + `</p>`, false},
		{"@supports with another engine's prefix", `<style>@supports not (-ms-ime-align:auto){p{display:none}}</style><p>` + S + `</p>`, true},
		{"an unknown media type", `<style>@media tv{p{display:none}}</style><p>` + S + `</p>`, false},
		{"a style element of another type", `<style type="text/less">p{display:none}</style><p>` + S + `</p>`, false},
		{"a style element for print", `<style media="print">p{display:none}</style><p>` + S + `</p>`, false},
		{"a style element inside a template", `<template><style>p{display:none}</style></template><p>` + S + `</p>`, false},
		{"an <svg> style element applies to the page", `<svg><style>p{display:none}</style></svg><p>` + S + `</p>`, true},
		{"a colour from currentcolor on the background", `<div style="color:#fff;background:currentcolor"><p>` + S + `</p></div>`, true},
		{"an opaque background stops an image's", `<div style="background:url(x.png)"><div style="background:#fff"><p style="color:#fff">` + S + `</p></div></div>`, true},
		{"translucent text over its own background", `<p style="background:#000;color:rgba(255,255,255,.02)">` + S + `</p>`, true},
		{"a display:none child of display:contents", `<div style="display:contents"><p style="display:none">` + S + `</p></div>`, true},
		{"display:contents keeps the children", `<div style="display:contents;height:0;overflow:hidden"><p>` + S + `</p></div>`, false},
		{"an inline box is blockified by position", `<span style="position:absolute;height:0;overflow:hidden">` + S + `</span>`, true},
		{"a flex item is blockified", `<div style="display:flex"><span style="width:0;overflow:hidden">` + S + `</span></div>`, true},
		{"text-indent of an inline box does nothing", `<p><span style="text-indent:-9999px">` + S + `</span></p>`, false},
		{"a percentage height may be auto", `<div style="height:0%;overflow:hidden"><p>` + S + `</p></div>`, false},
		{"left wins over right", `<p style="position:absolute;left:0;right:99999px">` + S + `</p>`, false},
		{"calc() of an offset", `<p style="position:absolute;left:calc(-9999px + 2em)">` + S + `</p>`, true},
	}
	for _, tc := range tests {
		for _, x := range extractors {
			t.Run(tc.desc+"/"+x.name, func(t *testing.T) {
				got, err := x.fn([]byte(`<div>Seen.</div>`+tc.html), "text/html")
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(got.Body, S) == tc.hidden {
					t.Errorf("hidden = %v, want %v: %q", !tc.hidden, tc.hidden, got.Body)
				}
			})
		}
	}
}

// TestMediaQueries: the viewports (bit 0 the desktop window, bit 1 the phone) each media
// query list matches.
func TestMediaQueries(t *testing.T) {
	const desktop, phone, both, none = 1, 2, 3, 0
	for _, tc := range []struct {
		query string
		want  uint8
	}{
		{"", both}, {"all", both}, {"screen", both}, {"print", none}, {"not print", both},
		{"print, screen", both}, {"tv", none}, {"nonsense", none},
		{"only screen and (min-width: 768px)", desktop}, {"(max-width: 600px)", phone},
		{"(min-width: 40em)", desktop}, {"(width >= 600px)", desktop},
		{"(400px <= width <= 700px)", none}, {"(360px < width < 400px)", phone},
		{"screen and (-webkit-min-device-pixel-ratio: 2)", phone}, {"(min-resolution: 2dppx)", phone},
		{"(orientation: portrait)", phone}, {"(hover: hover)", desktop}, {"(pointer: coarse)", phone},
		{"(prefers-color-scheme: dark)", none}, {"(prefers-reduced-motion: no-preference)", both},
		{"not (min-width: 1000px)", phone}, {"(foo: bar)", none}, {"not (foo: bar)", none},
		{"not screen and (foo: bar)", none}, {"(min-width: 100px) and (max-width: 500px)", phone},
		{"(max-width: 300px) or (min-width: 1200px)", desktop}, {"screen and", none},
		{"(scripting: enabled)", both}, {"(color)", both}, {"(monochrome)", none},
	} {
		if got := evalMediaList(lexTokens(tc.query)); got != tc.want {
			t.Errorf("%q matches %02b, want %02b", tc.query, got, tc.want)
		}
	}
	for _, tc := range []struct {
		cond string
		want bool
	}{
		{"(display: grid)", true}, {"not (display: grid)", false}, {"(-ms-ime-align: auto)", false},
		{"not (-ms-ime-align: auto)", true}, {"selector(:is(a, b))", true},
		{"(display: grid) and (not (display: inline-grid))", false}, {"(a: b) or (-moz-x: y)", true},
		{"nonsense", false},
	} {
		if got := evalSupports(lexTokens(tc.cond)); got != tc.want {
			t.Errorf("@supports %q = %v, want %v", tc.cond, got, tc.want)
		}
	}
}
