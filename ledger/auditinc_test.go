package ledger

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"evidenceledger/evidence"
)

// auditAt runs the audit with the auditor's state file state; full asks for the full one.
func auditAt(t *testing.T, s *Store, state string, full bool) Report {
	t.Helper()
	rep, err := s.AuditWith(context.Background(), AuditOptions{State: state, Full: full})
	if err != nil {
		t.Fatalf("audit with state %s: %v", state, err)
	}
	return rep
}

// mustHold fails the test unless rep holds and is of the kind given.
func mustHold(t *testing.T, rep Report, kind string) {
	t.Helper()
	if !rep.OK || rep.Kind != kind {
		t.Fatalf("want a %s audit that holds; got %s, ok=%v: %+v (notes %q)", kind, rep.Kind, rep.OK, rep.Problems, rep.Notes)
	}
}

// mustFind fails the test unless rep fails with a problem that names table (when not
// empty) and holds words.
func mustFind(t *testing.T, rep Report, table, words string) {
	t.Helper()
	if rep.OK {
		t.Fatalf("the %s audit holds; want a problem with %q", rep.Kind, words)
	}
	for _, p := range rep.Problems {
		if (table == "" || p.Table == table) && strings.Contains(p.Problem, words) {
			return
		}
	}
	t.Fatalf("no problem (table %q) says %q: %+v", table, words, rep.Problems)
}

