package verify_test

import (
	"context"
	"testing"
	"time"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
	"evidenceledger/verify"
)

var _ verify.RunKeeper = (*ledger.Store)(nil)

// waitDone waits until job id has done at least n citations, or has ended.
func waitDone(t *testing.T, jobs *verify.Jobs, id string, n int) verify.JobStatus {
	t.Helper()
	for {
		st, ok := jobs.Wait(t.Context(), id, 0)
		if !ok {
			t.Fatalf("no job %s", id)
		}
		if st.Done >= n || st.State == verify.JobDone || st.State == verify.JobFailed {
			return st
		}
		// Wait returns early only when the job ends: look at its progress again shortly.
		jobs.Wait(t.Context(), id, 50*time.Millisecond)
	}
}

// TestStoppedRecheckIsResumed: a recheck stopped by its process (Jobs.Close, as a server's
// shutdown past its grace stops it) after three of its five citations were recorded is kept;
// a new process's Jobs.Resume starts it again as the actor who started it, and it checks only
// the two it had not, so each citation is checked once in the run. The resumed job ends the
// run: nothing is left to resume, and the audit holds.
func TestStoppedRecheckIsResumed(t *testing.T) {
	site := verify.NewLoopbackSite(t)
	store, _ := openStore(t)
	b := importClaims(t, store,
		claimOf("One: the registry counted 4,812 companies.", site.At("a.test", "/report"), "the registry counted 4,812 companies"),
		claimOf("Two: the registry counted 4,812 companies.", site.At("b.test", "/report"), "the registry counted 4,812 companies"),
		claimOf("Three: the registry counted 4,812 companies.", site.At("c.test", "/report"), "the registry counted 4,812 companies"),
		claimOf("Four: the registry counted 4,812 companies.", site.At("a.test", "/hold"), "the registry counted 4,812 companies"),
		claimOf("Five: the registry counted 4,812 companies.", site.At("b.test", "/hold"), "the registry counted 4,812 companies"))
	before := headSeq(t, store)
	checker := verify.NewChecker(verify.LoopbackFetchConfig())

	jobs := verify.NewJobs(store, checker, 2)
	id, err := jobs.Start(b.ID, "user:olga", true)
	if err != nil {
		t.Fatal(err)
	}
	if st := waitDone(t, jobs, id, 3); st.Done != 3 || st.State != verify.JobRunning {
		t.Fatalf("before the stop: %+v; want 3 done and the held pages running", st)
	}
	jobs.Close()
	if st, _ := jobs.Status(id); st.State != verify.JobFailed {
		t.Fatalf("the stopped job: %+v", st)
	}
	perCitation, _ := checkedEvents(t, store, before)
	if len(perCitation) != 3 {
		t.Fatalf("%d citations recorded before the stop, want 3", len(perCitation))
	}
	runs, err := store.InterruptedCheckRuns(context.Background())
	if err != nil || len(runs) != 1 || runs[0].Batch != b.ID || !runs[0].Recheck || runs[0].Actor != "user:olga" || runs[0].Since != before {
		t.Fatalf("interrupted runs %+v, %v; want the recheck of %s since %d", runs, err, b.ID, before)
	}

	close(site.Release)
	jobs = verify.NewJobs(store, checker, 2)
	defer jobs.Close()
	ids, err := jobs.Resume(context.Background())
	if err != nil || len(ids) != 1 {
		t.Fatalf("Resume: %v, %v; want one job", ids, err)
	}
	st := waitJob(t, jobs, ids[0])
	if st.State != verify.JobDone || st.Total != 2 || st.Batch != b.ID {
		t.Fatalf("the resumed job: %+v; want done, 2 citations of %s", st, b.ID)
	}
	perCitation, _ = checkedEvents(t, store, before)
	for _, c := range b.Claims {
		if n := perCitation[c.Citations[0].ID]; n != 1 {
			t.Errorf("citation %s (%s) was checked %d times in the run, want 1", c.Citations[0].ID, c.Text, n)
		}
	}
	evs, err := store.Events(context.Background(), before, ledger.MaxEventsPage)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if ev.Type == "citation.checked" && ev.Actor != "user:olga" {
			t.Errorf("event %d recorded as %s, want the run's actor user:olga", ev.Seq, ev.Actor)
		}
	}
	if runs, err := store.InterruptedCheckRuns(context.Background()); err != nil || len(runs) != 0 {
		t.Fatalf("after the resumed run: %+v, %v; want none", runs, err)
	}
	if ids, err := jobs.Resume(context.Background()); err != nil || len(ids) != 0 {
		t.Fatalf("a second Resume: %v, %v; want nothing", ids, err)
	}
	auditHolds(t, store)
}

// TestEndedRunsAreNotResumed: a run that ends by itself, done or cancelled by a person,
// is not kept; only a stopped one is. A store that keeps no runs resumes nothing.
func TestEndedRunsAreNotResumed(t *testing.T) {
	site := verify.NewLoopbackSite(t)
	store, _ := openStore(t)
	checker := verify.NewChecker(verify.LoopbackFetchConfig())
	done := importClaims(t, store, claimOf("One: the registry counted 4,812 companies.", site.At("a.test", "/report"), "the registry counted 4,812 companies"))
	held := importClaims(t, store, claimOf("Two: the registry counted 4,812 companies.", site.At("a.test", "/hold"), "the registry counted 4,812 companies"))
	jobs := verify.NewJobs(store, checker, 2)
	defer jobs.Close()
	id, err := jobs.Start(done.ID, "user:olga", true)
	if err != nil {
		t.Fatal(err)
	}
	if st := waitJob(t, jobs, id); st.State != verify.JobDone {
		t.Fatalf("%+v", st)
	}
	id, err = jobs.Start(held.ID, "user:olga", false)
	if err != nil {
		t.Fatal(err)
	}
	jobs.Cancel(id, context.Canceled)
	if st := waitJob(t, jobs, id); st.State != verify.JobFailed {
		t.Fatalf("%+v", st)
	}
	if runs, err := store.InterruptedCheckRuns(context.Background()); err != nil || len(runs) != 0 {
		t.Fatalf("kept runs %+v, %v; want none", runs, err)
	}
	plain := verify.NewJobs(plainStore{store}, checker, 1)
	defer plain.Close()
	if ids, err := plain.Resume(context.Background()); ids != nil || err != nil {
		t.Fatalf("Resume over a store that keeps no runs: %v, %v", ids, err)
	}
}

// plainStore is a check store and nothing more.
type plainStore struct{ s *ledger.Store }

func (p plainStore) CitationsToCheck(ctx context.Context, batch string, recheck bool) ([]evidence.CheckTarget, error) {
	return p.s.CitationsToCheck(ctx, batch, recheck)
}

func (p plainStore) RecordCheck(ctx context.Context, actor string, ch evidence.Checked, body, reqHead, respHead []byte, seam *evidence.SeamOpened) error {
	return p.s.RecordCheck(ctx, actor, ch, body, reqHead, respHead, seam)
}
