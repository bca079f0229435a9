package verify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"evidenceledger/evidence"
)

// batchStore keeps one batch's citations in memory and what was recorded about them, with
// the contract of CheckStore: a citation is to check until a check of it is recorded.
type batchStore struct {
	batch    string
	targets  []evidence.CheckTarget
	mu       sync.Mutex
	checks   map[string]int // citation -> checks recorded
	seams    []*evidence.SeamOpened
	onRecord func(recorded int)
}

func (s *batchStore) CitationsToCheck(_ context.Context, batch string, recheck bool) ([]evidence.CheckTarget, error) {
	if batch != s.batch {
		return nil, fmt.Errorf("batch %q: %w", batch, ErrNoBatch)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []evidence.CheckTarget
	for _, t := range s.targets {
		if recheck || s.checks[t.CitationID] == 0 {
			out = append(out, t)
		}
	}
	return out, nil
}

func (s *batchStore) RecordCheck(_ context.Context, _ string, ch evidence.Checked, body []byte, seam *evidence.SeamOpened) error {
	if ch.Document != nil {
		sum := sha256.Sum256(body)
		if hex.EncodeToString(sum[:]) != ch.Document.SHA256 {
			return fmt.Errorf("body does not hash to the document's sha256 %s", ch.Document.SHA256)
		}
	}
	s.mu.Lock()
	s.checks[ch.Citation]++
	if seam != nil {
		s.seams = append(s.seams, seam)
	}
	n := 0
	for _, c := range s.checks {
		n += c
	}
	s.mu.Unlock()
	if s.onRecord != nil {
		s.onRecord(n)
	}
	return nil
}

// newBatchStore makes a batch of n checkable citations spread over three hosts of srv, plus
// one without a URL.
func newBatchStore(srv *pageServer, n int) *batchStore {
	s := &batchStore{batch: "b_0000000000000001", checks: map[string]int{}}
	hosts := []string{"a.test", "b.test", "c.test"}
	for i := range n {
		s.targets = append(s.targets, evidence.CheckTarget{
			ClaimID: fmt.Sprintf("c_%016x", i), CitationID: fmt.Sprintf("ct_%016x", i),
			URL: srv.url(hosts[i%len(hosts)], "/report"), Quote: "the registry counted 4,812 companies",
		})
	}
	s.targets = append(s.targets, evidence.CheckTarget{ClaimID: "c_nourl", CitationID: "ct_nourl", Quote: "a quote with no link at all"})
	return s
}

func TestJobsRunABatch(t *testing.T) {
	srv := newPageServer(t)
	store := newBatchStore(srv, 12)
	jobs := NewJobs(store, NewChecker(testFetchConfig()), 4)
	defer jobs.Close()

	if _, err := jobs.Start("b_missing", "user:op", false); !errors.Is(err, ErrNoBatch) {
		t.Fatalf("unknown batch: err = %v, want ErrNoBatch", err)
	}
	id, err := jobs.Start(store.batch, "user:op", false)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := jobs.Start(store.batch, "user:op", false); again != id {
		if st, _ := jobs.Status(id); st.State != JobDone {
			t.Errorf("a second start while the job runs gave job %s, want %s", again, id)
		}
	}
	st, ok := jobs.Wait(context.Background(), id, 20*time.Second)
	if !ok || st.State != JobDone || st.Total != 13 || st.Done != 13 || st.Batch != store.batch {
		t.Fatalf("status %+v, want done 13 of 13", st)
	}
	if len(store.checks) != 12 || store.checks["ct_nourl"] != 0 {
		t.Errorf("recorded checks for %d citations %v, want 12 and none for the one without a URL", len(store.checks), store.checks)
	}
	if _, ok := jobs.Status("j_unknown"); ok {
		t.Error("an unknown job id was found")
	}
	again, err := jobs.Start(store.batch, "user:op", false)
	if err != nil {
		t.Fatal(err)
	}
	st, _ = jobs.Wait(context.Background(), again, 5*time.Second)
	if st.Total != 1 || st.State != JobDone {
		t.Errorf("second job over a checked batch: %+v, want only the citation that cannot be checked", st)
	}
}

func TestJobsWaitReturnsAtTheDeadline(t *testing.T) {
	srv := newPageServer(t)
	store := newBatchStore(srv, 4)
	release := make(chan struct{})
	store.onRecord = func(int) { <-release }
	jobs := NewJobs(store, NewChecker(testFetchConfig()), 1)
	id, err := jobs.Start(store.batch, "user:op", false)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	st, ok := jobs.Wait(context.Background(), id, 100*time.Millisecond)
	if el := time.Since(start); !ok || el < 90*time.Millisecond || el > 5*time.Second {
		t.Errorf("Wait returned after %v (ok %v), want about the 100ms asked for", el, ok)
	}
	if st.State != JobQueued && st.State != JobRunning {
		t.Errorf("state %s while the first record is held, want queued or running", st.State)
	}
	close(release)
	st, _ = jobs.Wait(context.Background(), id, 20*time.Second)
	if st.State != JobDone || st.Done != st.Total {
		t.Errorf("final status %+v", st)
	}
	jobs.Close()
}

// TestInterruptedRunFinishesOnTheNextRun stops a batch check in the middle, as a restart
// would, then runs it again: every citation ends with exactly one recorded check.
func TestInterruptedRunFinishesOnTheNextRun(t *testing.T) {
	srv := newPageServer(t)
	store := newBatchStore(srv, 20)
	ctx, cancel := context.WithCancel(context.Background())
	store.onRecord = func(n int) {
		if n == 5 {
			cancel()
		}
	}
	checker := NewChecker(testFetchConfig())
	outs, err := RunBatch(ctx, store, checker, "system", store.batch, false, 4, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want one wrapping context.Canceled", err)
	}
	first := len(store.checks)
	if first < 5 || first >= 20 || len(outs) < 5 {
		t.Fatalf("after the interruption %d citations were recorded (%d outcomes), want 5 or a few more", first, len(outs))
	}
	store.onRecord = nil
	outs, err = RunBatch(context.Background(), store, checker, "system", store.batch, false, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 21-first {
		t.Errorf("the second run checked %d citations, want the %d left", len(outs), 21-first)
	}
	for _, tg := range store.targets[:20] {
		if n := store.checks[tg.CitationID]; n != 1 {
			t.Errorf("citation %s has %d recorded checks, want 1", tg.CitationID, n)
		}
	}
}
