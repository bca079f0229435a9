package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"evidenceledger/evidence"
)

// Batch is one imported paste with counts of where its claims and citations stand.
type Batch struct {
	ID string `json:"id"`
	// Format is FormatText or FormatJSON.
	Format string `json:"format"`
	// Paste is the SHA-256 of the stored paste (see [Store.Blob]).
	Paste string `json:"paste"`
	// Seq, At and Actor are those of the batch.imported event.
	Seq    int64       `json:"seq"`
	At     string      `json:"at"`
	Actor  string      `json:"actor"`
	Counts BatchCounts `json:"counts"`
	// Claims are the batch's claims, in the order of the research; filled by
	// [Store.ImportResearch] and [Store.Batch], not by [Store.Batches].
	Claims []ClaimView `json:"claims,omitempty"`
	// Models sums the model calls of the latest checks of the batch's citations; filled by
	// [Store.Batch] and [Store.BatchSummary] only.
	Models *ModelTotals `json:"models,omitempty"`
}

// BatchCounts counts a batch's claims and citations. Every status (and strength, with "none"
// for no strength) is a key, with 0 when nothing has it.
type BatchCounts struct {
	Claims            int                     `json:"claims"`
	Citations         int                     `json:"citations"`
	ClaimsByStatus    map[evidence.Status]int `json:"claims_by_status"`
	CitationsByStatus map[evidence.Status]int `json:"citations_by_status"`
	ClaimsByStrength  map[string]int          `json:"claims_by_strength"`
	// OpenSeams counts the open seams about the batch's claims or citations.
	OpenSeams int `json:"open_seams"`
}

func newCounts() BatchCounts {
	statuses := func() map[evidence.Status]int {
		return map[evidence.Status]int{evidence.StatusReported: 0, evidence.StatusFound: 0, evidence.StatusNotFound: 0, evidence.StatusUnreachable: 0}
	}
	return BatchCounts{ClaimsByStatus: statuses(), CitationsByStatus: statuses(), ClaimsByStrength: map[string]int{"none": 0, "low": 0, "medium": 0, "high": 0}}
}

// Batches returns every batch, newest first, with its counts (without its claims).
func (s *Store) Batches(ctx context.Context) ([]Batch, error) {
	p, err := s.BatchesPage(ctx, BatchFilter{}, Page{})
	return p.Batches, err
}

// Batch returns one batch with its counts and its claims. It fails, wrapping [ErrNotFound],
// when there is no batch with that id.
func (s *Store) Batch(ctx context.Context, id string) (Batch, error) {
	tx, err := s.readTx(ctx)
	if err != nil {
		return Batch{}, fmt.Errorf("batch %s: %w", id, err)
	}
	defer tx.Rollback()
	return readBatch(ctx, tx, id)
}

// BatchSummary returns one batch with its counts and model totals, without its claims (read
// them a page at a time with [Store.ClaimsPage]). It fails, wrapping [ErrNotFound], when
// there is no batch with that id.
func (s *Store) BatchSummary(ctx context.Context, id string) (Batch, error) {
	tx, err := s.readTx(ctx)
	if err != nil {
		return Batch{}, fmt.Errorf("batch %s: %w", id, err)
	}
	defer tx.Rollback()
	return readBatchSummary(ctx, tx, id)
}

// readBatchSummary reads one batch with its counts and model totals in tx.
func readBatchSummary(ctx context.Context, tx *sql.Tx, id string) (Batch, error) {
	bs, err := loadBatches(ctx, tx, "b.id = ?", id)
	if err != nil {
		return Batch{}, err
	}
	if len(bs) == 0 {
		return Batch{}, fmt.Errorf("batch %q does not exist; check the id: %w", id, ErrNotFound)
	}
	b := bs[0]
	t, err := loadModelTotals(ctx, tx, id)
	if err != nil {
		return Batch{}, err
	}
	b.Models = &t
	return b, nil
}

// readBatch reads one batch with its counts, model totals and claims in tx.
func readBatch(ctx context.Context, tx *sql.Tx, id string) (Batch, error) {
	b, err := readBatchSummary(ctx, tx, id)
	if err != nil {
		return Batch{}, err
	}
	if b.Claims, err = loadClaims(ctx, tx, "c.batch = ?", id); err != nil {
		return Batch{}, err
	}
	return b, nil
}

