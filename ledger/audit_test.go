package ledger

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditFindsTampering changes a ledger behind the program's back, one way per row, and
// checks that the audit names the right event or table.
func TestAuditFindsTampering(t *testing.T) {
	tests := []struct {
		desc      string
		tamper    []string
		wantSeq   int64
		wantTable string
		wantWords string
	}{
		{
			desc:      "a payload byte changed",
			tamper:    []string{"DROP TRIGGER events_no_update", `UPDATE events SET payload = replace(payload, '"n":2', '"n":3') WHERE seq = 6`},
			wantSeq:   6,
			wantWords: "changed after it was signed",
		},
		{
			desc:      "a row deleted",
			tamper:    []string{"DROP TRIGGER events_no_delete", "DELETE FROM events WHERE seq = 4"},
			wantSeq:   4,
			wantWords: "missing",
		},
		{
			desc: "two rows swapped",
			tamper: []string{
				"DROP TRIGGER events_no_update",
				"UPDATE events SET seq = 100 WHERE seq = 3",
				"UPDATE events SET seq = 3 WHERE seq = 5",
				"UPDATE events SET seq = 5 WHERE seq = 100",
			},
			wantSeq:   3,
			wantWords: "prev link",
		},
		{
			desc: "a signature replaced by another event's",
			tamper: []string{
				"DROP TRIGGER events_no_update",
				"UPDATE events SET sig = (SELECT sig FROM events WHERE seq = 2) WHERE seq = 7",
			},
			wantSeq:   7,
			wantWords: "signature does not verify",
		},
		{
			desc: "the key member swapped for another valid key id",
			tamper: []string{
				"DROP TRIGGER events_no_update",
				"UPDATE events SET key = (SELECT id FROM keys ORDER BY seq DESC LIMIT 1) WHERE seq = 5",
			},
			wantSeq:   5,
			wantWords: "signed with key",
		},
		{
			desc:      "a projection row edited",
			tamper:    []string{"UPDATE users SET role = 'operator' WHERE name = 'bob'"},
			wantTable: "users",
			wantWords: `role is "operator" in the store but "auditor" when rebuilt`,
		},
		{
			desc:      "a projection row added",
			tamper:    []string{"INSERT INTO users (name, role, seq, at) VALUES ('zed', 'operator', 3, '2026-11-30T10:00:00.000Z')"},
			wantTable: "users",
			wantWords: "added behind the program's back",
		},
		{
			desc:      "a projection row deleted",
			tamper:    []string{"PRAGMA foreign_keys = OFF", "DELETE FROM users WHERE name = 'bob'"},
			wantTable: "users",
			wantWords: "missing from the store",
		},
		{
			desc:      "a blob edited",
			tamper:    []string{"DROP TRIGGER blobs_no_update", "UPDATE blobs SET data = CAST('the other words' AS BLOB)"},
			wantSeq:   10,
			wantTable: "blobs",
			wantWords: "do not match its SHA-256",
		},
		{
			desc:      "a blob deleted",
			tamper:    []string{"DROP TRIGGER blobs_no_delete", "DELETE FROM blobs"},
			wantSeq:   10,
			wantTable: "blobs",
			wantWords: "not stored",
		},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			s, dir := buildLedger(t)
			mustExec(t, rawDB(t, dir), tt.tamper...)
			rep, err := s.Audit(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK || len(rep.Problems) == 0 {
				t.Fatalf("audit passed a tampered ledger")
			}
			first := rep.Problems[0]
			if first.Seq != tt.wantSeq || first.Table != tt.wantTable || !strings.Contains(first.Problem, tt.wantWords) {
				t.Fatalf("first problem %+v; want seq %d, table %q, words %q (all: %+v)", first, tt.wantSeq, tt.wantTable, tt.wantWords, rep.Problems)
			}
		})
	}
}

