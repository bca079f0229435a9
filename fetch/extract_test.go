package fetch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding/japanese"
)

var extractors = []struct {
	name string
	fn   func([]byte, string) (Text, error)
}{{"DOM", ExtractDOM}, {"tokens", ExtractTokens}}

func shiftJIS(t *testing.T, s string) []byte {
	t.Helper()
	b, err := japanese.ShiftJIS.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestExtract(t *testing.T) {
	tests := []struct {
		desc        string
		body        []byte
		contentType string
		want        Text
		wantErr     error
	}{
		{"hidden parts, entities, blocks", []byte(readTestdata(t, "pages/hidden.html")), "text/html",
			Text{Title: "Hidden parts", Description: "A page with hidden parts",
				Body: "Visible one. After nested. Aria hidden but seen. Code: <img> tag & more\u00a0text line break cell1 cell2 Café — déjà"}, nil},
		{"windows-1252 declared in a meta", []byte(readTestdata(t, "pages/windows-1252.html")), "text/html",
			Text{Title: "Café", Body: "“Quoted” naïve café – résumé"}, nil},
		{"windows-1252 declared in the header", []byte("<p>na\xefve caf\xe9</p>"), "text/html; charset=windows-1252",
			Text{Body: "naïve café"}, nil},
		{"windows-1252 undeclared", []byte("<p>na\xefve caf\xe9</p>"), "text/html",
			Text{Body: "naïve café"}, nil},
		{"Shift_JIS declared in a meta", []byte(readTestdata(t, "pages/shift_jis.html")), "text/html",
			Text{Title: "日本語", Body: "こんにちは、世界。"}, nil},
		{"Shift_JIS declared in the header", shiftJIS(t, "<p>こんにちは</p>"), "text/html; charset=shift_jis",
			Text{Body: "こんにちは"}, nil},
		{"Shift_JIS undeclared cannot be read", shiftJIS(t, "<p>こんにちは、世界。</p>"), "text/html", Text{}, ErrCharset},
		{"declares gb2312 but is UTF-8", []byte(readTestdata(t, "pages/gb2312-declared-utf8.html")), "text/html",
			Text{Title: "腾讯", Body: "谷歌(微博) 在2014年"}, nil},
		{"header says latin1 but bytes are UTF-8", []byte("<p>déjà vu</p>"), "text/html; charset=iso-8859-1",
			Text{Body: "déjà vu"}, nil},
		{"UTF-8 BOM", []byte("\xef\xbb\xbf<title>t</title><p>ñandú</p>"), "text/html", Text{Title: "t", Body: "ñandú"}, nil},
		{"UTF-16LE BOM", []byte("\xff\xfe<\x00p\x00>\x00h\x00i\x00"), "text/html", Text{Body: "hi"}, nil},
		{"late meta declaration", []byte("<html><head>" + strings.Repeat("<!-- pad -->", 200) + "<meta charset=windows-1252></head><body><p>caf\xe9</p></body></html>"), "text/html",
			Text{Body: "café"}, nil},
		{"unknown declared charset", []byte("<p>caf\xe9</p>"), "text/html; charset=x-martian", Text{}, ErrCharset},
		{"declared UTF-8, bytes are not", []byte("<p>\xe9\xe8\xe0\xf9\xe9\xe8\xe0</p>"), "text/html; charset=utf-8", Text{}, ErrCharset},
		{"scripts draw the page", []byte(readTestdata(t, "pages/scripts-only.html")), "text/html", Text{Title: "App"}, ErrNoText},
		{"empty body", nil, "text/html", Text{}, ErrNoText},
		{"plain text is read as is", []byte("a <b>not a tag</b>\n\n  line"), "text/plain; charset=utf-8", Text{Body: "a <b>not a tag</b> line"}, nil},
		{"og:description when there is no description", []byte(`<meta property="og:description" content="og text"><p>x</p>`), "text/html",
			Text{Description: "og text", Body: "x"}, nil},
		{"svg title is not the page title", []byte(`<body><svg><title>icon</title></svg><p>x</p></body>`), "text/html", Text{Body: "x"}, nil},
		{"inline elements join, blocks separate", []byte(`<p>a<b>b</b>c</p><div>d</div><li>e<li>f`), "text/html", Text{Body: "abc d e f"}, nil},
		{"comments inside a word", []byte(`<p>谷<!--x-->歌</p>`), "text/html", Text{Body: "谷歌"}, nil},
		{"nested hidden element of the same name", []byte(`<div hidden><div>a</div>b</div><div>c</div>`), "text/html", Text{Body: "c"}, nil},
		{"display:none with !important", []byte(`<p style="DISPLAY : none !important">a</p><p>b</p>`), "text/html", Text{Body: "b"}, nil},
		{"entities are decoded after tags are removed", []byte(`<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>`), "text/html", Text{Body: "<script>alert(1)</script>"}, nil},
	}
	for _, tc := range tests {
		for _, x := range extractors {
			t.Run(tc.desc+"/"+x.name, func(t *testing.T) {
				got, err := x.fn(tc.body, tc.contentType)
				if tc.wantErr != nil {
					if !errors.Is(err, tc.wantErr) {
						t.Fatalf("error = %v, want %v", err, tc.wantErr)
					}
					if tc.wantErr == ErrNoText && got.Title != tc.want.Title {
						t.Errorf("title = %q, want %q", got.Title, tc.want.Title)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if got != tc.want {
					t.Errorf("got  %+v\nwant %+v", got, tc.want)
				}
			})
		}
	}
}

func TestExtractTruncated(t *testing.T) {
	res := &Result{Body: []byte("<p>the start of a long page"), ContentType: "text/html", Truncated: true}
	txt, err := res.Extract(ExtractTokens)
	if !errors.Is(err, ErrTruncated) || txt.Body != "the start of a long page" {
		t.Fatalf("Extract of a truncated body = %q, %v; want the text and ErrTruncated", txt.Body, err)
	}
}

// TestExtractCorpusTraps checks the traps the corpus README lists.
func TestExtractCorpusTraps(t *testing.T) {
	tests := []struct {
		desc, page, want string
		absent           bool
	}{
		{"qq declares gb2312 but is UTF-8", "qq.html", "谷歌(微博) 在2014年", false},
		{"002 keeps a decoded <img> as text", "002.html", "from an <img>tag in the controlled document", false},
		{"bbc keeps the space inside the link", "bbc-1.html", "on the Iran nuclear deal after an intense", false},
		{"lemonde decodes &nbsp;", "lemonde-1.html", "«\u00a0entre les mailles du filet\u00a0»", false},
		{"heise decodes &amp;", "heise.html", "Mac & i", false},
		{"la-nacion BOM is not text", "la-nacion.html", "\ufeff", true},
		{"nytimes-4 script JSON is not text", "nytimes-4.html", `"@context"`, true},
		{"wikipedia-3 hidden MathML TeX is not text", "wikipedia-3.html", `{\displaystyle`, true},
		{"nytimes-1 screen-reader text is dropped", "nytimes-1.html", "visually-hidden", true},
		{"yahoo-4 keeps ideographic spaces", "yahoo-4.html", "\u3000", false},
	}
	for _, tc := range tests {
		body := readCorpus(t, tc.page)
		for _, x := range extractors {
			t.Run(tc.desc+"/"+x.name, func(t *testing.T) {
				got, err := x.fn(body, "text/html")
				if err != nil {
					t.Fatal(err)
				}
				if has := strings.Contains(got.Body, tc.want); has == tc.absent {
					t.Errorf("body contains %q = %v, want %v", tc.want, has, !tc.absent)
				}
			})
		}
	}
}

// FuzzExtract runs both extractors over any bytes: no panic, and text that is valid UTF-8
// and folded.
func FuzzExtract(f *testing.F) {
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "pages", "*.html"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no page seeds in testdata/pages: %v", err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "text/html")
	}
	f.Add([]byte("plain <p> text"), "text/plain; charset=windows-1252")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		for _, x := range extractors {
			got, err := x.fn(body, contentType)
			if err != nil {
				if !errors.Is(err, ErrCharset) && !errors.Is(err, ErrNoText) {
					t.Fatalf("%s: unexpected error %v", x.name, err)
				}
				continue
			}
			for _, s := range []string{got.Title, got.Description, got.Body} {
				if !utf8.ValidString(s) || s != foldSpace(s) {
					t.Fatalf("%s: text %q is not valid, folded UTF-8", x.name, s)
				}
			}
		}
	})
}

