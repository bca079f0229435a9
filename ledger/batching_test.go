package ledger

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// storedCheckpoints returns the sizes of the checkpoints stored in s, in order.
func storedCheckpoints(t *testing.T, s *Store) []int64 {
	t.Helper()
	rows, err := s.rdb.Query("SELECT size FROM checkpoints ORDER BY size")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var sizes []int64
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// manualClock is a batchClock that moves only when the test advances it; a timer due by
// then runs within advance, before it returns.
type manualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*manualTimer
}

type manualTimer struct {
	c       *manualClock
	at      time.Time
	f       func()
	stopped bool
}

func newManualClock() *manualClock {
	return &manualClock{now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) AfterFunc(d time.Duration, f func()) interface{ Stop() bool } {
	c.mu.Lock()
	defer c.mu.Unlock()
	tm := &manualTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, tm)
	return tm
}

func (tm *manualTimer) Stop() bool {
	tm.c.mu.Lock()
	defer tm.c.mu.Unlock()
	was := !tm.stopped
	tm.stopped = true
	return was
}

// advance moves the clock by d and runs, in order, every timer due by then, including
// those the timers themselves set.
func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		var due *manualTimer
		for i, tm := range c.timers {
			if !tm.stopped && !tm.at.After(c.now) {
				due = tm
				c.timers = append(c.timers[:i], c.timers[i+1:]...)
				break
			}
		}
		if due != nil {
			due.stopped = true
		}
		c.mu.Unlock()
		if due == nil {
			return
		}
		due.f()
	}
}

func lastOf(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	return xs[len(xs)-1]
}

