package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"evidenceledger/ledger"
)

// TestBackupAndRestoreCommands: `ledger backup` copies a ledger that another process holds
// open for writing (as a server does), without the key unless asked; `ledger restore` puts
// it in place in an empty data directory and audits it to the same head, and refuses a
// directory that holds a ledger.
func TestBackupAndRestoreCommands(t *testing.T) {
	data := t.TempDir()
	if r := ledgerCmd(t, data, "import", "../../testdata/pastes/labelled-list.txt"); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	head := regexp.MustCompile(`(?m)^Head: ([0-9a-f]{64})$`)
	audit := ledgerCmd(t, data, "audit")
	want := head.FindStringSubmatch(audit.stdout)
	if audit.code != 0 || want == nil {
		t.Fatalf("audit: %+v", audit)
	}
	// The ledger stays open for writing while it is backed up.
	s, err := ledger.Open(context.Background(), data, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	out := filepath.Join(t.TempDir(), "ledger.backup")
	r := ledgerCmd(t, data, "backup", "--out", out)
	if r.code != 0 || !strings.Contains(r.stdout, "(head "+want[1]+")") || !strings.Contains(r.stdout, "not in the backup") {
		t.Fatalf("backup: %+v", r)
	}
	if _, err := os.Stat(out + ledger.BackupKeySuffix); err == nil {
		t.Fatal("a backup without --with-key wrote the key")
	}
	if r := ledgerCmd(t, data, "backup", "--out", out); r.code != 1 || !strings.Contains(r.stderr, "already exists") {
		t.Fatalf("a backup over a file: %+v", r)
	}
	if r := ledgerCmd(t, data, "backup"); r.code != 2 {
		t.Fatalf("a backup without --out: %+v", r)
	}
	withKey := filepath.Join(t.TempDir(), "with-key.backup")
	if r := ledgerCmd(t, data, "backup", "--out", withKey, "--with-key"); r.code != 0 || !strings.Contains(r.stdout, withKey+ledger.BackupKeySuffix) {
		t.Fatalf("backup --with-key: %+v", r)
	}

	restored := filepath.Join(t.TempDir(), "restored")
	r = ledgerCmd(t, restored, "restore", out)
	got := head.FindStringSubmatch(r.stdout)
	if r.code != 0 || got == nil || got[1] != want[1] || !strings.Contains(r.stdout, "The chain holds") || !strings.Contains(r.stdout, "has no signing key") {
		t.Fatalf("restore: %+v", r)
	}
	if r := ledgerCmd(t, restored, "restore", withKey); r.code != 1 || !strings.Contains(r.stderr, "never overwrites") {
		t.Fatalf("a restore over a ledger: %+v", r)
	}
	if r := ledgerCmd(t, data, "restore", withKey); r.code != 1 || !strings.Contains(r.stderr, "never overwrites") {
		t.Fatalf("a restore over the live ledger: %+v", r)
	}
	keyed := filepath.Join(t.TempDir(), "keyed")
	if r := ledgerCmd(t, keyed, "restore", withKey); r.code != 0 || strings.Contains(r.stdout, "has no signing key") {
		t.Fatalf("restore with the key: %+v", r)
	}
	// The ledger restored with its key records on.
	if r := ledgerCmd(t, keyed, "import", "../../testdata/pastes/labelled-list.txt"); r.code != 0 {
		t.Fatalf("import into the restored ledger: %+v", r)
	}
	if r := ledgerCmd(t, keyed, "audit", "--full"); r.code != 0 || !strings.Contains(r.stdout, "Audit: full") {
		t.Fatalf("audit of the restored ledger after an import: %+v", r)
	}
}
