package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"evidenceledger/evidence"
)

// CheckLock is a check of a batch in progress, as the lock in the database holds it.
type CheckLock struct {
	Batch string
	Job   string
	// Holder names the process that runs the job ("ledger serve, pid 4242 on host").
	Holder  string
	Started time.Time
	Expires time.Time
}

// LockedError is the error of [Store.LockCheck] when another job checks the batch. It wraps
// [ErrConflict].
type LockedError struct{ Lock CheckLock }

func (e *LockedError) Error() string {
	return fmt.Sprintf("batch %s is being checked already, by job %s (%s, since %s); wait for it to end, then check again if anything is left",
		e.Lock.Batch, e.Lock.Job, e.Lock.Holder, e.Lock.Started.UTC().Format(time.RFC3339))
}

func (e *LockedError) Unwrap() error { return ErrConflict }

// LockCheck takes the check lock of batch for job, held by holder, until lease from now. One
// job at a time holds a batch's lock, across every process that opens the ledger; a lock
// whose lease ran out (its process crashed or was killed) is taken over. It fails with a
// *[LockedError] (wrapping [ErrConflict]) that names the running job when another job holds
// a live lease, and wrapping [ErrNotFound] and evidence.ErrNoBatch when the batch does not
// exist. Taking a lock the
// job holds already renews it.
func (s *Store) LockCheck(ctx context.Context, batch, job, holder string, lease time.Duration) error {
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("lock the check of batch %s: %w", batch, storageError(err))
	}
	defer tx.Rollback()
	var one int
	if err := tx.QueryRowContext(ctx, "SELECT 1 FROM batches WHERE id = ?", batch).Scan(&one); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("batch %q does not exist; check the id (ledger import prints it): %w: %w", batch, ErrNotFound, evidence.ErrNoBatch)
		}
		return fmt.Errorf("lock the check of batch %s: %w", batch, err)
	}
	now := s.now().UTC()
	cur, err := readLock(ctx, tx, batch)
	if err != nil {
		return err
	}
	if cur != nil && cur.Job != job && now.Before(cur.Expires) {
		return &LockedError{Lock: *cur}
	}
	if _, err := tx.ExecContext(ctx, "INSERT OR REPLACE INTO check_locks (batch, job, holder, started, expires) VALUES (?, ?, ?, ?, ?)",
		batch, job, holder, now.Format(timeLayout), now.Add(lease).Format(timeLayout)); err != nil {
		return fmt.Errorf("lock the check of batch %s: %w", batch, storageError(err))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("lock the check of batch %s: %w", batch, storageError(err))
	}
	return nil
}

// RenewCheck extends job's lock of batch to lease from now. It fails wrapping
// [ErrConflict] when job no longer holds the lock (its lease ran out and another job took it
// over): the job must stop then.
func (s *Store) RenewCheck(ctx context.Context, batch, job string, lease time.Duration) error {
	now := s.now().UTC()
	res, err := s.wdb.ExecContext(ctx, "UPDATE check_locks SET expires = ? WHERE batch = ? AND job = ?", now.Add(lease).Format(timeLayout), batch, job)
	if err != nil {
		return fmt.Errorf("renew the check lock of batch %s: %w", batch, storageError(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("job %s no longer holds the check lock of batch %s (its lease ran out): %w", job, batch, ErrConflict)
	}
	return nil
}

// UnlockCheck releases job's lock of batch. Releasing a lock the job does not hold is not an
// error.
func (s *Store) UnlockCheck(ctx context.Context, batch, job string) error {
	if _, err := s.wdb.ExecContext(ctx, "DELETE FROM check_locks WHERE batch = ? AND job = ?", batch, job); err != nil {
		return fmt.Errorf("release the check lock of batch %s: %w", batch, storageError(err))
	}
	return nil
}

// readLock returns the lock row of batch, nil when there is none.
func readLock(ctx context.Context, tx *sql.Tx, batch string) (*CheckLock, error) {
	l := CheckLock{Batch: batch}
	var started, expires string
	err := tx.QueryRowContext(ctx, "SELECT job, holder, started, expires FROM check_locks WHERE batch = ?", batch).Scan(&l.Job, &l.Holder, &started, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the check lock of batch %s: %w", batch, err)
	}
	if l.Started, err = parseAt(started); err != nil {
		return nil, err
	}
	if l.Expires, err = parseAt(expires); err != nil {
		return nil, err
	}
	return &l, nil
}
