package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// readmeFirstCommands returns the commands of the README's first sh block, comments
// stripped, in order.
func readmeFirstCommands(t *testing.T, readme []byte) []string {
	t.Helper()
	m := regexp.MustCompile("(?s)```sh\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no ```sh block")
	}
	var cmds []string
	for _, line := range strings.Split(string(m[1]), "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		if line = strings.Join(strings.Fields(line), " "); line != "" {
			cmds = append(cmds, line)
		}
	}
	return cmds
}

// TestFreshClone clones the committed repository into a temporary folder with nothing
// beside it and runs the README's first two commands there: the server, probed on /healthz
// and stopped, and the tests, with a short -run filter that still reads the corpus of real
// pages. It tests what is committed (HEAD), as a newcomer would get it.
func TestFreshClone(t *testing.T) {
	for _, tool := range []string{"git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("this test needs %s on PATH: %v", tool, err)
		}
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("this test needs a git checkout of the repository: %v", err)
	}
	parent := t.TempDir()
	clone := filepath.Join(parent, "evidenceledger")
	if out, err := exec.Command("git", "clone", "--quiet", strings.TrimSpace(string(top)), clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	readme, err := os.ReadFile(filepath.Join(clone, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := readmeFirstCommands(t, readme)
	if len(cmds) < 2 || cmds[0] != "go run ./cmd/ledger serve" || cmds[1] != "go test ./..." {
		t.Fatalf("README's first commands are %q; this test runs `go run ./cmd/ledger serve` and `go test ./...`: update one or the other", cmds)
	}

	// 1. The server. Port 0 instead of 8080, so the test never collides with a server
	// already running; everything else is the README's command, run in the clone.
	// No deadline of its own: on a cold, loaded machine the first build takes what it
	// takes, and the test binary's -timeout bounds it.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serve := exec.CommandContext(ctx, "go", "run", "./cmd/ledger", "serve", "--addr", "127.0.0.1:0")
	serve.Dir = clone
	serve.Env = cleanEnv()
	// Its own process group: go run leaves the interrupt to the group, as a terminal sends it.
	serve.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	serve.Cancel = func() error { return syscall.Kill(-serve.Process.Pid, syscall.SIGKILL) }
	stderr, err := serve.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	var log bytes.Buffer
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`serving on (http://127\.0\.0\.1:\d+)`)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	var base string
	select {
	case base = <-addr:
	case <-logDone:
		_ = serve.Wait()
		t.Fatalf("go run ./cmd/ledger serve stopped before serving:\n%s", log.String())
	}
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != `{"ok":true}` {
		t.Fatalf("/healthz: %d %q", resp.StatusCode, body)
	}
	if err := syscall.Kill(-serve.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-logDone
	// go run reports its own interruption in its exit status, so the server's clean stop
	// is read from its last words: nothing after "shutting down".
	_ = serve.Wait()
	lines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	if !strings.HasSuffix(log.String(), "\n") || !strings.HasPrefix(lines[len(lines)-1], "ledger: shutting down") {
		t.Fatalf("the server did not stop cleanly on an interrupt:\n%s", log.String())
	}
	if !strings.Contains(log.String(), "setup?token=") {
		t.Fatalf("a fresh data directory should print the first-run link:\n%s", log.String())
	}
	if _, err := os.Stat(filepath.Join(clone, "ledger-data", "ledger.db")); err != nil {
		t.Fatalf("the server made no ledger in ./ledger-data: %v", err)
	}
	if out, err := exec.Command("git", "-C", clone, "status", "--porcelain").Output(); err != nil || len(out) != 0 {
		t.Fatalf("running the server left files git does not ignore: %q %v", out, err)
	}

	// 2. The tests, with a short filter that reads the corpus of real pages from the
	// clone's testdata/corpus: nothing beside the clone exists to read.
	test := exec.CommandContext(ctx, "go", "test", "-count=1", "-run", "^(TestExtractorsAgreeOnCorpus|TestCorpusQuotes)$", "./...")
	test.Dir = clone
	test.Env = cleanEnv()
	out, err := test.CombinedOutput()
	if err != nil {
		t.Fatalf("go test ./... in the fresh clone: %v\n%s", err, out)
	}
	for _, pkg := range []string{"evidenceledger/fetch", "evidenceledger/verify"} {
		if !regexp.MustCompile(`(?m)^ok\s+` + regexp.QuoteMeta(pkg) + `\s`).Match(out) {
			t.Fatalf("go test ./... in the fresh clone did not pass %s:\n%s", pkg, out)
		}
	}
}

// cleanEnv is the environment without the variables that would point the clone's commands
// at this checkout's data. The build flags stay as they are: the modules the clone needs are
// the ones this checkout's build already compiled, at the same paths in the module cache,
// so the clone compiles only its own few packages, even on a machine whose cache was empty
// when the tests began (-trimpath would make it compile every dependency a second time).
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LEDGER_DATA=") {
			env = append(env, kv)
		}
	}
	return env
}