// TestExtractLang: both extractors read the language the root element declares (lang,
// else xml:lang), and Result.Extract falls back to the response's Content-Language.
func TestExtractLang(t *testing.T) {
	for _, c := range []struct {
		desc, body, head, want string
	}{
		{"lang on html", `<html lang="pt-BR"><p>Olá</p></html>`, "", "pt-BR"},
		{"lang with spaces and capitals", `<HTML LANG=" EN-gb "><p>Hi</p></HTML>`, "", "EN-gb"},
		{"xml:lang when lang is absent", `<html xml:lang="fr"><p>Salut</p></html>`, "", "fr"},
		{"lang wins over xml:lang", `<html xml:lang="fr" lang="de"><p>Hallo</p></html>`, "", "de"},
		{"an empty lang: xml:lang", `<html lang="" xml:lang="es"><p>Hola</p></html>`, "", "es"},
		{"lang on a paragraph only is not the page's", `<html><p lang="es">Hola</p></html>`, "", ""},
		{"no html tag", `<p>Hola</p>`, "", ""},
		{"Content-Language when the page declares none", `<p>Hallo</p>`, "HTTP/1.1 200 OK\r\nContent-Language: de-AT, en\r\nContent-Type: text/html\r\n\r\n", "de-AT"},
		{"the page's own lang wins over the header", `<html lang="it"><p>Ciao</p></html>`, "HTTP/1.1 200 OK\r\nContent-Language: de\r\n\r\n", "it"},
	} {
		for _, ex := range extractors {
			t.Run(c.desc+"/"+ex.name, func(t *testing.T) {
				r := &Result{Body: []byte(c.body), ContentType: "text/html", ResponseHead: []byte(c.head)}
				txt, err := r.Extract(ex.fn)
				if err != nil {
					t.Fatalf("Extract: %v", err)
				}
				if txt.Lang != c.want {
					t.Fatalf("Lang = %q, want %q", txt.Lang, c.want)
				}
			})
		}
	}
}

// TestLinkedSheets: the sheets a page links and its <style> elements import are counted
// once each, as Fetch fetches them; a body with none, plain text and a PDF count 0.
func TestLinkedSheets(t *testing.T) {
	for _, c := range []struct {
		desc, body, contentType string
		want                    int
	}{
		{"two links and an import", `<link rel=stylesheet href=a.css><link rel="stylesheet" href="/b.css"><style>@import "c.css";</style>`, "text/html", 3},
		{"the same sheet twice", `<link rel=stylesheet href=a.css><link rel=stylesheet href="https://site.example/a.css">`, "text/html", 1},
		{"an alternate sheet is not applied", `<link rel="alternate stylesheet" href=a.css>`, "text/html", 0},
		{"no sheets", `<p>Hi</p>`, "text/html", 0},
		{"plain text", `<link rel=stylesheet href=a.css>`, "text/plain", 0},
	} {
		t.Run(c.desc, func(t *testing.T) {
			if got := LinkedSheets([]byte(c.body), c.contentType, "https://site.example/page"); got != c.want {
				t.Fatalf("LinkedSheets = %d, want %d", got, c.want)
			}
		})
	}
}
