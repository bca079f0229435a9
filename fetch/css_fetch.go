package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/css"
	"golang.org/x/net/html"
)

// isHTML reports an HTML or XHTML content type.
func isHTML(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "text/html" || mt == "application/xhtml+xml")
}

// finishSheet fills res from the final response for a style sheet and reads its body, up
// to MaxSheetBytes.
func (f *Fetcher) finishSheet(res *Result, u *url.URL, resp *http.Response, ip string) error {
	here, err := f.finishHead(res, u, resp, ip)
	if err != nil {
		return err
	}
	// A browser applies a style sheet only when it is served as CSS.
	if res.ContentType != "" {
		if mt, _, err := mime.ParseMediaType(res.ContentType); err != nil || mt != "text/css" {
			return &Error{Kind: KindUnsupportedType, URL: here, Status: resp.StatusCode, Reason: fmt.Sprintf("the style sheet is served as %q, not text/css, so a browser does not apply it", res.ContentType)}
		}
	}
	body, err := readBody(resp.Body, MaxSheetBytes, resp.ContentLength)
	if err != nil {
		return f.bodyError(here, err)
	}
	if len(body) > MaxSheetBytes {
		body, res.Truncated = body[:MaxSheetBytes], true
	}
	sum := sha256.Sum256(body)
	res.Body, res.SHA256 = body, hex.EncodeToString(sum[:])
	return nil
}

// sheetRef is a style sheet to fetch for a page; imports tells whether its own @import
// rules are followed (those of linked sheets are, those of imported sheets are not).
type sheetRef struct {
	url     string
	imports bool
}

// fetchSheets fetches the style sheets an HTML page links, and those that its <style>
// elements and linked sheets import, at most MaxSheets in all, in the order found; the
// ones past the limit are listed as Capped. Each is fetched like a page (robots.txt, the
// address guard, the login wall, redirects, politeness), so a sheet robots.txt closes is
// not fetched and not applied.
func (f *Fetcher) fetchSheets(ctx context.Context, page *Result) []Sheet {
	refs := sheetRefs(page.Body, page.ContentType, page.FinalURL)
	if len(refs) == 0 {
		return nil
	}
	var out []Sheet
	seen := map[string]bool{}
	fetched := 0
	for i := 0; i < len(refs); i++ {
		r := refs[i]
		if seen[r.url] {
			continue
		}
		seen[r.url] = true
		if fetched == MaxSheets {
			out = append(out, Sheet{URL: r.url, Capped: true})
			continue
		}
		fetched++
		sh := f.fetchSheet(ctx, r.url)
		out = append(out, sh)
		if r.imports && sh.Err == nil {
			if base, err := url.Parse(sh.FinalURL); err == nil {
				for _, u := range sheetImports(sheetText(&sh), base) {
					refs = append(refs, sheetRef{url: u})
				}
			}
		}
	}
	return out
}

// fetchSheet fetches one style sheet.
func (f *Fetcher) fetchSheet(ctx context.Context, u string) Sheet {
	res, err := f.get(ctx, u, true)
	sh := Sheet{URL: u, Err: err}
	if res != nil {
		sh.FinalURL, sh.Hops, sh.ContentType = res.FinalURL, res.Hops, res.ContentType
		if err == nil {
			sh.Body, sh.Truncated = res.Body, res.Truncated
		}
	}
	return sh
}

// LinkedSheets returns how many distinct style sheets an HTML page at pageURL links and
// imports from its <style> elements: those Fetch fetches with it (up to MaxSheets) and
// Result.Extract applies. 0 for a body that is not HTML (Fetch fetches sheets for HTML only).
func LinkedSheets(body []byte, contentType, pageURL string) int {
	if !isHTML(contentType) {
		return 0
	}
	seen := map[string]bool{}
	for _, r := range sheetRefs(body, contentType, pageURL) {
		seen[r.url] = true
	}
	return len(seen)
}

// sheetRefs lists, in document order, the style sheets an HTML page links (see
// linkedSheet) and those its <style> elements import, resolved against the page's first
// <base href> or its URL. It reads the tokens only, so it finds the links the extractors'
// trees hold and perhaps more (a link in a plain <template>, which is then not applied).
func sheetRefs(body []byte, contentType, pageURL string) []sheetRef {
	s, err := decode(body, contentType)
	if err != nil {
		return nil
	}
	type found struct {
		href  string
		style []byte
	}
	var items []found
	baseHref, hasBase := "", false
	z := html.NewTokenizer(bytes.NewReader(s))
	inStyle := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			base := documentBase(pageURL, baseHref, hasBase)
			if base == nil {
				return nil
			}
			var out []sheetRef
			for _, it := range items {
				if it.style != nil {
					for _, u := range sheetImports(it.style, base) {
						out = append(out, sheetRef{url: u})
					}
					continue
				}
				if u, ok := sheetURL(base, it.href); ok {
					out = append(out, sheetRef{url: u, imports: true})
				}
			}
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
			name, attrs := tagOf(z)
			switch name {
			case "base":
				for _, a := range attrs {
					if a.Key == "href" && !hasBase {
						baseHref, hasBase = a.Val, true
					}
				}
			case "link":
				if href, _, ok := linkedSheet(attrs); ok {
					items = append(items, found{href: href})
				}
			case "style":
				inStyle = true
			}
		case html.TextToken:
			if inStyle {
				items = append(items, found{style: append([]byte{}, z.Text()...)})
			}
		case html.EndTagToken:
			inStyle = false
		}
	}
}

// sheetImports returns the addresses of a sheet's @import rules, which may only come
// before its other rules (after @charset and @layer statements).
func sheetImports(text []byte, base *url.URL) []string {
	p := &sheetParser{l: css.NewLexer(parse.NewInputBytes(text[:len(text):len(text)]))}
	var out []string
	for {
		t := p.next()
		switch t.tt {
		case css.ErrorToken:
			return out
		case css.WhitespaceToken, css.CDOToken, css.CDCToken:
			continue
		case css.AtKeywordToken:
			name := strings.ToLower(cssUnescape(t.data))
			pre, block := p.prelude(false)
			if block {
				return out
			}
			switch name {
			case "@charset", "@layer":
				continue
			case "@import":
				toks := toTokens(pre)
				addr := ""
				switch {
				case len(toks) > 0 && (toks[0].kind == tokURL || toks[0].kind == tokString):
					addr = toks[0].text
				case len(toks) > 1 && toks[0].kind == tokFunction && toks[0].text == "url" && toks[1].kind == tokString:
					addr = toks[1].text
				}
				if u, ok := sheetURL(base, addr); ok {
					out = append(out, u)
				}
				continue
			}
			return out
		default:
			return out
		}
	}
}
