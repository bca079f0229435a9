package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"evidenceledger/ledger"
)

// allEvents reads every event of the ledger in dir, read-only.
func allEvents(t *testing.T, dir string) []ledger.Event {
	t.Helper()
	s, err := ledger.OpenReadOnly(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var all []ledger.Event
	for {
		evs, err := s.Events(context.Background(), int64(len(all)), 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) == 0 {
			return all
		}
		all = append(all, evs...)
	}
}

// postResearch imports one batch through the server's API; its answer is the acknowledgement.
func postResearch(base, token string, n int) error {
	body := fmt.Sprintf(`{"claims":[{"text":"Company %d filed its annual report.","citations":[{"url":"https://registry.example/%d","quote":"filed its annual report"}]}]}`, n, n)
	req, err := http.NewRequest("POST", base+"/api/research", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST /api/research: %s", resp.Status)
	}
	return nil
}

// TestReplicateKill9 runs a real `ledger serve --replicate` process, imports batches through
// its API, waits until the replica holds every event acknowledged so far, keeps importing and
// kills the server with SIGKILL in the middle of it. The ledger restored from the replica
// audits (the whole chain: `ledger audit`), is a prefix of the killed server's ledger, and holds everything
// acknowledged before the wait.
func TestReplicateKill9(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "ledger")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build the binary: %v\n%s", err, out)
	}
	data, replicaDir := t.TempDir(), filepath.Join(t.TempDir(), "replica")
	token := strings.TrimSpace(ledgerCmd(t, data, "user", "add", "olga", "--role", "operator").stdout)
	srv := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--render=false", "--replicate", replicaDir, "--replicate-interval", "50ms")
	srv.Env = append(os.Environ(), "LEDGER_DATA="+data)
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			srv.Process.Kill()
			srv.Wait()
		}
	})
	sc := bufio.NewScanner(stderr)
	var base string
	serving := regexp.MustCompile(`serving on (http://127\.0\.0\.1:\d+)`)
	for base == "" && sc.Scan() {
		if m := serving.FindStringSubmatch(sc.Text()); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		t.Fatal("the server ended before it served")
	}
	go func() {
		for sc.Scan() {
		}
	}()

	const before = 20
	for n := range before {
		if err := postResearch(base, token, n); err != nil {
			t.Fatal(err)
		}
	}
	acked := len(allEvents(t, data))
	// Wait, reading the replica at most maxPolls times, until it holds what was acknowledged.
	const maxPolls = 5000
	caughtUp := false
	for i := 0; i < maxPolls && !caughtUp; i++ {
		probe := filepath.Join(t.TempDir(), "probe")
		if r := ledgerCmd(t, probe, "restore", "--from", replicaDir); r.code == 0 {
			caughtUp = len(allEvents(t, probe)) >= acked
		}
	}
	if !caughtUp {
		t.Fatalf("the replica did not reach %d events in %d reads", acked, maxPolls)
	}
	// More imports, and SIGKILL while they are in flight.
	writes := make(chan error, 1)
	go func() {
		var err error
		for n := before; err == nil; n++ {
			err = postResearch(base, token, n)
		}
		writes <- err
	}()
	for range 5 {
		if err := postResearch(base, token, 1000); err != nil {
			t.Fatal(err)
		}
	}
	if err := srv.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed = true
	srv.Wait()
	<-writes

	restored := filepath.Join(t.TempDir(), "restored")
	if r := ledgerCmd(t, restored, "restore", "--from", replicaDir); r.code != 0 {
		t.Fatalf("restore --from: %+v", r)
	}
	if r := ledgerCmd(t, restored, "audit", "--full"); r.code != 0 || !strings.Contains(r.stdout, "Audit: full") {
		t.Fatalf("audit of the restored ledger: %+v", r)
	}
	got, orig := allEvents(t, restored), allEvents(t, data)
	if len(got) < acked || len(got) > len(orig) {
		t.Fatalf("the restored ledger has %d events; want at least the %d acknowledged before the wait, at most the %d of the original", len(got), acked, len(orig))
	}
	for i, ev := range got {
		if ev.Hash != orig[i].Hash || ev.Seq != orig[i].Seq {
			t.Fatalf("restored event %d is %d %s; the original's is %d %s", i, ev.Seq, ev.Hash, orig[i].Seq, orig[i].Hash)
		}
	}
	t.Logf("acknowledged before the wait: %d events; replica: %d; original at the kill: %d", acked, len(got), len(orig))
}

// TestRestoreFromUsage shows the forms of restore that are refused before anything is read.
func TestRestoreFromUsage(t *testing.T) {
	for _, args := range [][]string{
		{"restore", "--timestamp", "2026-12-02T20:15:00Z", "backup.db"},
		{"restore", "--from", t.TempDir(), "backup.db"},
		{"restore", "--from", t.TempDir(), "--timestamp", "yesterday"},
		{"restore"},
	} {
		if r := ledgerCmd(t, t.TempDir(), args...); r.code != 2 || !strings.Contains(r.stderr, "want") && !strings.Contains(r.stderr, "RFC 3339") {
			t.Errorf("%v: %+v; want a usage error", args, r)
		}
	}
}
