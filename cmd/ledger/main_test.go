package main

import (
	"bytes"
	"context"
	"database/sql"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	_ "modernc.org/sqlite"

	"evidenceledger/ledger"
)

// result is one command line's outcome.
type result struct {
	code           int
	stdout, stderr string
}

// ledgerCmd runs a command line as the binary would, with LEDGER_DATA set to data.
func ledgerCmd(t *testing.T, data string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string {
		if k == "LEDGER_DATA" {
			return data
		}
		return ""
	}}
	code := run(context.Background(), args, e)
	return result{code, out.String(), errOut.String()}
}

func TestUserAddPrintsOnlyTheToken(t *testing.T) {
	data := t.TempDir()
	r := ledgerCmd(t, data, "user", "add", "alice", "--role", "operator")
	if r.code != 0 || !regexp.MustCompile(`^evl_[A-Za-z0-9_-]{43}\n$`).MatchString(r.stdout) || r.stderr != "" {
		t.Fatalf("user add: %+v", r)
	}
	tests := []struct {
		desc string
		args []string
		code int
		want string
	}{
		{"name taken", []string{"user", "add", "alice", "--role", "auditor"}, 1, "taken"},
		{"bad role", []string{"user", "add", "bob", "--role", "root"}, 1, "role"},
		{"no name", []string{"user", "add", "--role", "auditor"}, 2, "want: ledger user add"},
		{"unknown flag", []string{"user", "add", "bob", "--rol", "auditor"}, 2, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			r := ledgerCmd(t, data, tt.args...)
			if r.code != tt.code || r.stdout != "" || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("%+v; want code %d and %q on stderr", r, tt.code, tt.want)
			}
		})
	}
}

