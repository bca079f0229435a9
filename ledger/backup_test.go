package ledger

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fileMode returns the permission bits of path, failing the test when it is missing.
func fileMode(t *testing.T, path string) os.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// TestBackupUnderAWriter: a backup taken while another goroutine records is the ledger as of
// one commit: restored into a new directory it audits, and its head is an event of the
// original chain, with the same hash and checkpoint root at that size.
func TestBackupUnderAWriter(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	if _, err := s.recordDrafts(ctx, "system", noteDrafts(50)...); err != nil {
		t.Fatal(err)
	}
	// The writer records one event per transaction until the backups are taken; each
	// backup is taken after the writer has committed at least once more.
	committed := make(chan int64)
	stop := make(chan struct{})
	writerDone := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			evs, err := s.recordDrafts(ctx, "system", noteDrafts(1)...)
			if err != nil {
				writerDone <- err
				return
			}
			select {
			case committed <- evs[0].Seq:
			case <-stop:
				writerDone <- nil
				return
			}
		}
	}()
	out := t.TempDir()
	var backups []string
	for i := range 3 {
		<-committed
		b := filepath.Join(out, "ledger-"+string(rune('a'+i))+".db")
		if _, err := s.Backup(ctx, b, false); err != nil {
			t.Fatalf("Backup under a writer: %v", err)
		}
		backups = append(backups, b)
	}
	close(stop)
	if err := <-writerDone; err != nil {
		t.Fatalf("the writer failed while backups were taken: %v", err)
	}
	full := mustAuditOK(t, s)
	for _, b := range backups {
		if m := fileMode(t, b); m != 0o600 {
			t.Errorf("backup %s has mode %04o, want 0600", b, m)
		}
		if _, err := os.Stat(b + BackupKeySuffix); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a backup without --with-key wrote a key file: %v", err)
		}
		dir := filepath.Join(t.TempDir(), "restored")
		res, err := Restore(ctx, b, dir)
		if err != nil {
			t.Fatal(err)
		}
		if res.Key != "" {
			t.Errorf("restored a key that the backup did not have: %s", res.Key)
		}
		r, err := OpenReadOnly(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		rep := mustAuditOK(t, r)
		r.Close()
		if rep.Events <= 50 || rep.Events > full.Events {
			t.Fatalf("restored %d events; the original had 50 before the writer and %d after", rep.Events, full.Events)
		}
		evs, err := s.Events(ctx, rep.Events-1, 1)
		if err != nil || len(evs) != 1 {
			t.Fatalf("event %d of the original: %v", rep.Events, err)
		}
		if evs[0].Hash != rep.Head {
			t.Errorf("the restored head %s is not event %d of the original (%s)", rep.Head, rep.Events, evs[0].Hash)
		}
	}
}

// TestBackupWithKeyAndRestore: --with-key carries the signing key (mode 0600) and a ledger
// restored with it records on, continuing the chain; backup and restore refuse to overwrite
// anything and leave nothing behind when they refuse.
func TestBackupWithKeyAndRestore(t *testing.T) {
	ctx := context.Background()
	s, dir := openTest(t)
	if _, err := s.recordDrafts(ctx, "system", noteDrafts(5)...); err != nil {
		t.Fatal(err)
	}
	before := mustAuditOK(t, s)
	out := filepath.Join(t.TempDir(), "ledger.backup")
	if _, err := s.Backup(ctx, out, true); err != nil {
		t.Fatal(err)
	}
	if m := fileMode(t, out+BackupKeySuffix); m != 0o600 {
		t.Errorf("the key copy has mode %04o, want 0600", m)
	}
	key, _ := os.ReadFile(filepath.Join(dir, keyFileName))
	if got, _ := os.ReadFile(out + BackupKeySuffix); string(got) != string(key) || len(key) == 0 {
		t.Error("the key copy is not the signing key")
	}
	if _, err := s.Backup(ctx, out, false); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a backup over an existing file: %v", err)
	}
	other := filepath.Join(t.TempDir(), "second")
	if err := os.WriteFile(other+BackupKeySuffix, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Backup(ctx, other, true); !errors.Is(err, ErrInvalid) {
		t.Errorf("a backup whose key file exists: %v", err)
	}
	if _, err := os.Stat(other); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused backup left its file")
	}

	restored := filepath.Join(t.TempDir(), "data")
	res, err := Restore(ctx, out, restored)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{res.Database, res.Key} {
		if m := fileMode(t, p); m != 0o600 {
			t.Errorf("%s restored with mode %04o, want 0600", p, m)
		}
	}
	if _, err := Restore(ctx, out, restored); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "never overwrites") {
		t.Errorf("a restore over a ledger: %v", err)
	}
	if _, err := Restore(ctx, out, dir); !errors.Is(err, ErrInvalid) {
		t.Errorf("a restore over the live ledger: %v", err)
	}
	r, err := Open(ctx, restored, Options{Now: testClock()})
	if err != nil {
		t.Fatalf("open the restored ledger for writing: %v", err)
	}
	defer r.Close()
	if rep := mustAuditOK(t, r); rep.Head != before.Head || rep.Events != before.Events {
		t.Fatalf("restored at %d %s, want %d %s", rep.Events, rep.Head, before.Events, before.Head)
	}
	if _, err := r.recordDrafts(ctx, "system", noteDrafts(2)...); err != nil {
		t.Fatalf("the restored ledger does not record: %v", err)
	}
	if rep := mustAuditOK(t, r); rep.Events != before.Events+2 {
		t.Fatalf("after recording on: %d events", rep.Events)
	}
}