// grow records what a ledger in use records between two audits: a batch of n claims with a
// citation each, a check of each found at its source, a hand decision on the first one
// (a seam opened and resolved), and a classification of its source. It returns the batch.
func grow(t *testing.T, s *Store, n int) Batch {
	t.Helper()
	ctx := context.Background()
	var claims []evidence.Claim
	for i := range n {
		claims = append(claims, claim(fmt.Sprintf("Registry %d counted 4,812 companies in 2025.", i),
			fmt.Sprintf("https://host%d.example/report/%d", i%3, i), "the registry counted 4,812 companies"))
	}
	b, err := s.ImportResearch(ctx, "system", []byte(fmt.Sprint("paste of ", n, " claims ", newID("p_"))), research(claims...))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range b.Claims {
		ch, body := foundCheck(c.ID, c.Citations[0].ID, c.Citations[0].URL)
		if err := s.RecordCheck(ctx, "system", ch, body, nil, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	markFound(t, s, b.Claims[0].Citations[0].ID, evidence.StatusNotFound)
	if _, err := s.ClassifySource(ctx, "user:olga", b.Claims[0].Citations[0].Source, evidence.ClassPrimary, "Registry"); err != nil {
		t.Fatal(err)
	}
	return b
}

// untrigger runs statements on the ledger's database with its append-only triggers of
// table dropped for the time, as someone editing the file would.
func untrigger(t *testing.T, dir, table string, stmts ...string) {
	t.Helper()
	db := rawDB(t, dir)
	rows, err := db.Query("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ? AND name GLOB '*_no_*'", table)
	if err != nil {
		t.Fatal(err)
	}
	triggers := map[string]string{}
	for rows.Next() {
		var name, text string
		if err := rows.Scan(&name, &text); err != nil {
			t.Fatal(err)
		}
		triggers[name] = text
	}
	rows.Close()
	for name := range triggers {
		mustExec(t, db, `DROP TRIGGER "`+name+`"`)
	}
	mustExec(t, db, stmts...)
	for _, text := range triggers {
		mustExec(t, db, text)
	}
}

// An honest ledger that keeps growing holds audit after audit: the first audit is full and
// writes the state, each next one is incremental from the size the one before reached, and
// a full audit at the end agrees.
func TestIncrementalAuditsOfAGrowingLedger(t *testing.T) {
	s, _ := openTest(t)
	state := filepath.Join(t.TempDir(), "auditor", "ledger.state")
	grow(t, s, 3)
	first := auditAt(t, s, state, false)
	mustHold(t, first, "full")
	if first.From != 0 || first.LastFull == "" || first.NotChecked != "" || !strings.Contains(strings.Join(first.Notes, " "), "no auditor state") {
		t.Fatalf("first audit: %+v", first)
	}
	for _, f := range []string{state, state + ".key", state + ".db"} {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm()&0o077 != 0 {
			t.Fatalf("%s: %v (mode %v); want a file only its owner reads", f, err, fi.Mode())
		}
	}
	size := first.Events
	for round := range 3 {
		b := grow(t, s, 2+round)
		// A seam left open in one round is resolved in the next.
		seam, err := s.OpenSeam(context.Background(), "user:olga", SeamRequest{Kind: evidence.SeamAbsence, Summary: "No primary source.", Claims: []string{b.Claims[1].ID}})
		if err != nil {
			t.Fatal(err)
		}
		if round > 0 {
			if _, err := s.ResolveSeam(context.Background(), "user:vera", seam.ID, string(evidence.DecisionEstablished), "A filing was found."); err != nil {
				t.Fatal(err)
			}
		}
		rep := auditAt(t, s, state, false)
		mustHold(t, rep, "incremental")
		if rep.From != size || rep.Events <= size || rep.LastFull != first.LastFull {
			t.Fatalf("round %d: from %d (want %d), %d events, last full %s (want %s)", round, rep.From, size, rep.Events, rep.LastFull, first.LastFull)
		}
		if !strings.Contains(rep.NotChecked, fmt.Sprintf("no event after size %d touched", size)) || !strings.Contains(rep.NotChecked, "ledger audit --full") || !strings.Contains(rep.NotChecked, first.LastFull) {
			t.Fatalf("round %d: the report does not say what it left to the full audit: %q", round, rep.NotChecked)
		}
		size = rep.Events
	}
	mustHold(t, auditAt(t, s, state, false), "incremental") // nothing new: holds as well
	full := auditAt(t, s, state, true)
	mustHold(t, full, "full")
	if full.LastFull == first.LastFull {
		t.Fatalf("the full audit did not record itself: %s", full.LastFull)
	}
	if rep := auditAt(t, s, state, false); rep.LastFull != full.LastFull {
		t.Fatalf("incremental after the full audit: last full %s, want %s", rep.LastFull, full.LastFull)
	}
}

// A stored row that no new event touches, changed behind the program's back, is outside the
// incremental audit's reach (it says so) and is caught by the full audit.
func TestOldRowIsLeftToTheFullAudit(t *testing.T) {
	s, dir := openTest(t)
	state := filepath.Join(t.TempDir(), "ledger.state")
	old := grow(t, s, 3)
	mustHold(t, auditAt(t, s, state, false), "full")
	mustExec(t, rawDB(t, dir), "UPDATE claims SET text = 'A claim nobody made.' WHERE id = '"+old.Claims[2].ID+"'")
	grow(t, s, 2)
	rep := auditAt(t, s, state, false)
	mustHold(t, rep, "incremental")
	if !strings.Contains(rep.NotChecked, "checked only by ledger audit --full") {
		t.Fatalf("the incremental audit does not say the old rows are outside its reach: %q", rep.NotChecked)
	}
	mustFind(t, auditAt(t, s, state, true), "claims", "A claim nobody made.")
}

// A stored row that a new event touched, changed behind the program's back, is caught by
// the incremental audit, in every kind of table the new events write.
func TestTouchedRowIsCaughtIncrementally(t *testing.T) {
	tamper := []struct {
		desc, table, sql string
	}{
		{"citation's note", "citations", "UPDATE citations SET note = 'changed' WHERE id = (SELECT citation FROM checks ORDER BY seq DESC LIMIT 1)"},
		{"claim's text", "claims", "UPDATE claims SET text = 'changed' WHERE id = (SELECT claim FROM checks ORDER BY seq DESC LIMIT 1)"},
		{"new check's row removed", "checks", "DELETE FROM checks WHERE seq = (SELECT max(seq) FROM checks)"},
		{"new verdict", "verdicts", "UPDATE verdicts SET accuracy_estimate = 12 WHERE check_seq = (SELECT max(seq) FROM checks)"},
		{"batch count", "batch_counts", "UPDATE batch_counts SET n = n + 1 WHERE batch = (SELECT batch FROM claims ORDER BY rowid DESC LIMIT 1) AND facet = 'claim_status'"},
		{"rollup of a new citation", "citation_rollup", "UPDATE citation_rollup SET kind = 'unchecked' WHERE citation = (SELECT citation FROM checks ORDER BY seq DESC LIMIT 1)"},
		{"tree of the new events", "tree_hashes", "UPDATE tree_hashes SET hash = zeroblob(32) WHERE idx = (SELECT max(idx) FROM tree_hashes)"},
		{"source classified", "sources", "UPDATE sources SET class = 'lead' WHERE class = 'primary'"},
	}
	for _, tt := range tamper {
		t.Run(tt.desc, func(t *testing.T) {
			s, dir := openTest(t)
			state := filepath.Join(t.TempDir(), "ledger.state")
			grow(t, s, 2)
			mustHold(t, auditAt(t, s, state, false), "full")
			grow(t, s, 2)
			db := rawDB(t, dir)
			mustExec(t, db, "DROP TRIGGER IF EXISTS verdicts_no_update")
			res, err := db.Exec(tt.sql)
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				t.Fatalf("%s changed nothing", tt.sql)
			}
			rep := auditAt(t, s, state, false)
			if rep.Kind != "incremental" {
				t.Fatalf("kind %s", rep.Kind)
			}
			mustFind(t, rep, tt.table, "table "+tt.table)
			// The state stays where it was: the next audit finds the same.
			mustFind(t, auditAt(t, s, state, false), tt.table, "table "+tt.table)
		})
	}
}

// An old event rewritten behind the program's back is caught incrementally: a changed
// payload by its hash, a re-hashed and re-signed one by the tree the last audit verified
// (and the consistency proof from it), a replaced signature by the pinned digest.
func TestRewrittenOldEventIsCaughtIncrementally(t *testing.T) {
	tests := []struct {
		desc, table, words string
		rewrite            func(t *testing.T, s *Store, ev Event) string
	}{
		{"payload changed", "", "its hash does not match its contents", func(t *testing.T, s *Store, ev Event) string {
			return fmt.Sprintf("UPDATE events SET payload = replace(payload, 'Registry 1', 'Registry 7') WHERE seq = %d", ev.Seq)
		}},
		{"re-hashed and re-signed with the ledger's key", "", "does not extend the tree your last audit verified", func(t *testing.T, s *Store, ev Event) string {
			ev.Payload = []byte(strings.Replace(string(ev.Payload), "Registry 1", "Registry 7", 1))
			g := s.signer
			d := ev.hashFor(g)
			ev.sign(g, d)
			return fmt.Sprintf("UPDATE events SET payload = '%s', hash = '%s', sig = '%s' WHERE seq = %d", ev.Payload, ev.Hash, ev.Sig, ev.Seq)
		}},
		{"signature replaced", "events", "signatures of events 1 to", func(t *testing.T, s *Store, ev Event) string {
			_, other, _ := ed25519.GenerateKey(nil)
			d, _ := hex.DecodeString(ev.Hash)
			return fmt.Sprintf("UPDATE events SET sig = '%s' WHERE seq = %d", base64.StdEncoding.EncodeToString(ed25519.Sign(other, d)), ev.Seq)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			s, dir := openTest(t)
			state := filepath.Join(t.TempDir(), "ledger.state")
			b := grow(t, s, 3)
			mustHold(t, auditAt(t, s, state, false), "full")
			grow(t, s, 1)
			var seq int64
			if err := s.rdb.QueryRow("SELECT seq FROM events WHERE type = 'batch.imported' AND payload LIKE ? ORDER BY seq LIMIT 1", "%"+b.ID+"%").Scan(&seq); err != nil {
				t.Fatal(err)
			}
			evs, err := s.Events(context.Background(), seq-1, 1)
			if err != nil || len(evs) != 1 {
				t.Fatal(err)
			}
			untrigger(t, dir, "events", tt.rewrite(t, s, evs[0]))
			rep := auditAt(t, s, state, false)
			if rep.Kind != "incremental" {
				t.Fatalf("kind %s", rep.Kind)
			}
			mustFind(t, rep, tt.table, tt.words)
		})
	}
}

// A stored checkpoint below the last audited size, changed behind the program's back, is
// caught incrementally through the pinned checkpoint digest.
func TestChangedOldCheckpointIsCaughtIncrementally(t *testing.T) {
	s, dir := openTest(t)
	state := filepath.Join(t.TempDir(), "ledger.state")
	grow(t, s, 2)
	flushed(t, s)
	mustHold(t, auditAt(t, s, state, false), "full")
	grow(t, s, 1)
	untrigger(t, dir, "checkpoints", "UPDATE checkpoints SET note = note || 'x' WHERE size = (SELECT min(size) FROM checkpoints)")
	mustFind(t, auditAt(t, s, state, false), "checkpoints", "stored checkpoints of size below")
}

// An auditor state edited by hand, or whose key is missing, is refused: the incremental
// audit does not start from it, and says to run the full audit, which writes a new state.
func TestEditedAuditorStateIsRefused(t *testing.T) {
	edits := []struct {
		desc string
		edit func(t *testing.T, state string)
	}{
		{"size raised", func(t *testing.T, state string) {
			b, _ := os.ReadFile(state)
			os.WriteFile(state, []byte(strings.Replace(string(b), `"size": `, `"size": 1`, 1)), 0o600)
		}},
		{"time moved", func(t *testing.T, state string) {
			b, _ := os.ReadFile(state)
			os.WriteFile(state, []byte(strings.Replace(string(b), `"audited_at": "2`, `"audited_at": "1`, 1)), 0o600)
		}},
		{"cut", func(t *testing.T, state string) {
			b, _ := os.ReadFile(state)
			os.WriteFile(state, b[:len(b)/2], 0o600)
		}},
		{"key missing", func(t *testing.T, state string) { os.Remove(state + ".key") }},
		{"key replaced", func(t *testing.T, state string) {
			os.WriteFile(state+".key", []byte(strings.Repeat("ab", 32)+"\n"), 0o600)
		}},
	}
	for _, tt := range edits {
		t.Run(tt.desc, func(t *testing.T) {
			s, _ := openTest(t)
			state := filepath.Join(t.TempDir(), "ledger.state")
			grow(t, s, 2)
			mustHold(t, auditAt(t, s, state, false), "full")
			grow(t, s, 1)
			tt.edit(t, state)
			_, err := s.AuditWith(context.Background(), AuditOptions{State: state})
			if err == nil || !strings.Contains(err.Error(), "is refused") || !strings.Contains(err.Error(), "ledger audit --full") {
				t.Fatalf("audit from an edited state: %v; want it refused, naming --full", err)
			}
			full := auditAt(t, s, state, true)
			mustHold(t, full, "full")
			if !strings.Contains(strings.Join(full.Notes, " "), "is refused") {
				t.Fatalf("the full audit does not say it replaced a refused state: %q", full.Notes)
			}
			grow(t, s, 1)
			mustHold(t, auditAt(t, s, state, false), "incremental")
		})
	}
}

// The state of another ledger is not taken for this one's: the log does not extend it.
func TestStateOfAnotherLedger(t *testing.T) {
	a, _ := openTest(t)
	b, _ := openTest(t)
	state := filepath.Join(t.TempDir(), "ledger.state")
	grow(t, a, 2)
	grow(t, b, 3)
	mustHold(t, auditAt(t, a, state, false), "full")
	mustFind(t, auditAt(t, b, state, false), "", "does not extend the tree your last audit verified")
	mustFind(t, auditAt(t, b, state, true), "", "does not extend the tree your last audit verified")
}

// The working copy is a cache of the state: a missing one is rebuilt from the events, and
// one that is a step ahead of its state file (the audit that wrote it stopped before the
// state) is taken as the state.
func TestWorkingCopyRecovers(t *testing.T) {
	s, dir := openTest(t)
	state := filepath.Join(t.TempDir(), "ledger.state")
	grow(t, s, 2)
	mustHold(t, auditAt(t, s, state, false), "full")

	os.Remove(state + ".db")
	grow(t, s, 1)
	rep := auditAt(t, s, state, false)
	mustHold(t, rep, "incremental")
	if !strings.Contains(strings.Join(rep.Notes, " "), "rebuilt from events 1 to") {
		t.Fatalf("notes %q", rep.Notes)
	}

	before, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	grow(t, s, 1)
	ahead := auditAt(t, s, state, false)
	mustHold(t, ahead, "incremental")
	os.WriteFile(state, before, 0o600) // as if the process had stopped before the state file
	grow(t, s, 1)
	rep = auditAt(t, s, state, false)
	mustHold(t, rep, "incremental")
	if rep.From != ahead.Events || !strings.Contains(strings.Join(rep.Notes, " "), "whose state file was not written") {
		t.Fatalf("from %d (want %d), notes %q", rep.From, ahead.Events, rep.Notes)
	}

	// A rebuilt working copy still finds the rows the new events touched.
	os.Remove(state + ".db")
	grow(t, s, 1)
	mustExec(t, rawDB(t, dir), "UPDATE citations SET note = 'changed' WHERE id = (SELECT citation FROM checks ORDER BY seq DESC LIMIT 1)")
	mustFind(t, auditAt(t, s, state, false), "citations", "table citations")
}

// Two audits never share a state at the same time: the second is refused while the first
// holds the state's lock.
func TestOneAuditPerState(t *testing.T) {
	s, _ := openTest(t)
	state := filepath.Join(t.TempDir(), "ledger.state")
	mustHold(t, auditAt(t, s, state, false), "full")
	st, err := openAuditState(state, false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	if _, err := s.AuditWith(context.Background(), AuditOptions{State: state}); err == nil || !strings.Contains(err.Error(), "another audit is using it") {
		t.Fatalf("audit while another holds the state: %v", err)
	}
}

// A killed audit leaves its ledger-audit-* file behind; the next audit removes it, in the
// temporary folder and in the state's folder, unless a running audit holds its lock.
func TestAuditRemovesWhatKilledAuditsLeft(t *testing.T) {
	tmp, stateDir := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	s, _ := openTest(t)
	stale := []string{filepath.Join(tmp, "ledger-audit-123.db"), filepath.Join(stateDir, "ledger-audit-456.db"), filepath.Join(stateDir, "ledger-audit-789.state")}
	for _, f := range stale {
		if err := os.WriteFile(f, []byte("left by a killed audit"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	inUse := filepath.Join(tmp, "ledger-audit-999.db")
	f, err := os.Create(inUse)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(tmp, "notes.db")
	os.WriteFile(other, nil, 0o600)

	mustAuditOK(t, s)
	mustHold(t, auditAt(t, s, filepath.Join(stateDir, "ledger.state"), false), "full")
	for _, f := range stale {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", f, err)
		}
	}
	for _, f := range []string{inUse, other} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s was removed: %v", f, err)
		}
	}
	// An audit leaves nothing of its own behind in the temporary folder.
	left, _ := filepath.Glob(filepath.Join(tmp, "ledger-audit-*"))
	if len(left) != 1 || left[0] != inUse {
		t.Errorf("the temporary folder holds %v after the audits", left)
	}
}

// A trigger dropped behind the program's back is caught by the incremental audit too.
func TestIncrementalAuditComparesTriggers(t *testing.T) {
	s, dir := openTest(t)
	state := filepath.Join(t.TempDir(), "ledger.state")
	grow(t, s, 1)
	mustHold(t, auditAt(t, s, state, false), "full")
	grow(t, s, 1)
	mustExec(t, rawDB(t, dir), "DROP TRIGGER events_no_update")
	mustFind(t, auditAt(t, s, state, false), "triggers", "events_no_update")
}
