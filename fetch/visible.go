package fetch

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/textproto"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// Text is the readable text of a page, as a verifier matches quotes against it.
type Text struct {
	Title       string // the document <title>
	Description string // <meta name="description">, or else og:description
	Body        string // the visible text of the body, whitespace folded to single spaces
	// Lang is the language the page declares for its text, a BCP 47 tag as written: the
	// root element's lang (or xml:lang) attribute, else the response's Content-Language
	// (its first tag); "" when the page declares none. The matcher's negation check reads
	// it (evidence.Negation).
	Lang string
	// restyle, for a web page read without the style sheets it links, reads it again with
	// them; Result.Extract calls it with the sheets the fetcher fetched.
	restyle *restyler
}

// restyler reads a page again with its linked style sheets.
type restyler struct {
	read func(pageURL string, sheets []Sheet) (Text, error)
}

// What counts as visible text. Both extractors apply these rules, each over its own tree.
//
// The page's CSS decides (docs/fetch.md, "Style sheets"): its style attributes, <style>
// elements and linked sheets, with the browser's own defaults (the hidden attribute, a
// closed <dialog>, <rp>), cascaded as CSS Cascade 5 says, for a desktop window and a
// phone; text counts when it is seen on one of them (see [computed.textSeen]). A closed
// <details> draws its first <summary> only; a declarative shadow root draws instead of
// its host's children, which show through its <slot>s.
//
// Dropped whatever the CSS says: the elements in droppedElements (code, embedded
// documents and media, form controls, fallback content a browser does not draw, template
// contents, <noscript>, which a browser with scripts does not draw), and the
// screen-reader-only classes in srOnlyClasses, whose whole purpose is to be off screen, for
// a page whose sheet defining them was not read.
//
// Kept: aria-hidden="true" content (it is hidden from screen readers, not from the eye).
// Image alt text is not text on the screen and is left out.
var droppedElements = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true, "head": true,
	"title": true, "iframe": true, "object": true, "embed": true, "svg": true, "canvas": true,
	"audio": true, "video": true, "select": true, "datalist": true, "input": true,
	"noembed": true, "noframes": true, "progress": true, "meter": true,
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

// srOnly reports whether an element has a screen-reader-only class.
func srOnly(attrs []html.Attribute) bool {
	for _, a := range attrs {
		if a.Key == "class" && a.Namespace == "" {
			for c := range strings.FieldsSeq(a.Val) {
				if srOnlyClasses[strings.ToLower(c)] {
					return true
				}
			}
		}
	}
	return false
}

// dropped reports whether an element is left out with everything inside, whatever the
// CSS says.
func dropped(n *html.Node) bool {
	return n.Namespace == "" && droppedElements[n.Data] || n.Namespace == "svg" && n.Data == "svg" || srOnly(n.Attr)
}

// Superscript and subscript text is kept apart from its base (docs/matching.md, "What
// the extractors give"): written in Unicode superscript or subscript characters when each
// of its characters has one (10<sup>6</sup> is "10⁶", H<sub>2</sub>O is "H₂O"); otherwise
// as it is, set apart by a space where a digit of it would touch a digit of the text
// around it (2019<sup>3,4</sup> is "2019 3,4", Taupo,<sup>[150]</sup> stays "Taupo,[150]"
// and 5<sup>th</sup> "5th"), so that it never reads as part of a larger number.
var (
	superscripts = map[rune]rune{
		'0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸',
		'9': '⁹', '+': '⁺', '-': '⁻', '−': '⁻', '=': '⁼', '(': '⁽', ')': '⁾', 'n': 'ⁿ', 'i': 'ⁱ',
	}
	subscripts = map[rune]rune{
		'0': '₀', '1': '₁', '2': '₂', '3': '₃', '4': '₄', '5': '₅', '6': '₆', '7': '₇', '8': '₈',
		'9': '₉', '+': '₊', '-': '₋', '−': '₋', '=': '₌', '(': '₍', ')': '₎', 'n': 'ₙ', 'i': 'ᵢ',
	}
	superscriptSet, subscriptSet = runeValues(superscripts), runeValues(subscripts)
)

func runeValues(m map[rune]rune) map[rune]bool {
	out := map[rune]bool{}
	for _, v := range m {
		out[v] = true
	}
	return out
}

// scriptText maps folded superscript (sup) or subscript text to its Unicode forms; ok is
// false when a character has none. Spaces stay, and characters already in the target
// forms (a <sup> inside a <sup>) stay.
func scriptText(s []byte, sup bool) (string, bool) {
	m, done := subscripts, subscriptSet
	if sup {
		m, done = superscripts, superscriptSet
	}
	var b strings.Builder
	for _, r := range string(s) {
		switch {
		case r == ' ':
			b.WriteRune(r)
		case done[r]:
			b.WriteRune(r)
		default:
			v, ok := m[r]
			if !ok {
				return "", false
			}
			b.WriteRune(v)
		}
	}
	return b.String(), true
}