// loadBatches reads the batches where (SQL over the batches alias b) selects, newest first.
func loadBatches(ctx context.Context, tx *sql.Tx, where string, args ...any) ([]Batch, error) {
	rows, err := tx.QueryContext(ctx, "SELECT b.id, b.format, b.paste, b.seq, b.at, b.actor FROM batches b WHERE "+where+" ORDER BY b.seq DESC", args...)
	if err != nil {
		return nil, fmt.Errorf("read batches: %w", err)
	}
	out := []Batch{}
	byID := map[string]int{}
	for rows.Next() {
		b := Batch{Counts: newCounts()}
		if err := rows.Scan(&b.ID, &b.Format, &b.Paste, &b.Seq, &b.At, &b.Actor); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read batches: %w", err)
		}
		byID[b.ID] = len(out)
		out = append(out, b)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read batches: %w", err)
	}
	// The counts are rows of batch_counts (migrations/0011_batch_counts.sql), kept by
	// triggers: the read costs the rows a batch shows, not the claims it holds.
	rows, err = tx.QueryContext(ctx, "SELECT bc.batch, bc.facet, bc.key, bc.n FROM batch_counts bc JOIN batches b ON b.id = bc.batch WHERE "+where+" AND bc.facet IN ('claim_status', 'claim_strength', 'tally', 'open_seams')", args...)
	if err != nil {
		return nil, fmt.Errorf("count batches: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, facet, key string
		var n int
		if err := rows.Scan(&id, &facet, &key, &n); err != nil {
			return nil, fmt.Errorf("count batches: %w", err)
		}
		i, ok := byID[id]
		if !ok {
			continue
		}
		c := &out[i].Counts
		switch facet {
		case "claim_status":
			c.ClaimsByStatus[evidence.Status(key)] = n
			c.Claims += n
		case "claim_strength":
			c.ClaimsByStrength[key] = n
		case "tally":
			c.CitationsByStatus[tallyStatus(key)] += n
			c.Citations += n
		case "open_seams":
			c.OpenSeams = n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count batches: %w", err)
	}
	return out, nil
}

// The kinds of [CitationTally]: what a check made of a citation, as a batch's page counts it.
const (
	TallyFound        = "found"         // found_at_source
	TallyNotFound     = "not_found"     // not_found
	TallyUnreachable  = "unreachable"   // unreachable
	TallyNotCheckable = "not_checkable" // reported, never checked, with the note evidence.CitationNote gave it at import
	TallyWaiting      = "waiting"       // reported after a check, or with an open seam: waiting for a person
	TallyUnchecked    = "unchecked"     // reported, checkable, never checked
)

// tallyStatus is the status of the citations of a tally kind: each kind is of one status.
func tallyStatus(kind string) evidence.Status {
	switch kind {
	case TallyFound:
		return evidence.StatusFound
	case TallyNotFound:
		return evidence.StatusNotFound
	case TallyUnreachable:
		return evidence.StatusUnreachable
	}
	return evidence.StatusReported
}

// CitationTally counts the citations of a batch of one kind and, for TallyNotFound and
// TallyUnreachable, one note (empty for the other kinds).
type CitationTally struct {
	Kind string
	Note string
	N    int
}

// BatchTallies counts the citations of batch by kind and note. It reads the batch's rows of
// batch_counts, which triggers keep in the transaction of every change (the kinds are defined
// once, by the view citation_facts of migrations/0011_batch_counts.sql): its cost grows with
// the rows it answers (one per kind, and one per distinct note of the citations not found or
// unreachable), not with the batch. It fails, wrapping [ErrNotFound], when there is no
// batch with that id.
func (s *Store) BatchTallies(ctx context.Context, batch string) ([]CitationTally, error) {
	tx, err := s.readTx(ctx)
	if err != nil {
		return nil, fmt.Errorf("count the citations of batch %s: %w", batch, err)
	}
	defer tx.Rollback()
	var one int
	if err := tx.QueryRowContext(ctx, "SELECT 1 FROM batches WHERE id = ?", batch).Scan(&one); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("batch %q does not exist; check the id: %w", batch, ErrNotFound)
		}
		return nil, fmt.Errorf("count the citations of batch %s: %w", batch, err)
	}
	rows, err := tx.QueryContext(ctx, "SELECT key, note, n FROM batch_counts WHERE batch = ? AND facet = 'tally' ORDER BY key, note", batch)
	if err != nil {
		return nil, fmt.Errorf("count the citations of batch %s: %w", batch, err)
	}
	defer rows.Close()
	var out []CitationTally
	for rows.Next() {
		var t CitationTally
		if err := rows.Scan(&t.Kind, &t.Note, &t.N); err != nil {
			return nil, fmt.Errorf("count the citations of batch %s: %w", batch, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count the citations of batch %s: %w", batch, err)
	}
	return out, nil
}