// buildLedger makes a ledger of 10 events: 1 key.created, 2 user.added (alice operator, bob
// auditor) at 2 and 3, notes 4..8 (n 0..4), a key rotation at 9, a note with a blob at 10
// and a note at 11.
func buildLedger(t *testing.T) (*Store, string) {
	t.Helper()
	s, dir := openTest(t)
	ctx := context.Background()
	if _, err := s.AddUser(ctx, "system", "alice", RoleOperator); err != nil {
		t.Fatal(err)
	}
	flushed(t, s)
	if _, err := s.AddUser(ctx, "system", "bob", RoleAuditor); err != nil {
		t.Fatal(err)
	}
	flushed(t, s)
	if _, err := s.recordDrafts(ctx, "user:alice", noteDrafts(5)[:4]...); err != nil {
		t.Fatal(err)
	}
	flushed(t, s)
	if _, err := s.recordDrafts(ctx, "user:alice", noteDrafts(5)[4:]...); err != nil {
		t.Fatal(err)
	}
	flushed(t, s)
	if _, err := s.RotateKey(ctx); err != nil {
		t.Fatal(err)
	}
	flushed(t, s)
	if _, err := s.recordDrafts(ctx, "system", Draft{Type: "note.added", Payload: map[string]string{"page": "p"}, Blobs: [][]byte{[]byte("the words")}}); err != nil {
		t.Fatal(err)
	}
	flushed(t, s)
	if _, err := s.recordDrafts(ctx, "system", noteDrafts(1)...); err != nil {
		t.Fatal(err)
	}
	flushed(t, s)
	rep := mustAuditOK(t, s)
	if rep.Events != 11 {
		t.Fatalf("built %d events, want 11", rep.Events)
	}
	return s, dir
}

func TestAuditReportsHead(t *testing.T) {
	s, _ := buildLedger(t)
	rep := mustAuditOK(t, s)
	evs, _ := s.Events(context.Background(), 10, 1)
	if rep.Head != evs[0].Hash || rep.Problems == nil {
		t.Fatalf("head %s, want %s; problems %v (must be an empty list, not null)", rep.Head, evs[0].Hash, rep.Problems)
	}
}

func TestExportAuditRoundTrip(t *testing.T) {
	s, _ := buildLedger(t)
	ctx := context.Background()
	var export, keys bytes.Buffer
	if err := s.Export(ctx, &export); err != nil {
		t.Fatal(err)
	}
	set, _ := s.Keys(ctx)
	if len(set.Keys) != 2 {
		t.Fatalf("want 2 keys after one rotation, got %d", len(set.Keys))
	}
	writeJSON(t, &keys, set)
	rep, err := AuditExport(ctx, bytes.NewReader(export.Bytes()), bytes.NewReader(keys.Bytes()))
	if err != nil || !rep.OK || rep.Events != 11 {
		t.Fatalf("offline audit of a good export: %+v, %v", rep, err)
	}
	lines := strings.SplitAfter(export.String(), "\n")
	if !strings.HasPrefix(lines[0], `{"v":1,"seq":1,"prev":"0000`) || !strings.Contains(lines[0], `"type":"key.created","key":"`) {
		t.Fatalf("member order not as documented: %s", lines[0])
	}
	if !strings.Contains(export.String(), `note <&> é`) {
		t.Errorf("export escapes HTML characters or non-ASCII: %s", lines[3])
	}

	oneKey := KeySet{Keys: set.Keys[:1]}
	var firstKeyOnly bytes.Buffer
	writeJSON(t, &firstKeyOnly, oneKey)
	cases := []struct {
		desc    string
		export  string
		keys    []byte
		wantSeq int64
		words   string
	}{
		{"payload edited", strings.Replace(export.String(), `"n":2`, `"n":3`, 1), keys.Bytes(), 6, "changed after it was signed"},
		{"line removed", strings.Join(append(append([]string{}, lines[:4]...), lines[5:]...), ""), keys.Bytes(), 5, "missing"},
		{"lines swapped", lines[0] + lines[1] + lines[3] + lines[2] + strings.Join(lines[4:], ""), keys.Bytes(), 3, "event 3 is missing"},
		{"garbage line", lines[0] + "{not json\n" + strings.Join(lines[1:], ""), keys.Bytes(), 2, "line 2"},
		{"rotated key not in keys file", export.String(), firstKeyOnly.Bytes(), 9, "not in the keys file"},
		{"empty export", "", keys.Bytes(), 0, "no events"},
		{"tail cut in the middle of the last line", strings.Join(lines[:10], "") + lines[10][:len(lines[10])/2], keys.Bytes(), 11, "line 11"},
		{"a seq duplicated", strings.Join(lines[:5], "") + lines[4] + strings.Join(lines[5:], ""), keys.Bytes(), 5, "out of order"},
		{"the last event re-signed under a key no key.rotated introduced", strings.Join(lines[:10], "") + forgeLine(t, lines[10]), keys.Bytes(), 11, "the key current at this point of the chain is"},
		{"an event naming the key that enters only later", strings.Replace(export.String(), lines[5], strings.Replace(lines[5], `"key":"`+set.Keys[0].ID, `"key":"`+set.Keys[1].ID, 1), 1), keys.Bytes(), 6, "signed with key " + set.Keys[1].ID},
	}
	for _, c := range cases {
		t.Run(c.desc, func(t *testing.T) {
			rep, err := AuditExport(ctx, strings.NewReader(c.export), bytes.NewReader(c.keys))
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK || rep.Problems[0].Seq != c.wantSeq || !strings.Contains(rep.Problems[0].Problem, c.words) {
				t.Fatalf("got %+v; want first problem at %d with %q", rep.Problems, c.wantSeq, c.words)
			}
		})
	}
	// A tail cut after a whole line that keeps every key.rotated is a shorter chain that
	// holds: the export and keys alone cannot show it, so the report's event count, head and
	// root are what an auditor compares with a checkpoint (docs/chain.md).
	cut, err := AuditExport(ctx, strings.NewReader(strings.Join(lines[:10], "")), bytes.NewReader(keys.Bytes()))
	if err != nil || !cut.OK || cut.Events != 10 || cut.Head == rep.Head || !strings.Contains(lines[9], `"hash":"`+cut.Head+`"`) {
		t.Fatalf("export cut after event 10: %+v %v; want a holding chain of 10 whose head is event 10's hash, not %s", cut, err, rep.Head)
	}
	// A cut that drops the key.rotated of event 9 leaves a key of the keys file unintroduced.
	cut, err = AuditExport(ctx, strings.NewReader(strings.Join(lines[:8], "")), bytes.NewReader(keys.Bytes()))
	if err != nil || cut.OK || !strings.Contains(cut.Problems[0].Problem, "never entered") {
		t.Fatalf("export cut before the rotation: %+v %v; want the lost key named", cut, err)
	}
	if _, err := AuditExport(ctx, &export, strings.NewReader(`{"keys":[{"id":"00","alg":"Ed25519","public_key":"AAAA"}]}`)); err == nil {
		t.Error("a bad keys file was accepted")
	}
}

