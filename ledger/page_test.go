package ledger

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"evidenceledger/evidence"
)

func pasteOf(batch, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "Claim %d: Fact %d of batch %d holds.\nSource: https://host%d.example/p/%d\nQuote: \"fact %d of batch %d holds in the record\"\n\n", i+1, i, batch, i%3, i, i, batch)
	}
	return b.String()
}

// walk reads every page of a list forwards, then backwards from the end, and returns the
// ids of both walks (the backward one put back in list order).
func walk(t *testing.T, limit int, get func(Page) ([]string, Cursors, error)) (fwd, back []string) {
	t.Helper()
	p := Page{Limit: limit}
	var last Cursors
	for range 1000 {
		ids, cur, err := get(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) > limit {
			t.Fatalf("a page of %d items; the limit is %d", len(ids), limit)
		}
		if p.After == "" && cur.Prev != "" {
			t.Fatalf("the first page has a previous page %q", cur.Prev)
		}
		fwd = append(fwd, ids...)
		last = cur
		if cur.Next == "" {
			break
		}
		p = Page{After: cur.Next, Limit: limit}
	}
	// Backwards: from the last page's first item.
	if len(fwd) == 0 {
		return fwd, nil
	}
	lastPage := len(fwd) % limit
	if lastPage == 0 {
		lastPage = limit
	}
	back = append([]string{}, fwd[len(fwd)-lastPage:]...)
	p = Page{Before: back[0], Limit: limit}
	for cur := last; cur.Prev != ""; {
		ids, c, err := get(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) == 0 || c.Next != ids[len(ids)-1] {
			t.Fatalf("a page %v read backwards leads forward from %q; want its last item", ids, c.Next)
		}
		back = append(append([]string{}, ids...), back...)
		cur = c
		p = Page{Before: c.Prev, Limit: limit}
	}
	return fwd, back
}

func TestPages(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	var batches []Batch
	for i := range 3 {
		batches = append(batches, importPaste(t, s, []byte(pasteOf(i, 7))))
	}
	for i, c := range batches[1].Claims[:5] {
		if _, err := s.OpenSeam(ctx, "user:olga", SeamRequest{Kind: evidence.SeamAbsence, Summary: fmt.Sprintf("absence %d", i), Claims: []string{c.ID}}); err != nil {
			t.Fatal(err)
		}
	}
	claimIDs := func(cs []ClaimView) []string {
		ids := []string{}
		for _, c := range cs {
			ids = append(ids, c.ID)
		}
		return ids
	}
	for _, f := range []ClaimFilter{{}, {Batch: batches[1].ID}, {Status: evidence.StatusReported}, {Strength: "none"}, {Status: evidence.StatusFound}} {
		all, err := s.Claims(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int{1, 4, 7, 21, 50} {
			fwd, back := walk(t, limit, func(p Page) ([]string, Cursors, error) {
				cp, err := s.ClaimsPage(ctx, f, p)
				return claimIDs(cp.Claims), cp.Cursors, err
			})
			if want := claimIDs(all); !reflect.DeepEqual(fwd, want) && !(len(fwd) == 0 && len(want) == 0) {
				t.Fatalf("claims %+v by %d: forward %v; want %v", f, limit, fwd, want)
			}
			if !reflect.DeepEqual(back, fwd) && len(fwd) > 0 {
				t.Fatalf("claims %+v by %d: backward %v; want %v", f, limit, back, fwd)
			}
		}
	}
	// Batches: newest first.
	fwd, back := walk(t, 2, func(p Page) ([]string, Cursors, error) {
		bp, err := s.BatchesPage(ctx, BatchFilter{}, p)
		var ids []string
		for _, b := range bp.Batches {
			ids = append(ids, b.ID)
		}
		return ids, bp.Cursors, err
	})
	if want := []string{batches[2].ID, batches[1].ID, batches[0].ID}; !reflect.DeepEqual(fwd, want) || !reflect.DeepEqual(back, want) {
		t.Fatalf("batches: %v, back %v; want %v", fwd, back, want)
	}
	// Seams: oldest first.
	all, _ := s.Seams(ctx, evidence.SeamOpen)
	fwd, back = walk(t, 2, func(p Page) ([]string, Cursors, error) {
		sp, err := s.SeamsPage(ctx, evidence.SeamOpen, p)
		var ids []string
		for _, sm := range sp.Seams {
			ids = append(ids, sm.ID)
		}
		return ids, sp.Cursors, err
	})
	var want []string
	for _, sm := range all {
		want = append(want, sm.ID)
	}
	if len(want) != 5 || !reflect.DeepEqual(fwd, want) || !reflect.DeepEqual(back, want) {
		t.Fatalf("seams: %v, back %v; want %v", fwd, back, want)
	}
	if _, err := s.ClaimsPage(ctx, ClaimFilter{}, Page{After: "c_0000000000000000", Limit: 5}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("an unknown cursor: %v; want ErrInvalid", err)
	}
	// Past the end: an empty page.
	last := batches[2].Claims[6].ID
	cp, err := s.ClaimsPage(ctx, ClaimFilter{}, Page{After: last, Limit: 5})
	if err != nil || len(cp.Claims) != 0 || cp.Prev != "" || cp.Next != "" {
		t.Fatalf("after the last claim: %+v %v", cp, err)
	}
}
