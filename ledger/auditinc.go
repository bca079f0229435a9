package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The incremental audit (docs/chain.md, "Incremental audit") starts from the auditor's state
// (auditstate.go): the tree of the last audit (size N, root) and the digests that pin the
// signatures of events 1 to N and the stored checkpoints below N. It reads every event, as
// the full audit does, but verifies only what is new:
//
//   - every event is re-hashed and the Merkle tree recomputed: the first N events must have
//     the state's root (and a consistency proof from the stored tree must lead from it to
//     the current root), so no old event can have changed, the signature aside;
//   - the signatures of events 1 to N and the stored checkpoints below N must give the
//     state's digests, so none of them changed since the audit that verified them; the
//     signatures of the events after N, and the checkpoints from N on, are verified;
//   - the events after N are applied to the working copy (FILE.db), which holds the
//     projection tables as the events up to N imply them; temporary triggers there record
//     the key of every row they write, change or delete, in the projection tables and in the
//     rollup tables; each such row is compared with the stored one (compareTouched);
//   - the blobs those events name are re-hashed; the triggers are compared as in the full
//     audit.
//
// A stored row no new event touched is not compared: that is the full audit's, and the
// report says so (Report.NotChecked).

// workingCopyPragmas are those of the working copy opened in place: it is kept between
// audits, so it is written with a journal and synced; one connection, which also holds the
// temporary tables and triggers of startTracking.
const workingCopyPragmas = "_pragma=journal_mode(delete)&_pragma=synchronous(full)&_pragma=foreign_keys(1)&_pragma=locking_mode(exclusive)&_pragma=cache_size(-65536)&_pragma=temp_store(memory)"

// formatAt writes a time as the events' "at" (RFC 3339 UTC, milliseconds).
func formatAt(t time.Time) string { return t.UTC().Format(timeLayout) }

// auditWithState runs the audit of AuditWith with the auditor's state opts.State.
func (s *Store) auditWithState(ctx context.Context, opts AuditOptions, want *Checkpoint) (Report, error) {
	st, err := openAuditState(opts.State, opts.Full)
	if err != nil {
		return Report{}, fmt.Errorf("audit: %w", err)
	}
	defer st.close()
	dir := filepath.Dir(opts.State)
	removeStaleAuditFiles(os.TempDir(), dir)
	plan := auditPlan{start: s.now()}
	var notes []string
	var rp *replay
	switch {
	case st.refused != nil:
		notes = append(notes, st.refused.Error()+"; this full audit writes a new one")
	case st.rec == nil:
		notes = append(notes, fmt.Sprintf("no auditor state in %s yet: this audit is full, and writes it", st.path))
	case opts.Full:
		plan.pin = st.rec
	default:
		var note string
		if rp, note, err = st.workingCopy(ctx); err != nil {
			return Report{}, fmt.Errorf("audit: %w", err)
		}
		if note != "" {
			notes = append(notes, note)
		}
		plan.pin, plan.incremental = st.rec, true
		rp.track, rp.touchFrom, rp.keep = true, st.rec.Size, true
	}
	if rp == nil {
		if rp, err = newReplay(ctx, dir); err != nil {
			return Report{}, err
		}
	}
	defer rp.close()
	plan.rp = rp
	rep, rec, err := s.audit(ctx, opts, want, plan)
	if err != nil {
		return Report{}, err
	}
	rep.State = st.path
	rep.Notes = notes
	if !rep.OK {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the state %s is left as it was: every audit from it reports these problems until they are explained (to start afresh, remove the state and run ledger audit --full)", st.path))
		return rep, nil
	}
	rec.Format, rec.AuditedAt, rec.FullAt = stateFormat, formatAt(plan.start), formatAt(plan.start)
	if plan.incremental {
		rec.FullAt = plan.pin.FullAt
	}
	if err := st.save(ctx, rp, *rec); err != nil {
		return Report{}, fmt.Errorf("audit: %w", err)
	}
	rep.Notes = append(rep.Notes, fmt.Sprintf("state written to %s: the next audit starts from size %d", st.path, rec.Size))
	return rep, nil
}