func TestEventsPaging(t *testing.T) {
	s, _ := buildLedger(t)
	ctx := context.Background()
	evs, err := s.Events(ctx, 3, 4)
	if err != nil || len(evs) != 4 || evs[0].Seq != 4 || evs[3].Seq != 7 {
		t.Fatalf("Events(3, 4): %v, %v", evs, err)
	}
	if evs, _ := s.Events(ctx, 100, 10); len(evs) != 0 || evs == nil {
		t.Errorf("past the head: %v, want an empty list", evs)
	}
	for _, bad := range [][2]int64{{0, 0}, {0, 1001}, {-1, 10}} {
		if _, err := s.Events(ctx, bad[0], int(bad[1])); err == nil {
			t.Errorf("Events(%d, %d) accepted", bad[0], bad[1])
		}
	}
}

// forgeLine re-signs an exported event under a new key that the chain never introduced,
// naming that key, with a hash that matches its contents.
func forgeLine(t *testing.T, line string) string {
	t.Helper()
	ev, err := ParseEvent([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	ev.Key = KeyID(pub)
	d, err := ev.digest()
	if err != nil {
		t.Fatal(err)
	}
	ev.Hash = hex.EncodeToString(d[:])
	ev.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(priv, d[:]))
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// TestReplayDatabaseSettings checks the throwaway database of the audit's replay: no journal,
// no fsync, foreign keys enforced as in the store, its page cache bounded at 64 MiB, an
// exclusive lock, named ledger-audit-*.db, and nothing left behind once it is closed.
func TestReplayDatabaseSettings(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	rp, err := newReplay(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"journal_mode": "off", "synchronous": "0", "foreign_keys": "1", "cache_size": "-65536", "locking_mode": "exclusive", "temp_store": "2"}
	for name, w := range want {
		var got string
		if err := rp.db.QueryRowContext(ctx, "PRAGMA "+name).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", name, err)
		}
		if got != w {
			t.Errorf("PRAGMA %s = %s, want %s", name, got, w)
		}
	}
	path := rp.file.path
	if m, _ := filepath.Match(filepath.Join(dir, "ledger-audit-*.db"), path); !m {
		t.Errorf("the replay's database is %s; want ledger-audit-*.db in %s", path, dir)
	}
	rp.close()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%s still holds %v after close", dir, left)
	}
}

// flushed asks s for its checkpoint, which signs one of the head when the latest is older
// (checkpoints are batched): buildLedger so has one after each of its write transactions,
// at known sizes.
func flushed(t *testing.T, s *Store) {
	t.Helper()
	if _, err := s.Checkpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
}
