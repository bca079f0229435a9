package fetch

import (
	"bytes"

	"golang.org/x/net/html"
)

// headElements may stand in a document's head; any other start tag, or text that is not
// blank, begins the body.
var headElements = map[string]bool{
	"html": true, "head": true, "meta": true, "link": true, "title": true, "style": true,
	"script": true, "noscript": true, "base": true, "template": true, "basefont": true,
	"bgsound": true,
}

// ExtractTokens returns the title, description and visible body text of a page, from a
// single pass over golang.org/x/net/html's tokenizer, without building a tree. It shares no
// code with [ExtractDOM] beyond the charset decoding and the list of what is visible, so
// that two verifiers read a page independently. Errors are those of ExtractDOM.
func ExtractTokens(body []byte, contentType string) (Text, error) {
	s, err := decode(body, contentType)
	if err != nil {
		return Text{}, err
	}
	if isPlainText(contentType) {
		return plainText(s)
	}
	var (
		t                 Text
		og                string
		b                 = newSpaceFolder(len(s) / htmlTextShare)
		z                 = html.NewTokenizer(bytes.NewReader(s))
		inHead            = true
		inTitle, hadTitle bool
		skip              string // the element being skipped, with everything inside
		depth             int    // nesting of skip's name inside itself
	)
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if t.Description == "" {
				t.Description = og
			}
			return finishText(t, b)
		case html.TextToken:
			text := z.Text()
			switch {
			case inTitle:
				t.Title += string(text)
			case depth > 0:
			case inHead && isBlank(text):
			default:
				inHead = false
				foldInto(b, text)
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, attrs := tag(z)
			if name == "meta" {
				if content, preferred, ok := description(attrs); ok {
					if preferred && t.Description == "" {
						t.Description = content
					} else if !preferred && og == "" {
						og = content
					}
				}
			}
			if depth > 0 {
				if name == skip && !voidElements[name] {
					depth++
				}
				continue
			}
			if name == "title" && !hadTitle {
				inTitle, hadTitle = true, true
				continue
			}
			if inHead && !headElements[name] || name == "body" {
				inHead = false
			}
			if (inHead && !voidElements[name] && name != "html" && name != "head") || (droppedElements[name] && name != "head") || invisible(attrs) {
				if !voidElements[name] {
					skip, depth = name, 1
				}
				continue
			}
			if blockElements[name] {
				b.brk()
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch n := string(name); {
			case inTitle && n == "title":
				inTitle = false
				t.Title = foldSpace(t.Title)
			case depth > 0:
				if n == skip {
					depth--
				}
			case n == "head":
				inHead = false
			case blockElements[n]:
				b.brk()
			}
		}
	}
}

// tag returns the current tag's name and the attributes the extractor reads: those
// [invisible] looks at, and on a <meta> those [description] looks at. Others are skipped
// without being copied.
func tag(z *html.Tokenizer) (string, []html.Attribute) {
	raw, more := z.TagName()
	name := string(raw)
	var attrs []html.Attribute
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		switch string(k) {
		case "hidden", "style", "class":
		case "name", "property", "content":
			if name != "meta" {
				continue
			}
		default:
			continue
		}
		attrs = append(attrs, html.Attribute{Key: string(k), Val: string(v)})
	}
	return name, attrs
}
