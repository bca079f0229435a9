package verify_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"evidenceledger/ledger"
	"evidenceledger/verify"
)

func TestJobsRunABatch(t *testing.T) {
	site := verify.NewLoopbackSite(t)
	store, _ := openStore(t)
	b := batchOf(t, store, site, 12, "/report")
	jobs := verify.NewJobs(store, verify.NewChecker(verify.LoopbackFetchConfig()), 4)
	defer jobs.Close()

	if _, err := jobs.Start("b_0000000000000000", "user:olga", false); !errors.Is(err, verify.ErrNoBatch) || !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("unknown batch: err = %v, want ErrNoBatch and ledger.ErrNotFound", err)
	}
	before := headSeq(t, store)
	id, err := jobs.Start(b.ID, "user:olga", false)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := jobs.Start(b.ID, "user:olga", false); again != id {
		if st, _ := jobs.Status(id); st.State != verify.JobDone {
			t.Errorf("a second start while the job runs gave job %s, want %s", again, id)
		}
	}
	st := waitJob(t, jobs, id)
	if st.State != verify.JobDone || st.Total != 13 || st.Done != 13 || st.Batch != b.ID {
		t.Fatalf("status %+v, want done 13 of 13", st)
	}
	perCitation, types := checkedEvents(t, store, before)
	if len(perCitation) != 12 || len(types) != 12 {
		t.Errorf("%d citations checked in %d events, want 12 in 12", len(perCitation), len(types))
	}
	evs, _ := store.Events(context.Background(), before, 1)
	if len(evs) != 1 || evs[0].Actor != "user:olga" {
		t.Errorf("the check was recorded as %+v, want actor user:olga", evs)
	}
	if _, ok := jobs.Status("j_unknown"); ok {
		t.Error("an unknown job id was found")
	}
	again, err := jobs.Start(b.ID, "user:olga", false)
	if err != nil {
		t.Fatal(err)
	}
	st = waitJob(t, jobs, again)
	if st.Total != 1 || st.State != verify.JobDone {
		t.Errorf("second job over a checked batch: %+v, want only the citation that cannot be checked", st)
	}
	auditHolds(t, store)
}

func TestJobsWaitReturnsAtTheDeadline(t *testing.T) {
	site := verify.NewLoopbackSite(t)
	store, _ := openStore(t)
	b := batchOf(t, store, site, 4, "/hold")
	jobs := verify.NewJobs(store, verify.NewChecker(verify.LoopbackFetchConfig()), 1)
	defer jobs.Close()
	id, err := jobs.Start(b.ID, "user:olga", false)
	if err != nil {
		t.Fatal(err)
	}
	// The pages are held until after Wait returns, so it returned at its deadline; and its
	// timer cannot fire early, whatever the machine's speed.
	start := time.Now()
	st, ok := jobs.Wait(context.Background(), id, 100*time.Millisecond)
	if el := time.Since(start); !ok || el < 100*time.Millisecond {
		t.Errorf("Wait returned after %v (ok %v), want no sooner than the 100ms asked for", el, ok)
	}
	if st.State != verify.JobQueued && st.State != verify.JobRunning || st.Done != 0 {
		t.Errorf("status %+v while the pages are held, want queued or running with none done", st)
	}
	close(site.Release)
	st = waitJob(t, jobs, id)
	if st.State != verify.JobDone || st.Done != st.Total || st.Total != 5 {
		t.Errorf("final status %+v", st)
	}
}

// TestInterruptedRunFinishesOnTheNextRun stops a batch check in the middle, closes the
// ledger as a restart would, reopens it and checks the batch again: every citation ends with
// exactly one check, and the audit holds.
func TestInterruptedRunFinishesOnTheNextRun(t *testing.T) {
	site := verify.NewLoopbackSite(t)
	store, dir := openStore(t)
	b := batchOf(t, store, site, 20, "/report")
	before := headSeq(t, store)
	ctx, cancel := context.WithCancel(context.Background())
	checker := verify.NewChecker(verify.LoopbackFetchConfig())
	outs, err := verify.RunBatch(ctx, store, checker, "system", b.ID, false, 4, func(done, _ int) {
		if done == 5 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want one wrapping context.Canceled", err)
	}
	perCitation, _ := checkedEvents(t, store, before)
	first := len(perCitation)
	if first < 4 || first >= 20 || len(outs) < 5 {
		t.Fatalf("after the interruption %d citations were recorded (%d outcomes), want about 5", first, len(outs))
	}
	auditHolds(t, store)
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}

	store, err = ledger.Open(context.Background(), dir, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	outs, err = verify.RunBatch(context.Background(), store, checker, "system", b.ID, false, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 21-first {
		t.Errorf("the second run checked %d citations, want the %d left", len(outs), 21-first)
	}
	perCitation, _ = checkedEvents(t, store, before)
	for _, c := range b.Claims[:20] {
		if n := perCitation[c.Citations[0].ID]; n != 1 {
			t.Errorf("citation %s has %d checks, want 1", c.Citations[0].ID, n)
		}
	}
	auditHolds(t, store)
}

// TestJobsCancel stops a job whose pages are held: it ends failed with the reason given,
// nothing of it is recorded, the batch's lock is free, and checking the batch again checks
// every citation.
func TestJobsCancel(t *testing.T) {
	site := verify.NewLoopbackSite(t)
	store, _ := openStore(t)
	b := batchOf(t, store, site, 3, "/hold")
	jobs := verify.NewJobs(store, verify.NewChecker(verify.LoopbackFetchConfig()), 2)
	defer jobs.Close()
	before := headSeq(t, store)
	id, err := jobs.Start(b.ID, "user:olga", false)
	if err != nil {
		t.Fatal(err)
	}
	if !jobs.Cancel(id, errors.New("the caller went away")) {
		t.Fatal("Cancel found no running job")
	}
	st := waitJob(t, jobs, id)
	if st.State != verify.JobFailed || !strings.Contains(st.Error, "the caller went away") {
		t.Fatalf("cancelled job: %+v", st)
	}
	if jobs.Cancel(id, errors.New("again")) || jobs.Cancel("j_unknown", errors.New("x")) {
		t.Error("Cancel of an ended or unknown job reported a job")
	}
	if got := headSeq(t, store); got != before {
		t.Errorf("the cancelled job recorded %d events", got-before)
	}
	close(site.Release)
	again, err := jobs.Start(b.ID, "user:olga", false)
	if err != nil {
		t.Fatalf("start after the cancel: %v", err)
	}
	if st := waitJob(t, jobs, again); st.State != verify.JobDone || st.Total != 4 {
		t.Fatalf("the next job: %+v", st)
	}
	auditHolds(t, store)
}
