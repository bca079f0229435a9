package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"evidenceledger/ledger"
)

// heldSite is a loopback site whose pages /held/N answer only once release is closed (or
// the request ends), each request first saying its path on arrived; its pages /free/N answer
// at once.
type heldSite struct {
	*httptest.Server
	arrived chan string
	mu      sync.Mutex
	release chan struct{}
}

func newHeldSite(t *testing.T) *heldSite {
	h := &heldSite{arrived: make(chan string, 100), release: make(chan struct{})}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, held := strings.CutPrefix(r.URL.Path, "/held/")
		if !held {
			var free bool
			if n, free = strings.CutPrefix(r.URL.Path, "/free/"); !free {
				http.NotFound(w, r)
				return
			}
		}
		if held {
			h.mu.Lock()
			release := h.release
			h.mu.Unlock()
			h.arrived <- r.URL.Path
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<html><head><title>Page %s</title></head><body><p>The record says that fact number %s holds here without doubt.</p></body></html>", n, n)
	}))
	t.Cleanup(h.Close)
	return h
}

// hold makes the pages wait again, until the next open.
func (h *heldSite) hold() {
	h.mu.Lock()
	h.release = make(chan struct{})
	h.mu.Unlock()
}

func (h *heldSite) open() {
	h.mu.Lock()
	close(h.release)
	h.mu.Unlock()
}

// serveProcess is a `ledger serve` process of the binary bin.
type serveProcess struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan int
	base   string
}

func startServeProcess(t *testing.T, bin, data, grace string) *serveProcess {
	t.Helper()
	p := &serveProcess{stderr: &syncBuffer{}, done: make(chan int, 1)}
	p.cmd = exec.Command(bin, "serve", "--data", data, "--addr", "127.0.0.1:0", "--fetch-allow", "127.0.0.0/8",
		"--fetch-delay", "0", "--render=false", "--workers", "2", "--shutdown-grace", grace)
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.cmd.Wait()
		p.done <- p.cmd.ProcessState.ExitCode()
	}()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
		}
	})
	p.base = p.stderr.waitFor(t, regexp.MustCompile(`serving on (http://127\.0\.0\.1:\d+)`), p.done)[1]
	return p
}

// term sends SIGTERM and waits until the server says it stopped taking checks.
func (p *serveProcess) term(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.stderr.waitFor(t, regexp.MustCompile(`shutting down: no new checks`), p.done)
}

// exit waits for the process to end and fails the test unless its exit status is 0.
func (p *serveProcess) exit(t *testing.T) {
	t.Helper()
	if code := <-p.done; code != 0 {
		t.Fatalf("ledger serve exited %d:\n%s", code, p.stderr.String())
	}
}

