package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"evidenceledger/evidence"
)

// The paging convention, declared here once for every paged read (the API, the pages, the
// MCP tools): a page holds 1 to a maximum number of items, and a reader that gives no limit
// gets [DefaultPage] of that maximum, a tenth of it. Lists of claims, batches and seams are
// read [MaxListPage] at most; events, whose exported form is small and which an auditor
// reads from the first, [MaxEventsPage].
const (
	// MaxListPage is the most claims, batches or seams one page holds.
	MaxListPage = 500
	// MaxEventsPage is the most events [Store.Events] returns at once.
	MaxEventsPage = 1000
)

// DefaultPage is the page size of a read whose maximum is max and which gives no limit.
func DefaultPage(max int) int { return max / 10 }

// Page asks for one page of a list, by keyset: the list's order is fixed (each list says
// which), and a page is named by the id of an item next to it, so a page stays the same
// while items are added elsewhere and costs the same at any depth.
type Page struct {
	// After, when not empty, is the id of the last item the caller has: the page holds
	// the items that come after it.
	After string
	// Before, when not empty (and After is), is the id of the first item the caller has:
	// the page holds the items just before it.
	Before string
	// Limit is the most items on the page; 0 or less for all.
	Limit int
}

// Cursors say whether there is more on either side of a page, by the ids to ask with.
type Cursors struct {
	// Next, when not empty, is the After of the next page.
	Next string `json:"next_after,omitempty"`
	// Prev, when not empty, is the Before of the previous page.
	Prev string `json:"prev_before,omitempty"`
}

// list is how one list is ordered and filtered, as SQL.
type list struct {
	name    string // in errors: "claim", "batch"
	from    string // FROM and joins, for the page query
	keyFrom string // FROM and joins to look up one item's keys by id; from when empty
	id      string // the id column
	keys    []string
	desc    bool   // the order is descending
	where   string // the filter
	args    []any
}

// pageIDs returns the ids of page p of l, in l's order, and the cursors around it. A cursor
// id that is not in the unfiltered list wraps [ErrInvalid].
func pageIDs(ctx context.Context, tx *sql.Tx, l list, p Page) ([]string, Cursors, error) {
	var cur Cursors
	fwd, cursor := true, p.After
	if p.After == "" && p.Before != "" {
		fwd, cursor = false, p.Before
	}
	keyVals, err := l.keyOf(ctx, tx, cursor)
	if err != nil {
		return nil, cur, err
	}
	where, args := l.where, append([]any{}, l.args...)
	if keyVals != nil {
		w, a := l.beyond(keyVals, fwd == !l.desc)
		where, args = where+" AND "+w, append(args, a...)
	}
	q := "SELECT " + l.id + " " + l.from + " WHERE " + where + " ORDER BY " + l.order(fwd)
	if p.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", p.Limit)
	}
	var ids []string
	err = eachRow(ctx, tx, q, args, func(rows *sql.Rows) error {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		return nil, cur, fmt.Errorf("list %ss: %w", l.name, err)
	}
	if !fwd {
		for i, j := 0, len(ids)-1; i < j; i, j = i+1, j-1 {
			ids[i], ids[j] = ids[j], ids[i]
		}
	}
	if len(ids) == 0 {
		// Nothing on this side of the cursor (the cursors of a page lead only where
		// there is more): no way on from here but the first page.
		return ids, cur, nil
	}
	for _, side := range []struct {
		id    string
		after bool
		set   *string
	}{{ids[len(ids)-1], true, &cur.Next}, {ids[0], false, &cur.Prev}} {
		more, err := l.more(ctx, tx, side.id, side.after)
		if err != nil {
			return nil, cur, err
		}
		if more {
			*side.set = side.id
		}
	}
	return ids, cur, nil
}

// order is l's ORDER BY, reversed when reading backwards.
func (l list) order(fwd bool) string {
	dir := " ASC"
	if l.desc == fwd {
		dir = " DESC"
	}
	parts := make([]string, len(l.keys))
	for i, k := range l.keys {
		parts[i] = k + dir
	}
	return strings.Join(parts, ", ")
}

