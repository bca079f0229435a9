package ledger

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestReadOnlyDatabase: a write to a database that cannot be written fails with ErrReadOnly
// in words, records nothing, and the ledger works again once it can write.
func TestReadOnlyDatabase(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	before := mustAuditOK(t, s).Events
	// The store's one write connection refuses writes as a read-only file would.
	if _, err := s.wdb.ExecContext(ctx, "PRAGMA query_only = 1"); err != nil {
		t.Fatal(err)
	}
	_, err := s.recordDrafts(ctx, "system", noteDrafts(1)...)
	if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "nothing was recorded") || !strings.Contains(err.Error(), "make the data directory writable") {
		t.Fatalf("recording on a read-only database: %v; want ErrReadOnly, in words that say what to do", err)
	}
	if _, err := s.AddUserWithPassword(ctx, "system", "rhea", RoleOperator, "a long password"); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("adding a user on a read-only database: %v", err)
	}
	if _, err := s.wdb.ExecContext(ctx, "PRAGMA query_only = 0"); err != nil {
		t.Fatal(err)
	}
	if got := mustAuditOK(t, s).Events; got != before {
		t.Fatalf("%d events after the refused writes; want %d", got, before)
	}
	if _, err := s.recordDrafts(ctx, "system", noteDrafts(1)...); err != nil {
		t.Fatalf("after the database is writable again: %v", err)
	}
}
