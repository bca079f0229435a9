package verify_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// BenchmarkDiskPerCorpusCheck checks 1,000 citations of the 40 real corpus pages (25 per
// page, both verifiers, the adjudicator, one commit per citation, the rendering verifier
// off) into a fresh ledger, closes it and reports where its disk goes, per checked
// citation, from SQLite's dbstat: in all, in the blobs (the page bodies, each stored once,
// and the HTTP heads), and in every table or index of at least 20 bytes. It measures a
// size, not a time: run it with -benchtime 1x.
func BenchmarkDiskPerCorpusCheck(b *testing.B) {
	const n = 1000
	claims, _ := corpusClaims(b, n)
	for range b.N {
		dir := b.TempDir()
		store, err := ledger.Open(context.Background(), dir, ledger.Options{})
		if err != nil {
			b.Fatal(err)
		}
		batch := importClaims(b, store, claims...)
		checker := verify.NewChecker(verify.LoopbackFetchConfig())
		outs, err := verify.RunBatch(context.Background(), store, checker, "system", batch.ID, false, verify.DefaultWorkers, nil)
		if err != nil || len(outs) != n {
			b.Fatalf("%d outcomes (%v), want %d", len(outs), err, n)
		}
		if err := store.Close(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "ledger.db")+"?mode=ro")
		if err != nil {
			b.Fatal(err)
		}
		rows, err := db.Query("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")
		if err != nil {
			b.Fatalf("dbstat: %v", err)
		}
		var total int64
		for rows.Next() {
			var name string
			var size int64
			if err := rows.Scan(&name, &size); err != nil {
				b.Fatal(err)
			}
			total += size
			if float64(size)/n >= 20 {
				b.ReportMetric(float64(size)/n, "B/cit-"+name)
			}
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		rows.Close()
		db.Close()
		b.ReportMetric(float64(total)/n, "B/cit")
		b.StartTimer()
	}
}
