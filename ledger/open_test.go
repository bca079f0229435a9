package ledger

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// openClosed opens and closes a new ledger in dir, leaving its files behind.
func openClosed(t *testing.T, dir string) {
	t.Helper()
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.recordDrafts(context.Background(), "system", noteDrafts(1)...); err != nil {
		t.Fatal(err)
	}
	s.Close()
}

func TestOpenRefusesBadFiles(t *testing.T) {
	tests := []struct {
		desc  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{
			desc: "random bytes where the database should be",
			setup: func(t *testing.T, dir string) {
				b := make([]byte, 8192)
				rand.Read(b)
				writeFile(t, filepath.Join(dir, dbFileName), b, 0o600)
			},
			want: "not a SQLite database or it is damaged",
		},
		{
			desc: "a text file",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, dbFileName), []byte(strings.Repeat("SQLite format 2\n", 300)), 0o600)
			},
			want: "not a SQLite database or it is damaged",
		},
		{
			desc: "a SQLite database of another program",
			setup: func(t *testing.T, dir string) {
				db, err := sql.Open("sqlite", filepath.Join(dir, dbFileName))
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				mustExec(t, db, "CREATE TABLE bookmarks (url TEXT)", "INSERT INTO bookmarks VALUES ('https://example.org/')")
			},
			want: "another program",
		},
		{
			desc: "a ledger from a newer version",
			setup: func(t *testing.T, dir string) {
				openClosed(t, dir)
				mustExec(t, rawDB(t, dir), "PRAGMA user_version = 999")
			},
			want: "newer than this program's",
		},
		{
			desc: "a key file others may read",
			setup: func(t *testing.T, dir string) {
				openClosed(t, dir)
				if err := os.Chmod(filepath.Join(dir, keyFileName), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			want: "chmod 600",
		},
		{
			desc: "a key file missing while the chain has events",
			setup: func(t *testing.T, dir string) {
				openClosed(t, dir)
				os.Remove(filepath.Join(dir, keyFileName))
			},
			want: "is missing, but the ledger already has events",
		},
		{
			desc: "a key file that is not the chain's key",
			setup: func(t *testing.T, dir string) {
				openClosed(t, dir)
				g, _ := newSigner()
				if err := writeKeyFile(filepath.Join(dir, keyFileName), g, false); err != nil {
					t.Fatal(err)
				}
			},
			want: "but the chain's current key is",
		},
		{
			desc: "a damaged key file",
			setup: func(t *testing.T, dir string) {
				openClosed(t, dir)
				writeFile(t, filepath.Join(dir, keyFileName), []byte("not a key\n"), 0o600)
			},
			want: "damaged",
		},
		{
			desc: "an unreadable key file (a directory in its place)",
			setup: func(t *testing.T, dir string) {
				openClosed(t, dir)
				os.Remove(filepath.Join(dir, keyFileName))
				os.Mkdir(filepath.Join(dir, keyFileName), 0o700)
			},
			want: "read signing key",
		},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			dir := t.TempDir()
			tt.setup(t, dir)
			before := snapshot(t, dir)
			s, err := Open(context.Background(), dir, Options{})
			if err == nil {
				s.Close()
				t.Fatal("Open accepted it")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not say %q", err, tt.want)
			}
			if after := snapshot(t, dir); after[dbFileName] != before[dbFileName] {
				t.Fatalf("Open changed the database it refused")
			}
		})
	}
}

// snapshot reads the regular files of dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
			m[e.Name()] = string(b)
		}
	}
	return m
}

func writeFile(t *testing.T, path string, b []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, b, mode); err != nil {
		t.Fatal(err)
	}
}

func TestReopenKeepsKeyAndChain(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	openClosed(t, dir)
	st, err := os.Stat(filepath.Join(dir, keyFileName))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v; want mode 0600", err)
	}
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.recordDrafts(ctx, "system", noteDrafts(1)...); err != nil {
		t.Fatal(err)
	}
	if rep := mustAuditOK(t, s); rep.Events != 3 {
		t.Fatalf("%d events after reopening, want 3 (one key.created only)", rep.Events)
	}
}

func TestFullDiskLosesNothing(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := Open(ctx, dir, Options{Now: testClock(), MaxPages: 128})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var acked int64
	var fullErr error
	body := make([]byte, 20000)
	for i := 0; i < 100; i++ {
		rand.Read(body)
		evs, err := s.recordDrafts(ctx, "system", Draft{Type: "note.added", Payload: map[string]int{"i": i}, Blobs: [][]byte{body}})
		if err != nil {
			fullErr = err
			break
		}
		acked = evs[0].Seq
	}
	if !errors.Is(fullErr, ErrDiskFull) || fullErr.Error() != ErrDiskFull.Error() {
		t.Fatalf("filling the database gave %v, want a clear disk-full error", fullErr)
	}
	if acked < 2 {
		t.Fatalf("only %d events fit; the limit is too small for the test", acked)
	}
	rep := mustAuditOK(t, s)
	if rep.Events != acked {
		t.Fatalf("after the full disk the ledger has %d events, want the %d acknowledged", rep.Events, acked)
	}
	if _, err := s.recordDrafts(ctx, "system", noteDrafts(1)...); err != nil {
		t.Fatalf("a small event after the full disk: %v", err)
	}
}

