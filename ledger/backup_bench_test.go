package ledger

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"evidenceledger/evidence"
)

// backupBenchBytes is the size of the ledger BenchmarkBackup1GB copies.
const backupBenchBytes = 1 << 30

// BenchmarkBackup1GB builds a ledger of 1 GiB (pastes of 2 MiB of random text, the largest
// a paste may be, so that nothing compresses or deduplicates) and copies it, alternately,
// with Store.Backup (what `ledger backup` runs: VACUUM INTO) and with cp(1) of the same
// ledger.db, into new files. It reports both in MB/s (10^6 bytes) and their ratio,
// x-cp (backup time over cp time). Building the ledger takes most of its run: it is left out
// of `go test ./...` and run by scripts/backup-1g.sh.
//
//	go test ./ledger -run '^$' -bench Backup1GB -benchtime 3x
func BenchmarkBackup1GB(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	paste := make([]byte, evidence.MaxPasteBytes/2)
	text := make([]byte, evidence.MaxPasteBytes)
	res := evidence.Research{Claims: []evidence.Claim{{Text: "Company filed its annual report.", Status: evidence.StatusReported,
		Citations: []evidence.Citation{{URL: "https://registry.example/filings", Quote: "filed its annual report", Status: evidence.StatusReported}}}}}
	for {
		st, err := os.Stat(filepath.Join(dir, dbFileName))
		if err != nil {
			b.Fatal(err)
		}
		if st.Size() >= backupBenchBytes {
			break
		}
		rand.Read(paste)
		hex.Encode(text, paste)
		if _, err := s.ImportResearch(ctx, "system", text, res); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.wdb.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, dbFileName))
	if err != nil {
		b.Fatal(err)
	}
	out := b.TempDir()
	var backup, cp time.Duration
	b.ResetTimer()
	for range b.N {
		name := filepath.Join(out, "backup.db")
		start := time.Now()
		if _, err := s.Backup(ctx, name, false); err != nil {
			b.Fatal(err)
		}
		backup += time.Since(start)
		os.Remove(name)
		name = filepath.Join(out, "cp.db")
		start = time.Now()
		if o, err := exec.Command("cp", filepath.Join(dir, dbFileName), name).CombinedOutput(); err != nil {
			b.Fatalf("cp: %v %s", err, o)
		}
		cp += time.Since(start)
		os.Remove(name)
	}
	mb := float64(st.Size()) * float64(b.N) / 1e6
	b.ReportMetric(float64(st.Size())/1e6, "ledger-MB")
	b.ReportMetric(mb/backup.Seconds(), "backup-MB/s")
	b.ReportMetric(mb/cp.Seconds(), "cp-MB/s")
	b.ReportMetric(backup.Seconds()/cp.Seconds(), "x-cp")
}