// save writes rec, sealed, into the working copy rp (committing what the audit applied to
// it, and moving it in place when it is the audit's own), and then into the state file. A
// process stopped between the two leaves a working copy one audit ahead of the state file,
// which the next audit takes as the state (workingCopy).
func (st *auditState) save(ctx context.Context, rp *replay, rec auditRecord) error {
	var q interface {
		ExecContext(context.Context, string, ...any) (sql.Result, error)
	} = rp.db
	if rp.tx != nil {
		q = rp.tx
	}
	_, err := q.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS audit_state (one INTEGER PRIMARY KEY CHECK (one = 1), record TEXT NOT NULL) STRICT")
	if err == nil {
		_, err = q.ExecContext(ctx, "INSERT INTO audit_state (one, record) VALUES (1, ?) ON CONFLICT (one) DO UPDATE SET record = excluded.record", string(st.seal(rec)))
	}
	if err == nil && rp.tx != nil {
		err = rp.tx.Commit()
		rp.tx = nil
	}
	if err == nil && rp.file != nil {
		err = rp.keepAs(ctx, st.dbPath())
	}
	if err != nil {
		return fmt.Errorf("write the working copy %s: %w", st.dbPath(), err)
	}
	return st.write(rec)
}

// workingCopy returns the replay into the state's working copy: opened in place when it
// holds the state's record, or a later one (the audit that wrote it was stopped before its
// state file: that record then becomes st.rec); otherwise a new database of the audit's own,
// to be rebuilt from all the events and kept in its place. The note says which, when it is
// not the first.
func (st *auditState) workingCopy(ctx context.Context) (*replay, string, error) {
	path := st.dbPath()
	db, rec, why := st.openWorkingCopy(ctx, path)
	if why == "" {
		switch {
		case *rec == *st.rec:
			return inPlace(db, rec.Size), "", nil
		case rec.Size >= st.rec.Size && rec.AuditedAt > st.rec.AuditedAt:
			st.rec = rec
			return inPlace(db, rec.Size), fmt.Sprintf("the working copy %s holds the state of a later audit (at %s) whose state file was not written: this audit starts from it, at size %d", path, rec.AuditedAt, rec.Size), nil
		}
		why = fmt.Sprintf("it belongs to another state (size %d, audited at %s)", rec.Size, rec.AuditedAt)
		db.Close()
	}
	rp, err := newReplay(ctx, filepath.Dir(st.path))
	if err != nil {
		return nil, "", err
	}
	return rp, fmt.Sprintf("the working copy %s could not be used (%s): it is rebuilt from events 1 to %d, whose rows this audit does not compare", path, why, st.rec.Size), nil
}

func inPlace(db *sql.DB, size int64) *replay {
	return &replay{db: db, from: size, events: make(chan auditBatch, 4), done: make(chan error, 1)}
}

// openWorkingCopy opens the working copy at path, brings it to this program's schema and
// reads its record; why says, when it cannot be used, why not.
func (st *auditState) openWorkingCopy(ctx context.Context, path string) (_ *sql.DB, _ *auditRecord, why string) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, "there is none"
	} else if err != nil {
		return nil, nil, err.Error()
	}
	db, err := sql.Open(cachedDriverName, "file:"+path+"?"+workingCopyPragmas)
	if err != nil {
		return nil, nil, err.Error()
	}
	db.SetMaxOpenConns(1)
	var appID int
	var text string
	switch {
	case db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID) != nil || appID != applicationID:
		why = "it is not a database of this program"
	case migrate(ctx, db) != nil:
		why = "it cannot be brought to this program's schema"
	case db.QueryRowContext(ctx, "SELECT record FROM audit_state WHERE one = 1").Scan(&text) != nil:
		why = "it holds no state"
	}
	if why != "" {
		db.Close()
		return nil, nil, why
	}
	rec, err := st.unseal([]byte(text))
	if err != nil {
		db.Close()
		return nil, nil, "its state is refused: " + err.Error()
	}
	return db, rec, ""
}

// touchTables are the tables whose touched rows the incremental audit compares: every
// projection table and the rollup tables, each with its unique key (orderBy).
func touchTables() []projectionTable { return append(slices.Clone(projectionTables), rollupTables...) }

