package main

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"evidenceledger/ledger"

	"filippo.io/torchwood"
)

// buildWitness builds torchwood's litewitness and witnessctl (a real C2SP tlog-witness, a
// tool dependency in go.mod) into dir.
func buildWitness(t *testing.T, dir string) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the witness test builds litewitness with the go command, which is not on PATH: %v", err)
	}
	out, err := exec.Command(goBin, "build", "-o", dir, "filippo.io/torchwood/cmd/litewitness", "filippo.io/torchwood/cmd/witnessctl").CombinedOutput()
	if err != nil {
		t.Fatalf("build litewitness: %v\n%s", err, out)
	}
}

// lineMatches reads r line by line until a line matches re (true) or r ends (false).
func lineMatches(r io.Reader, re *regexp.Regexp) bool {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if re.MatchString(line) {
			return true
		}
		if err != nil {
			return false
		}
	}
}

func mustRun(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// startProcess starts a long-running process and stops it, by its own pid, at cleanup.
func startProcess(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
}

// liteWitness runs litewitness on loopback for the ledger's origin and note key, and returns
// its base URL and cosigner verifier key.
func liteWitness(t *testing.T, origin, noteKey string) (string, string) {
	t.Helper()
	for _, tool := range []string{"ssh-keygen", "ssh-agent", "ssh-add"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the witness test needs %s (Debian package openssh-client): %v", tool, err)
		}
	}
	bin := t.TempDir()
	buildWitness(t, bin)
	// A short directory: a unix socket path must stay under about 100 bytes.
	dir, err := os.MkdirTemp("", "lw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s")
	agent := exec.Command("ssh-agent", "-a", sock, "-D")
	// In the foreground, the agent prints the shell line that sets SSH_AUTH_SOCK once its
	// socket listens.
	agentOut, err := agent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	startProcess(t, agent)
	if !lineMatches(agentOut, regexp.MustCompile(`^SSH_AUTH_SOCK=`)) {
		t.Fatal("ssh-agent ended without listening on its socket")
	}
	go io.Copy(io.Discard, agentOut)
	key := filepath.Join(dir, "witness_key")
	mustRun(t, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key)
	mustRun(t, []string{"SSH_AUTH_SOCK=" + sock}, "ssh-add", key)
	fp := strings.Fields(mustRun(t, nil, "ssh-keygen", "-l", "-E", "sha256", "-f", key+".pub"))[1]
	db := filepath.Join(dir, "witness.db")
	mustRun(t, nil, filepath.Join(bin, "witnessctl"), "add-log", "-db", db, "-origin", origin)
	mustRun(t, nil, filepath.Join(bin, "witnessctl"), "add-key", "-db", db, "-origin", origin, "-key", noteKey)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	lw := exec.Command(filepath.Join(bin, "litewitness"), "-db", db, "-name", "witness.test/w1", "-key", fp, "-ssh-agent", sock, "-listen", addr)
	stderr, err := lw.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	startProcess(t, lw)
	vkeyRe := regexp.MustCompile(`vkey=(\S+)`)
	vkey := make(chan string, 1)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := vkeyRe.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case vkey <- strings.Trim(m[1], `"`):
				default:
				}
			}
		}
	}()
	var wkey string
	select {
	case wkey = <-vkey:
	case <-ended:
		t.Fatal("litewitness ended without printing its verifier key")
	}
	// It logs "listening" just before it listens: dial until it answers, or until it ends.
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-ended:
			t.Fatalf("litewitness ended without listening on %s: %v", addr, err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	return "http://" + addr, wkey
}

