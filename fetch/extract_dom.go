package fetch

import (
	"bytes"
	"fmt"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// ExtractDOM returns the title, description and visible body text of a page, from the
// document tree that goquery builds (the HTML5 parsing algorithm). It decodes the charset
// first (see the package doc). Errors wrap ErrCharset when the bytes cannot be decoded and
// ErrNoText when nothing visible is left.
func ExtractDOM(body []byte, contentType string) (Text, error) {
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
	b := newSpaceFolder(len(s) / htmlTextShare)
	if root := doc.Find("body"); root.Length() > 0 {
		walkVisible(root.Nodes[0], b)
	}
	return finishText(t, b)
}

// walkVisible writes the visible text under root, without recursion so that deep documents
// cannot exhaust the stack.
func walkVisible(root *html.Node, b *spaceFolder) {
	n := root.FirstChild
	for n != nil {
		descend := false
		switch n.Type {
		case html.TextNode:
			foldInto(b, n.Data)
		case html.ElementNode:
			if droppedElements[n.Data] || invisible(n.Attr) {
				break
			}
			if blockElements[n.Data] {
				b.brk()
			}
			descend = n.FirstChild != nil
		}
		if descend {
			n = n.FirstChild
			continue
		}
		// Move on to the next sibling, closing the elements left on the way up.
		for n != root && n.NextSibling == nil {
			n = n.Parent
			if n == root {
				return
			}
			if n.Type == html.ElementNode && blockElements[n.Data] {
				b.brk()
			}
		}
		if n == root {
			return
		}
		n = n.NextSibling
	}
}
