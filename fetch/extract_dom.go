package fetch

import (
	"bytes"
	"fmt"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// ExtractDOM returns the title, description and visible body text of a page, from the
// document tree that goquery builds (the HTML5 parsing algorithm), with the page's CSS
// applied (see [Result.Extract] for its linked style sheets). It decodes the charset first
// (see the package doc). Errors wrap ErrCharset when the bytes cannot be decoded and
// ErrNoText when nothing visible is left; ErrTruncated when the page's CSS went past a
// limit (the text is still returned).
func ExtractDOM(body []byte, contentType string) (Text, error) {
	return extractDOM(body, contentType, "", nil)
}

// extractDOM is ExtractDOM for a page at pageURL with the style sheets fetched for it.
func extractDOM(body []byte, contentType, pageURL string, sheets []Sheet) (Text, error) {
	s, err := decode(body, contentType)
	if err != nil {
		return Text{}, err
	}
	if isPlainText(contentType) {
		return plainText(s)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(s))
	if err != nil {
		return Text{}, fmt.Errorf("fetch: parse HTML: %w", err)
	}
	var t Text
	if root := doc.Find("html"); root.Length() > 0 {
		t.Lang = documentLang(root.Nodes[0].Attr)
	}
	doc.Find("title").EachWithBreak(func(_ int, sel *goquery.Selection) bool {
		if sel.Closest("svg").Length() > 0 {
			return true
		}
		t.Title = foldSpace(sel.Text())
		return false
	})
	og := ""
	doc.Find("meta").EachWithBreak(func(_ int, sel *goquery.Selection) bool {
		content, preferred, ok := description(sel.Nodes[0].Attr)
		switch {
		case ok && preferred:
			t.Description = content
			return false
		case ok && og == "":
			og = content
		}
		return true
	})
	if t.Description == "" {
		t.Description = og
	}
	ps, slots := newPageStyle(doc.Nodes[0], pageURL, sheets)
	b := newSpaceFolder(len(s) / htmlTextShare)
	if root := doc.Find("body"); root.Length() > 0 {
		walkVisible(root.Nodes[0], ps, slots, b)
	}
	t, err = finishText(t, b)
	if ps.page.wants && sheets == nil {
		t.restyle = &restyler{read: func(u string, sh []Sheet) (Text, error) { return extractDOM(body, contentType, u, sh) }}
	}
	if err == nil && ps.page.cut != "" {
		err = fmt.Errorf("%w: %s", ErrTruncated, ps.page.cut)
	}
	return t, err
}

// domFrame is one element open in walkVisible.
type domFrame struct {
	n      *html.Node
	cur    flatCursor
	style  computed
	seen   bool   // its own text is seen
	block  bool   // it ends a run of inline text
	script int    // 1 for <sup>, 2 for <sub>: its text is rewritten when it ends
	at     mark   // where its text starts
	unq    string // the closing quotation mark of a <q>
}

// walkVisible writes the visible text under root (the <body>), walking the flat tree
// without recursion so that deep documents cannot exhaust the stack.
func walkVisible(root *html.Node, ps *pageStyle, slots map[*html.Node]slotted, b *spaceFolder) {
	top := rootStyle()
	var html_ computed
	if p := root.Parent; p != nil && p.Type == html.ElementNode {
		ps.enter(p, &top, ps.doc, &html_)
	} else {
		html_ = top
	}
	frames := []domFrame{{}}
	if p := root.Parent; p != nil && p.Type == html.ElementNode {
		ps.ancestors.push(p)
	}
	ps.enter(root, &html_, ps.doc, &frames[0].style)
	if frames[0].style.allGone() {
		return
	}
	ps.ancestors.push(root)
	frames[0].n = root
	frames[0].cur = ps.open(root, ps.doc, slots)
	frames[0].seen = frames[0].style.textSeen()
	quotes := 0
	for len(frames) > 0 {
		f := &frames[len(frames)-1]
		n := f.cur.pop()
		if n == nil {
			switch f.script {
			case 1, 2:
				b.script(f.at, f.script == 1)
			}
			if f.unq != "" {
				foldInto(b, f.unq)
				quotes--
			}
			if f.block {
				b.brk()
			}
			ps.ancestors.pop(f.n)
			frames = frames[:len(frames)-1]
			continue
		}
		switch n.Type {
		case html.TextNode:
			if f.seen {
				foldInto(b, n.Data)
			}
		case html.ElementNode:
			if dropped(n) {
				continue
			}
			set := f.cur.set
			frames = append(frames, domFrame{})
			parent, c := &frames[len(frames)-2], &frames[len(frames)-1]
			ps.enter(n, &parent.style, set, &c.style)
			if c.style.allGone() {
				frames = frames[:len(frames)-1]
				continue
			}
			c.seen = c.style.textSeen()
			c.cur = ps.open(n, set, slots)
			c.n = n
			ps.ancestors.push(n)
			if blockElements[n.Data] && n.Namespace == "" {
				c.block = true
				b.brk()
			}
			if n.Namespace == "" {
				switch n.Data {
				case "sup":
					c.script, c.at = 1, b.mark()
				case "sub":
					c.script, c.at = 2, b.mark()
				case "q":
					if c.seen {
						open, closing := quoteMarks(quotes)
						foldInto(b, open)
						c.unq = closing
						quotes++
					}
				}
			}
		}
	}
}
