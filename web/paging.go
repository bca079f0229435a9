package web

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"

	"evidenceledger/ledger"
)

// Lists that can grow (claims, batches, seams; on the API and the pages) come in pages:
// ?limit=N (default defaultPageSize, at most maxPageSize: ledger's paging convention) and ?after=ID or ?before=ID, the
// id of the item the page starts after or ends before (ledger.Page). API answers carry
// "next_after" and "prev_before" when there is more on that side; pages show Next and
// Previous links, plain links that work without JavaScript.
const maxPageSize = ledger.MaxListPage

var defaultPageSize = ledger.DefaultPage(maxPageSize)

// readPage reads limit, after and before. Errors wrap ledger.ErrInvalid and say what to give.
func readPage(r *http.Request) (ledger.Page, error) {
	limit, err := queryInt(r, "limit", int64(defaultPageSize), "how many items a page holds", defaultPageSize)
	if err != nil {
		return ledger.Page{}, err
	}
	if limit < 1 || limit > maxPageSize {
		return ledger.Page{}, fmt.Errorf("limit %d: a page holds 1 to %d items: %w", limit, maxPageSize, ledger.ErrInvalid)
	}
	p := ledger.Page{After: trimmed(r, "after"), Before: trimmed(r, "before"), Limit: int(limit)}
	if p.After != "" && p.Before != "" {
		return ledger.Page{}, fmt.Errorf("give after or before, not both: %w", ledger.ErrInvalid)
	}
	return p, nil
}

// pager is the Previous and Next links of a page ("" where there is no page), and First,
// the list's first page, on a page that was asked for by a cursor.
type pager struct {
	Prev, Next, First string
}

// pagerOf builds the links of a page at path from the request's query (filters and limit
// kept, after and before replaced).
func pagerOf(r *http.Request, path string, cur ledger.Cursors) pager {
	q := url.Values{}
	for k, v := range r.URL.Query() {
		if k != "after" && k != "before" {
			q[k] = v
		}
	}
	link := func(name, id string) string {
		if id == "" {
			return ""
		}
		q := maps.Clone(q)
		q.Set(name, id)
		return path + "?" + q.Encode()
	}
	p := pager{Prev: link("before", cur.Prev), Next: link("after", cur.Next)}
	if r.URL.Query().Has("after") || r.URL.Query().Has("before") {
		p.First = path
		if len(q) > 0 {
			p.First += "?" + q.Encode()
		}
	}
	return p
}
