package replica

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// testInterval is the replication interval of the tests: short, so that they run fast.
const testInterval = 20 * time.Millisecond

// maxPolls bounds how many times a test reads the replica while it waits for it to catch
// up; each read is a whole restore.
const maxPolls = 5000

// importBatch records one batch of n claims in s.
func importBatch(t testing.TB, s *ledger.Store, tag string, n int) {
	t.Helper()
	var res evidence.Research
	for i := range n {
		res.Claims = append(res.Claims, evidence.Claim{Text: fmt.Sprintf("Company %s-%d filed its annual report.", tag, i), Status: evidence.StatusReported,
			Citations: []evidence.Citation{{URL: fmt.Sprintf("https://registry.example/%s/%d", tag, i), Quote: "filed its annual report", Status: evidence.StatusReported}}})
	}
	if _, err := s.ImportResearch(context.Background(), "system", []byte("paste "+tag), res); err != nil {
		t.Fatal(err)
	}
}

// eventCount is how many events s holds.
func eventCount(t testing.TB, s *ledger.Store) int64 {
	t.Helper()
	var n int64
	for {
		evs, err := s.Events(context.Background(), n, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) == 0 {
			return n
		}
		n = evs[len(evs)-1].Seq
	}
}

// restored restores the replica of c (as of at) into a new directory and opens it read-only.
func restored(t testing.TB, c Config, at time.Time) (*ledger.Store, error) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "restored")
	if _, err := Restore(context.Background(), c, at, dir); err != nil {
		return nil, err
	}
	s, err := ledger.OpenReadOnly(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, nil
}

// waitFor reads the replica of c until it holds at least n events, at most maxPolls times,
// and returns the restored ledger.
func waitFor(t testing.TB, c Config, n int64) *ledger.Store {
	t.Helper()
	var last error
	for range maxPolls {
		s, err := restored(t, c, time.Time{})
		if err != nil {
			last = err
			continue
		}
		if eventCount(t, s) >= n {
			return s
		}
		s.Close()
	}
	t.Fatalf("the replica did not reach %d events in %d reads (last error: %v)", n, maxPolls, last)
	return nil
}

// roundTrip replicates a ledger to c, records two batches with a time between them, and
// shows that the replica restores to the newest state and to the state at that time, each
// auditing to the checkpoint the ledger had then, and that a restore never overwrites a ledger.
// resolution is the precision of the replica's timestamps (an SFTP server keeps whole
// seconds): the second batch is recorded in the next period of it.
func roundTrip(t *testing.T, c Config, resolution time.Duration) {
	ctx := context.Background()
	c.Interval = testInterval
	dir := t.TempDir()
	s, err := ledger.Open(ctx, dir, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err := Start(ctx, dir, c, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			rep.Close(ctx)
		}
	}()
	importBatch(t, s, "a", 5)
	if err := s.Close(); err != nil { // signs the checkpoint of batch a
		t.Fatal(err)
	}
	if s, err = ledger.Open(ctx, dir, ledger.Options{}); err != nil {
		t.Fatal(err)
	}
	first := eventCount(t, s)
	cp1, err := s.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cp1.Size != first {
		t.Fatalf("checkpoint of size %d after closing a ledger of %d events", cp1.Size, first)
	}
	waitFor(t, c, first).Close()
	at := time.Now()
	if resolution > 0 {
		// Not a wait for an event: the clock has to reach the next period the replica can tell apart.
		<-time.After(time.Until(at.Truncate(resolution).Add(resolution)))
	}
	importBatch(t, s, "b", 5)
	all := eventCount(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = ledger.Open(ctx, dir, ledger.Options{}); err != nil {
		t.Fatal(err)
	}
	cp2, err := s.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, c, all).Close()
	closed = true
	if err := rep.Close(ctx); err != nil {
		t.Fatal(err)
	}
	ks, err := s.Keys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := json.Marshal(ks)
	keys, err := ledger.ParseKeys(bytes.NewReader(kb))
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		at   time.Time
		cp   ledger.Checkpoint
	}{{"newest", time.Time{}, cp2}, {"at " + at.Format(time.RFC3339Nano), at, cp1}} {
		r, err := restored(t, c, tc.at)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		rep, err := r.AuditWith(ctx, ledger.AuditOptions{Checkpoint: tc.cp.Note, Keys: keys})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK || rep.Events != tc.cp.Size || rep.Root != base64.StdEncoding.EncodeToString(tc.cp.Root[:]) {
			t.Fatalf("%s: audit %+v; want it to hold at the checkpoint of size %d", tc.name, rep, tc.cp.Size)
		}
		got, err := r.Checkpoint(ctx)
		if err != nil || !bytes.Equal(got.Note, tc.cp.Note) {
			t.Fatalf("%s: the restored ledger's checkpoint is %q (%v); want %q", tc.name, got.Note, err, tc.cp.Note)
		}
	}

	taken := t.TempDir()
	if err := os.WriteFile(filepath.Join(taken, "ledger.db"), []byte("a ledger"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(ctx, c, time.Time{}, taken); err == nil || !strings.Contains(err.Error(), "never overwrites") {
		t.Fatalf("restore over a ledger: %v; want a refusal", err)
	}
	if b, _ := os.ReadFile(filepath.Join(taken, "ledger.db")); string(b) != "a ledger" {
		t.Fatalf("the ledger restored over was changed to %q", b)
	}
}

// testLog is a log into the test's output.
func testLog(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, nil))
}

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

func TestReplicateToFolder(t *testing.T) {
	roundTrip(t, Config{URL: filepath.Join(t.TempDir(), "replica")}, 0)
}

func TestReplicateToFileURL(t *testing.T) {
	roundTrip(t, Config{URL: "file://" + filepath.Join(t.TempDir(), "replica")}, 0)
}

func TestReplicateToS3(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("ledgers"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()
	// Litestream v0.5.18's S3 client gives the SDK an HTTP client that cannot take a CA
	// bundle: with AWS_CA_BUNDLE set it refuses to start (docs/operations.md).
	t.Setenv("AWS_CA_BUNDLE", "")
	env := map[string]string{"AWS_ACCESS_KEY_ID": "test-key-id", "AWS_SECRET_ACCESS_KEY": "test-secret-never-logged"}
	roundTrip(t, Config{URL: "s3://ledgers/team/ledger", S3Endpoint: srv.URL, S3Region: "us-east-1", Getenv: func(k string) string { return env[k] }}, 0)
}

func TestReplicateToSFTP(t *testing.T) {
	d := startSSHD(t)
	roundTrip(t, Config{URL: fmt.Sprintf("sftp://%s@%s%s", d.user, d.addr, filepath.Join(d.root, "replica")), SFTPKey: d.key, KnownHosts: d.knownHosts}, time.Second)
}