// keyOf returns the sort keys of the item id, nil for "". An id not in the list wraps
// ErrInvalid.
func (l list) keyOf(ctx context.Context, tx *sql.Tx, id string) ([]any, error) {
	if id == "" {
		return nil, nil
	}
	vals := make([]any, len(l.keys))
	ptrs := make([]any, len(l.keys))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	from := l.keyFrom
	if from == "" {
		from = l.from
	}
	err := tx.QueryRowContext(ctx, "SELECT "+strings.Join(l.keys, ", ")+" "+from+" WHERE "+l.id+" = ?", id).Scan(ptrs...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%q is not the id of a %s; give after or before from a page of this list: %w", id, l.name, ErrInvalid)
	}
	if err != nil {
		return nil, fmt.Errorf("list %ss: %w", l.name, err)
	}
	return vals, nil
}

// beyond is the condition "the keys come after vals" (greater, or smaller with greater
// false), written so that an index on the first key can serve it.
func (l list) beyond(vals []any, greater bool) (string, []any) {
	op, opEq := ">", ">="
	if !greater {
		op, opEq = "<", "<="
	}
	// k1 >= v1 AND (k1 > v1 OR (k2 > v2)) for two keys; k1 > v1 for one.
	if len(l.keys) == 1 {
		return l.keys[0] + " " + op + " ?", []any{vals[0]}
	}
	var ors []string
	var args []any
	args = append(args, vals[0])
	for i := range l.keys {
		var ands []string
		for j := 0; j < i; j++ {
			ands = append(ands, l.keys[j]+" = ?")
			args = append(args, vals[j])
		}
		ands = append(ands, l.keys[i]+" "+op+" ?")
		args = append(args, vals[i])
		ors = append(ors, "("+strings.Join(ands, " AND ")+")")
	}
	return "(" + l.keys[0] + " " + opEq + " ? AND (" + strings.Join(ors, " OR ") + "))", args
}

// more reports whether l has an item beyond id, after it in the list's order or before it.
func (l list) more(ctx context.Context, tx *sql.Tx, id string, after bool) (bool, error) {
	vals, err := l.keyOf(ctx, tx, id)
	if err != nil {
		return false, err
	}
	w, a := l.beyond(vals, after == !l.desc)
	var one int
	err = tx.QueryRowContext(ctx, "SELECT 1 "+l.from+" WHERE "+l.where+" AND "+w+" LIMIT 1", append(append([]any{}, l.args...), a...)...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("list %ss: %w", l.name, err)
	}
	return true, nil
}

// inIDs is the SQL condition "col is one of ids" with its arguments.
func inIDs(col string, ids []string) (string, []any) {
	if len(ids) == 0 {
		return "0", nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return col + " IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ") + ")", args
}

// ClaimPage is one page of claims and the cursors around it.
type ClaimPage struct {
	Claims []ClaimView `json:"claims"`
	Cursors
}

// ClaimsPage returns page p of the claims f selects, in the order of [Store.Claims] (oldest
// batch first, then the order of the research). Errors wrap [ErrInvalid] for a filter
// value or a cursor that does not exist.
func (s *Store) ClaimsPage(ctx context.Context, f ClaimFilter, p Page) (ClaimPage, error) {
	where, args, err := f.where()
	if err != nil {
		return ClaimPage{}, fmt.Errorf("claims: %w", err)
	}
	tx, err := s.readTx(ctx)
	if err != nil {
		return ClaimPage{}, fmt.Errorf("claims: %w", err)
	}
	defer tx.Rollback()
	// CROSS JOIN keeps batches the outer loop, so the page is read in index order
	// (batches by seq, claims by batch and position) and stops at the limit. Within one
	// batch the order is the claims' position alone: the keyset is then a range of the index
	// UNIQUE (batch, position), and a page of a batch of any size, and the test for more on
	// either side of it, read only the rows they need.
	l := list{name: "claim", from: "FROM batches b CROSS JOIN claims c ON c.batch = b.id",
		keyFrom: "FROM claims c JOIN batches b ON b.id = c.batch", id: "c.id", keys: []string{"b.seq", "c.position"}, where: where, args: args}
	if f.Batch != "" {
		l = list{name: "claim", from: "FROM claims c", id: "c.id", keys: []string{"c.position"}, where: where, args: args}
	}
	ids, cur, err := pageIDs(ctx, tx, l, p)
	if err != nil {
		return ClaimPage{}, fmt.Errorf("claims: %w", err)
	}
	w, a := inIDs("c.id", ids)
	claims, err := loadClaims(ctx, tx, w, a...)
	if err != nil {
		return ClaimPage{}, err
	}
	return ClaimPage{Claims: claims, Cursors: cur}, nil
}

