package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// testClock is a clock that moves 1ms per reading from a fixed start.
func testClock() func() time.Time {
	var n atomic.Int64
	start := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	return func() time.Time { return start.Add(time.Duration(n.Add(1)) * time.Millisecond) }
}

// openTest opens a ledger in a fresh directory, closed at the end of the test.
func openTest(t testing.TB) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, Options{Now: testClock()})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

// rawDB opens a ledger's database directly, to tamper with it behind the program's back.
func rawDB(t testing.TB, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, dbFileName)+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// mustExec runs SQL statements, failing the test on error.
func mustExec(t testing.TB, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// noteDrafts makes n note.added drafts.
func noteDrafts(n int) []Draft {
	ds := make([]Draft, n)
	for i := range ds {
		ds[i] = Draft{Type: "note.added", Payload: map[string]any{"text": "note <&> \u00e9 " + strings.Repeat("x", i%7), "n": i}}
	}
	return ds
}

// mustAuditOK fails the test unless the audit holds.
func mustAuditOK(t testing.TB, s *Store) Report {
	t.Helper()
	rep, err := s.Audit(context.Background())
	if err != nil {
		t.Fatalf("Audit: %v", err)
	}
	if !rep.OK {
		t.Fatalf("audit failed: %+v", rep.Problems)
	}
	return rep
}

// note.added is an event type for tests only; it has no projection table.
func init() {
	registerEvent("note.added", projectorOf(func(*sql.Tx, *Event, *json.RawMessage) error { return nil }))
}

func writeJSON(t testing.TB, w io.Writer, v any) {
	t.Helper()
	if err := json.NewEncoder(w).Encode(v); err != nil {
		t.Fatal(err)
	}
}

// mustTamperBeCaught runs statements ("; "-separated, each must change a row) on the
// ledger's database behind the program's back, and fails the test unless the audit then
// fails with a problem that names table.
func mustTamperBeCaught(t *testing.T, s *Store, dir, statements, table string) {
	t.Helper()
	db := rawDB(t, dir)
	for _, q := range strings.Split(statements, "; ") {
		res, err := db.Exec(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			t.Fatalf("%s changed nothing", q)
		}
	}
	rep, err := s.Audit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK {
		t.Fatal("the audit holds after tampering")
	}
	for _, p := range rep.Problems {
		if p.Table == table {
			return
		}
	}
	t.Errorf("no problem names table %s: %+v", table, rep.Problems)
}