// TestWitnessCosignsCheckpoints sends the ledger's checkpoints to a real litewitness on
// loopback: it cosigns the first, then each later one after checking the consistency proof;
// the cosignature is served with the checkpoint and the audit can require it. A fork of the
// ledger is refused by the witness.
func TestWitnessCosignsCheckpoints(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	s, err := ledger.Open(ctx, data, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	set, err := s.Keys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := s.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	url, wkey := liteWitness(t, cp.Origin, set.Keys[0].NoteKey)
	w, err := parseWitness(url + "=" + wkey)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.send(ctx, s); err != nil {
		t.Fatalf("first checkpoint: %v", err)
	}
	if _, err := s.AddUser(ctx, "system", "alice", ledger.RoleOperator); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddUser(ctx, "system", "bob", ledger.RoleAuditor); err != nil {
		t.Fatal(err)
	}
	if err := w.send(ctx, s); err != nil || w.known != 3 {
		t.Fatalf("later checkpoint (with a consistency proof from 1): %v, known %d", err, w.known)
	}
	latest, err := s.Checkpoint(ctx)
	if err != nil || !strings.Contains(string(latest.Note), "\n— witness.test/w1 ") {
		t.Fatalf("served checkpoint lacks the cosignature: %s %v", latest.Note, err)
	}
	if _, err := ledger.OpenCheckpoint(latest.Note, []string{set.Keys[0].NoteKey}, []string{wkey}); err != nil {
		t.Fatalf("the cosigned checkpoint does not verify: %v", err)
	}
	if rep, err := s.AuditWith(ctx, ledger.AuditOptions{Witnesses: []string{wkey}}); err != nil || !rep.OK {
		t.Fatalf("audit requiring the witness: %+v %v", rep, err)
	}

	// A client that lost track of the witness's size learns it from the 409 and goes on.
	if _, err := s.AddUser(ctx, "system", "carol", ledger.RoleAuditor); err != nil {
		t.Fatal(err)
	}
	fresh, _ := parseWitness(url + "=" + wkey)
	if err := fresh.send(ctx, s); err != nil || fresh.known != 4 {
		t.Fatalf("send after a 409: %v, known %d", err, fresh.known)
	}

	r := ledgerCmd(t, data, "audit", "--witness", wkey)
	if r.code != 0 {
		t.Fatalf("ledger audit --witness: %+v", r)
	}
	// An audit that requires a witness that never cosigned fails, naming it.
	_, priv, _ := ed25519.GenerateKey(nil)
	cs, err := torchwood.NewCosignatureSigner("other.test/w2", priv)
	if err != nil {
		t.Fatal(err)
	}
	r = ledgerCmd(t, data, "audit", "--witness", cs.Verifier().String())
	if r.code != 1 || !strings.Contains(r.stdout, "no valid cosignature by witness other.test/w2") {
		t.Fatalf("ledger audit --witness (a witness that never cosigned): %+v", r)
	}

	// A fork: a copy of the ledger that records something else is refused by the witness.
	s.Close()
	fork := t.TempDir()
	for _, name := range []string{"ledger.db", "signing.key"} {
		b, err := os.ReadFile(filepath.Join(data, name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(fork, name), b, 0o600)
	}
	s, err = ledger.Open(ctx, data, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := ledger.Open(ctx, fork, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, name := range []string{"mallory", "trudy"} {
		if _, err := f.AddUser(ctx, "system", name, ledger.RoleOperator); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.AddUser(ctx, "system", "dave", ledger.RoleOperator); err != nil {
		t.Fatal(err)
	}
	if err := w.send(ctx, s); err != nil {
		t.Fatalf("the honest ledger: %v", err)
	}
	fw, _ := parseWitness(url + "=" + wkey)
	err = fw.send(ctx, f)
	t.Logf("the witness on the fork: %v", err)
	if err == nil || fw.known != 5 {
		t.Fatalf("the witness cosigned a fork (%v, known %d)", err, fw.known)
	}

}

// TestWitnessForkAtEqualSize: a witness that cosigned the honest ledger at size N is asked
// by a fork of the same size N. The 409 names the ledger's own size; the client must resend
// with "old N" so that the witness compares the roots, and report the fork, naming the
// witness. A witness holding a larger size than the ledger is reported by name and not
// asked again until the ledger reaches that size.
func TestWitnessForkAtEqualSize(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	s, err := ledger.Open(ctx, data, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddUser(ctx, "system", "alice", ledger.RoleOperator); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// A copy at size 2, before the two ledgers go different ways.
	fork := t.TempDir()
	for _, name := range []string{"ledger.db", "signing.key"} {
		b, err := os.ReadFile(filepath.Join(data, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(fork, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s, err = ledger.Open(ctx, data, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f, err := ledger.Open(ctx, fork, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := s.AddUser(ctx, "system", "bob", ledger.RoleAuditor); err != nil {
		t.Fatal(err)
	}
	if _, err := f.AddUser(ctx, "system", "mallory", ledger.RoleOperator); err != nil {
		t.Fatal(err)
	}
	hcp, err := s.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fcp, err := f.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if hcp.Size != fcp.Size || hcp.Root == fcp.Root {
		t.Fatalf("the two ledgers should differ at equal size: %d %d", hcp.Size, fcp.Size)
	}
	set, err := s.Keys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	url, wkey := liteWitness(t, hcp.Origin, set.Keys[0].NoteKey)
	w, _ := parseWitness(url + "=" + wkey)
	if err := w.send(ctx, s); err != nil || w.cosigned != hcp.Size {
		t.Fatalf("the honest ledger: %v (cosigned %d)", err, w.cosigned)
	}
	fw, _ := parseWitness(url + "=" + wkey)
	err = fw.send(ctx, f)
	t.Logf("the fork at equal size: %v", err)
	if err == nil || !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), "fork") {
		t.Fatalf("a fork at the witness's own size was not reported, naming the witness: %v", err)
	}
	if cp, _ := f.Checkpoint(ctx); strings.Contains(string(cp.Note), "witness.test/w1") {
		t.Fatal("the fork's checkpoint was cosigned")
	}

	// The witness moves on with the honest ledger; the fork, now smaller, hears a larger size.
	if _, err := s.AddUser(ctx, "system", "carol", ledger.RoleAuditor); err != nil {
		t.Fatal(err)
	}
	if err := w.send(ctx, s); err != nil {
		t.Fatalf("the honest ledger, later: %v", err)
	}
	lw, _ := parseWitness(url + "=" + wkey)
	err = lw.send(ctx, f)
	t.Logf("a witness holding a larger size: %v", err)
	if err == nil || !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), "size 4") {
		t.Fatalf("a 409 with a larger size was not reported naming the witness and its size: %v", err)
	}
	if lw.known != 4 {
		t.Fatalf("the client did not keep the witness's size: %d", lw.known)
	}
}

// TestWitnessAnswerLimit: an answer longer than witnessMaxAnswer is cut there, so it holds
// no cosignature and nothing is kept.
func TestWitnessAnswerLimit(t *testing.T) {
	ctx := context.Background()
	s, err := ledger.Open(ctx, t.TempDir(), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, priv, _ := ed25519.GenerateKey(nil)
	cs, err := torchwood.NewCosignatureSigner("witness.test/big", priv)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", witnessMaxAnswer+1)))
	}))
	defer srv.Close()
	w, _ := parseWitness(srv.URL + "=" + cs.Verifier().String())
	if err := w.send(ctx, s); err == nil || !strings.Contains(err.Error(), "no valid cosignature") || w.known != 0 {
		t.Fatalf("an oversized answer: %v (known %d)", err, w.known)
	}
	if cp, _ := s.Checkpoint(ctx); strings.Contains(string(cp.Note), "witness.test/big") {
		t.Fatal("a cosignature was kept from an oversized answer")
	}
	if _, err := parseWitness("127.0.0.1:7380"); err == nil {
		t.Error("a --witness without =KEY was accepted")
	}
}