// keyColumns lists a table's key columns, quoted.
func keyColumns(t projectionTable) []string {
	cols := strings.Split(t.orderBy, ", ")
	for i, c := range cols {
		cols[i] = `"` + c + `"`
	}
	return cols
}

// startTracking makes, in the working copy's transaction tx, a temporary table of keys for
// every table of touchTables and the temporary triggers that fill it: the key of every row
// inserted, the old and new keys of every row updated, the key of every row deleted.
// Temporary objects belong to tx's connection and go with it. The tables have no
// constraint (a key recorded twice is read once): a trigger's statements take the conflict
// handling of the statement that fired it, so one of their own could not be relied on.
func startTracking(ctx context.Context, tx *sql.Tx) error {
	for _, t := range touchTables() {
		keys := keyColumns(t)
		list := strings.Join(keys, ", ")
		row := func(of string) string {
			vals := make([]string, len(keys))
			for i, k := range keys {
				vals[i] = of + "." + k
			}
			return `INSERT INTO "audit_touched_` + t.name + `" VALUES (` + strings.Join(vals, ", ") + ");"
		}
		for _, q := range []string{
			`CREATE TEMP TABLE "audit_touched_` + t.name + `" (` + list + `)`,
			`CREATE TEMP TRIGGER "audit_touch_` + t.name + `_insert" AFTER INSERT ON main."` + t.name + `" BEGIN ` + row("NEW") + ` END`,
			`CREATE TEMP TRIGGER "audit_touch_` + t.name + `_update" AFTER UPDATE ON main."` + t.name + `" BEGIN ` + row("OLD") + " " + row("NEW") + ` END`,
			`CREATE TEMP TRIGGER "audit_touch_` + t.name + `_delete" AFTER DELETE ON main."` + t.name + `" BEGIN ` + row("OLD") + ` END`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("track the rows the new events touch: %w", err)
			}
		}
	}
	return nil
}

// touchChunk is the number of keys compareTouched reads per query on each side.
const touchChunk = 256

// compareTouched compares every row startTracking recorded in the working copy's
// transaction wc with the row of the same key in the store, type-exactly, and reports the
// first that differs in each table, as compareTable does: a row the events imply and the
// store lacks, a row the store holds and the events do not imply (they deleted it), a row
// whose values differ. Without tracking (no new events), there is nothing to compare.
func compareTouched(ctx context.Context, stored, wc *sql.Tx, probs *problemList) error {
	if wc == nil {
		return nil
	}
	var tracked int
	if err := wc.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_temp_schema WHERE type = 'table' AND name GLOB 'audit_touched_*'").Scan(&tracked); err != nil || tracked == 0 {
		return err
	}
	for _, t := range touchTables() {
		keys := keyColumns(t)
		var touched [][]any
		rows, err := wc.QueryContext(ctx, `SELECT DISTINCT * FROM "audit_touched_`+t.name+`" ORDER BY `+strings.Join(keys, ", "))
		if err != nil {
			return fmt.Errorf("compare table %s: %w", t.name, err)
		}
		for rows.Next() {
			vals, ptrs := make([]any, len(keys)), make([]any, len(keys))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return fmt.Errorf("compare table %s: %w", t.name, err)
			}
			touched = append(touched, vals)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("compare table %s: %w", t.name, err)
		}
		for start := 0; start < len(touched); start += touchChunk {
			differs, err := compareKeys(ctx, stored, wc, t, touched[start:min(start+touchChunk, len(touched))], probs)
			if err != nil {
				return fmt.Errorf("compare table %s: %w", t.name, err)
			}
			if differs {
				break
			}
		}
	}
	return nil
}

