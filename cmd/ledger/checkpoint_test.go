package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditorCommands runs what an auditor does: keep a checkpoint and the keys, come back
// later, audit against them, check a proof bundle, all on a copy without the signing key
// whose database is read-only; then a cut tail is caught.
func TestAuditorCommands(t *testing.T) {
	data := t.TempDir()
	if r := ledgerCmd(t, data, "user", "add", "alice", "--role", "operator"); r.code != 0 {
		t.Fatal(r)
	}
	keep := t.TempDir()
	cp := ledgerCmd(t, data, "checkpoint")
	keys := ledgerCmd(t, data, "keys")
	if cp.code != 0 || !strings.Contains(cp.stdout, "\n2\n") || !strings.Contains(cp.stdout, "\n\n— evidence-ledger/") {
		t.Fatalf("checkpoint: %+v", cp)
	}
	if keys.code != 0 || !strings.Contains(keys.stdout, `"note_key":"evidence-ledger/`) {
		t.Fatalf("keys: %+v", keys)
	}
	cpFile, keysFile := filepath.Join(keep, "checkpoint"), filepath.Join(keep, "keys.json")
	os.WriteFile(cpFile, []byte(cp.stdout), 0o644)
	os.WriteFile(keysFile, []byte(keys.stdout), 0o644)
	if r := ledgerCmd(t, data, "user", "add", "bob", "--role", "auditor"); r.code != 0 {
		t.Fatal(r)
	}

	// The auditor's copy: no signing key, a read-only database.
	ro := t.TempDir()
	db, err := os.ReadFile(filepath.Join(data, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ro, "ledger.db"), db, 0o444); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"audit", "--checkpoint", cpFile, "--keys", keysFile},
		{"export"},
		{"keys"},
		{"checkpoint"},
		{"proof", "inclusion", "--seq", "2"},
		{"proof", "consistency", "--from", "2"},
		{"proof", "bundle", "--seq", "3"},
	} {
		r := ledgerCmd(t, ro, args...)
		if r.code != 0 || r.stdout == "" {
			t.Fatalf("%v on a read-only copy without the key: %+v", args, r)
		}
		if args[0] == "proof" && args[1] == "inclusion" {
			var p struct {
				Seq, Size int64
				Proof     []string
			}
			if err := json.Unmarshal([]byte(r.stdout), &p); err != nil || p.Seq != 2 || p.Size != 3 || len(p.Proof) != 2 {
				t.Fatalf("inclusion proof: %s %v", r.stdout, err)
			}
		}
		if args[0] == "proof" && args[1] == "bundle" {
			bundle := filepath.Join(keep, "bundle.tlog-proof")
			os.WriteFile(bundle, []byte(r.stdout), 0o644)
			if v := ledgerCmd(t, ro, "audit", "--bundle", bundle, "--keys", keysFile); v.code != 0 || !strings.Contains(v.stdout, "event 3 (user.added)") {
				t.Fatalf("audit --bundle: %+v", v)
			}
		}
	}
	if st, _ := os.Stat(filepath.Join(ro, "ledger.db")); st.Mode().Perm() != 0o444 {
		t.Fatalf("the audit changed the database's mode to %v", st.Mode())
	}
	if _, err := os.Stat(filepath.Join(ro, "signing.key")); err == nil {
		t.Fatal("a read-only command made a signing key")
	}

	// Cut the tail behind the program's back: the kept checkpoint catches it.
	raw, err := sql.Open("sqlite", filepath.Join(data, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, q := range []string{"DROP TRIGGER events_no_delete", "DROP TRIGGER checkpoints_no_delete", "DELETE FROM events WHERE seq > 1", "DELETE FROM checkpoints WHERE size > 1", "DELETE FROM tree_hashes WHERE idx > 0"} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	raw.Close()
	r := ledgerCmd(t, data, "audit", "--checkpoint", cpFile, "--keys", keysFile)
	if r.code != 1 || !strings.Contains(r.stdout, "the log has only 1 event(s), but the checkpoint you hold covers 2") {
		t.Fatalf("audit of a cut tail against the checkpoint: %+v", r)
	}
	if r := ledgerCmd(t, data, "audit", "--checkpoint", cpFile); r.code != 2 {
		t.Fatalf("--checkpoint without --keys: %+v", r)
	}
}

// TestAuditFileLimits: a checkpoint file at its limit is read (and refused as not a
// checkpoint); one byte more is refused for its size, before anything else.
func TestAuditFileLimits(t *testing.T) {
	data := t.TempDir()
	if r := ledgerCmd(t, data, "user", "add", "alice", "--role", "operator"); r.code != 0 {
		t.Fatal(r)
	}
	keys := filepath.Join(t.TempDir(), "keys.json")
	os.WriteFile(keys, []byte(ledgerCmd(t, data, "keys").stdout), 0o644)
	at := filepath.Join(t.TempDir(), "at")
	past := filepath.Join(t.TempDir(), "past")
	os.WriteFile(at, []byte(strings.Repeat("x", maxCheckpointFile)), 0o644)
	os.WriteFile(past, []byte(strings.Repeat("x", maxCheckpointFile+1)), 0o644)
	if r := ledgerCmd(t, data, "audit", "--checkpoint", at, "--keys", keys); r.code != 1 || !strings.Contains(r.stderr, "your checkpoint") {
		t.Fatalf("a checkpoint file at the limit: %+v", r)
	}
	if r := ledgerCmd(t, data, "audit", "--checkpoint", past, "--keys", keys); r.code != 1 || !strings.Contains(r.stderr, "more than 1048576 bytes") {
		t.Fatalf("a checkpoint file past the limit: %+v", r)
	}
	if r := ledgerCmd(t, data, "audit", "--checkpoint", at, "--keys", past); r.code != 1 || !strings.Contains(r.stderr, "keys file") {
		t.Fatalf("a keys file past the limit: %+v", r)
	}
}
