package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Checkpoints are batched. A write transaction ends with a signed checkpoint of the tree it
// leaves when it begins the chain, rotates the key, or finds this Store's latest checkpoint
// at least checkpointAge old or checkpointEvents events behind; otherwise the events it
// commits are covered by the next checkpoint, which is made at most checkpointAge later: by
// the next write that is due, by a flush the Store schedules when it commits events no
// checkpoint covers, on demand before a witness is asked to cosign (coverHead:
// [Store.WitnessRequest]), and at [Store.Close]. The readers that hand the latest
// checkpoint to GET requests ([Store.Checkpoint], [Store.ProofBundle], [Store.HandOff],
// [Store.ExportWARC]) never sign one: they wait for the batching's (awaitCheckpoint). A
// ledger left with uncovered events (the process was killed) gets its checkpoint the next
// time it is opened for writing.
//
// Why batched: every checkpoint costs an Ed25519 signature when it is recorded and another
// when it is audited. One per transaction doubled the signatures an audit of checks
// verifies (a check is one event in one transaction) and stored about 280 bytes per check;
// transparency logs (the Go checksum database, Certificate Transparency) sign their tree
// heads periodically for the same reason. A checkpoint still never covers less
// than a whole transaction, and is still signed inside a write transaction, by the key
// current at its last event.
const (
	checkpointAge    = time.Second
	checkpointEvents = 1000
)

// batchClock is what checkpoint batching reads the time from and schedules its flush with:
// the real clock in use, a clock the tests drive in theirs.
type batchClock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) interface{ Stop() bool }
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) interface{ Stop() bool } {
	return time.AfterFunc(d, f)
}

// checkpointDue reports whether a transaction that leaves the tree at size should sign a
// checkpoint of it.
func (s *Store) checkpointDue(size int64) bool {
	s.cpMu.Lock()
	defer s.cpMu.Unlock()
	return s.cpAt.IsZero() || s.clock.Now().Sub(s.cpAt) >= checkpointAge || size-s.cpSize >= checkpointEvents
}

// committed tells the batching that a transaction committed the tree up to size, with a
// checkpoint of it (signed) or without one, in which case a flush is scheduled.
func (s *Store) committed(size int64, signed bool) {
	s.cpMu.Lock()
	defer s.cpMu.Unlock()
	s.head = max(s.head, size)
	if signed {
		s.coveredLocked(size)
	}
	s.armFlushLocked()
}

// coveredLocked records that a checkpoint of size was signed now, and wakes the readers
// awaiting one. Call it with cpMu held.
func (s *Store) coveredLocked(size int64) {
	s.cpAt = s.clock.Now()
	if size <= s.cpSize {
		return
	}
	s.cpSize = size
	if s.covered != nil {
		close(s.covered)
		s.covered = nil
	}
}

// maxCheckpointWait bounds how long a reader waits for the batched checkpoint to cover the
// head (awaitCheckpoint): twice the batching's age, so that a flush that is due has time to
// run.
const maxCheckpointWait = 2 * checkpointAge

// awaitCheckpoint waits until the events this Store committed are covered by a checkpoint,
// which the batching signs at most checkpointAge after them (armFlushLocked), or until
// maxCheckpointWait or ctx is over; the caller then reads the latest stored checkpoint,
// whichever it is. It writes nothing: its callers (Checkpoint, ProofBundle, HandOff,
// ExportWARC) serve GET requests, and a GET never writes. A read-only Store, or one whose
// head is covered, returns at once.
func (s *Store) awaitCheckpoint(ctx context.Context) {
	if s.readOnly || s.noTree {
		return
	}
	s.cpMu.Lock()
	if s.closed || s.head <= s.cpSize {
		s.cpMu.Unlock()
		return
	}
	if s.covered == nil {
		s.covered = make(chan struct{})
	}
	ch := s.covered
	s.awaiting++
	s.cpMu.Unlock()
	defer func() {
		s.cpMu.Lock()
		s.awaiting--
		s.cpMu.Unlock()
	}()
	over := make(chan struct{})
	t := s.clock.AfterFunc(maxCheckpointWait, func() { close(over) })
	defer t.Stop()
	select {
	case <-ch:
	case <-over:
	case <-ctx.Done():
	}
}

// armFlushLocked schedules a flush when events this Store committed are not yet covered.
// Call it with cpMu held.
func (s *Store) armFlushLocked() {
	if s.closed || s.head <= s.cpSize || s.cpTimer != nil {
		return
	}
	wait := checkpointAge - s.clock.Now().Sub(s.cpAt)
	s.cpTimer = s.clock.AfterFunc(max(wait, 0), func() {
		// A failed flush (a full disk, say) is tried again a checkpointAge later; the
		// writes that failed meanwhile say why.
		err := s.flushCheckpoint(context.Background())
		s.cpMu.Lock()
		defer s.cpMu.Unlock()
		s.cpTimer = nil
		if err != nil {
			s.cpAt = s.clock.Now()
		}
		s.armFlushLocked()
	})
}

// flushCheckpoint signs a checkpoint of the whole tree when events this Store committed are
// not covered by one yet. It does nothing on a read-only Store, or when the latest
// checkpoint (by whichever process) already covers the head.
func (s *Store) flushCheckpoint(ctx context.Context) error {
	if s.readOnly || s.noTree {
		return nil
	}
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.cpMu.Lock()
	uncovered := !s.closed && s.head > s.cpSize
	s.cpMu.Unlock()
	if !uncovered {
		return nil
	}
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", storageError(err))
	}
	defer tx.Rollback()
	size, err := s.checkpointHead(ctx, tx)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("checkpoint: %w", storageError(err))
	}
	s.cpMu.Lock()
	s.coveredLocked(size)
	s.cpMu.Unlock()
	return nil
}

// coverHead signs a checkpoint of the head before a witness is asked to cosign the latest
// one (the witness client runs in the background, not in a request). A
// failure to write it (a full disk) is not the reader's: the latest stored checkpoint is
// still valid and is handed out, and the next write says what is wrong.
func (s *Store) coverHead(ctx context.Context) {
	_ = s.flushCheckpoint(ctx)
}

// checkpointHead signs, in tx, a checkpoint of the tree as far as the chain's head, with the
// key current there, unless the latest checkpoint already covers the head. It returns the
// head's seq.
func (s *Store) checkpointHead(ctx context.Context, tx *sql.Tx) (int64, error) {
	var head, cpSize int64
	err := tx.QueryRowContext(ctx, "SELECT coalesce(max(seq), 0), (SELECT coalesce(max(size), 0) FROM checkpoints) FROM events").Scan(&head, &cpSize)
	if err != nil {
		return 0, fmt.Errorf("read the chain head: %w", err)
	}
	if cpSize >= head {
		return head, nil
	}
	current, err := chainKey(ctx, tx)
	if err != nil {
		return 0, err
	}
	g, err := s.keyFor(current)
	if err != nil {
		return 0, err
	}
	root, err := treeRoot(ctx, tx, head)
	if err != nil {
		return 0, err
	}
	if err := s.writeCheckpoint(ctx, tx, g, head, root); err != nil {
		return 0, err
	}
	return head, nil
}
