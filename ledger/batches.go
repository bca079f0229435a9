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
	counts := []struct {
		q   string
		add func(c *BatchCounts, key string, n int)
	}{
		{"SELECT c.batch, c.status, count(*) FROM claims c JOIN batches b ON b.id = c.batch WHERE " + where + " GROUP BY c.batch, c.status",
			func(c *BatchCounts, k string, n int) { c.ClaimsByStatus[evidence.Status(k)] = n; c.Claims += n }},
		{"SELECT c.batch, CASE c.strength WHEN '' THEN 'none' ELSE c.strength END, count(*) FROM claims c JOIN batches b ON b.id = c.batch WHERE " + where + " GROUP BY 1, 2",
			func(c *BatchCounts, k string, n int) { c.ClaimsByStrength[k] = n }},
		{"SELECT c.batch, ct.status, count(*) FROM citations ct JOIN claims c ON c.id = ct.claim JOIN batches b ON b.id = c.batch WHERE " + where + " GROUP BY c.batch, ct.status",
			func(c *BatchCounts, k string, n int) { c.CitationsByStatus[evidence.Status(k)] = n; c.Citations += n }},
		{`SELECT batch, '', count(DISTINCT seam) FROM (
			SELECT c.batch, sc.seam FROM seam_claims sc JOIN claims c ON c.id = sc.claim JOIN batches b ON b.id = c.batch WHERE ` + where + `
			UNION SELECT c.batch, sct.seam FROM seam_citations sct JOIN citations ct ON ct.id = sct.citation JOIN claims c ON c.id = ct.claim JOIN batches b ON b.id = c.batch WHERE ` + where + `
		) x JOIN seams s ON s.id = x.seam AND s.state = 'open' GROUP BY batch`,
			func(c *BatchCounts, _ string, n int) { c.OpenSeams = n }},
	}
	for i, cq := range counts {
		qargs := args
		if i == len(counts)-1 {
			qargs = append(append([]any{}, args...), args...)
		}
		rows, err := tx.QueryContext(ctx, cq.q, qargs...)
		if err != nil {
			return nil, fmt.Errorf("count batches: %w", err)
		}
		for rows.Next() {
			var id, key string
			var n int
			if err := rows.Scan(&id, &key, &n); err != nil {
				rows.Close()
				return nil, fmt.Errorf("count batches: %w", err)
			}
			if i, ok := byID[id]; ok {
				cq.add(&out[i].Counts, key, n)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("count batches: %w", err)
		}
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

// CitationTally counts the citations of a batch of one kind and, for TallyNotFound and
// TallyUnreachable, one note (empty for the other kinds).
type CitationTally struct {
	Kind string
	Note string
	N    int
}

// BatchTallies counts the citations of batch by kind and note, by one SQL aggregate over the
// batch's claims and their citations (the indexes of UNIQUE (batch, position) and UNIQUE
// (claim, position)): it reads no citation into memory, so its cost grows with the rows it
// answers (one per kind, and one per distinct note of the citations not found or
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
	rows, err := tx.QueryContext(ctx, `SELECT kind, note, count(*) FROM (
		SELECT CASE
			WHEN ct.status = 'found_at_source' THEN 'found'
			WHEN ct.status IN ('not_found', 'unreachable') THEN ct.status
			WHEN ct.last_check IS NULL AND ct.note != '' THEN 'not_checkable'
			WHEN ct.last_check IS NOT NULL OR EXISTS (SELECT 1 FROM seam_citations sc JOIN seams s ON s.id = sc.seam AND s.state = 'open' WHERE sc.citation = ct.id) THEN 'waiting'
			ELSE 'unchecked' END AS kind,
			CASE WHEN ct.status IN ('not_found', 'unreachable') THEN ct.note ELSE '' END AS note
		FROM claims c JOIN citations ct ON ct.claim = c.id WHERE c.batch = ?
	) GROUP BY kind, note ORDER BY kind, note`, batch)
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
