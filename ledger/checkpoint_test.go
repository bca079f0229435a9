package ledger

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"filippo.io/torchwood"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"
)

// mustB64 decodes standard base64 or fails the test.
func mustB64(t testing.TB, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatalf("base64 %q: %v", s, err)
	}
	return b
}

func b64List(t testing.TB, ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = mustB64(t, s)
	}
	return out
}

// keysOf returns a store's keys document as an auditor would keep it, parsed.
func keysOf(t testing.TB, s *Store) (*KeyHistory, []byte) {
	t.Helper()
	set, err := s.Keys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	writeJSON(t, &b, set)
	h, err := ParseKeys(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return h, b.Bytes()
}

func exportOf(t testing.TB, s *Store) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := s.Export(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestProofsVerifyWithTransparencyDev checks every inclusion proof and every consistency
// proof of a 37-event ledger with the transparency-dev verifier, an implementation that is
// not the one that made them, against roots that a compact range recomputes from the export.
func TestProofsVerifyWithTransparencyDev(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	for i := 0; i < 6; i++ {
		if _, err := s.recordDrafts(ctx, "system", noteDrafts(i+1)...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.RotateKey(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.recordDrafts(ctx, "system", noteDrafts(14)...); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(exportOf(t, s))), "\n")
	n := int64(len(lines))
	if n != 37 {
		t.Fatalf("%d events, want 37", n)
	}
	// Roots of every size, recomputed from the exported hashes alone.
	roots := map[int64][]byte{}
	leaves := make([][]byte, n)
	r := rfc6962Range.NewEmptyRange(0)
	for i, l := range lines {
		ev, err := ParseEvent([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := leafData(&ev)
		leaves[i] = rfc6962.DefaultHasher.HashLeaf(raw)
		r.Append(leaves[i], nil)
		roots[int64(i+1)], _ = r.GetRootHash(nil)
	}
	for size := int64(1); size <= n; size++ {
		for seq := int64(1); seq <= size; seq++ {
			p, err := s.InclusionProof(ctx, seq, size)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(mustB64(t, p.Root), roots[size]) || !bytes.Equal(mustB64(t, p.Leaf), leaves[seq-1]) {
				t.Fatalf("inclusion %d in %d: root or leaf differ from the recomputed ones", seq, size)
			}
			if err := proof.VerifyInclusion(rfc6962.DefaultHasher, uint64(seq-1), uint64(size), leaves[seq-1], b64List(t, p.Proof), roots[size]); err != nil {
				t.Fatalf("inclusion of %d in %d does not verify: %v", seq, size, err)
			}
		}
		for from := int64(1); from <= size; from++ {
			p, err := s.ConsistencyProof(ctx, from, size)
			if err != nil {
				t.Fatal(err)
			}
			if err := proof.VerifyConsistency(rfc6962.DefaultHasher, uint64(from), uint64(size), b64List(t, p.Proof), roots[from], roots[size]); err != nil {
				t.Fatalf("consistency %d -> %d does not verify: %v", from, size, err)
			}
		}
	}
	for _, bad := range [][2]int64{{0, 5}, {6, 5}, {1, n + 1}, {-1, 3}} {
		if _, err := s.InclusionProof(ctx, bad[0], bad[1]); !errors.Is(err, ErrInvalid) {
			t.Errorf("InclusionProof(%d, %d): %v, want ErrInvalid", bad[0], bad[1], err)
		}
		if _, err := s.ConsistencyProof(ctx, bad[0], bad[1]); !errors.Is(err, ErrInvalid) {
			t.Errorf("ConsistencyProof(%d, %d): %v, want ErrInvalid", bad[0], bad[1], err)
		}
	}
	mustAuditOK(t, s)
}

// TestCheckpointIsASignedC2SPNote checks the latest checkpoint with note.Open and the
// verifier key `ledger keys` prints, and torchwood's checkpoint parser: origin, size, root.
func TestCheckpointIsASignedC2SPNote(t *testing.T) {
	s, _ := buildLedger(t)
	ctx := context.Background()
	cp, err := s.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := keysOf(t, s)
	if len(keys.NoteKeys) != 2 {
		t.Fatalf("note keys %v, want one per signing key", keys.NoteKeys)
	}
	// After the rotation, checkpoints are signed by the second key.
	v, err := note.NewVerifier(keys.NoteKeys[1])
	if err != nil {
		t.Fatal(err)
	}
	n, err := note.Open(cp.Note, note.VerifierList(v))
	if err != nil {
		t.Fatalf("note.Open: %v\n%s", err, cp.Note)
	}
	c, err := torchwood.ParseCheckpoint(n.Text)
	if err != nil {
		t.Fatal(err)
	}
	set, _ := s.Keys(ctx)
	if c.Origin != defaultOriginPrefix+set.Keys[0].ID || c.N != 11 || !strings.HasPrefix(keys.NoteKeys[1], c.Origin+"+") {
		t.Fatalf("checkpoint %q size %d; want origin from the first key, size 11", c.Origin, c.N)
	}
	rep := mustAuditOK(t, s)
	if rep.Root != base64.StdEncoding.EncodeToString(c.Hash[:]) {
		t.Fatalf("audit root %s, checkpoint root %x", rep.Root, c.Hash)
	}
	// buildLedger asks for a checkpoint after each of its 8 write transactions (11 events).
	var count int
	if err := s.rdb.QueryRow("SELECT count(*) FROM checkpoints").Scan(&count); err != nil || count != 8 {
		t.Fatalf("%d checkpoints (%v), want 8", count, err)
	}
}

func TestOriginIsConfigurableButNeverChanges(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := Open(ctx, dir, Options{Origin: "ledger.example.org/research"})
	if err != nil {
		t.Fatal(err)
	}
	cp, err := s.Checkpoint(ctx)
	if err != nil || !strings.HasPrefix(string(cp.Note), "ledger.example.org/research\n1\n") {
		t.Fatalf("checkpoint %q, %v", cp.Note, err)
	}
	s.Close()
	if _, err := Open(ctx, dir, Options{Origin: "other.example/x"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a changed origin: %v, want refused", err)
	}
	for _, bad := range []string{"two words", "a+b", "line\nbreak", strings.Repeat("x", 256)} {
		if _, err := Open(ctx, t.TempDir(), Options{Origin: bad}); !errors.Is(err, ErrInvalid) {
			t.Errorf("origin %q: %v, want refused", bad, err)
		}
	}
	if s, err = Open(ctx, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.recordDrafts(ctx, "system", noteDrafts(1)...); err != nil {
		t.Fatal(err)
	}
	if cp, _ := s.Checkpoint(ctx); !strings.HasPrefix(string(cp.Note), "ledger.example.org/research\n2\n") {
		t.Fatalf("the origin was not kept: %q", cp.Note)
	}
}

// auditorView is what an auditor kept earlier: a checkpoint and the keys file.
type auditorView struct {
	checkpoint []byte
	keys       *KeyHistory
	keysFile   []byte
}

func keep(t *testing.T, s *Store) auditorView {
	t.Helper()
	cp, err := s.Checkpoint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	k, kb := keysOf(t, s)
	return auditorView{checkpoint: cp.Note, keys: k, keysFile: kb}
}

// mustFailBoth audits s online and its export offline against what the auditor kept, and
// fails the test unless both fail with a problem containing words.
func mustFailBoth(t *testing.T, s *Store, a auditorView, words string) {
	t.Helper()
	ctx := context.Background()
	opts := AuditOptions{Checkpoint: a.checkpoint, Keys: a.keys}
	on, err := s.AuditWith(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	off, err := AuditExportWith(ctx, bytes.NewReader(exportOf(t, s)), opts)
	if err != nil {
		t.Fatal(err)
	}
	for name, rep := range map[string]Report{"online": on, "offline": off} {
		if rep.OK {
			t.Errorf("%s audit holds against the auditor's checkpoint", name)
			continue
		}
		found := false
		for _, p := range rep.Problems {
			found = found || strings.Contains(p.Problem, words)
		}
		if !found {
			t.Errorf("%s audit: no problem says %q: %+v", name, words, rep.Problems)
		}
	}
}

// TestAuditCatchesAWholesaleRewrite: whoever holds the data directory re-signs a whole new
// history with the current signing key, under the same origin, with a person's decision
// changed, no key rotation, and padded to the same number of events. The rewritten ledger
// audits clean by itself; an auditor with an earlier checkpoint catches it online and
// offline, and the offline audit also finds that a key of the keys file never entered.
func TestAuditCatchesAWholesaleRewrite(t *testing.T) {
	ctx := context.Background()
	s, dir := buildLedger(t)
	a := keep(t, s)
	origCP, _ := s.Checkpoint(ctx)
	s.Close()

	forged := t.TempDir()
	copyKey(t, dir, forged)
	f, err := Open(ctx, forged, Options{Now: testClock(), Origin: origCP.Origin})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.AddUser(ctx, "system", "alice", RoleOperator); err != nil {
		t.Fatal(err)
	}
	if _, err := f.AddUser(ctx, "system", "bob", RoleOperator); err != nil { // was auditor
		t.Fatal(err)
	}
	if _, err := f.recordDrafts(ctx, "user:alice", noteDrafts(8)...); err != nil {
		t.Fatal(err)
	}
	if rep := mustAuditOK(t, f); rep.Events != 11 {
		t.Fatalf("forged %d events, want 11", rep.Events)
	}
	// Its checkpoints verify under the auditor's note key for the second key.
	fcp, _ := f.Checkpoint(ctx)
	if _, err := OpenCheckpoint(fcp.Note, a.keys.NoteKeys, nil); err != nil {
		t.Fatalf("the forged checkpoint should verify under the stolen key: %v", err)
	}
	mustFailBoth(t, f, a, "does not extend the checkpoint you hold")
	off, _ := AuditExportWith(ctx, bytes.NewReader(exportOf(t, f)), AuditOptions{Keys: a.keys})
	if off.OK || !strings.Contains(off.Problems[0].Problem, "not in the keys file") && !strings.Contains(off.Problems[0].Problem, "introduces key") {
		t.Fatalf("offline audit with the keys file alone: %+v; want the key history refused", off.Problems)
	}
}

// TestAuditCatchesACutTail removes the last events (and their tree and checkpoints) behind
// the program's back; the shortened ledger's own audit could be made to hold, but not
// against the checkpoint an auditor kept.
func TestAuditCatchesACutTail(t *testing.T) {
	s, dir := buildLedger(t)
	a := keep(t, s)
	mustExec(t, rawDB(t, dir),
		"DROP TRIGGER events_no_delete", "DROP TRIGGER checkpoints_no_delete",
		"DELETE FROM events WHERE seq > 10", "DELETE FROM checkpoints WHERE size > 10",
		"DELETE FROM tree_hashes WHERE idx >= 18") // StoredHashIndex(0, 10): the hashes of leaf 10 on
	mustFailBoth(t, s, a, "the log has only 10 event(s), but the checkpoint you hold covers 11")
}

// TestAuditCatchesAFork copies a data directory and lets both copies go on: an auditor
// holding a checkpoint of one copy catches the other.
func TestAuditCatchesAFork(t *testing.T) {
	ctx := context.Background()
	s, dir := buildLedger(t)
	s.Close()
	other := t.TempDir()
	for _, name := range []string{dbFileName, keyFileName} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(other, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	open := func(d string) *Store {
		st, err := Open(ctx, d, Options{Now: testClock()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	left, right := open(dir), open(other)
	if _, err := left.recordDrafts(ctx, "system", Draft{Type: "note.added", Payload: map[string]string{"side": "left"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := right.recordDrafts(ctx, "system", Draft{Type: "note.added", Payload: map[string]string{"side": "right"}}, Draft{Type: "note.added", Payload: map[string]string{"more": "x"}}); err != nil {
		t.Fatal(err)
	}
	a := keep(t, left)
	mustAuditOK(t, right)
	mustFailBoth(t, right, a, "the history up to event 12 was rewritten, or this is a fork")

	// The honest continuation passes against the same checkpoint.
	if _, err := left.recordDrafts(ctx, "system", noteDrafts(3)...); err != nil {
		t.Fatal(err)
	}
	opts := AuditOptions{Checkpoint: a.checkpoint, Keys: a.keys}
	if rep, err := left.AuditWith(ctx, opts); err != nil || !rep.OK {
		t.Fatalf("online audit of the log that extends the checkpoint: %+v %v", rep, err)
	}
	if rep, err := AuditExportWith(ctx, bytes.NewReader(exportOf(t, left)), opts); err != nil || !rep.OK {
		t.Fatalf("offline audit of the log that extends the checkpoint: %+v %v", rep, err)
	}
}

func TestAuditRefusesACheckpointThatDoesNotVerify(t *testing.T) {
	s, _ := buildLedger(t)
	a := keep(t, s)
	other, _ := buildLedger(t)
	b := keep(t, other)
	ctx := context.Background()
	for name, opts := range map[string]AuditOptions{
		"another ledger's keys": {Checkpoint: a.checkpoint, Keys: b.keys},
		"no keys":               {Checkpoint: a.checkpoint},
		"a changed root":        {Checkpoint: bytes.Replace(a.checkpoint, []byte("\n11\n"), []byte("\n10\n"), 1), Keys: a.keys},
		"not a note":            {Checkpoint: []byte("hello\n"), Keys: a.keys},
	} {
		if _, err := s.AuditWith(ctx, opts); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want refused", name, err)
		}
	}
}

// TestStoredCheckpointsAreAudited: a stored checkpoint with a changed root or signature is
// reported, naming its size.
func TestStoredCheckpointsAreAudited(t *testing.T) {
	for _, c := range []struct{ desc, sql, words string }{
		{"a root changed", `UPDATE checkpoints SET note = replace(note, substr(note, instr(note, char(10)) + 3, 4), 'AAAA') WHERE size = 8`, "is not the root"},
		{"a signature from another checkpoint", `UPDATE checkpoints SET note = substr(note, 1, instr(note, char(10)||char(10))) || (SELECT substr(note, instr(note, char(10)||char(10)) + 1) FROM checkpoints WHERE size = 3) WHERE size = 8`, "not signed by the key"},
	} {
		t.Run(c.desc, func(t *testing.T) {
			s, dir := buildLedger(t)
			mustExec(t, rawDB(t, dir), "DROP TRIGGER checkpoints_no_update", c.sql)
			rep, err := s.Audit(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range rep.Problems {
				if p.Table == "checkpoints" && p.Seq == 8 && strings.Contains(p.Problem, c.words) {
					return
				}
			}
			t.Fatalf("no checkpoints problem at 8 with %q: %+v", c.words, rep.Problems)
		})
	}
}

// TestProofBundle exports one claim's fact with its proof and checks it offline with the
// keys file alone; any changed byte of the event or the proof is refused.
func TestProofBundle(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "system", []byte("p"), research(
		claim("The registry counted 4,812 companies.", "https://registry.example/report", "the registry counted 4,812 companies")))
	if err != nil {
		t.Fatal(err)
	}
	c := b.Claims[0]
	ch, body := foundCheck(c.ID, c.Citations[0].ID, c.Citations[0].URL)
	if err := s.RecordCheck(ctx, "system", ch, body, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.recordDrafts(ctx, "system", noteDrafts(5)...); err != nil {
		t.Fatal(err)
	}
	seq, err := s.ClaimBundleSeq(ctx, c.ID)
	if err != nil || seq != 3 {
		t.Fatalf("claim's event %d, %v; want 3, the check", seq, err)
	}
	bundle, err := s.ProofBundle(ctx, seq)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(bundle, []byte("c2sp.org/tlog-proof@v1\nextra ")) || !bytes.Contains(bundle, []byte("\nindex 2\n")) {
		t.Fatalf("not a tlog-proof:\n%s", bundle)
	}
	keys, _ := keysOf(t, s)
	ev, err := VerifyBundle(bundle, keys, nil)
	if err != nil || ev.Type != "citation.checked" || ev.Seq != 3 {
		t.Fatalf("VerifyBundle: %+v %v", ev, err)
	}
	lines := strings.Split(string(bundle), "\n")
	line := mustB64(t, strings.TrimPrefix(lines[1], "extra "))
	if exported := strings.Split(string(exportOf(t, s)), "\n")[2]; string(line) != exported {
		t.Fatalf("the bundle's event is not the export's line 3:\n%s\n%s", line, exported)
	}
	changed := strings.Replace(string(line), "found_at_source", "not_found", 1)
	for name, bad := range map[string]string{
		"event changed": strings.Replace(string(bundle), lines[1], "extra "+base64.StdEncoding.EncodeToString([]byte(changed)), 1),
		"index changed": strings.Replace(string(bundle), "\nindex 2\n", "\nindex 3\n", 1),
		"proof changed": strings.Replace(string(bundle), lines[3], lines[4], 1),
		"header":        strings.Replace(string(bundle), "tlog-proof@v1", "tlog-proof@v2", 1),
	} {
		if _, err := VerifyBundle([]byte(bad), keys, nil); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want refused", name, err)
		}
	}
	other, _ := buildLedger(t)
	otherKeys, _ := keysOf(t, other)
	if _, err := VerifyBundle(bundle, otherKeys, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("another ledger's keys accepted the bundle: %v", err)
	}
	if _, err := s.ClaimBundleSeq(ctx, "c_0000000000000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown claim: %v", err)
	}
}

// TestReadOnlyAuditWithoutTheKey audits a copy of ledger.db, without signing.key, whose file
// and directory are read-only; nothing is written to it, not even its mode. (Tests run as
// root, whom modes do not stop, so the test checks that the file is unchanged.)
func TestReadOnlyAuditWithoutTheKey(t *testing.T) {
	s, dir := buildLedger(t)
	ctx := context.Background()
	want := mustAuditOK(t, s)
	wantExport := exportOf(t, s)
	s.Close()
	copyDir := t.TempDir()
	db, err := os.ReadFile(filepath.Join(dir, dbFileName))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(copyDir, dbFileName)
	if err := os.WriteFile(path, db, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(copyDir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(copyDir, 0o755) })
	ro, err := OpenReadOnly(ctx, copyDir)
	if err != nil {
		t.Fatal(err)
	}
	rep := mustAuditOK(t, ro)
	if rep.Head != want.Head || rep.Root != want.Root || rep.Events != 11 {
		t.Fatalf("read-only audit %+v, want %+v", rep, want)
	}
	if got := exportOf(t, ro); !bytes.Equal(got, wantExport) {
		t.Fatal("read-only export differs")
	}
	if k, _ := keysOf(t, ro); len(k.IDs) != 2 || len(k.NoteKeys) != 2 {
		t.Fatalf("keys: %+v", k)
	}
	if _, err := ro.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ro.InclusionProof(ctx, 4, 11); err != nil {
		t.Fatal(err)
	}
	if _, err := ro.recordDrafts(ctx, "system", noteDrafts(1)...); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("a write on a read-only store: %v", err)
	}
	ro.Close()
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o444 {
		t.Fatalf("mode after the audit: %v %v, want 0444 untouched", st.Mode(), err)
	}
	after, _ := os.ReadFile(path)
	if sha256.Sum256(after) != sha256.Sum256(db) {
		t.Fatal("the read-only audit changed the database file")
	}
	if _, err := OpenReadOnly(ctx, t.TempDir()); err == nil {
		t.Error("OpenReadOnly of an empty directory succeeded")
	}
}

// TestTriggersDroppedAreReportedAndRestored: the audit names each dropped append-only
// trigger; the next Open restores it.
func TestTriggersDroppedAreReportedAndRestored(t *testing.T) {
	s, dir := buildLedger(t)
	ctx := context.Background()
	mustExec(t, rawDB(t, dir), "DROP TRIGGER events_no_update", "DROP TRIGGER checkpoints_no_delete",
		"DROP TRIGGER blobs_no_delete", "CREATE TRIGGER blobs_no_delete BEFORE DELETE ON blobs BEGIN SELECT 1; END")
	rep, err := s.Audit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var named []string
	for _, p := range rep.Problems {
		if p.Table == "triggers" {
			named = append(named, p.Problem)
		}
	}
	all := strings.Join(named, "\n")
	if len(named) != 3 || !strings.Contains(all, "events_no_update of the migrations was dropped") || !strings.Contains(all, "blobs_no_delete of the migrations was changed") {
		t.Fatalf("trigger problems: %v", named)
	}
	s.Close()
	s2, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	mustAuditOK(t, s2)
	if _, err := rawDB(t, dir).Exec("UPDATE events SET actor = 'system' WHERE seq = 2"); err == nil {
		t.Fatal("events_no_update was not restored")
	}
}

// TestAuditComparesTypes: NULL and the text 'NULL' differ. (The tables are STRICT, so an
// integer cannot be stored in a text column to begin with.)
func TestAuditComparesTypes(t *testing.T) {
	s, dir := openTest(t)
	ctx := context.Background()
	if _, err := s.ImportResearch(ctx, "system", []byte("p"), research(
		claim("The registry counted 4,812 companies.", "https://registry.example/report", "the registry counted 4,812 companies"))); err != nil {
		t.Fatal(err)
	}
	mustAuditOK(t, s)
	mustTamperBeCaught(t, s, dir, "UPDATE sources SET classified_by = 'NULL', classified_at = 'NULL'", "sources")
}

func TestUnnamedBlobIsReported(t *testing.T) {
	s, dir := buildLedger(t)
	mustExec(t, rawDB(t, dir), "INSERT INTO blobs (sha256, data) VALUES ('"+strings.Repeat("ab", 32)+"', x'00')")
	rep, err := s.Audit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		if p.Table == "blobs" && strings.Contains(p.Problem, "no event names it") {
			return
		}
	}
	t.Fatalf("no unnamed-blob problem: %+v", rep.Problems)
}

// TestLegacyLedgerGetsItsTree opens a ledger whose tree and checkpoints are missing (as one
// made before them): Open adds them, and the audit holds.
func TestLegacyLedgerGetsItsTree(t *testing.T) {
	s, dir := buildLedger(t)
	want := mustAuditOK(t, s)
	s.Close()
	mustExec(t, rawDB(t, dir), "DROP TRIGGER checkpoints_no_delete", "DELETE FROM checkpoints", "DELETE FROM tree_hashes")
	s2, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	rep := mustAuditOK(t, s2)
	cp, err := s2.Checkpoint(context.Background())
	if err != nil || rep.Root != want.Root || cp.Size != 11 || rootB64(cp.Root) != want.Root {
		t.Fatalf("after Open: %+v %v, root %s want %s", cp, err, rep.Root, want.Root)
	}
}

// TestKeysFileIsAHistory: the offline audit wants the keys of the keys file introduced in
// its order, every one of them.
func TestKeysFileIsAHistory(t *testing.T) {
	s, _ := buildLedger(t)
	ctx := context.Background()
	set, _ := s.Keys(ctx)
	export := exportOf(t, s)
	swapped := KeySet{Keys: []PublicKey{set.Keys[1], set.Keys[0]}}
	extra := KeySet{Keys: append(append([]PublicKey{}, set.Keys...), PublicKey{})}
	other, _ := buildLedger(t)
	oset, _ := other.Keys(ctx)
	extra.Keys[2] = oset.Keys[0]
	for name, c := range map[string]struct {
		set   KeySet
		words string
	}{
		"in another order": {swapped, "in another order"},
		"one key more":     {extra, "never entered"},
	} {
		var b bytes.Buffer
		writeJSON(t, &b, c.set)
		rep, err := AuditExport(ctx, bytes.NewReader(export), &b)
		if err != nil {
			t.Fatal(err)
		}
		if rep.OK || !strings.Contains(rep.Problems[0].Problem, c.words) {
			t.Errorf("%s: %+v, want %q", name, rep.Problems, c.words)
		}
	}
	dup := KeySet{Keys: []PublicKey{set.Keys[0], set.Keys[0]}}
	var b bytes.Buffer
	writeJSON(t, &b, dup)
	if _, err := ParseKeys(&b); !errors.Is(err, ErrInvalid) {
		t.Errorf("a key listed twice: %v", err)
	}
}

// TestCheckpointLimits: the size a proof may name is bounded by the log.
func TestCheckpointSizesFollowCommits(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	for i := 1; i <= 3; i++ {
		if _, err := s.recordDrafts(ctx, "system", noteDrafts(i)...); err != nil {
			t.Fatal(err)
		}
		cp, _ := s.Checkpoint(ctx)
		want := 1 + i*(i+1)/2
		if !strings.Contains(string(cp.Note), "\n"+strconv.Itoa(want)+"\n") || cp.Size != int64(want) {
			t.Fatalf("after commit %d: checkpoint size %d, want %d", i, cp.Size, want)
		}
	}
}
