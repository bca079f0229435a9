package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// CheckLocker is the lock in the store that lets one check of a batch run at a time, across
// the server and `ledger check` and every other process on the same ledger. *ledger.Store
// implements it. The lock is a lease: its holder renews it while the job runs, so the lock
// of a process that crashed runs out by itself.
type CheckLocker interface {
	// LockCheck takes the batch's lock for job until lease from now, or fails (wrapping
	// ledger.ErrConflict, with the running job in its message) when another job holds it.
	LockCheck(ctx context.Context, batch, job, holder string, lease time.Duration) error
	// RenewCheck extends job's lease; it fails when job no longer holds the lock.
	RenewCheck(ctx context.Context, batch, job string, lease time.Duration) error
	// UnlockCheck releases job's lock.
	UnlockCheck(ctx context.Context, batch, job string) error
}

// The check lock's lease: a job renews its lock every lockRenew; a lock not renewed for
// LockLease (its process crashed or was killed) is taken over by the next check.
const (
	LockLease = 30 * time.Second
	lockRenew = 10 * time.Second
)

// Holder names this process for the check lock: "ledger check, pid 4242 on host".
func Holder(what string) string {
	host, _ := os.Hostname()
	if what == "" {
		what = filepath.Base(os.Args[0])
	}
	return fmt.Sprintf("%s, pid %d on %s", what, os.Getpid(), host)
}

// holdLock takes the batch's lock for job and renews it until the returned release is
// called (which also releases the lock). When a renewal fails (the lease was lost), ctx's
// cancel is called with the error, so the job stops recording.
func holdLock(ctx context.Context, l CheckLocker, batch, job, holder string, cancel context.CancelCauseFunc) (release func(), err error) {
	if err := l.LockCheck(ctx, batch, job, holder, LockLease); err != nil {
		return nil, err
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(lockRenew)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if err := l.RenewCheck(ctx, batch, job, LockLease); err != nil {
					cancel(fmt.Errorf("the check lost its lock: %w", err))
					return
				}
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		// Release even when ctx ended: the lock must not wait for its lease to run out.
		l.UnlockCheck(context.WithoutCancel(ctx), batch, job)
	}, nil
}

// RunBatchLocked is [RunBatch] under the batch's check lock, held as holder: when another
// job checks the batch (in this process or another), it checks nothing and returns the
// locker's error, which names the running job.
func RunBatchLocked(ctx context.Context, store CheckStore, locker CheckLocker, holder string, checker *Checker, actor, batch string, recheck bool, workers int, progress func(done, total int)) ([]Outcome, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	release, err := holdLock(ctx, locker, batch, newID("j_"), holder, cancel)
	if err != nil {
		return nil, fmt.Errorf("check batch %s: %w", batch, err)
	}
	defer release()
	return RunBatch(ctx, store, checker, actor, batch, recheck, workers, progress)
}
