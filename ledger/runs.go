package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"evidenceledger/evidence"
)

// BeginCheckRun keeps run as the batch's run in progress, replacing any run of the batch
// left before, and returns it as kept. A run with Since 0 is a new run: its Since becomes
// the chain's head now, so a recheck checks each citation once however often it is stopped
// and resumed. A run with Since set is one resumed (from [Store.InterruptedCheckRuns]) under
// a new job: its Since is kept. The caller holds the batch's check lock. It fails wrapping
// [ErrNotFound] when the batch does not exist, and [ErrInvalid] for a run without job or
// actor.
func (s *Store) BeginCheckRun(ctx context.Context, run evidence.CheckRun) (evidence.CheckRun, error) {
	if run.Job == "" || run.Actor == "" || run.Since < 0 {
		return evidence.CheckRun{}, fmt.Errorf("a check run needs a job, an actor and a since of 0 or more: %w", ErrInvalid)
	}
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return evidence.CheckRun{}, fmt.Errorf("begin the check run of batch %s: %w", run.Batch, storageError(err))
	}
	defer tx.Rollback()
	var one int
	if err := tx.QueryRowContext(ctx, "SELECT 1 FROM batches WHERE id = ?", run.Batch).Scan(&one); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return evidence.CheckRun{}, fmt.Errorf("batch %q does not exist; check the id (ledger import prints it): %w: %w", run.Batch, ErrNotFound, evidence.ErrNoBatch)
		}
		return evidence.CheckRun{}, fmt.Errorf("begin the check run of batch %s: %w", run.Batch, err)
	}
	if run.Since == 0 {
		if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(seq), 0) FROM events").Scan(&run.Since); err != nil {
			return evidence.CheckRun{}, fmt.Errorf("begin the check run of batch %s: %w", run.Batch, err)
		}
	}
	if _, err := tx.ExecContext(ctx, "INSERT OR REPLACE INTO check_runs (batch, job, actor, recheck, since, started) VALUES (?, ?, ?, ?, ?, ?)",
		run.Batch, run.Job, run.Actor, run.Recheck, run.Since, s.now().UTC().Format(timeLayout)); err != nil {
		return evidence.CheckRun{}, fmt.Errorf("begin the check run of batch %s: %w", run.Batch, storageError(err))
	}
	if err := tx.Commit(); err != nil {
		return evidence.CheckRun{}, fmt.Errorf("begin the check run of batch %s: %w", run.Batch, storageError(err))
	}
	return run, nil
}

// EndCheckRun forgets job's run of batch: the run ended by itself. A run another job holds
// now (it took the batch over) is left alone; ending a run that is not kept is not an error.
func (s *Store) EndCheckRun(ctx context.Context, batch, job string) error {
	if _, err := s.wdb.ExecContext(ctx, "DELETE FROM check_runs WHERE batch = ? AND job = ?", batch, job); err != nil {
		return fmt.Errorf("end the check run of batch %s: %w", batch, storageError(err))
	}
	return nil
}

// InterruptedCheckRuns returns the runs that began and did not end and that no job runs now:
// no live check lock of their batch is held (the process that ran them stopped it, was
// killed or crashed, and its lease ran out or was released). Oldest first.
func (s *Store) InterruptedCheckRuns(ctx context.Context) ([]evidence.CheckRun, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT r.batch, r.job, r.actor, r.recheck, r.since FROM check_runs r
		WHERE NOT EXISTS (SELECT 1 FROM check_locks l WHERE l.batch = r.batch AND l.expires > ?) ORDER BY r.started, r.batch`,
		s.now().UTC().Format(timeLayout))
	if err != nil {
		return nil, fmt.Errorf("read the interrupted check runs: %w", err)
	}
	defer rows.Close()
	out := []evidence.CheckRun{}
	for rows.Next() {
		var r evidence.CheckRun
		if err := rows.Scan(&r.Batch, &r.Job, &r.Actor, &r.Recheck, &r.Since); err != nil {
			return nil, fmt.Errorf("read the interrupted check runs: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the interrupted check runs: %w", err)
	}
	return out, nil
}
