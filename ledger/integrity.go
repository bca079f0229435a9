package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
)

// schemaTriggers returns the triggers and views of db's main schema, by name, with their SQL.
func schemaTriggers(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) (map[string]string, error) {
	rows, err := q.QueryContext(ctx, "SELECT name, sql FROM sqlite_schema WHERE type IN ('trigger', 'view')")
	if err != nil {
		return nil, fmt.Errorf("read triggers: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, text string
		if err := rows.Scan(&name, &text); err != nil {
			return nil, fmt.Errorf("read triggers: %w", err)
		}
		out[name] = text
	}
	return out, rows.Err()
}

// wantedTriggers returns the triggers and views the migrations make (those that keep the
// events, blobs, checkpoints and cosignatures append-only, and those that keep the batch
// counts of migrations/0011_batch_counts.sql), read from a fresh in-memory database, so that
// the migrations stay their one definition.
func wantedTriggers(ctx context.Context) (map[string]string, error) {
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := migrate(ctx, db); err != nil {
		return nil, err
	}
	return schemaTriggers(ctx, db)
}

// triggerDiff lists, sorted, the names of wanted triggers that have is lacks or holds with
// other SQL.
func triggerDiff(want, have map[string]string) []string {
	var bad []string
	for name, text := range want {
		if have[name] != text {
			bad = append(bad, name)
		}
	}
	sort.Strings(bad)
	return bad
}

// restoreTriggers recreates, in one transaction, every trigger of the migrations that the
// database lacks or holds in another form: a trigger dropped behind the program's back is
// back the next time the ledger is opened for writing. (The audit reports it meanwhile.)
func restoreTriggers(ctx context.Context, db *sql.DB) error {
	want, err := wantedTriggers(ctx)
	if err != nil {
		return fmt.Errorf("restore triggers: %w", err)
	}
	have, err := schemaTriggers(ctx, db)
	if err != nil {
		return err
	}
	bad := triggerDiff(want, have)
	if len(bad) == 0 {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("restore triggers: %w", err)
	}
	defer tx.Rollback()
	for _, name := range bad {
		if _, err := tx.ExecContext(ctx, `DROP TRIGGER IF EXISTS "`+name+`"`); err != nil {
			return fmt.Errorf("restore trigger %s: %w", name, err)
		}
		if _, err := tx.ExecContext(ctx, `DROP VIEW IF EXISTS "`+name+`"`); err != nil {
			return fmt.Errorf("restore view %s: %w", name, err)
		}
		if _, err := tx.ExecContext(ctx, want[name]); err != nil {
			return fmt.Errorf("restore trigger %s: %w", name, err)
		}
	}
	// What the rollups' triggers missed or miscounted while one was gone.
	if err := rebuildRollups(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// completeTree adds to the Merkle tree the events it lacks (those of a ledger made before
// the tree existed) and signs a checkpoint of the head when the latest one is older, in one
// write transaction. It does nothing on a ledger whose tree and checkpoint are current.
func (s *Store) completeTree(ctx context.Context) error {
	var head, cpSize int64
	err := s.rdb.QueryRowContext(ctx, "SELECT coalesce(max(seq), 0), (SELECT coalesce(max(size), 0) FROM checkpoints) FROM events").Scan(&head, &cpSize)
	if err != nil {
		return fmt.Errorf("read the chain head: %w", err)
	}
	if cpSize == head {
		s.cpMu.Lock()
		s.head, s.cpSize = head, head
		s.cpMu.Unlock()
		return nil
	}
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("complete the Merkle tree: %w", err)
	}
	defer tx.Rollback()
	size, err := treeSize(ctx, tx)
	if err != nil {
		return err
	}
	// Streamed in runs of auditBatchSize events, so memory does not grow with the chain.
	var evs []Event
	var terr error
	tree := newStoredHashes(ctx, tx)
	defer tree.close()
	err = eachEvent(ctx, tx, "SELECT seq, v, prev, at, actor, type, key, payload, hash, sig FROM events WHERE seq > ? ORDER BY seq", func(ev Event) {
		if evs = append(evs, ev); len(evs) == auditBatchSize && terr == nil {
			_, terr = tree.append(size, evs)
			size += int64(len(evs))
			evs = evs[:0]
		}
	}, size)
	if err == nil {
		err = terr
	}
	if err == nil {
		_, err = tree.append(size, evs)
	}
	if err != nil {
		return fmt.Errorf("complete the Merkle tree: %w", err)
	}
	if head, err = s.checkpointHead(ctx, tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.committed(head, true)
	return nil
}
