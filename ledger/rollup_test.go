package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"testing"

	"evidenceledger/evidence"
)

// countsByScan counts batch as the batch page did before batch_counts, by scanning the batch's
// claims and citations: the oracle the trigger-kept counts must equal.
func countsByScan(t *testing.T, db *sql.DB, batch string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, q := range []string{
		"SELECT 'claim_status/' || status, count(*) FROM claims WHERE batch = ?1 GROUP BY status",
		"SELECT 'claim_strength/' || CASE strength WHEN '' THEN 'none' ELSE strength END, count(*) FROM claims WHERE batch = ?1 GROUP BY 1",
		"SELECT 'citation_status/' || ct.status, count(*) FROM citations ct JOIN claims c ON c.id = ct.claim WHERE c.batch = ?1 GROUP BY ct.status",
		`SELECT 'tally/' || kind || '/' || note, count(*) FROM (
			SELECT CASE
				WHEN ct.status = 'found_at_source' THEN 'found'
				WHEN ct.status IN ('not_found', 'unreachable') THEN ct.status
				WHEN ct.last_check IS NULL AND ct.note != '' THEN 'not_checkable'
				WHEN ct.last_check IS NOT NULL OR EXISTS (SELECT 1 FROM seam_citations sc JOIN seams s ON s.id = sc.seam AND s.state = 'open' WHERE sc.citation = ct.id) THEN 'waiting'
				ELSE 'unchecked' END AS kind,
				CASE WHEN ct.status IN ('not_found', 'unreachable') THEN ct.note ELSE '' END AS note
			FROM claims c JOIN citations ct ON ct.claim = c.id WHERE c.batch = ?1) GROUP BY kind, note`,
		`SELECT 'open_seams/', count(DISTINCT seam) FROM (
			SELECT sc.seam FROM seam_claims sc JOIN claims c ON c.id = sc.claim WHERE c.batch = ?1
			UNION SELECT sct.seam FROM seam_citations sct JOIN citations ct ON ct.id = sct.citation JOIN claims c ON c.id = ct.claim WHERE c.batch = ?1
		) x JOIN seams s ON s.id = x.seam AND s.state = 'open' HAVING count(DISTINCT seam) > 0`,
		`SELECT 'model/calls', sum(s.calls) FROM supports s JOIN citations ct ON ct.last_check = s.check_seq JOIN claims c ON c.id = ct.claim WHERE c.batch = ?1 HAVING sum(s.calls) > 0`,
		`SELECT 'model/prompt_tokens', sum(s.prompt_tokens) FROM supports s JOIN citations ct ON ct.last_check = s.check_seq JOIN claims c ON c.id = ct.claim WHERE c.batch = ?1 HAVING sum(s.prompt_tokens) > 0`,
	} {
		rows, err := db.Query(q, batch)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			var k string
			var n int
			if err := rows.Scan(&k, &n); err != nil {
				t.Fatal(err)
			}
			out[k] = n
		}
		rows.Close()
	}
	return out
}