// TestCheckpointsAreBatched: writes in quick succession share a checkpoint, which follows
// within checkpointAge; a write after checkpointAge, a write checkpointEvents past the
// latest, a key rotation and Close each leave the head covered; a request for the
// checkpoint waits for the flush and signs nothing itself.
func TestCheckpointsAreBatched(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	clock := newManualClock()
	s, err := Open(ctx, dir, Options{Now: testClock(), batchClock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	// The genesis transaction always has its checkpoint.
	if got := storedCheckpoints(t, s); len(got) != 1 || got[0] != 1 {
		t.Fatalf("after genesis: checkpoints %v, want [1]", got)
	}
	// Five single-event writes while the clock stands still: none is due, and the flush,
	// checkpointAge after the genesis checkpoint, covers them all.
	for range 5 {
		if _, err := s.recordDrafts(ctx, "system", noteDrafts(1)...); err != nil {
			t.Fatal(err)
		}
	}
	if got := storedCheckpoints(t, s); lastOf(got) != 1 {
		t.Fatalf("writes within %v each signed a checkpoint: %v", checkpointAge, got)
	}
	clock.advance(checkpointAge - time.Millisecond)
	if got := storedCheckpoints(t, s); lastOf(got) != 1 {
		t.Fatalf("the flush came before %v: %v", checkpointAge, got)
	}
	clock.advance(time.Millisecond)
	if got := storedCheckpoints(t, s); len(got) != 2 || lastOf(got) != 6 {
		t.Fatalf("the flush at %v signed %v, want one checkpoint of the head 6 for the five writes", checkpointAge, got)
	}

	// A write checkpointEvents past the latest checkpoint signs in its own transaction.
	if _, err := s.recordDrafts(ctx, "system", noteDrafts(checkpointEvents)...); err != nil {
		t.Fatal(err)
	}
	if head := int64(6 + checkpointEvents); lastOf(storedCheckpoints(t, s)) != head {
		t.Fatalf("a write of %d events: checkpoints %v, want the head %d covered at once", checkpointEvents, storedCheckpoints(t, s), head)
	}
	head := int64(6 + checkpointEvents)

	// A write after checkpointAge signs in its own transaction.
	clock.advance(checkpointAge)
	if _, err := s.recordDrafts(ctx, "system", noteDrafts(1)...); err != nil {
		t.Fatal(err)
	}
	head++
	if lastOf(storedCheckpoints(t, s)) != head {
		t.Fatalf("a write after %v: checkpoints end at %d, want %d", checkpointAge, lastOf(storedCheckpoints(t, s)), head)
	}

	// A key rotation always signs (with the new key: the audit checks it).
	if _, err := s.RotateKey(ctx); err != nil {
		t.Fatal(err)
	}
	head++
	if lastOf(storedCheckpoints(t, s)) != head {
		t.Fatalf("a key rotation: checkpoints end at %d, want %d", lastOf(storedCheckpoints(t, s)), head)
	}

	// Asking for the checkpoint never signs one (a GET never writes): it waits for the
	// batching's flush, which covers the head.
	if _, err := s.recordDrafts(ctx, "system", noteDrafts(2)...); err != nil {
		t.Fatal(err)
	}
	before := storedCheckpoints(t, s)
	head += 2
	got := make(chan Checkpoint, 1)
	go func() {
		cp, err := s.Checkpoint(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- cp
	}()
	for waiting := 0; waiting == 0; {
		runtime.Gosched()
		s.cpMu.Lock()
		waiting = s.awaiting
		s.cpMu.Unlock()
	}
	if now := storedCheckpoints(t, s); !slices.Equal(now, before) {
		t.Fatalf("Checkpoint signed one: %v, before %v", now, before)
	}
	clock.advance(checkpointAge)
	if cp := <-got; cp.Size != head {
		t.Fatalf("Checkpoint after the flush: size %d, want the head %d", cp.Size, head)
	}
	mustAuditOK(t, s)

	// Close covers what is left.
	if _, err := s.recordDrafts(ctx, "system", noteDrafts(1)...); err != nil {
		t.Fatal(err)
	}
	head++
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if cp, err := ro.Checkpoint(ctx); err != nil || cp.Size != head {
		t.Fatalf("after Close: latest checkpoint %d (%v), want the head %d", cp.Size, err, head)
	}
	if rep, err := ro.Audit(ctx); err != nil || !rep.OK {
		t.Fatalf("audit: %+v %v", rep, err)
	}
	s, err = Open(ctx, dir, Options{Now: testClock()})
	if err != nil {
		t.Fatal(err)
	}
}

// TestUncoveredTailIsCheckpointedOnOpen: a ledger whose last writes no checkpoint covers (its
// process was killed before the flush) gets one the next time it is opened for writing.
func TestUncoveredTailIsCheckpointedOnOpen(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	if _, err := s.recordDrafts(ctx, "system", noteDrafts(3)...); err != nil {
		t.Fatal(err)
	}
	// A copy taken now is what a killed process leaves: its tail has no checkpoint.
	copyDir := t.TempDir()
	if _, err := s.wdb.Exec("VACUUM INTO ?", filepath.Join(copyDir, dbFileName)); err != nil {
		t.Fatal(err)
	}
	copyKey(t, s.dir, copyDir)
	ro, err := OpenReadOnly(ctx, copyDir)
	if err != nil {
		t.Fatal(err)
	}
	if cp, err := ro.Checkpoint(ctx); err != nil || cp.Size != 1 {
		t.Fatalf("the copy's latest checkpoint: %d (%v), want 1 (the tail uncovered)", cp.Size, err)
	}
	if rep, err := ro.Audit(ctx); err != nil || !rep.OK {
		t.Fatalf("an uncovered tail is no finding: %+v %v", rep, err)
	}
	ro.Close()
	w, err := Open(ctx, copyDir, Options{Now: testClock()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if got := storedCheckpoints(t, w); lastOf(got) != 4 {
		t.Fatalf("opened for writing: checkpoints %v, want the head 4 covered", got)
	}
}

// copyKey copies the signing key of the data directory from into dir, mode 0600.
func copyKey(t *testing.T, from, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(from, keyFileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, keyFileName), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestCheckpointServedWhenTheFlushFails: asking for the checkpoint when none covers the head
// and none can be written (the database refuses writes) hands out the latest stored one,
// which is still valid; once writes work again the head is covered.
func TestCheckpointServedWhenTheFlushFails(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	if _, err := s.recordDrafts(ctx, "system", noteDrafts(2)...); err != nil {
		t.Fatal(err)
	}
	if _, err := s.wdb.Exec("PRAGMA query_only = 1"); err != nil {
		t.Fatal(err)
	}
	cp, err := s.Checkpoint(ctx)
	if err != nil || cp.Size != 1 {
		t.Fatalf("checkpoint while writes fail: size %d (%v), want the stored one of size 1", cp.Size, err)
	}
	keys, _ := keysOf(t, s)
	if _, err := OpenCheckpoint(cp.Note, keys.NoteKeys, nil); err != nil {
		t.Fatalf("the stored checkpoint does not verify: %v", err)
	}
	if _, err := s.wdb.Exec("PRAGMA query_only = 0"); err != nil {
		t.Fatal(err)
	}
	if cp, err := s.Checkpoint(ctx); err != nil || cp.Size != 3 {
		t.Fatalf("checkpoint once writes work: size %d (%v), want the head 3", cp.Size, err)
	}
}

// TestCheckpointWaitIsBounded: a reader of the checkpoint waits for the batching's flush at
// most maxCheckpointWait; when no flush comes (here its timer is stopped) it gets the
// latest stored checkpoint, behind the head, and still signs none itself.
func TestCheckpointWaitIsBounded(t *testing.T) {
	ctx := context.Background()
	clock := newManualClock()
	s, err := Open(ctx, t.TempDir(), Options{Now: testClock(), batchClock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.recordDrafts(ctx, "system", noteDrafts(1)...); err != nil {
		t.Fatal(err)
	}
	if _, err := s.recordDrafts(ctx, "system", noteDrafts(1)...); err != nil {
		t.Fatal(err)
	}
	before := storedCheckpoints(t, s)
	s.cpMu.Lock()
	if s.cpTimer == nil {
		s.cpMu.Unlock()
		t.Fatal("no flush was scheduled for the uncovered write")
	}
	s.cpTimer.Stop()
	s.cpMu.Unlock()
	got := make(chan Checkpoint, 1)
	go func() {
		cp, err := s.Checkpoint(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- cp
	}()
	for waiting := 0; waiting == 0; {
		runtime.Gosched()
		s.cpMu.Lock()
		waiting = s.awaiting
		s.cpMu.Unlock()
	}
	clock.advance(maxCheckpointWait - time.Millisecond)
	select {
	case cp := <-got:
		t.Fatalf("the reader stopped waiting before %v: size %d", maxCheckpointWait, cp.Size)
	default:
	}
	clock.advance(time.Millisecond)
	if cp := <-got; cp.Size != lastOf(before) {
		t.Fatalf("after %v: checkpoint %d, want the latest stored, %d", maxCheckpointWait, cp.Size, lastOf(before))
	}
	if now := storedCheckpoints(t, s); !slices.Equal(now, before) {
		t.Fatalf("the reader signed a checkpoint: %v, before %v", now, before)
	}
}
