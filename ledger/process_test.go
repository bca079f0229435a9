package ledger

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Child processes: the test binary re-executed with LEDGER_TEST_CHILD set records events in
// the directory LEDGER_TEST_DIR and prints "seq hash" for each acknowledged one.
func TestMain(m *testing.M) {
	switch os.Getenv("LEDGER_TEST_CHILD") {
	case "":
		code := m.Run()
		removeBenchFixtures()
		os.Exit(code)
	case "loop":
		os.Exit(childRecord(-1))
	default:
		n, _ := strconv.Atoi(os.Getenv("LEDGER_TEST_CHILD"))
		os.Exit(childRecord(n))
	}
}

// childRecord records n events (forever when n < 0), one per transaction.
func childRecord(n int) int {
	ctx := context.Background()
	s, err := Open(ctx, os.Getenv("LEDGER_TEST_DIR"), Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	out := bufio.NewWriter(os.Stdout)
	for i := 0; n < 0 || i < n; i++ {
		evs, err := s.recordDrafts(ctx, "system", Draft{Type: "note.added", Payload: map[string]int{"pid": os.Getpid(), "i": i}})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintf(out, "%d %s\n", evs[0].Seq, evs[0].Hash)
		out.Flush()
	}
	return 0
}

func child(t *testing.T, dir, mode string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LEDGER_TEST_CHILD="+mode, "LEDGER_TEST_DIR="+dir)
	cmd.Stderr = os.Stderr
	return cmd
}

// TestCrashLosesNothingAcknowledged kills a recording process with SIGKILL again and again;
// every event it saw acknowledged must be there afterwards, and the chain must hold.
func TestCrashLosesNothingAcknowledged(t *testing.T) {
	dir := t.TempDir()
	acked := map[int64]string{}
	for kill := 0; kill < 20; kill++ {
		cmd := child(t, dir, "loop")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		lines := 0
		// Let it record a varying number of events, then kill it mid-stride.
		for lines < 3+kill%7 && sc.Scan() {
			lines++
			seq, hash, _ := strings.Cut(sc.Text(), " ")
			n, _ := strconv.ParseInt(seq, 10, 64)
			acked[n] = hash
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for sc.Scan() { // lines written before the kill landed
			seq, hash, _ := strings.Cut(sc.Text(), " ")
			n, _ := strconv.ParseInt(seq, 10, 64)
			acked[n] = hash
		}
		cmd.Wait()
		if lines == 0 {
			t.Fatalf("kill %d: the child acknowledged nothing", kill)
		}
	}
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatalf("Open after 20 kills: %v", err)
	}
	defer s.Close()
	rep := mustAuditOK(t, s)
	for seq, hash := range acked {
		evs, err := s.Events(context.Background(), seq-1, 1)
		if err != nil || len(evs) != 1 || evs[0].Hash != hash {
			t.Fatalf("acknowledged event %d (%s) is lost or changed: %v %v", seq, hash, evs, err)
		}
	}
	t.Logf("%d events acknowledged over 20 kills, %d in the chain", len(acked), rep.Events)
}

// TestConcurrentWritersKeepOneChain records from 8 goroutines and 2 processes at once.
func TestConcurrentWritersKeepOneChain(t *testing.T) {
	s, dir := openTest(t)
	ctx := context.Background()
	const perGoroutine, perProcess = 40, 60
	var procs []*exec.Cmd
	for range 2 {
		cmd := child(t, dir, strconv.Itoa(perProcess))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perGoroutine {
				batch := 1 + (g+i)%3
				if _, err := s.recordDrafts(ctx, "user:g"+strconv.Itoa(g), noteDrafts(batch)...); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, p := range procs {
		if err := p.Wait(); err != nil {
			t.Fatalf("child process: %v", err)
		}
	}
	rep := mustAuditOK(t, s)
	var want int64 = 1 + 2*perProcess
	for g := range 8 {
		for i := range perGoroutine {
			want += int64(1 + (g+i)%3)
		}
	}
	if rep.Events != want {
		t.Fatalf("%d events, want %d", rep.Events, want)
	}
}

// TestFreshLedgerOpenedByThreeProcesses starts three processes on an empty directory at once:
// one key file and one key.created event must come out.
func TestFreshLedgerOpenedByThreeProcesses(t *testing.T) {
	dir := t.TempDir()
	var procs []*exec.Cmd
	for range 3 {
		cmd := child(t, dir, "5")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
	}
	for _, p := range procs {
		if err := p.Wait(); err != nil {
			t.Fatalf("child process: %v", err)
		}
	}
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep := mustAuditOK(t, s)
	set, _ := s.Keys(context.Background())
	if rep.Events != 16 || len(set.Keys) != 1 {
		t.Fatalf("%d events and %d keys, want 16 and 1", rep.Events, len(set.Keys))
	}
}
