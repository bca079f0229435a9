package ledger

import (
	"context"
	"errors"
	"testing"
	"time"

	"evidenceledger/evidence"
)

// TestCheckRunsKeptUntilEnded: a new run's since is the chain's head; a resumed one keeps
// its since under its new job; a run is interrupted only while no live lock of its batch is
// held; ending another job's run leaves it; and the citations to resume are those the run has
// yet to check.
func TestCheckRunsKeptUntilEnded(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	s, _ := openTest(t)
	s.now = func() time.Time { return now }
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "system", []byte("p"), research(
		claim("One.", "https://a.example/1", "the registry counted 4,812 companies"),
		claim("Two.", "https://a.example/2", "the registry counted 4,812 companies")))
	if err != nil {
		t.Fatal(err)
	}
	head, _ := chainState(t, s)
	if _, err := s.BeginCheckRun(ctx, evidence.CheckRun{Batch: "b_0000000000000000", Job: "j_1", Actor: "user:olga"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a run of no batch: %v", err)
	}
	if _, err := s.BeginCheckRun(ctx, evidence.CheckRun{Batch: b.ID, Actor: "user:olga"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a run without a job: %v", err)
	}
	if err := s.LockCheck(ctx, b.ID, "j_1", "test", time.Minute); err != nil {
		t.Fatal(err)
	}
	run, err := s.BeginCheckRun(ctx, evidence.CheckRun{Batch: b.ID, Job: "j_1", Actor: "user:olga", Recheck: true})
	if err != nil || run.Since != head {
		t.Fatalf("begin: %+v, %v; want since %d", run, err, head)
	}
	if runs, _ := s.InterruptedCheckRuns(ctx); len(runs) != 0 {
		t.Fatalf("a run whose lock is live is interrupted: %+v", runs)
	}
	c := b.Claims[0]
	ch, body := foundCheck(c.ID, c.Citations[0].ID, c.Citations[0].URL)
	if err := s.RecordCheck(ctx, "user:olga", ch, body, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute) // the lease ran out: the process is gone
	runs, err := s.InterruptedCheckRuns(ctx)
	if err != nil || len(runs) != 1 || runs[0] != run {
		t.Fatalf("interrupted: %+v, %v; want %+v", runs, err, run)
	}
	left, err := s.CitationsToResume(ctx, runs[0])
	if err != nil || len(left) != 1 || left[0].CitationID != b.Claims[1].Citations[0].ID {
		t.Fatalf("to resume: %+v, %v; want the second citation only", left, err)
	}
	if all, _ := s.CitationsToCheck(ctx, b.ID, true); len(all) != 2 {
		t.Fatalf("a new recheck checks %d citations, want 2", len(all))
	}
	resumed := runs[0]
	resumed.Job = "j_2"
	if got, err := s.BeginCheckRun(ctx, resumed); err != nil || got.Since != head {
		t.Fatalf("resumed: %+v, %v; want since %d kept", got, err, head)
	}
	if err := s.EndCheckRun(ctx, b.ID, "j_1"); err != nil {
		t.Fatal(err)
	}
	if runs, _ := s.InterruptedCheckRuns(ctx); len(runs) != 1 || runs[0].Job != "j_2" {
		t.Fatalf("ending the old job's run ended the new one's: %+v", runs)
	}
	if err := s.EndCheckRun(ctx, b.ID, "j_2"); err != nil {
		t.Fatal(err)
	}
	if runs, _ := s.InterruptedCheckRuns(ctx); len(runs) != 0 {
		t.Fatalf("an ended run is kept: %+v", runs)
	}
	mustAuditOK(t, s)
}
