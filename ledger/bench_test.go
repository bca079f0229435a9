package ledger

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

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

// floorInsertSign times the floor for n events: signing n digests with Ed25519 and inserting
// n rows of the same shape into a bare events table (same pragmas, batches of batch rows per
// transaction), with none of the ledger's canonicalization, checks or projections.
func floorInsertSign(b *testing.B, n, batch int, payload string) time.Duration {
	b.Helper()
	db, err := sql.Open("sqlite", dsn(filepath.Join(b.TempDir(), "floor.db"), true, 0))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE events (seq INTEGER PRIMARY KEY, v INTEGER, prev TEXT, at TEXT, actor TEXT,
		type TEXT, key TEXT, payload TEXT, hash TEXT UNIQUE, sig TEXT) STRICT`); err != nil {
		b.Fatal(err)
	}
	_, priv, _ := ed25519.GenerateKey(nil)
	start := time.Now()
	prev := zeroHash
	for seq := 1; seq <= n; {
		tx, err := db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		stmt, _ := tx.Prepare("INSERT INTO events VALUES (?, 1, ?, '2026-11-30T10:00:00.000Z', 'system', 'note.added', '0123456789abcdef', ?, ?, ?)")
		for i := 0; i < batch && seq <= n; i++ {
			d := sha256.Sum256([]byte(prev + payload + strconv.Itoa(seq)))
			h := hex.EncodeToString(d[:])
			sig := base64.StdEncoding.EncodeToString(ed25519.Sign(priv, d[:]))
			if _, err := stmt.Exec(seq, prev, payload, h, sig); err != nil {
				b.Fatal(err)
			}
			prev = h
			seq++
		}
		stmt.Close()
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

func benchRecord(b *testing.B, batch int) {
	s, _ := openTest(b)
	ctx := context.Background()
	drafts := benchDrafts(batch)
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if _, err := s.Record(ctx, "system", drafts...); err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	events := b.N * batch
	p, _ := prepareDraft(drafts[0])
	floor := floorInsertSign(b, events, batch, string(p.payload))
	b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(events)/floor.Seconds(), "floor-events/s")
	b.ReportMetric(elapsed.Seconds()/floor.Seconds(), "x-floor")
}

// BenchmarkRecordBatch100 records 100 events per transaction.
func BenchmarkRecordBatch100(b *testing.B) { benchRecord(b, 100) }

// BenchmarkRecordOne records one event per transaction (each commit is an fsync).
func BenchmarkRecordOne(b *testing.B) { benchRecord(b, 1) }

// BenchmarkAudit audits a ledger of 20,000 events, replay included, and compares with the
// floor of verifying the same signatures on every core with nothing else.
func BenchmarkAudit(b *testing.B) {
	const n = 20000
	s, _ := openTest(b)
	ctx := context.Background()
	drafts := benchDrafts(1000)
	for range n / 1000 {
		if _, err := s.Record(ctx, "system", drafts...); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		rep, err := s.Audit(ctx)
		if err != nil || !rep.OK {
			b.Fatalf("audit: %v %+v", err, rep.Problems)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	events := b.N * (n + 1)

	pub, priv, _ := ed25519.GenerateKey(nil)
	digests := make([][32]byte, n)
	sigs := make([][]byte, n)
	for i := range digests {
		digests[i] = sha256.Sum256([]byte(strconv.Itoa(i)))
		sigs[i] = ed25519.Sign(priv, digests[i][:])
	}
	fstart := time.Now()
	for range b.N {
		var wg sync.WaitGroup
		workers := runtime.NumCPU()
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < n; i += workers {
					ed25519.Verify(pub, digests[i][:], sigs[i])
				}
			}()
		}
		wg.Wait()
	}
	floor := time.Since(fstart)
	b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(b.N*n)/floor.Seconds(), "verify-floor-events/s")
	b.ReportMetric(elapsed.Seconds()/floor.Seconds(), "x-floor")
}
