package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Stats is what the ledger holds now, for a metrics scraper: counts read in one snapshot.
type Stats struct {
	// Citations counts the citations by status.
	Citations map[string]int64
	// OpenSeams counts the open seams by kind.
	OpenSeams map[string]int64
	// Events is the chain's length.
	Events int64
	// CheckpointSize is the tree size of the latest signed checkpoint (0 when there is none);
	// CheckpointAt the time of its last event, the time it covers.
	CheckpointSize int64
	CheckpointAt   time.Time
}

// Stats reads the counts of [Stats] in one read transaction. The citations are counted by a
// scan of an index of them (its cost grows with the citations, not with the events); the
// other counts read a few rows.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	tx, err := s.readTx(ctx)
	if err != nil {
		return Stats{}, fmt.Errorf("stats: %w", err)
	}
	defer tx.Rollback()
	st := Stats{Citations: map[string]int64{}, OpenSeams: map[string]int64{}}
	count := func(q string, into map[string]int64) error {
		return eachRow(ctx, tx, q, nil, func(rows *sql.Rows) error {
			var k string
			var n int64
			if err := rows.Scan(&k, &n); err != nil {
				return err
			}
			into[k] = n
			return nil
		})
	}
	if err := count("SELECT status, count(*) FROM citations GROUP BY status", st.Citations); err != nil {
		return Stats{}, fmt.Errorf("stats: %w", err)
	}
	if err := count("SELECT kind, count(*) FROM seams WHERE state = 'open' GROUP BY kind", st.OpenSeams); err != nil {
		return Stats{}, fmt.Errorf("stats: %w", err)
	}
	if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(seq), 0) FROM events").Scan(&st.Events); err != nil {
		return Stats{}, fmt.Errorf("stats: %w", err)
	}
	var at string
	err = tx.QueryRowContext(ctx, "SELECT c.size, e.at FROM checkpoints c JOIN events e ON e.seq = c.size ORDER BY c.size DESC LIMIT 1").Scan(&st.CheckpointSize, &at)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return Stats{}, fmt.Errorf("stats: %w", err)
	default:
		if st.CheckpointAt, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return Stats{}, fmt.Errorf("stats: the time %q of event %d: %w", at, st.CheckpointSize, err)
		}
	}
	return st, nil
}