func TestAuditExitCodes(t *testing.T) {
	data := t.TempDir()
	if r := ledgerCmd(t, data, "user", "add", "alice", "--role", "operator"); r.code != 0 {
		t.Fatal(r)
	}
	if r := ledgerCmd(t, data, "audit"); r.code != 0 || !strings.Contains(r.stdout, "The chain holds: 2 events") {
		t.Fatalf("audit of a good chain: %+v", r)
	}
	db, err := sql.Open("sqlite", filepath.Join(data, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"DROP TRIGGER events_no_update", `UPDATE events SET payload = replace(payload, 'operator', 'auditor') WHERE seq = 2`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	r := ledgerCmd(t, data, "audit")
	if r.code != 1 || !strings.Contains(r.stdout, "does NOT hold") || !strings.Contains(r.stdout, "event 2: the event was changed after it was signed") {
		t.Fatalf("audit of a tampered chain: %+v", r)
	}
	r = ledgerCmd(t, data, "audit", "--json")
	if r.code != 1 || !strings.HasPrefix(r.stdout, `{"ok":false,"events":2,"head":"`) || !strings.Contains(r.stdout, `"problems":[{"seq":2,`) {
		t.Fatalf("audit --json: %+v", r)
	}
}

func TestExportOfflineAuditRoundTrip(t *testing.T) {
	data, dir := t.TempDir(), t.TempDir()
	ledgerCmd(t, data, "user", "add", "alice", "--role", "auditor")
	if r := ledgerCmd(t, data, "keys", "rotate"); r.code != 0 || strings.Count(r.stdout, `"alg":"Ed25519"`) != 2 {
		t.Fatalf("keys rotate: %+v", r)
	}
	ledgerCmd(t, data, "user", "add", "bob", "--role", "operator")
	if r := ledgerCmd(t, data, "audit"); r.code != 0 {
		t.Fatalf("audit after rotation: %+v", r)
	}
	exportFile, keysFile := filepath.Join(dir, "export.jsonl"), filepath.Join(dir, "keys.json")
	if r := ledgerCmd(t, data, "export", "--out", exportFile); r.code != 0 || r.stdout != "" {
		t.Fatalf("export: %+v", r)
	}
	keys := ledgerCmd(t, data, "keys")
	if err := os.WriteFile(keysFile, []byte(keys.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	stdoutExport := ledgerCmd(t, data, "export").stdout
	fileExport, _ := os.ReadFile(exportFile)
	if string(fileExport) != stdoutExport || strings.Count(stdoutExport, "\n") != 4 {
		t.Fatalf("export to a file and to stdout differ or miss events:\n%s", fileExport)
	}
	// The auditor needs no database: point --data at an empty directory.
	if r := ledgerCmd(t, t.TempDir(), "audit", "--export", exportFile, "--keys", keysFile); r.code != 0 || !strings.Contains(r.stdout, "4 events") {
		t.Fatalf("offline audit: %+v", r)
	}
	bad := strings.Replace(stdoutExport, `"name":"bob"`, `"name":"eve"`, 1)
	if err := os.WriteFile(exportFile, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := ledgerCmd(t, data, "audit", "--export", exportFile, "--keys", keysFile); r.code != 1 || !strings.Contains(r.stdout, "event 4") {
		t.Fatalf("offline audit of an edited export: %+v", r)
	}
	if r := ledgerCmd(t, data, "audit", "--export", exportFile); r.code != 2 {
		t.Fatalf("--export without --keys: %+v", r)
	}
}

func TestUsageErrors(t *testing.T) {
	data := t.TempDir()
	tests := []struct {
		desc string
		args []string
		code int
		want string
	}{
		{"no command", nil, 2, "usage: ledger"},
		{"unknown command", []string{"frobnicate"}, 2, "unknown command"},
		{"help", []string{"help"}, 0, "serve"},
		{"keys with a stray word", []string{"keys", "spin"}, 2, "ledger keys [rotate]"},
		{"export with a stray word", []string{"export", "x"}, 2, "--out FILE"},
		{"bad fetch-allow", []string{"serve", "--fetch-allow", "10.0.0.0/8,localhost"}, 2, `"localhost" is neither a CIDR range`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			r := ledgerCmd(t, data, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("%+v; want code %d and %q", r, tt.code, tt.want)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe to read while a server goroutine writes, that a test
// can wait on.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed at the next write
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until what was written matches re, and returns the match; it fails the test
// when the writer ended first (done received, its value put back for the caller). It waits
// as long as the writer runs, within the test binary's -timeout.
func (s *syncBuffer) waitFor(t *testing.T, re *regexp.Regexp, done chan int) []string {
	t.Helper()
	for {
		s.mu.Lock()
		m := re.FindStringSubmatch(s.b.String())
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		changed := s.changed
		s.mu.Unlock()
		if m != nil {
			return m
		}
		select {
		case <-changed:
		case code := <-done:
			done <- code
			if m := re.FindStringSubmatch(s.String()); m != nil {
				return m
			}
			t.Fatalf("ended with %d before writing %s:\n%s", code, re, s.String())
		}
	}
}

func TestServeAnswersAndShutsDown(t *testing.T) {
	data := t.TempDir()
	token := strings.TrimSpace(ledgerCmd(t, data, "user", "add", "arno", "--role", "auditor").stdout)
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	e := &env{stdout: &bytes.Buffer{}, stderr: &stderr, getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--data", data, "--addr", "127.0.0.1:0", "--fetch-allow", "10.0.0.0/8, fd00::/8"}, e)
	}()
	base := stderr.waitFor(t, regexp.MustCompile(`serving on (http://127\.0\.0\.1:\d+)`), done)[1]
	req, _ := http.NewRequest("GET", base+"/api/audit", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /api/audit: %d", resp.StatusCode)
	}
	cancel()
	if code := <-done; code != 0 || !strings.Contains(stderr.String(), "shutting down") {
		t.Fatalf("serve ended with %d: %s", code, stderr.String())
	}
}

// An auditor who mistypes --data must not be told that a chain holds: the commands that read
// a ledger refuse a directory without one, and create nothing there.
func TestReadingCommandsRefuseADirectoryWithoutALedger(t *testing.T) {
	tests := []struct {
		desc string
		args []string
	}{
		{"audit", []string{"audit"}},
		{"audit as JSON", []string{"audit", "--json"}},
		{"export to stdout", []string{"export"}},
		{"keys", []string{"keys"}},
		{"keys rotate", []string{"keys", "rotate"}},
		{"check", []string{"check", "--batch", "b_0123456789abcdef"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "mistyped")
			r := ledgerCmd(t, data, tt.args...)
			if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "no ledger in "+data) || !strings.Contains(r.stderr, "--data") {
				t.Fatalf("%+v; want exit 1, nothing on stdout, and \"no ledger in %s\" with advice on stderr", r, data)
			}
			if _, err := os.Stat(data); err == nil {
				t.Fatalf("%v created %s", tt.args, data)
			}
		})
	}
}

func TestPrintReportCountsEvents(t *testing.T) {
	for _, tt := range []struct {
		desc string
		rep  ledger.Report
		want string
	}{
		{"one event", ledger.Report{OK: true, Events: 1, Head: "h"}, "The chain holds: 1 event, every"},
		{"many events", ledger.Report{OK: true, Events: 12, Head: "h"}, "The chain holds: 12 events, every"},
		{"a problem in one event", ledger.Report{Events: 1, Problems: []ledger.Problem{{Seq: 1, Problem: "bad"}}}, "does NOT hold: 1 problem(s) in 1 event.\n  - bad\n"},
	} {
		t.Run(tt.desc, func(t *testing.T) {
			var b strings.Builder
			if err := printReport(&b, tt.rep); err != nil || !strings.Contains(b.String(), tt.want) {
				t.Fatalf("got %q, %v; want it to contain %q", b.String(), err, tt.want)
			}
		})
	}
}