// TestSIGTERMDuringACheck stops `ledger serve` with SIGTERM while a check waits on a page
// that a loopback site holds. With a grace longer than the work, the server refuses new
// checks (503), keeps answering, lets the check finish once the page comes, and exits 0.
// With a grace shorter than the work, it exits 0 while the page is still held (the bound is
// the grace, not the work), releasing the batch's lock; after a restart, checking the batch
// again checks the rest at once, each citation is checked exactly once, and the audit holds.
func TestSIGTERMDuringACheck(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "ledger")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data := t.TempDir()
	token := strings.TrimSpace(ledgerCmd(t, data, "user", "add", "olga", "--role", "operator").stdout)
	site := newHeldSite(t)
	importBatch := func(base, name string) string {
		var paste strings.Builder
		for i := range 4 {
			fmt.Fprintf(&paste, "Claim %d: Fact %s %d holds.\nSource: %s/held/%s-%d\nQuote: \"fact number %s-%d holds here\"\n\n", i+1, name, i, site.URL, name, i, name, i)
		}
		body, _ := json.Marshal(map[string]string{"text": paste.String()})
		var b struct{ Batch string }
		call(t, "POST", base+"/api/research", token, string(body), http.StatusCreated, &b)
		return b.Batch
	}
	var started struct{ Job string }
	var refused struct{ Error string }

	// A grace longer than the work: the check finishes.
	p := startServeProcess(t, bin, data, "10m")
	batchA := importBatch(p.base, "a")
	call(t, "POST", p.base+"/api/batches/"+batchA+"/check", token, "", http.StatusAccepted, &started)
	<-site.arrived
	p.term(t)
	call(t, "POST", p.base+"/api/batches/"+batchA+"/check", token, "", http.StatusServiceUnavailable, &refused)
	if !strings.Contains(refused.Error, "shutting down") {
		t.Errorf("a check started while stopping was refused with %q; want words that say the server is shutting down", refused.Error)
	}
	var st struct{ State string }
	call(t, "GET", p.base+"/api/jobs/"+started.Job, token, "", http.StatusOK, &st)
	if st.State != "running" {
		t.Errorf("the job is %s while its page is held; want running", st.State)
	}
	site.open()
	p.exit(t)
	if strings.Contains(p.stderr.String(), "stopped") {
		t.Errorf("a job was stopped although the grace was long enough:\n%s", p.stderr.String())
	}

	// A grace shorter than the work: the server exits while the page is still held.
	site.hold()
	p = startServeProcess(t, bin, data, "100ms")
	batchB := importBatch(p.base, "b")
	call(t, "POST", p.base+"/api/batches/"+batchB+"/check", token, "", http.StatusAccepted, &started)
	<-site.arrived
	p.term(t)
	p.exit(t)
	if !strings.Contains(p.stderr.String(), "stopped 1 check job") {
		t.Errorf("the server did not say it stopped the running job:\n%s", p.stderr.String())
	}

	// Restarted, the batch's lock is free: checking it again checks what is left.
	site.open()
	p = startServeProcess(t, bin, data, "10m")
	call(t, "POST", p.base+"/api/batches/"+batchB+"/check", token, "", http.StatusAccepted, &started)
	for st.State = ""; st.State != "done"; {
		call(t, "GET", p.base+"/api/jobs/"+started.Job+"?wait=30", token, "", http.StatusOK, &st)
		if st.State == "failed" {
			t.Fatalf("the check after the restart failed: %+v", st)
		}
	}
	var evs struct{ Events []ledger.Event }
	call(t, "GET", p.base+"/api/events?limit=1000", token, "", http.StatusOK, &evs)
	p.term(t)
	p.exit(t)
	checks := map[string]int{}
	for _, ev := range evs.Events {
		if ev.Type != "citation.checked" {
			continue
		}
		var c struct{ Citation, Status string }
		if err := json.Unmarshal(ev.Payload, &c); err != nil {
			t.Fatal(err)
		}
		if c.Status != "found_at_source" {
			t.Errorf("citation %s was recorded %s; want found_at_source", c.Citation, c.Status)
		}
		checks[c.Citation]++
	}
	if len(checks) != 8 {
		t.Errorf("%d citations were checked; want all 8 of both batches: %v", len(checks), checks)
	}
	for c, n := range checks {
		if n != 1 {
			t.Errorf("citation %s was checked %d times; want once", c, n)
		}
	}
	if r := ledgerCmd(t, data, "audit"); r.code != 0 {
		t.Fatalf("ledger audit: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	stoppedRecheckResumes(t, bin, data, token, site)
}

// stoppedRecheckResumes: a recheck that SIGTERM stops past the grace, with two of its four
// citations recorded, is resumed by the next server as soon as it starts, without being
// asked, and checks only the two left: each citation is checked once in the run. While the
// server's job runs, `ledger check` of the batch is refused (the job holds the lock).
func stoppedRecheckResumes(t *testing.T, bin, data, token string, site *heldSite) {
	t.Helper()
	site.hold()
	p := startServeProcess(t, bin, data, "100ms")
	var paste strings.Builder
	for i, path := range []string{"free/c-0", "free/c-1", "held/c-2", "held/c-3"} {
		fmt.Fprintf(&paste, "Claim %d: Fact c %d holds.\nSource: %s/%s\nQuote: \"fact number c-%d holds here\"\n\n", i+1, i, site.URL, path, i)
	}
	body, _ := json.Marshal(map[string]string{"text": paste.String()})
	var b struct{ Batch string }
	call(t, "POST", p.base+"/api/research", token, string(body), http.StatusCreated, &b)
	var evs struct{ Events []ledger.Event }
	call(t, "GET", p.base+"/api/events?limit=1000", token, "", http.StatusOK, &evs)
	since := evs.Events[len(evs.Events)-1].Seq
	var started struct{ Job string }
	call(t, "POST", p.base+"/api/batches/"+b.Batch+"/check", token, `{"recheck":true}`, http.StatusAccepted, &started)
	// Both held pages asked for: each of the two workers recorded its free page first (a
	// worker takes the next citation only once it recorded the last).
	<-site.arrived
	<-site.arrived
	if r := ledgerCmd(t, data, "check", "--batch", b.Batch); r.code != 1 || !strings.Contains(r.stderr, "is being checked already, by job "+started.Job) {
		t.Errorf("ledger check while the server's job runs: %+v; want it refused, naming job %s", r, started.Job)
	}
	p.term(t)
	p.exit(t)

	site.open()
	p = startServeProcess(t, bin, data, "10m")
	m := p.stderr.waitFor(t, regexp.MustCompile(`resumed the interrupted check of batch (\S+) as job (\S+) \((\d+) citations left\)`), p.done)
	if m[1] != b.Batch || m[3] != "2" {
		t.Fatalf("resumed %q with %s citations left; want batch %s with 2", m[1], m[3], b.Batch)
	}
	var st struct{ State string }
	for st.State = ""; st.State != "done"; {
		call(t, "GET", p.base+"/api/jobs/"+m[2]+"?wait=30", token, "", http.StatusOK, &st)
		if st.State == "failed" {
			t.Fatalf("the resumed check failed: %+v", st)
		}
	}
	call(t, "GET", p.base+"/api/events?limit=1000", token, "", http.StatusOK, &evs)
	p.term(t)
	p.exit(t)
	checks := map[string]int{}
	for _, ev := range evs.Events {
		if ev.Type != "citation.checked" || ev.Seq <= since {
			continue
		}
		var c struct{ Citation string }
		if err := json.Unmarshal(ev.Payload, &c); err != nil {
			t.Fatal(err)
		}
		checks[c.Citation]++
	}
	if len(checks) != 4 {
		t.Errorf("%d citations were checked in the run; want all 4: %v", len(checks), checks)
	}
	for c, n := range checks {
		if n != 1 {
			t.Errorf("citation %s was checked %d times in the run; want once", c, n)
		}
	}
	if r := ledgerCmd(t, data, "audit"); r.code != 0 {
		t.Fatalf("ledger audit: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
