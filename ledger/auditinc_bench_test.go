package ledger

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
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
// built once and extended by later runs. Run it with a fixed count of rounds:
//
//	go test ./ledger -run '^$' -bench AuditIncremental -benchtime 3x -timeout 2h
func BenchmarkAuditIncremental(b *testing.B) {
	base := 100_000
	if v := os.Getenv("LEDGER_BENCH_AUDIT_BASE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("LEDGER_BENCH_AUDIT_BASE=%q: want a number of checks", v)
		}
		base = n
	}
	const fresh = 10_000
	var s *Store
	if dir := os.Getenv("LEDGER_BENCH_AUDIT_DIR"); dir == "" {
		s, _ = openTest(b)
	} else {
		var err error
		if s, err = Open(context.Background(), dir, Options{Now: testClock()}); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
	}
	ctx := context.Background()
	events := checkLedger(b, s, base)
	var checks int
	if err := s.rdb.QueryRowContext(ctx, "SELECT count(*) FROM checks").Scan(&checks); err != nil {
		b.Fatal(err)
	}
	state := filepath.Join(b.TempDir(), "auditor.state")
	start := time.Now()
	rep, err := s.AuditWith(ctx, AuditOptions{State: state, Full: true})
	if err != nil || !rep.OK || rep.Kind != "full" {
		b.Fatalf("full audit: %v %+v", err, rep.Problems)
	}
	full := time.Since(start)
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
		before := events
		checks += fresh
		events = checkLedger(b, s, checks)
		added += events - before
		runtime.GC()
		b.StartTimer()
		start := time.Now()
		rep, err := s.AuditWith(ctx, AuditOptions{State: state})
		if err != nil || !rep.OK || rep.Kind != "incremental" || rep.From != before || rep.Events != events {
			b.Fatalf("incremental audit: %v from %d (want %d), %d events (want %d): %+v %q", err, rep.From, before, rep.Events, events, rep.Problems, rep.Notes)
		}
		audit += time.Since(start)
		b.StopTimer()
		verify += verifyFloor(pub, digests, sigs, int(events-before))
		hash += hashFloor(b, s)
		b.StartTimer()
	}
	rounds := float64(b.N)
	floor := verify + hash
	b.ReportMetric(float64(events), "events")
	b.ReportMetric(float64(added)/rounds, "new-events")
	b.ReportMetric(audit.Seconds()/rounds, "incremental-s")
	b.ReportMetric(floor.Seconds()/rounds, "floor-s")
	b.ReportMetric(verify.Seconds()/rounds, "verify-floor-s")
	b.ReportMetric(hash.Seconds()/rounds, "hash-floor-s")
	b.ReportMetric(audit.Seconds()/floor.Seconds(), "x-floor")
	b.ReportMetric(full.Seconds(), "first-full-s")
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