// compareKeys compares the rows of t with the given keys in the store and in the working
// copy; differs reports that it found (and reported) a row that differs. Both sides are
// read at once, each on its own connection, by the first key column (the first column of
// the table's key index): a row of another key that the query also returns is left out.
func compareKeys(ctx context.Context, stored, wc *sql.Tx, t projectionTable, keys [][]any, probs *problemList) (differs bool, err error) {
	names := strings.Split(t.orderBy, ", ")
	var firsts []any
	seen := map[string]bool{}
	for _, k := range keys {
		if f := rowKey(k[:1]); !seen[f] {
			seen[f] = true
			firsts = append(firsts, k[0])
		}
	}
	q := `SELECT * FROM "` + t.name + `" WHERE "` + names[0] + `" IN (` + strings.TrimSuffix(strings.Repeat("?, ", len(firsts)), ", ") + ")"
	type side struct {
		cols []string
		rows map[string][]any
		err  error
	}
	done := make(chan side, 1)
	go func() {
		var s side
		s.cols, s.rows, s.err = rowsByKey(ctx, stored, q, firsts, names)
		done <- s
	}()
	wcols, rebuilt, err := rowsByKey(ctx, wc, q, firsts, names)
	st := <-done
	if err == nil {
		err = st.err
	}
	if err != nil {
		return false, err
	}
	cols, have := st.cols, st.rows
	if len(cols) != len(wcols) {
		return false, fmt.Errorf("table %s has %d columns in the store but %d when rebuilt", t.name, len(cols), len(wcols))
	}
	for _, k := range keys {
		key := rowKey(k)
		a, b := have[key], rebuilt[key]
		switch {
		case a == nil && b == nil:
			continue
		case b == nil:
			probs.add(0, t.name, "table %s: row %s is in the store but not in the table rebuilt from the events: it was added behind the program's back", t.name, describeRow(cols, showValues(a)))
			return true, nil
		case a == nil:
			probs.add(0, t.name, "table %s: row %s, rebuilt from the events, is missing from the store", t.name, describeRow(cols, showValues(b)))
			return true, nil
		}
		for i := range cols {
			if !sameValue(a[i], b[i]) {
				probs.add(0, t.name, "table %s: row %s differs from the table rebuilt from the events: %s is %s in the store but %s when rebuilt", t.name, describeRow(cols[:1], showValues(a[:1])), cols[i], showValue(a[i]), showValue(b[i]))
				return true, nil
			}
		}
	}
	return false, nil
}

// rowsByKey runs q and returns its columns and its rows by the rowKey of their values in
// the columns named keys.
func rowsByKey(ctx context.Context, tx *sql.Tx, q string, args []any, keys []string) ([]string, map[string][]any, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, err
	}
	at := make([]int, len(keys))
	for i, k := range keys {
		if at[i] = slices.Index(cols, k); at[i] < 0 {
			return nil, nil, fmt.Errorf("the table has no column %s", k)
		}
	}
	out := map[string][]any{}
	key := make([]any, len(keys))
	for rows.Next() {
		vals, ptrs := make([]any, len(cols)), make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		for i, j := range at {
			key[i] = vals[j]
		}
		out[rowKey(key)] = vals
	}
	return cols, out, rows.Err()
}

// rowKey writes key values type-exactly, as one string.
func rowKey(vals []any) string { return strings.Join(showValues(vals), "\x00") }

// checkNewBlobs re-hashes every blob an event after from names and checks that it is stored.
func checkNewBlobs(ctx context.Context, rtx *sql.Tx, from int64, probs *problemList) error {
	type named struct {
		name string
		seq  int64
	}
	var blobs []named
	err := eachRow(ctx, rtx, `SELECT j.value, min(e.seq) FROM events e, json_each(e.payload, '$.blobs') j
		WHERE e.seq > ? AND (instr(e.payload, 'blobs') > 0 OR instr(e.payload, '\') > 0) AND json_valid(e.payload)
		GROUP BY j.value ORDER BY 2, 1`, []any{from}, func(rows *sql.Rows) error {
		var b named
		if err := rows.Scan(&b.name, &b.seq); err != nil {
			return err
		}
		blobs = append(blobs, b)
		return nil
	})
	if err != nil {
		return err
	}
	for _, b := range blobs {
		var data []byte
		err := rtx.QueryRowContext(ctx, "SELECT data FROM blobs WHERE sha256 = ?", b.name).Scan(&data)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			probs.add(b.seq, "blobs", "event %d: it names blob %s, which is not stored", b.seq, b.name)
		case err != nil:
			return err
		case sha256Hex(data) != b.name:
			probs.add(b.seq, "blobs", "blob %s (named by event %d): its contents do not match its SHA-256: the body was changed after it was stored", b.name, b.seq)
		}
	}
	return nil
}