// TestRestoreRefusesWhatIsNoLedger: a file that is not a SQLite database, a SQLite database
// that is not a ledger, and a folder are refused, and the data directory stays empty.
func TestRestoreRefusesWhatIsNoLedger(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	text := filepath.Join(tmp, "notes.txt")
	os.WriteFile(text, []byte("not a database at all, but long enough to look like a file someone kept"), 0o600)
	other := filepath.Join(tmp, "other.db")
	db := rawDBAt(t, other)
	mustExec(t, db, "PRAGMA application_id = 12345", "CREATE TABLE t (x)")
	db.Close()
	for _, from := range []string{text, other, tmp, filepath.Join(tmp, "missing.db")} {
		dir := filepath.Join(t.TempDir(), "data")
		if _, err := Restore(ctx, from, dir); err == nil {
			t.Errorf("Restore(%s) succeeded", from)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 1 { // the lock file at most
			t.Errorf("Restore(%s) left %d files", from, len(entries))
		}
		if _, err := os.Stat(filepath.Join(dir, dbFileName)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Restore(%s) left a database", from)
		}
	}
}

// TestMigrationTakesABackup: opening a ledger whose schema is older than the program's
// copies it, as it was, to backups/ before the migrations run; a current ledger is not
// copied again.
func TestMigrationTakesABackup(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ms := listMigrations()
	db := rawDBAt(t, filepath.Join(dir, dbFileName))
	for {
		done, err := migrateOne(ctx, db, ms[:len(ms)-1])
		if err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
	}
	db.Close()
	s, err := Open(ctx, dir, Options{Now: testClock()})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	entries, err := os.ReadDir(filepath.Join(dir, backupDir))
	if err != nil || len(entries) != 1 {
		t.Fatalf("backups after a migration: %v %v", entries, err)
	}
	b := filepath.Join(dir, backupDir, entries[0].Name())
	if !strings.HasPrefix(entries[0].Name(), "ledger-v"+itoa(len(ms)-1)+"-") || fileMode(t, b) != 0o600 {
		t.Fatalf("backup %s, mode %04o", entries[0].Name(), fileMode(t, b))
	}
	bdb := rawDBAt(t, b)
	var version int
	if err := bdb.QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != len(ms)-1 {
		t.Fatalf("the backup is at schema version %d (%v), want %d", version, err, len(ms)-1)
	}
	bdb.Close()
	s, err = Open(ctx, dir, Options{Now: testClock()})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if entries, _ := os.ReadDir(filepath.Join(dir, backupDir)); len(entries) != 1 {
		t.Fatalf("a current ledger was copied again: %d backups", len(entries))
	}
}

// rawDBAt opens the SQLite file at path directly.
func rawDBAt(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func itoa(n int) string { return strconv.Itoa(n) }
