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
