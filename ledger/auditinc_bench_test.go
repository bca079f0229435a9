package ledger

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// BenchmarkAuditIncremental audits, incrementally, 10,000 new checks (10,100 events with
// their imports) recorded on a ledger of real check events, and holds the time to the
// floor of what any such audit must do: verify the signatures of the new events, and read
// and hash every event of the chain once (hashFloor), both on every core. Each round
// records 10,000 more checks first (not timed), so that there is always as much that is new.
//
// The ledger's base size is LEDGER_BENCH_AUDIT_BASE checks (default 100,000; 1000000 for
// the million); LEDGER_BENCH_AUDIT_DIR keeps it in a directory of one's choosing,
// built once and extended by later runs. The ledger and the state of its first, full audit
// are made once per test process (incrementalFixture), however often the testing package
// calls the benchmark. Run it with a fixed count of rounds:
//
//	go test ./ledger -run '^$' -bench AuditIncremental -benchtime 3x -timeout 2h
func BenchmarkAuditIncremental(b *testing.B) {
	f := incremental.get(b)
	s, ctx := f.s, context.Background()
	pub, priv, _ := ed25519.GenerateKey(nil)
	digests := make([][32]byte, 4096)
	sigs := make([][]byte, len(digests))
	for i := range digests {
		digests[i] = sha256.Sum256([]byte(strconv.Itoa(i)))
		sigs[i] = ed25519.Sign(priv, digests[i][:])
	}
	var audit, verify, hash time.Duration
	var added int64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		before := f.events
		f.checks += incrementalChecks
		f.events = checkLedger(b, s, f.checks)
		added += f.events - before
		runtime.GC()
		b.StartTimer()
		start := time.Now()
		rep, err := s.AuditWith(ctx, AuditOptions{State: f.state})
		if err != nil || !rep.OK || rep.Kind != "incremental" || rep.From != before || rep.Events != f.events {
			b.Fatalf("incremental audit: %v from %d (want %d), %d events (want %d): %+v %q", err, rep.From, before, rep.Events, f.events, rep.Problems, rep.Notes)
		}
		audit += time.Since(start)
		b.StopTimer()
		verify += verifyFloor(pub, digests, sigs, int(f.events-before))
		hash += hashFloor(b, s)
		b.StartTimer()
	}
	rounds := float64(b.N)
	floor := verify + hash
	b.ReportMetric(float64(f.events), "events")
	b.ReportMetric(float64(added)/rounds, "new-events")
	b.ReportMetric(audit.Seconds()/rounds, "incremental-s")
	b.ReportMetric(floor.Seconds()/rounds, "floor-s")
	b.ReportMetric(verify.Seconds()/rounds, "verify-floor-s")
	b.ReportMetric(hash.Seconds()/rounds, "hash-floor-s")
	b.ReportMetric(audit.Seconds()/floor.Seconds(), "x-floor")
	if f.full > 0 {
		b.ReportMetric(f.full.Seconds(), "first-full-s")
	}
	if st, err := os.Stat(f.state + ".db"); err == nil {
		b.ReportMetric(float64(st.Size())/1e6, "working-copy-MB")
	}
	if st, err := os.Stat(s.path); err == nil {
		b.ReportMetric(float64(st.Size())/1e6, "ledger-MB")
	}
}

// incrementalChecks is the number of checks each round of BenchmarkAuditIncremental adds.
const incrementalChecks = 10_000

// incrementalFixture is BenchmarkAuditIncremental's ledger and auditor state, made on its
// first call: the ledger built (or extended) to its base size, and audited in full once,
// which wrote the state the rounds start from (a ledger kept in LEDGER_BENCH_AUDIT_DIR keeps
// its state in DIR.auditor, and a later run brings it up to date incrementally instead).
// The files are removed when the tests end (removeBenchFixtures), but for a kept ledger.
type incrementalFixture struct {
	once   sync.Once
	err    error
	s      *Store
	state  string
	checks int
	events int64
	full   time.Duration
	remove []string
}

var incremental incrementalFixture

func (f *incrementalFixture) get(b *testing.B) *incrementalFixture {
	f.once.Do(func() { f.err = f.make(b) })
	if f.err != nil {
		b.Fatal(f.err)
	}
	return f
}

func (f *incrementalFixture) make(b *testing.B) error {
	base := 100_000
	if v := os.Getenv("LEDGER_BENCH_AUDIT_BASE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("LEDGER_BENCH_AUDIT_BASE=%q: want a number of checks", v)
		}
		base = n
	}
	dir := os.Getenv("LEDGER_BENCH_AUDIT_DIR")
	var stateDir string
	if dir == "" {
		d, err := os.MkdirTemp("", "ledger-bench-")
		if err != nil {
			return err
		}
		dir, stateDir = filepath.Join(d, "data"), filepath.Join(d, "auditor")
		f.remove = append(f.remove, d)
	} else {
		// A kept ledger keeps its auditor's state beside it, so that a later run starts
		// from it rather than from a full audit.
		stateDir = filepath.Clean(dir) + ".auditor"
	}
	f.state = filepath.Join(stateDir, "auditor.state")
	ctx := context.Background()
	var err error
	if f.s, err = Open(ctx, dir, Options{Now: testClock()}); err != nil {
		return err
	}
	f.events = checkLedger(b, f.s, base)
	if err := f.s.rdb.QueryRowContext(ctx, "SELECT count(*) FROM checks").Scan(&f.checks); err != nil {
		return err
	}
	_, err = os.Stat(f.state)
	kept := err == nil
	start := time.Now()
	rep, err := f.s.AuditWith(ctx, AuditOptions{State: f.state, Full: !kept})
	if err == nil && (!rep.OK || rep.Events != f.events) {
		err = fmt.Errorf("the first audit (%s): %+v %q", rep.Kind, rep.Problems, rep.Notes)
	}
	if !kept {
		f.full = time.Since(start)
	}
	return err
}

// removeBenchFixtures closes and removes what the benchmarks' fixtures made.
func removeBenchFixtures() {
	if incremental.s != nil {
		incremental.s.Close()
	}
	for _, d := range incremental.remove {
		os.RemoveAll(d)
	}
}

// hashFloor reads every event of s in seq order, as the audit reads them, and hashes its
// canonical form on every core, with nothing else, and returns the time taken: the least
// that re-hashing the whole chain against its tree costs.
func hashFloor(b *testing.B, s *Store) time.Duration {
	b.Helper()
	ctx := context.Background()
	start := time.Now()
	jobs := make(chan []Event, 2*runtime.NumCPU())
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for evs := range jobs {
				for i := range evs {
					sha256.Sum256(evs[i].canonicalWith(evs[i].Payload))
				}
			}
		}()
	}
	batch := make([]Event, 0, auditBatchSize)
	err := eachEvent(ctx, s.rdb, "SELECT seq, v, prev, at, actor, type, key, payload, hash, sig FROM events ORDER BY seq", func(ev Event) {
		if batch = append(batch, ev); len(batch) == auditBatchSize {
			jobs <- batch
			batch = make([]Event, 0, auditBatchSize)
		}
	})
	jobs <- batch
	close(jobs)
	wg.Wait()
	if err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}
