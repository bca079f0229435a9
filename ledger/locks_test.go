package ledger

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"evidenceledger/evidence"
)

// TestCheckLock: one job holds a batch's lock; another is refused with the running job's
// name; a lease that runs out (its process crashed) is taken over, and the old job learns it
// lost the lock; releasing frees it; the lock is not evidence, so the audit ignores it.
func TestCheckLock(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	s, err := Open(ctx, dir, Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// A second store on the same directory stands for another process.
	other, err := Open(ctx, dir, Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	b := importPaste(t, s, []byte(pasteOf(0, 2)))
	lease := 30 * time.Second

	if err := s.LockCheck(ctx, b.ID, "j_server", "ledger serve, pid 1 on host", lease); err != nil {
		t.Fatal(err)
	}
	err = other.LockCheck(ctx, b.ID, "j_cli", "ledger check, pid 2 on host", lease)
	var locked *LockedError
	if !errors.As(err, &locked) || !errors.Is(err, ErrConflict) || locked.Lock.Job != "j_server" || !strings.Contains(err.Error(), "job j_server (ledger serve, pid 1 on host") {
		t.Fatalf("a second job: %v; want a LockedError naming j_server", err)
	}
	if err := s.LockCheck(ctx, b.ID, "j_server", "ledger serve, pid 1 on host", lease); err != nil {
		t.Fatalf("the holder taking its lock again: %v", err)
	}
	advance(20 * time.Second)
	if err := s.RenewCheck(ctx, b.ID, "j_server", lease); err != nil {
		t.Fatal(err)
	}
	advance(20 * time.Second)
	if err := other.LockCheck(ctx, b.ID, "j_cli", "ledger check, pid 2 on host", lease); !errors.Is(err, ErrConflict) {
		t.Fatalf("a renewed lease was taken over: %v", err)
	}
	// The server "crashes": no renewal, no release. Past the lease the lock is taken over.
	advance(lease)
	if err := other.LockCheck(ctx, b.ID, "j_cli", "ledger check, pid 2 on host", lease); err != nil {
		t.Fatalf("taking over a lease that ran out: %v", err)
	}
	if err := s.RenewCheck(ctx, b.ID, "j_server", lease); !errors.Is(err, ErrConflict) {
		t.Fatalf("the old job renewing a lock taken over: %v; want ErrConflict", err)
	}
	if err := s.UnlockCheck(ctx, b.ID, "j_server"); err != nil {
		t.Fatalf("releasing a lock no longer held: %v", err)
	}
	if err := s.LockCheck(ctx, b.ID, "j_server2", "ledger serve, pid 3 on host", lease); !errors.Is(err, ErrConflict) {
		t.Fatalf("the old holder's release freed the new holder's lock: %v", err)
	}
	if err := other.UnlockCheck(ctx, b.ID, "j_cli"); err != nil {
		t.Fatal(err)
	}
	if err := s.LockCheck(ctx, b.ID, "j_server2", "ledger serve, pid 3 on host", lease); err != nil {
		t.Fatalf("after the release: %v", err)
	}
	if err := s.LockCheck(ctx, "b_0000000000000000", "j_x", "h", lease); !errors.Is(err, ErrNotFound) || !errors.Is(err, evidence.ErrNoBatch) {
		t.Fatalf("an unknown batch: %v", err)
	}
	mustAuditOK(t, s)
}
