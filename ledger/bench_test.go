package ledger

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"database/sql"
	"flag"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"evidenceledger/evidence"
)

// The benchmarks measure their floors in the same run, interleaved with the measured work
// (one floor round after each round of work), so that both see the same load on a shared
// machine. The ratios (x-...) are the steadier figures; events/s vary with the load.

// benchDrafts makes n drafts shaped like a checked citation.
func benchDrafts(n int) []Draft {
	ds := make([]Draft, n)
	for i := range ds {
		ds[i] = Draft{Type: "note.added", Payload: map[string]any{
			"citation": "c-" + strconv.Itoa(i),
			"status":   "found_at_source",
			"note":     "The page says: \u201cthe words are on the page\u201d, near the top.",
			"accuracy": 97,
		}}
	}
	return ds
}

// bareEvents is an events table with the ledger's columns and pragmas (WAL, synchronous
// FULL) but none of its checks, triggers or projections: the floor for inserting rows.
type bareEvents struct {
	db *sql.DB
}

func newBareEvents(b *testing.B) *bareEvents {
	b.Helper()
	db, err := sql.Open("sqlite", dsn(filepath.Join(b.TempDir(), "floor.db"), true, 0))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE events (seq INTEGER PRIMARY KEY, v INTEGER, prev TEXT, at TEXT, actor TEXT,
		type TEXT, key TEXT, payload TEXT, hash TEXT UNIQUE, sig TEXT) STRICT`); err != nil {
		b.Fatal(err)
	}
	return &bareEvents{db: db}
}

// insert writes evs in one transaction with a prepared statement, and returns the time taken.
func (f *bareEvents) insert(b *testing.B, evs []Event) time.Duration {
	start := time.Now()
	tx, err := f.db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	stmt, err := tx.Prepare("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
	if err != nil {
		b.Fatal(err)
	}
	for _, ev := range evs {
		if _, err := stmt.Exec(ev.Seq, ev.V, ev.Prev, ev.At, ev.Actor, ev.Type, ev.Key, string(ev.Payload), ev.Hash, ev.Sig); err != nil {
			b.Fatal(err)
		}
	}
	stmt.Close()
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// signFloor signs the digests of evs with Ed25519 on one goroutine, as Record does, and
// returns the time taken.
func signFloor(priv ed25519.PrivateKey, evs []Event) time.Duration {
	start := time.Now()
	for _, ev := range evs {
		d := sha256.Sum256(ev.canonicalWith(ev.Payload))
		ed25519.Sign(priv, d[:])
	}
	return time.Since(start)
}

// benchRecord records batch events per Record call. After each call it inserts the very rows
// Record wrote into a bare table (the insert floor) and signs their digests again (the sign
// floor); insert+sign is the floor Record is held to. It also records the same drafts into a
// ledger without the Merkle tree and checkpoints (as the ledger was before them), so that
// x-no-checkpoints is what checkpoints cost, measured in the same run.
func benchRecord(b *testing.B, batch int) {
	s, _ := openTest(b)
	plain, err := Open(context.Background(), b.TempDir(), Options{Now: testClock(), noTree: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { plain.Close() })
	ctx := context.Background()
	drafts := benchDrafts(batch)
	bare := newBareEvents(b)
	_, priv, _ := ed25519.GenerateKey(nil)
	var record, before, insert, sign time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		evs, err := s.recordDrafts(ctx, "system", drafts...)
		if err != nil {
			b.Fatal(err)
		}
		record += time.Since(start)
		b.StopTimer()
		start = time.Now()
		if _, err := plain.recordDrafts(ctx, "system", drafts...); err != nil {
			b.Fatal(err)
		}
		before += time.Since(start)
		insert += bare.insert(b, evs)
		sign += signFloor(priv, evs)
		b.StartTimer()
	}
	events := float64(b.N * batch)
	b.ReportMetric(events/record.Seconds(), "events/s")
	b.ReportMetric(events/before.Seconds(), "no-checkpoints-events/s")
	b.ReportMetric(record.Seconds()/before.Seconds(), "x-no-checkpoints")
	b.ReportMetric(events/insert.Seconds(), "insert-floor-events/s")
	b.ReportMetric(events/sign.Seconds(), "sign-floor-events/s")
	b.ReportMetric(events/(insert+sign).Seconds(), "insert+sign-floor-events/s")
	b.ReportMetric(record.Seconds()/(insert+sign).Seconds(), "x-insert+sign")
}

// BenchmarkRecordBatch100 records 100 events per transaction.
func BenchmarkRecordBatch100(b *testing.B) { benchRecord(b, 100) }

// BenchmarkRecordOne records one event per transaction (each commit is an fsync).
func BenchmarkRecordOne(b *testing.B) { benchRecord(b, 1) }

// verifyFloor verifies n signatures on runtime.NumCPU goroutines with nothing else, and
// returns the time taken. It goes round the signatures given (digests[i] signed as sigs[i])
// as often as n needs: verification does the same work whatever the message, so a few
// thousand distinct ones stand for a million without a million in memory.
func verifyFloor(pub ed25519.PublicKey, digests [][32]byte, sigs [][]byte, n int) time.Duration {
	start := time.Now()
	var wg sync.WaitGroup
	workers := runtime.NumCPU()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				j := i % len(digests)
				ed25519.Verify(pub, digests[j][:], sigs[j])
			}
		}()
	}
	wg.Wait()
	return time.Since(start)
}

// BenchmarkAudit audits a ledger of 20,001 events, replay and table comparison included, and
// after each audit verifies as many signatures on every core with nothing else (the floor).
func BenchmarkAudit(b *testing.B) {
	const n = 20000
	s, _ := openTest(b)
	ctx := context.Background()
	drafts := benchDrafts(1000)
	for range n / 1000 {
		if _, err := s.recordDrafts(ctx, "system", drafts...); err != nil {
			b.Fatal(err)
		}
	}
	pub, priv, _ := ed25519.GenerateKey(nil)
	digests := make([][32]byte, n+1)
	sigs := make([][]byte, n+1)
	for i := range digests {
		digests[i] = sha256.Sum256([]byte(strconv.Itoa(i)))
		sigs[i] = ed25519.Sign(priv, digests[i][:])
	}
	var audit, verify time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		rep, err := s.Audit(ctx)
		if err != nil || !rep.OK || rep.Events != n+1 {
			b.Fatalf("audit: %v %d events %+v", err, rep.Events, rep.Problems)
		}
		audit += time.Since(start)
		b.StopTimer()
		verify += verifyFloor(pub, digests, sigs, len(digests))
		b.StartTimer()
	}
	events := float64(b.N * (n + 1))
	b.ReportMetric(events/audit.Seconds(), "events/s")
	b.ReportMetric(events/verify.Seconds(), "verify-floor-events/s")
	b.ReportMetric(audit.Seconds()/verify.Seconds(), "x-verify")
}

// checkLedger makes a ledger of the events real use makes: batches of 100 claims with one
// citation each, then one citation.checked per citation, each in its own transaction as the
// checker records them (with its page, verdicts and projections). It returns the event count.
//
// Only the audit of such a ledger is measured, so the ledger is built with its write
// connection's synchronous=OFF: every check is still its own transaction with its own
// checkpoint, as in real use, but a commit waits for no fsync, which makes a ledger of a
// million checks buildable in minutes. A ledger that already holds checks (-audit-dir) is
// extended to the number asked for.
func checkLedger(b *testing.B, s *Store, checks int) int64 {
	b.Helper()
	ctx := context.Background()
	if _, err := s.wdb.ExecContext(ctx, "PRAGMA synchronous=OFF"); err != nil {
		b.Fatal(err)
	}
	defer func() {
		if _, err := s.wdb.ExecContext(ctx, "PRAGMA synchronous=FULL"); err != nil {
			b.Fatal(err)
		}
	}()
	var done int
	if err := s.rdb.QueryRowContext(ctx, "SELECT count(*) FROM checks").Scan(&done); err != nil {
		b.Fatal(err)
	}
	for done < checks {
		var claims []evidence.Claim
		for i := 0; i < 100 && done+i < checks; i++ {
			n := done + i
			claims = append(claims, claim(fmt.Sprintf("Company %d filed its annual report for fiscal year %d.", n, 2000+n%25),
				fmt.Sprintf("https://host%d.example/filings/%d", n%50, n), fmt.Sprintf("Company %d filed its annual report on time", n)))
		}
		bt, err := s.ImportResearch(ctx, "system", []byte(fmt.Sprint("paste ", done)), research(claims...))
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range bt.Claims {
			ch, body := foundCheck(c.ID, c.Citations[0].ID, c.Citations[0].URL)
			if err := s.RecordCheck(ctx, "system", ch, body, nil, nil, nil); err != nil {
				b.Fatal(err)
			}
			done++
		}
	}
	var n int64
	if err := s.rdb.QueryRowContext(ctx, "SELECT count(*) FROM events").Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}

// auditChecks is the number of checks BenchmarkAuditChecks records before it audits.
var auditChecks = flag.Int("audit-checks", 2000, "checks recorded by BenchmarkAuditChecks")

// auditDir keeps BenchmarkAuditChecks' ledger in a directory of one's choosing, so that a
// large ledger is built once and audited again by later runs.
var auditDir = flag.String("audit-dir", "", "directory of BenchmarkAuditChecks' ledger, kept and reused (default: a temporary one)")

// BenchmarkAuditChecks audits a ledger of real check events (citation.checked with its
// projections, in batches as imported), tree and checkpoints included, against the verify
// floor measured after each audit, and reports the peak heap in use during the audits.
// -audit-checks=N sets the number of checks (default 2,000).
func BenchmarkAuditChecks(b *testing.B) {
	var s *Store
	if *auditDir == "" {
		s, _ = openTest(b)
	} else {
		var err error
		if s, err = Open(context.Background(), *auditDir, Options{Now: testClock()}); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
	}
	n := checkLedger(b, s, *auditChecks)
	// The peak heap is sampled while an audit runs, and only then.
	var peak atomic.Uint64
	var auditing atomic.Bool
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if !auditing.Load() {
				continue
			}
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
		}
	}()
	ctx := context.Background()
	pub, priv, _ := ed25519.GenerateKey(nil)
	digests := make([][32]byte, min(n, 4096))
	sigs := make([][]byte, len(digests))
	for i := range digests {
		digests[i] = sha256.Sum256([]byte(strconv.Itoa(i)))
		sigs[i] = ed25519.Sign(priv, digests[i][:])
	}
	var audit, verify, copyFloor, readFloor time.Duration
	b.ResetTimer()
	for range b.N {
		runtime.GC()
		auditing.Store(true)
		start := time.Now()
		rep, err := s.Audit(ctx)
		if err != nil || !rep.OK || rep.Events != n {
			b.Fatalf("audit: %v %d events %+v", err, rep.Events, rep.Problems)
		}
		audit += time.Since(start)
		auditing.Store(false)
		b.StopTimer()
		verify += verifyFloor(pub, digests, sigs, int(n))
		c, r := replayFloors(b, s)
		copyFloor += c
		readFloor += r
		b.StartTimer()
	}
	events := float64(int64(b.N) * n)
	b.ReportMetric(events/audit.Seconds(), "events/s")
	b.ReportMetric(events/verify.Seconds(), "verify-floor-events/s")
	b.ReportMetric(audit.Seconds()/verify.Seconds(), "x-verify")
	// The replay floors (replayFloors): copying the projection tables inside SQLite, on one
	// core, and reading both copies' rows. An audit that verifies every signature (the
	// verify floor keeps every core busy), rebuilds the tables in SQLite and compares them
	// cannot take less than the larger of the copy and all that work spread over every
	// core: bound-x-verify is that bound over the verify floor, x-bound the audit over it.
	cpus := float64(runtime.NumCPU())
	bound := max(copyFloor.Seconds(), (cpus*verify.Seconds()+copyFloor.Seconds()+readFloor.Seconds())/cpus)
	b.ReportMetric(events/copyFloor.Seconds(), "copy-floor-events/s")
	b.ReportMetric(events/readFloor.Seconds(), "read-floor-events/s")
	b.ReportMetric(bound/verify.Seconds(), "bound-x-verify")
	b.ReportMetric(audit.Seconds()/bound, "x-bound")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
	// The audit also verifies every stored checkpoint (one per transaction: here one per
	// check): sigs-per-event is the signatures it verifies per event, and x-verify-sigs the
	// ratio to the floor scaled to that many signatures (the floor measured times
	// sigs-per-event).
	var cps int64
	if err := s.rdb.QueryRowContext(ctx, "SELECT count(*) FROM checkpoints").Scan(&cps); err != nil {
		b.Fatal(err)
	}
	perEvent := float64(n+cps) / float64(n)
	b.ReportMetric(perEvent, "sigs-per-event")
	b.ReportMetric(audit.Seconds()/(verify.Seconds()*perEvent), "x-verify-sigs")
}

// BenchmarkProofs1M times inclusion and consistency proofs in a tree of 1,000,001 leaves
// (the tree alone is built: a ledger's first event, then 10^6 leaves of made-up hashes
// appended as Record appends them). Each proof reads O(log n) stored hashes, never the log.
func BenchmarkProofs1M(b *testing.B) {
	const n = 1_000_000
	s, _ := openTest(b)
	ctx := context.Background()
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	evs := make([]Event, 10000)
	for start := int64(1); start < n+1; start += int64(len(evs)) {
		for i := range evs {
			sum := sha256.Sum256([]byte(strconv.FormatInt(start+int64(i), 10)))
			evs[i].Hash = fmt.Sprintf("%x", sum)
		}
		if _, err := appendTree(ctx, tx, start, evs); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	size := int64(n + 1)
	b.Run("inclusion", func(b *testing.B) {
		for i := range b.N {
			if _, err := s.InclusionProof(ctx, 1+int64(i*7919)%size, size); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("consistency", func(b *testing.B) {
		for i := range b.N {
			if _, err := s.ConsistencyProof(ctx, 1+int64(i*7919)%size, size); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDiskPerCheck reports where the disk goes in a ledger of real check events: bytes
// per checked citation in each table and index of at least 20 bytes (SQLite's dbstat), and
// in all. It measures a size, not a time: run it with -benchtime 1x.
func BenchmarkDiskPerCheck(b *testing.B) {
	const checks = 2000
	s, _ := openTest(b)
	checkLedger(b, s, checks)
	rows, err := s.rdb.Query("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")
	if err != nil {
		b.Fatalf("dbstat: %v", err)
	}
	defer rows.Close()
	var total int64
	for rows.Next() {
		var name string
		var size int64
		if err := rows.Scan(&name, &size); err != nil {
			b.Fatal(err)
		}
		total += size
		if float64(size)/checks >= 20 {
			b.ReportMetric(float64(size)/checks, "B/check-"+name)
		}
	}
	b.ReportMetric(float64(total)/checks, "B/check")
}

// BenchmarkRecordCheck records real checks (citation.checked with its page and projections,
// one per transaction, as the checker records them) into this ledger and, interleaved in
// the same run, into one opened as the ledger was before the Merkle tree (no tree, no
// checkpoints, no statement cache): x-no-checkpoints is the cost of checkpoints on real use.
func BenchmarkRecordCheck(b *testing.B) {
	ctx := context.Background()
	s, _ := openTest(b)
	plain, err := Open(ctx, b.TempDir(), Options{Now: testClock(), noTree: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { plain.Close() })
	var claims []evidence.Claim
	for n := range 500 {
		claims = append(claims, claim(fmt.Sprintf("Company %d filed its annual report.", n),
			fmt.Sprintf("https://host%d.example/filings/%d", n%50, n), fmt.Sprintf("Company %d filed its annual report on time", n)))
	}
	var views [2][]ClaimView
	for i, st := range []*Store{s, plain} {
		bt, err := st.ImportResearch(ctx, "system", []byte("paste"), research(claims...))
		if err != nil {
			b.Fatal(err)
		}
		views[i] = bt.Claims
	}
	var with, without time.Duration
	b.ResetTimer()
	for i := range b.N {
		for j, st := range []*Store{s, plain} {
			c := views[j][i%len(views[j])]
			ch, body := foundCheck(c.ID, c.Citations[0].ID, c.Citations[0].URL)
			start := time.Now()
			if err := st.RecordCheck(ctx, "system", ch, body, nil, nil, nil); err != nil {
				b.Fatal(err)
			}
			if j == 0 {
				with += time.Since(start)
			} else {
				without += time.Since(start)
			}
		}
	}
	b.ReportMetric(float64(b.N)/with.Seconds(), "checks/s")
	b.ReportMetric(float64(b.N)/without.Seconds(), "no-checkpoints-checks/s")
	b.ReportMetric(with.Seconds()/without.Seconds(), "x-no-checkpoints")
}

// replayFloors times the least an audit that rebuilds the projection tables in SQLite and
// compares them must do beside verifying signatures: copy every projection table of s as it
// is into an empty database with the ledger's schema (INSERT INTO ... SELECT in one
// transaction, inside SQLite: no Go, no projector, no foreign-key checks, no journal, no
// fsync, as the audit's replay database is written), then read every row of both, the
// stored tables and the copy, as cheaply as database/sql allows (sql.RawBytes, no
// conversion), as the comparison must.
func replayFloors(b *testing.B, s *Store) (copyTime, readTime time.Duration) {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "floor.db")+"?_pragma=journal_mode(off)&_pragma=synchronous(off)&_pragma=foreign_keys(0)&_pragma=cache_size(-65536)&_pragma=temp_store(memory)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := migrate(ctx, db); err != nil {
		b.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "ATTACH ? AS store", "file:"+s.path+"?mode=ro"); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, t := range projectionTables {
		if _, err := tx.ExecContext(ctx, "INSERT INTO main."+t.name+" SELECT * FROM store."+t.name+" ORDER BY "+t.orderBy); err != nil {
			b.Fatalf("copy %s: %v", t.name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	copyTime = time.Since(start)
	start = time.Now()
	for _, schema := range []string{"store", "main"} {
		for _, t := range projectionTables {
			rows, err := db.QueryContext(ctx, "SELECT * FROM "+schema+"."+t.name+" ORDER BY "+t.orderBy)
			if err != nil {
				b.Fatal(err)
			}
			cols, _ := rows.Columns()
			raw := make([]sql.RawBytes, len(cols))
			ptrs := make([]any, len(cols))
			for i := range raw {
				ptrs[i] = &raw[i]
			}
			for rows.Next() {
				if err := rows.Scan(ptrs...); err != nil {
					b.Fatal(err)
				}
			}
			if err := rows.Err(); err != nil {
				b.Fatal(err)
			}
			rows.Close()
		}
	}
	return copyTime, time.Since(start)
}
