package verify_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"evidenceledger/ledger"
	"evidenceledger/verify"
)

var _ verify.CheckLocker = (*ledger.Store)(nil)

// TestOneCheckOfABatchAtATime: concurrent starts of one batch give one job; while it runs,
// a check of the batch from another process (a second store on the same data directory, as
// `ledger check` opens it) checks nothing and names the running job; once the job ends, the
// lock is free again; and a server job cannot start while `ledger check` holds the lock.
func TestOneCheckOfABatchAtATime(t *testing.T) {
	site := verify.NewLoopbackSite(t)
	store, dir := openStore(t)
	other, err := ledger.Open(context.Background(), dir, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	b := batchOf(t, store, site, 4, "/hold")
	jobs := verify.NewJobs(store, verify.NewChecker(verify.LoopbackFetchConfig()), 2)
	defer jobs.Close()

	ids := make([]string, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			id, err := jobs.Start(b.ID, "user:olga", false)
			if err != nil {
				t.Error(err)
			}
			ids[i] = id
		})
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("8 concurrent starts gave jobs %v; want one", ids)
		}
	}
	before := headSeq(t, store)
	checker := verify.NewChecker(verify.LoopbackFetchConfig())
	outs, err := verify.RunBatchLocked(context.Background(), other, other, verify.Holder("ledger check"), checker, "system", b.ID, true, 2, nil)
	if !errors.Is(err, ledger.ErrConflict) || !strings.Contains(err.Error(), ids[0]) || outs != nil {
		t.Fatalf("a second check while the job runs: %d outcomes, %v; want a conflict naming job %s", len(outs), err, ids[0])
	}
	if headSeq(t, store) != before {
		t.Fatal("the refused check recorded something")
	}
	close(site.Release)
	if st := waitJob(t, jobs, ids[0]); st.State != verify.JobDone {
		t.Fatalf("job: %+v", st)
	}
	if _, err := verify.RunBatchLocked(context.Background(), other, other, verify.Holder("ledger check"), checker, "system", b.ID, false, 2, nil); err != nil {
		t.Fatalf("a check after the job ended: %v", err)
	}

	// The other way round: `ledger check` runs, a server start is refused and names it.
	held := verify.NewLoopbackSite(t)
	b2 := batchOf(t, store, held, 3, "/hold")
	started := make(chan struct{})
	var once sync.Once
	done := make(chan error)
	go func() {
		_, err := verify.RunBatchLocked(context.Background(), other, other, verify.Holder("ledger check"), checker, "system", b2.ID, false, 4, func(int, int) { once.Do(func() { close(started) }) })
		done <- err
	}()
	// The citation that cannot be checked completes without a fetch, on a worker of its own
	// (one per URL) while the others wait on the held pages: the check holds the lock by
	// then.
	<-started
	_, err = jobs.Start(b2.ID, "user:olga", false)
	if !errors.Is(err, ledger.ErrConflict) || !strings.Contains(err.Error(), "ledger check, pid") {
		t.Fatalf("a server start while ledger check runs: %v; want a conflict that says who checks", err)
	}
	close(held.Release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	auditHolds(t, store)
}