// Quotation marks a browser draws around <q>: double at the outer level, single inside,
// alternating (the CSS quotes of English, whatever the page's language).
func quoteMarks(depth int) (open, close string) {
	if depth%2 == 0 {
		return "\u201c", "\u201d"
	}
	return "\u2018", "\u2019"
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

// documentLang returns the language the attributes of a root <html> element declare: lang,
// else xml:lang, trimmed; "" when neither is there.
func documentLang(attrs []html.Attribute) string {
	xml := ""
	for _, a := range attrs {
		switch strings.ToLower(a.Key) {
		case "lang":
			if v := strings.TrimSpace(a.Val); v != "" {
				return v
			}
		case "xml:lang":
			xml = strings.TrimSpace(a.Val)
		}
	}
	return xml
}

// contentLanguage returns the first language tag of the Content-Language field in a
// response head (its status line, then the fields, as Result.ResponseHead holds them), read
// with net/textproto; "" when there is none.
func contentLanguage(head []byte) string {
	r := textproto.NewReader(bufio.NewReader(bytes.NewReader(head)))
	if _, err := r.ReadLine(); err != nil {
		return ""
	}
	h, _ := r.ReadMIMEHeader() // a head cut short still gives the fields before the cut
	first, _, _ := strings.Cut(h.Get("Content-Language"), ",")
	return strings.TrimSpace(first)
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
	b     []byte
	space bool // a run of whitespace waits for the next visible byte
	// digitApart: the text just written ends a superscript or subscript with a digit; a
	// digit written next is set apart by a space.
	digitApart bool
}

// newSpaceFolder returns a folder whose first buffer holds size bytes.
func newSpaceFolder(size int) *spaceFolder {
	return &spaceFolder{b: make([]byte, 0, size)}
}

// foldInto writes s to f, folding its whitespace.
func foldInto[S string | []byte](f *spaceFolder, s S) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\r', '\f':
			f.space = true
		default:
			if f.digitApart {
				f.digitApart = false
				if r, _ := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))])); unicode.IsDigit(r) {
					f.space = true
				}
			}
			if f.space && len(f.b) > 0 {
				f.b = append(f.b, ' ')
			}
			f.space = false
			f.b = append(f.b, c)
		}
	}
}

// brk marks a boundary (a block element, a <br>): it counts as whitespace.
func (f *spaceFolder) brk() { f.space = true }

// String returns the folded text, without a trailing space.
func (f *spaceFolder) String() string { return string(f.b) }

// mark is a point in a folder's text, to rewrite what follows it (see script).
type mark struct {
	n     int
	space bool
}

func (f *spaceFolder) mark() mark { return mark{len(f.b), f.space} }

// script rewrites the text written since m as superscript (sup) or subscript text: in
// Unicode superscript or subscript characters when each has one, else kept apart from the
// digits around it.
func (f *spaceFolder) script(m mark, sup bool) {
	seg := f.b[m.n:]
	if len(seg) == 0 {
		return
	}
	if mapped, ok := scriptText(seg, sup); ok {
		f.b = append(f.b[:m.n], mapped...)
		return
	}
	first, _ := utf8.DecodeRune(seg)
	last, _ := utf8.DecodeLastRune(seg)
	if before, _ := utf8.DecodeLastRune(f.b[:m.n]); m.n > 0 && unicode.IsDigit(before) && unicode.IsDigit(first) {
		f.b = append(f.b[:m.n], append([]byte{' '}, seg...)...)
	}
	f.digitApart = unicode.IsDigit(last) && !f.space
}

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

// Extract runs an extractor over the fetched body. A web page read by ExtractDOM or
// ExtractTokens is read with the style sheets it links, as the fetcher fetched them
// (r.Sheets); called on a body alone, those extractors cannot know them. When the body was
// cut at the size limit
// it returns the text read so far together with an error wrapping ErrTruncated, so that a
// quote that is not found can be reported as unreadable rather than absent.
//
// Extract reads web pages; a PDF ([IsPDF]) is read by package pdf's engines, from r.Body.
func (r *Result) Extract(extract func(body []byte, contentType string) (Text, error)) (Text, error) {
	t, err := extract(r.Body, r.ContentType)
	if t.restyle != nil {
		rs := t.restyle
		t.restyle = nil
		if len(r.Sheets) > 0 {
			t, err = rs.read(r.FinalURL, r.Sheets)
			t.restyle = nil
		}
	}
	if t.Lang == "" {
		t.Lang = contentLanguage(r.ResponseHead)
	}
	if (err == nil || errors.Is(err, ErrTruncated)) && r.Truncated {
		err = fmt.Errorf("%w: only the first %d bytes were read", ErrTruncated, len(r.Body))
	}
	return t, err
}