func TestUsersAndTokens(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	tok, err := s.AddUser(ctx, "system", "alice", RoleOperator)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tok, tokenPrefix) || len(tok) != 47 {
		t.Fatalf("token %q", tok)
	}
	u, err := s.Authenticate(ctx, tok)
	if err != nil || u != (User{"alice", RoleOperator}) || !u.CanWrite() {
		t.Fatalf("Authenticate: %+v, %v", u, err)
	}
	var stored string
	if err := s.rdb.QueryRow("SELECT token_hash FROM credentials WHERE name = 'alice'").Scan(&stored); err != nil || stored != tokenHash(tok) {
		t.Fatalf("stored %q, %v: want only the token's SHA-256", stored, err)
	}
	var export strings.Builder
	if err := s.Export(ctx, &export); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(export.String(), stored) || strings.Contains(export.String(), tok) {
		t.Fatal("the export holds a credential")
	}
	tests := []struct {
		desc       string
		name, role string
		want       error
	}{
		{"name taken", "alice", RoleAuditor, ErrConflict},
		{"unknown role", "carol", "admin", ErrInvalid},
		{"empty name", "", RoleAuditor, ErrInvalid},
		{"name with slash", "a/b", RoleAuditor, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			if _, err := s.AddUser(ctx, "system", tt.name, tt.role); !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
	for _, bad := range []string{"", "evl_", tok + "x", tokenPrefix + strings.Repeat("A", 43), strings.ToUpper(tok)} {
		if _, err := s.Authenticate(ctx, bad); !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("Authenticate(%q): %v, want ErrUnauthenticated", bad, err)
		}
	}
	mustAuditOK(t, s)
}

func TestRotateKey(t *testing.T) {
	s, dir := openTest(t)
	ctx := context.Background()
	first := s.signer.id
	second, err := s.RotateKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := s.recordDrafts(ctx, "system", noteDrafts(1)...)
	if err != nil {
		t.Fatal(err)
	}
	if evs[0].Key != second || second == first {
		t.Fatalf("after rotation signed with %s, want the new key %s", evs[0].Key, second)
	}
	rot, _ := s.Events(ctx, 1, 1)
	if rot[0].Type != typeKeyRotated || rot[0].Key != first {
		t.Fatalf("rotation event %+v must be signed by the old key %s", rot[0], first)
	}
	if _, err := os.Stat(filepath.Join(dir, keyFileName+newKeySuffix)); !os.IsNotExist(err) {
		t.Errorf("the pending key file is left over: %v", err)
	}
	set, _ := s.Keys(ctx)
	if len(set.Keys) != 2 || set.Keys[0].ID != first || set.Keys[1].ID != second {
		t.Fatalf("keys %+v, want %s then %s", set, first, second)
	}
	mustAuditOK(t, s)
}

func TestRotationInterruptedAfterCommit(t *testing.T) {
	s, dir := openTest(t)
	ctx := context.Background()
	path := filepath.Join(dir, keyFileName)
	old, _ := os.ReadFile(path)
	newID, err := s.RotateKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Put the files back to "event committed, key file not yet renamed".
	cur, _ := os.ReadFile(path)
	writeFile(t, path+newKeySuffix, cur, 0o600)
	writeFile(t, path, old, 0o600)
	s, err = Open(ctx, dir, Options{})
	if err != nil {
		t.Fatalf("Open after an interrupted rotation: %v", err)
	}
	defer s.Close()
	if s.signer.id != newID {
		t.Fatalf("signing with %s, want %s", s.signer.id, newID)
	}
	if _, err := s.recordDrafts(ctx, "system", noteDrafts(1)...); err != nil {
		t.Fatal(err)
	}
	mustAuditOK(t, s)
}

// TestDatabaseFilesAreOwnerOnly checks that the database and its -wal and -shm files, which
// hold token and password hashes, are readable by their owner only, whatever the umask, and
// that a ledger whose files others may read is narrowed when it is opened.
func TestDatabaseFilesAreOwnerOnly(t *testing.T) {
	dbPath := func(dir string) string { return filepath.Join(dir, dbFileName) }
	tests := []struct {
		desc  string
		umask int
		setup func(t *testing.T, dir string)
	}{
		{"a new ledger, umask 022", 0o022, nil},
		{"a new ledger, umask 000", 0o000, nil},
		{"a new ledger, umask 077", 0o077, nil},
		{"an existing ledger whose database others may read", 0o022, func(t *testing.T, dir string) {
			openClosed(t, dir)
			if err := os.Chmod(dbPath(dir), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"an existing ledger in use, with a -wal and -shm others may read", 0o000, func(t *testing.T, dir string) {
			openClosed(t, dir)
			if err := os.Chmod(dbPath(dir), 0o666); err != nil {
				t.Fatal(err)
			}
			// Another connection keeps the -wal and -shm, made with the database's mode.
			mustExec(t, rawDB(t, dir), "SELECT count(*) FROM events")
			for _, suffix := range []string{"-wal", "-shm"} {
				if st, err := os.Stat(dbPath(dir) + suffix); err != nil || st.Mode().Perm() != 0o666 {
					t.Fatalf("setup: %s: %v, %v; want mode 0666", suffix, st, err)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			old := syscall.Umask(tt.umask)
			t.Cleanup(func() { syscall.Umask(old) })
			dir := filepath.Join(t.TempDir(), "data")
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			s, err := Open(context.Background(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.recordDrafts(context.Background(), "system", noteDrafts(1)...); err != nil {
				t.Fatal(err)
			}
			want := map[string]os.FileMode{
				dir:                             0o700,
				dbPath(dir):                     0o600,
				dbPath(dir) + "-wal":            0o600,
				dbPath(dir) + "-shm":            0o600,
				filepath.Join(dir, keyFileName): 0o600,
			}
			for p, mode := range want {
				st, err := os.Stat(p)
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				if st.Mode().Perm() != mode {
					t.Errorf("%s has mode %#o, want %#o", filepath.Base(p), st.Mode().Perm(), mode)
				}
			}
		})
	}
}