// BatchFilter selects batches: those with at least one claim of the status and of the
// strength ("none" for no strength). Empty members select everything.
type BatchFilter struct {
	Status   string
	Strength string
}

// BatchPage is one page of batches and the cursors around it.
type BatchPage struct {
	Batches []Batch `json:"batches"`
	Cursors
}

// BatchesPage returns page p of the batches f selects, newest first, with their counts
// (without their claims). Errors wrap [ErrInvalid] for a filter value or a cursor that does
// not exist.
func (s *Store) BatchesPage(ctx context.Context, f BatchFilter, p Page) (BatchPage, error) {
	cf := ClaimFilter{Status: evidence.Status(f.Status), Strength: f.Strength}
	cw, cargs, err := cf.where()
	if err != nil {
		return BatchPage{}, fmt.Errorf("batches: %w", err)
	}
	where := "1"
	if f.Status != "" || f.Strength != "" {
		where = "EXISTS (SELECT 1 FROM claims c WHERE c.batch = b.id AND " + cw + ")"
	}
	tx, err := s.readTx(ctx)
	if err != nil {
		return BatchPage{}, fmt.Errorf("batches: %w", err)
	}
	defer tx.Rollback()
	ids, cur, err := pageIDs(ctx, tx, list{name: "batch", from: "FROM batches b", id: "b.id", keys: []string{"b.seq"}, desc: true, where: where, args: cargs}, p)
	if err != nil {
		return BatchPage{}, fmt.Errorf("batches: %w", err)
	}
	w, a := inIDs("b.id", ids)
	bs, err := loadBatches(ctx, tx, w, a...)
	if err != nil {
		return BatchPage{}, err
	}
	return BatchPage{Batches: bs, Cursors: cur}, nil
}

// SeamPage is one page of seams and the cursors around it.
type SeamPage struct {
	Seams []SeamView `json:"seams"`
	Cursors
}

// SeamsPage returns page p of the seams in state (every seam for ""), oldest first. Errors
// wrap [ErrInvalid] for a state or a cursor that does not exist.
func (s *Store) SeamsPage(ctx context.Context, state evidence.SeamState, p Page) (SeamPage, error) {
	where, args := "1", []any{}
	if state != "" {
		if !state.Valid() {
			return SeamPage{}, fmt.Errorf("seams: state %q: want open or resolved: %w", state, ErrInvalid)
		}
		where, args = "s.state = ?", []any{string(state)}
	}
	tx, err := s.readTx(ctx)
	if err != nil {
		return SeamPage{}, fmt.Errorf("seams: %w", err)
	}
	defer tx.Rollback()
	ids, cur, err := pageIDs(ctx, tx, list{name: "seam", from: "FROM seams s", id: "s.id", keys: []string{"s.opened_seq"}, where: where, args: args}, p)
	if err != nil {
		return SeamPage{}, fmt.Errorf("seams: %w", err)
	}
	w, a := inIDs("s.id", ids)
	ss, err := loadSeams(ctx, tx, w, a...)
	if err != nil {
		return SeamPage{}, err
	}
	return SeamPage{Seams: ss, Cursors: cur}, nil
}

// SourcePage is one page of sources and the cursors around it.
type SourcePage struct {
	Sources []SourceView `json:"sources"`
	Cursors
}

// SourcesPage returns page p of the sources, by id, as [Store.Sources] does. Errors wrap
// [ErrInvalid] for a cursor that does not exist.
func (s *Store) SourcesPage(ctx context.Context, p Page) (SourcePage, error) {
	tx, err := s.readTx(ctx)
	if err != nil {
		return SourcePage{}, fmt.Errorf("sources: %w", err)
	}
	defer tx.Rollback()
	ids, cur, err := pageIDs(ctx, tx, list{name: "source", from: "FROM sources s", id: "s.id", keys: []string{"s.id"}, where: "1"}, p)
	if err != nil {
		return SourcePage{}, fmt.Errorf("sources: %w", err)
	}
	w, a := inIDs("s.id", ids)
	vs, err := loadSources(ctx, tx, w, a...)
	if err != nil {
		return SourcePage{}, err
	}
	return SourcePage{Sources: vs, Cursors: cur}, nil
}