// countsShown is what the store answers for batch, in countsByScan's keys.
func countsShown(t *testing.T, s *Store, batch string) map[string]int {
	t.Helper()
	ctx := context.Background()
	b, err := s.BatchSummary(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for k, n := range b.Counts.ClaimsByStatus {
		if n != 0 {
			out["claim_status/"+string(k)] = n
		}
	}
	for k, n := range b.Counts.ClaimsByStrength {
		if n != 0 {
			out["claim_strength/"+k] = n
		}
	}
	for k, n := range b.Counts.CitationsByStatus {
		if n != 0 {
			out["citation_status/"+string(k)] = n
		}
	}
	if b.Counts.OpenSeams != 0 {
		out["open_seams/"] = b.Counts.OpenSeams
	}
	if b.Models.Calls != 0 {
		out["model/calls"] = b.Models.Calls
	}
	if b.Models.PromptTokens != 0 {
		out["model/prompt_tokens"] = b.Models.PromptTokens
	}
	tallies, err := s.BatchTallies(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tallies {
		out["tally/"+tl.Kind+"/"+tl.Note] = tl.N
	}
	return out
}

// TestBatchCountsFollowEveryChange: through import, checks found and not, a support
// judgement, seams opened and resolved, a recheck and a second batch, the counts the store
// shows (kept by triggers) equal a scan of the batch's rows after every step, and the audit
// holds.
func TestBatchCountsFollowEveryChange(t *testing.T) {
	s, dir := openTest(t)
	ctx := context.Background()
	db := rawDB(t, dir)
	b1, err := s.ImportResearch(ctx, "system", []byte("one"), research(
		claim("One.", "https://a.example/1", "the registry counted 4,812 companies", "https://a.example/2", "the registry counted 4,812 companies"),
		claim("Two.", "https://a.example/3", "the registry counted 4,812 companies"),
		claim("Three.", "https://a.example/4", "x")))
	if err != nil {
		t.Fatal(err)
	}
	b2, err := s.ImportResearch(ctx, "system", []byte("two"), research(claim("Four.", "https://b.example/1", "the registry counted 4,812 companies")))
	if err != nil {
		t.Fatal(err)
	}
	step := func(name string) {
		t.Helper()
		for _, b := range []string{b1.ID, b2.ID} {
			want, got := countsByScan(t, db, b), countsShown(t, s, b)
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("after %s, batch %s:\n shown %v\n  scan %v", name, b, got, want)
			}
		}
		mustAuditOK(t, s)
	}
	step("import")
	c1, c2 := b1.Claims[0], b1.Claims[1]

	ch, body := foundCheck(c1.ID, c1.Citations[0].ID, c1.Citations[0].URL)
	ch.Support = supportOf(evidence.VerdictSupported, evidence.SupportByCode)
	if err := s.RecordCheck(ctx, "system", ch, body, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	step("a found check with a support judgement")

	nf, body := notFoundCheck(c1.ID, c1.Citations[1].ID, c1.Citations[1].URL)
	if err := s.RecordCheck(ctx, "system", nf, body, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	step("a not-found check")

	seam, err := s.OpenSeam(ctx, "user:olga", SeamRequest{Kind: evidence.SeamManual, Summary: "Open the page by hand.", Claims: []string{c2.ID}, Citations: []string{c2.Citations[0].ID}})
	if err != nil {
		t.Fatal(err)
	}
	step("a seam opened")
	if _, err := s.ResolveSeam(ctx, "user:olga", seam.ID, string(evidence.StatusFound), "I opened the page and read it."); err != nil {
		t.Fatal(err)
	}
	step("the seam resolved")

	// A recheck of the supported citation without a support judgement: its model totals leave
	// the batch's.
	again, body := notFoundCheck(c1.ID, c1.Citations[0].ID, c1.Citations[0].URL)
	if err := s.RecordCheck(ctx, "system", again, body, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	step("a recheck")
	if got := countsShown(t, s, b1.ID)["model/calls"]; got != 0 {
		t.Fatalf("model calls after the recheck without the tier: %d, want 0", got)
	}

	c4 := b2.Claims[0]
	seam2, err := s.OpenSeam(ctx, "user:olga", SeamRequest{Kind: evidence.SeamContradiction, Summary: "The two claims disagree.", Claims: []string{c4.ID, c2.ID}})
	if err != nil {
		t.Fatal(err)
	}
	step("a seam about two batches")
	if _, err := s.ResolveSeam(ctx, "user:olga", seam2.ID, "contradicted", "They cannot both hold."); err != nil {
		t.Fatal(err)
	}
	step("that seam resolved")
}

// TestBatchCountsTamperedAreCaught: a count, a citation's stored facts or a seam's batch
// changed behind the program's back is named by the audit.
func TestBatchCountsTamperedAreCaught(t *testing.T) {
	for _, tt := range []struct{ table, statements string }{
		{"batch_counts", "UPDATE batch_counts SET n = n + 1 WHERE facet = 'claim_status'"},
		{"batch_counts", "DELETE FROM batch_counts WHERE facet = 'tally'"},
		{"citation_rollup", "UPDATE citation_rollup SET kind = 'found' WHERE rowid IN (SELECT rowid FROM citation_rollup LIMIT 1)"},
		{"seam_batches", "DELETE FROM seam_batches"},
	} {
		t.Run(tt.statements, func(t *testing.T) {
			s, dir := openTest(t)
			ctx := context.Background()
			b, err := s.ImportResearch(ctx, "system", []byte("p"), research(claim("One.", "https://a.example/1", "the registry counted 4,812 companies")))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.OpenSeam(ctx, "user:olga", SeamRequest{Kind: evidence.SeamAbsence, Summary: "Look.", Claims: []string{b.Claims[0].ID}}); err != nil {
				t.Fatal(err)
			}
			mustAuditOK(t, s)
			mustTamperBeCaught(t, s, dir, tt.statements, tt.table)
		})
	}
}

// TestBatchCountsRebuiltWhenATriggerIsRestored: with a counting trigger dropped, checks
// recorded meanwhile leave the counts stale; the audit names the trigger and the stale
// rows, and the next Open restores the trigger and rebuilds the counts.
func TestBatchCountsRebuiltWhenATriggerIsRestored(t *testing.T) {
	s, dir := openTest(t)
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "system", []byte("p"), research(claim("One.", "https://a.example/1", "the registry counted 4,812 companies")))
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, rawDB(t, dir), "DROP TRIGGER rollup_citation_update")
	c := b.Claims[0]
	ch, body := foundCheck(c.ID, c.Citations[0].ID, c.Citations[0].URL)
	if err := s.RecordCheck(ctx, "system", ch, body, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Audit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, p := range rep.Problems {
		named[p.Table] = true
	}
	if rep.OK || !named["triggers"] || !named["batch_counts"] || !named["citation_rollup"] {
		t.Fatalf("audit after a dropped counting trigger: %+v", rep.Problems)
	}
	s.Close()
	s2, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	mustAuditOK(t, s2)
	if got := countsShown(t, s2, b.ID); got["citation_status/found_at_source"] != 1 {
		t.Fatalf("counts after the rebuild: %v", got)
	}
}

// TestBatchCountsMigratedFromAnOlderLedger: a ledger written before batch_counts (schema
// version 10) gets its counts from the migration, equal to a scan, and audits.
func TestBatchCountsMigratedFromAnOlderLedger(t *testing.T) {
	s, dir := openTest(t)
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "system", []byte("p"), research(
		claim("One.", "https://a.example/1", "the registry counted 4,812 companies"),
		claim("Two.", "https://a.example/2", "the registry counted 4,812 companies")))
	if err != nil {
		t.Fatal(err)
	}
	c := b.Claims[0]
	ch, body := foundCheck(c.ID, c.Citations[0].ID, c.Citations[0].URL)
	ch.Support = supportOf(evidence.VerdictSupported, evidence.SupportByCode)
	if err := s.RecordCheck(ctx, "system", ch, body, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenSeam(ctx, "user:olga", SeamRequest{Kind: evidence.SeamAbsence, Summary: "Look.", Claims: []string{b.Claims[1].ID}}); err != nil {
		t.Fatal(err)
	}
	want := countsShown(t, s, b.ID)
	s.Close()

	db := rawDB(t, dir)
	rows, err := db.Query("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name GLOB 'rollup_*'")
	if err != nil {
		t.Fatal(err)
	}
	var drop []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		drop = append(drop, fmt.Sprintf("DROP TRIGGER %s", name))
	}
	rows.Close()
	if len(drop) == 0 {
		t.Fatal("no rollup trigger in the schema")
	}
	drop = append(drop, "DROP VIEW citation_facts", "DROP TABLE batch_counts", "DROP TABLE citation_rollup", "DROP TABLE seam_batches", "DROP TABLE check_runs", "PRAGMA user_version = 10")
	mustExec(t, db, drop...)
	db.Close()

	s2, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got := countsShown(t, s2, b.ID); !reflect.DeepEqual(got, want) {
		t.Fatalf("migrated counts %v, want %v", got, want)
	}
	if want["model/calls"] != 1 || want["open_seams/"] != 1 {
		t.Fatalf("the ledger before migration lacks what the test needs: %v", want)
	}
	mustAuditOK(t, s2)
}
