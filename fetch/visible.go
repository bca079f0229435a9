package fetch

import (
	"fmt"
	"mime"
	"strings"
	"unicode"

	"golang.org/x/net/html"
)

// Text is the readable text of a page, as a verifier matches quotes against it.
type Text struct {
	Title       string // the document <title>
	Description string // <meta name="description">, or else og:description
	Body        string // the visible text of the body, whitespace folded to single spaces
	// PDF is what is known of a PDF's pages; nil for a web page.
	PDF *PDFText
}

// What counts as visible text. Both extractors apply these rules, each with its own code.
//
// Dropped with everything inside: the elements in droppedElements; an element with the
// hidden attribute; an inline style with display:none or visibility:hidden; and the
// screen-reader-only classes in srOnlyClasses, whose whole purpose is to be off screen.
//
// Kept: aria-hidden="true" content (it is hidden from screen readers, not from the eye);
// responsive classes such as hide@m-, hideOnMobile or hide-from-desktop, and generic classes
// such as "hidden" (without the style sheet it cannot be known where they are seen, and they
// are seen on some screen); image alt text is not text on the screen and is left out.
var droppedElements = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true, "head": true,
	"title": true, "iframe": true, "object": true, "embed": true, "svg": true, "canvas": true,
	"audio": true, "video": true, "select": true, "datalist": true, "input": true,
	"noembed": true, "noframes": true,
}

var srOnlyClasses = map[string]bool{
	"sr-only": true, "u-sr-only": true, "sr-only-text": true, "visually-hidden": true,
	"u-visually-hidden": true, "visuallyhidden": true, "screen-reader-text": true,
	"screen-reader-only": true, "sharing-screen-reader-text": true, "element-invisible": true,
	"a11y-hidden": true, "off-screen": true, "offscreen": true,
}

// blockElements end a run of inline text: their start and end count as a space, as do <br>
// and table cells.
var blockElements = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true, "body": true,
	"br": true, "caption": true, "dd": true, "details": true, "dialog": true, "div": true,
	"dl": true, "dt": true, "fieldset": true, "figcaption": true, "figure": true,
	"footer": true, "form": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true,
	"h6": true, "header": true, "hgroup": true, "hr": true, "html": true, "img": true,
	"legend": true, "li": true, "main": true, "menu": true, "nav": true, "ol": true,
	"option": true, "p": true, "pre": true, "section": true, "summary": true, "table": true,
	"tbody": true, "td": true, "tfoot": true, "th": true, "thead": true, "tr": true, "ul": true,
	"button": true, "label": true, "textarea": true,
}

// voidElements never have content or an end tag.
var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true,
	"param": true, "keygen": true,
}

// invisible reports whether an element with these attributes is not shown. It reads hidden,
// style and class only; ExtractTokens copies no other attribute (see tag).
func invisible(attrs []html.Attribute) bool {
	for _, a := range attrs {
		switch a.Key {
		case "hidden":
			return true
		case "style":
			s := strings.ToLower(strings.Join(strings.Fields(a.Val), ""))
			for decl := range strings.SplitSeq(s, ";") {
				decl = strings.TrimSuffix(decl, "!important")
				if decl == "display:none" || decl == "visibility:hidden" {
					return true
				}
			}
		case "class":
			for c := range strings.FieldsSeq(a.Val) {
				if srOnlyClasses[strings.ToLower(c)] {
					return true
				}
			}
		}
	}
	return false
}

// description returns the description a <meta> gives, and whether it is the preferred
// name="description" (true) or og:description (false); ok is false for other metas. It reads
// name, property and content only; ExtractTokens copies no other attribute (see tag).
func description(attrs []html.Attribute) (content string, preferred, ok bool) {
	var name, prop string
	for _, a := range attrs {
		switch a.Key {
		case "name":
			name = strings.ToLower(strings.TrimSpace(a.Val))
		case "property":
			prop = strings.ToLower(strings.TrimSpace(a.Val))
		case "content":
			content = a.Val
		}
	}
	switch {
	case name == "description":
		return foldSpace(content), true, true
	case name == "og:description" || prop == "og:description":
		return foldSpace(content), false, true
	}
	return "", false, false
}

// foldSpace collapses each run of HTML whitespace (space, tab, CR, LF, FF) to one space and
// trims the ends. Other spaces (NBSP, U+3000, zero-width) are the page's own and are kept.
func foldSpace(s string) string {
	f := newSpaceFolder(len(s))
	foldInto(f, s)
	return f.String()
}

// htmlTextShare is the part of an HTML page's bytes sized for its visible text at the start.
// Across the 40 pages of the test corpus the folded visible text is 1% to 31% of the bytes.
const htmlTextShare = 3

// spaceFolder builds text folded as foldSpace folds it, while it is written, so an
// extractor keeps one copy of the text instead of the raw text and then its folded form.
type spaceFolder struct {
	b     strings.Builder
	space bool // a run of whitespace waits for the next visible byte
}

// newSpaceFolder returns a folder whose first buffer holds size bytes.
func newSpaceFolder(size int) *spaceFolder {
	f := &spaceFolder{}
	f.b.Grow(size)
	return f
}

// foldInto writes s to f, folding its whitespace.
func foldInto[S string | []byte](f *spaceFolder, s S) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\r', '\f':
			f.space = true
		default:
			if f.space && f.b.Len() > 0 {
				f.b.WriteByte(' ')
			}
			f.space = false
			f.b.WriteByte(c)
		}
	}
}

// brk marks a boundary (a block element, a <br>): it counts as whitespace.
func (f *spaceFolder) brk() { f.space = true }

// String returns the folded text, without a trailing space.
func (f *spaceFolder) String() string { return f.b.String() }

// isBlank reports whether s holds nothing but HTML whitespace.
func isBlank(s []byte) bool {
	for _, c := range s {
		switch c {
		case ' ', '\t', '\n', '\r', '\f':
		default:
			return false
		}
	}
	return true
}

// plainText is the Text of a text/plain body: all of it, folded.
func plainText(s []byte) (Text, error) {
	f := newSpaceFolder(len(s))
	foldInto(f, s)
	return finishText(Text{}, f)
}

// isPlainText reports whether the content type is text/plain.
func isPlainText(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/plain"
}

// finishText takes the folded body and fails with ErrNoText when it holds no letter or
// digit.
func finishText(t Text, body *spaceFolder) (Text, error) {
	t.Body = body.String()
	if strings.IndexFunc(t.Body, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) < 0 {
		return t, fmt.Errorf("%w: after scripts, styles and hidden parts are removed, no words are left (the page may be drawn by scripts)", ErrNoText)
	}
	return t, nil
}

// Extract runs an extractor over the fetched body. When the body was cut at the size limit
// it returns the text read so far together with an error wrapping ErrTruncated, so that a
// quote that is not found can be reported as unreadable rather than absent.
//
// A PDF cut at its size limit is not read at all: its cross-reference table is at its end,
// so no part of it can be read with confidence. The error wraps ErrTruncated.
func (r *Result) Extract(extract func(body []byte, contentType string) (Text, error)) (Text, error) {
	if r.Truncated && IsPDF(r.ContentType, r.Body) {
		return Text{}, fmt.Errorf("%w: the PDF was cut off at %d bytes, and a PDF cut off is not read", ErrTruncated, len(r.Body))
	}
	t, err := extract(r.Body, r.ContentType)
	if err == nil && r.Truncated {
		err = fmt.Errorf("%w: only the first %d bytes were read", ErrTruncated, len(r.Body))
	}
	return t, err
}
