package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"evidenceledger/ledger"
)

func TestBackoffRules(t *testing.T) {
	l := limits{free: 2, base: time.Second, max: 5 * time.Second, forget: time.Minute, entries: 3}
	b := newBackoff(l)
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	steps := []struct {
		desc string
		fail bool
		at   time.Duration
		want time.Duration
	}{
		{"first failure is free", true, 0, 0},
		{"second failure is free", true, 0, 0},
		{"third failure waits the base", true, 0, time.Second},
		{"half a second later", false, 500 * time.Millisecond, 500 * time.Millisecond},
		{"fourth failure doubles", true, time.Second, 2 * time.Second},
		{"fifth doubles again", true, 3 * time.Second, 4 * time.Second},
		{"sixth is capped at the max", true, 7 * time.Second, 5 * time.Second},
		{"seventh stays at the max", true, 12 * time.Second, 5 * time.Second},
	}
	for _, st := range steps {
		now := t0.Add(st.at)
		if st.fail {
			b.fail("k", now)
		}
		if got := b.wait("k", now); got != st.want {
			t.Fatalf("%s: wait %v; want %v", st.desc, got, st.want)
		}
	}
	b.reset("k")
	if got := b.wait("k", t0.Add(12*time.Second)); got != 0 {
		t.Fatalf("after reset: wait %v", got)
	}
	// The table is bounded: a spray of keys never holds more than entries.
	for i := range 100 {
		b.fail(fmt.Sprint("spray", i), t0)
		if len(b.m) > l.entries {
			t.Fatalf("%d keys kept; the bound is %d", len(b.m), l.entries)
		}
	}
	// Forgotten keys go first.
	b = newBackoff(l)
	b.fail("old", t0)
	b.fail("held", t0.Add(time.Hour))
	b.fail("held", t0.Add(time.Hour))
	b.fail("held", t0.Add(time.Hour))
	b.fail("new1", t0.Add(time.Hour))
	b.fail("new2", t0.Add(time.Hour))
	if _, ok := b.m["old"]; ok {
		t.Fatal("a forgotten key was kept while the table was full")
	}
	if b.wait("held", t0.Add(time.Hour)) == 0 {
		t.Fatal("a delayed key was evicted before a forgotten one")
	}
}

func TestClientKey(t *testing.T) {
	for _, tt := range []struct{ remote, want string }{
		{"127.0.0.1:5000", "127.0.0.1"},
		{"[::1]:5000", "::/64"},
		{"[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"},
		{"[::ffff:10.0.0.1]:80", "10.0.0.1"},
		{"not an address", "not an address"},
	} {
		if got := clientKey(&http.Request{RemoteAddr: tt.remote}); got != tt.want {
			t.Errorf("clientKey(%q) = %q; want %q", tt.remote, got, tt.want)
		}
	}
}

// guardFixture is a page server whose sign-in guard runs on a clock the test moves.
type guardFixture struct {
	srv   *httptest.Server
	guard *signInGuard
	now   time.Time
	mu    sync.Mutex
}

func newGuardFixture(t *testing.T, users ...string) *guardFixture {
	t.Helper()
	ctx := context.Background()
	st, err := ledger.Open(ctx, t.TempDir(), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, u := range users {
		if _, err := st.AddUserWithPassword(ctx, "system", u, ledger.RoleOperator, u+"'s long password"); err != nil {
			t.Fatal(err)
		}
	}
	s := newServer(Config{Ledger: st})
	g := &guardFixture{guard: s.signin, now: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	s.signin.now = func() time.Time { g.mu.Lock(); defer g.mu.Unlock(); return g.now }
	g.srv = httptest.NewServer(s.handler())
	t.Cleanup(g.srv.Close)
	return g
}

func (g *guardFixture) advance(d time.Duration) { g.mu.Lock(); g.now = g.now.Add(d); g.mu.Unlock() }

var problemText = regexp.MustCompile(`<p class="problem">([^<]*)</p>`)

// signIn posts a sign-in and returns the status, Retry-After and the problem shown.
func (g *guardFixture) signIn(t *testing.T, name, password string) (int, string, string) {
	t.Helper()
	form := url.Values{"name": {name}, "password": {password}}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Post(g.srv.URL+"/signin", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	problem := ""
	if m := problemText.FindSubmatch(body); m != nil {
		problem = string(m[1])
	}
	return resp.StatusCode, resp.Header.Get("Retry-After"), problem
}

// TestSignInBackoff: wrong passwords back off per name, with 429 and Retry-After, the right
// password is refused too while the name waits, and an unknown name gets exactly the same
// answers as a known one.
func TestSignInBackoff(t *testing.T) {
	type answer struct {
		status int
		retry  string
	}
	run := func(t *testing.T, name string) []string {
		g := newGuardFixture(t, "olga")
		var seen []string
		try := func(password string, want answer) {
			t.Helper()
			status, retry, problem := g.signIn(t, name, password)
			if status != want.status || retry != want.retry {
				t.Fatalf("%s: %d Retry-After %q (%s); want %d Retry-After %q", name, status, retry, problem, want.status, want.retry)
			}
			seen = append(seen, fmt.Sprintf("%d %s %s", status, retry, problem))
		}
		for range accountLimits.free {
			try("wrong password!", answer{401, ""})
		}
		try("wrong password!", answer{401, ""}) // the first failure past the free ones
		try("wrong password!", answer{429, "1"})
		try("olga's long password", answer{429, "1"})
		g.advance(time.Second)
		try("wrong password!", answer{401, ""})
		try("wrong password!", answer{429, "2"})
		g.advance(1500 * time.Millisecond)
		try("wrong password!", answer{429, "1"}) // 0.5 s left rounds up
		g.advance(500 * time.Millisecond)
		if name == "olga" {
			try("olga's long password", answer{303, ""})
			// A success clears the name: its free failures are back.
			try("wrong password!", answer{401, ""})
			try("wrong password!", answer{401, ""})
		}
		return seen
	}
	known := run(t, "olga")
	unknown := run(t, "nobody")
	for i := range unknown {
		if known[i] != unknown[i] {
			t.Fatalf("answer %d differs between a known and an unknown name:\n%s\n%s", i, known[i], unknown[i])
		}
	}
	if !strings.Contains(known[accountLimits.free+1], "too many failed sign-ins for this name or from this address; wait 1 seconds") {
		t.Fatalf("the 429 page says %q", known[accountLimits.free+1])
	}
}

// TestSignInAddressBackoff: failures under many names from one address back off the
// address, and then even a right password of another name from it waits.
func TestSignInAddressBackoff(t *testing.T) {
	g := newGuardFixture(t, "olga")
	for i := range addressLimits.free + 1 {
		if status, _, _ := g.signIn(t, fmt.Sprintf("name%d", i), "wrong password!"); status != 401 {
			t.Fatalf("failure %d: %d; want 401", i, status)
		}
	}
	if status, retry, _ := g.signIn(t, "olga", "olga's long password"); status != 429 || retry != "1" {
		t.Fatalf("right password from a backed-off address: %d Retry-After %q; want 429 after 1", status, retry)
	}
	g.advance(time.Second)
	if status, _, _ := g.signIn(t, "olga", "olga's long password"); status != 303 {
		t.Fatalf("after the wait: %d; want 303", status)
	}
}

// hammerChildEnv marks the test process that runs one hammer test alone.
const hammerChildEnv = "LEDGER_TEST_HAMMER_CHILD"

// inOwnProcess runs the calling test again in a process of its own (this test binary, with
// -test.run naming it alone) and reports true when it did so here: the caller returns, and
// the child's verdict is this test's. The hammer tests hold a process's peak memory to a
// bound, so that process must run nothing else; in the child it returns false.
func inOwnProcess(t *testing.T) bool {
	t.Helper()
	if os.Getenv(hammerChildEnv) == t.Name() {
		return false
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), hammerChildEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	t.Logf("%s in a process of its own:\n%s", t.Name(), out)
	if err != nil {
		t.Fatalf("%s in a process of its own: %v", t.Name(), err)
	}
	return true
}

// peakRSS resets the kernel's peak resident size of this process and returns a function
// that reads the peak since, in bytes. It first hands memory the process no longer uses
// back to the system, so that the peak measured is the test's own.
func peakRSS(t *testing.T) func() int64 {
	t.Helper()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Fatalf("reset the peak memory counter (Linux /proc/self/clear_refs): %v", err)
	}
	return func() int64 {
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(b)
		if m == nil {
			t.Fatalf("no VmHWM in /proc/self/status")
		}
		kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
		return kb << 10
	}
}

// maxSignInMemory is the bound the hammer tests hold their process to, which runs each of
// them alone (inOwnProcess; scaled under the race detector only).
const maxSignInMemory = 300 << 20 * raceMemoryFactor

// TestSignInHammer sends 256 concurrent sign-ins with wrong passwords, under different
// names and with the backoff out of the way, so every one reaches the hashing: each is
// answered 401 (hashed) or 503 with Retry-After (no slot came free), none fails or hangs,
// and the process's peak memory stays under maxSignInMemory.
func TestSignInHammer(t *testing.T) {
	if inOwnProcess(t) {
		return
	}
	g := newGuardFixture(t, "olga")
	g.guard.accounts = newBackoff(limits{free: 1 << 30, entries: 1 << 20})
	g.guard.addrs = newBackoff(limits{free: 1 << 30, entries: 1 << 20})
	const clients = 256
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}} // no timeout of its own: each answer is bounded by the server's wait for a slot
	peak := peakRSS(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[int]int{}
	var problems []string
	start := time.Now()
	for i := range clients {
		wg.Go(func() {
			form := url.Values{"name": {fmt.Sprintf("user%d", i%32)}, "password": {"wrong password " + strconv.Itoa(i)}}
			resp, err := client.Post(g.srv.URL+"/signin", "application/x-www-form-urlencoded", bytes.NewReader([]byte(form.Encode())))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				problems = append(problems, err.Error())
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			counts[resp.StatusCode]++
			if resp.StatusCode == 503 && resp.Header.Get("Retry-After") == "" {
				problems = append(problems, "503 without Retry-After")
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	used := peak()
	t.Logf("%d concurrent sign-ins in %v: %v; peak memory %d MiB", clients, took, counts, used>>20)
	if len(problems) > 0 {
		t.Fatalf("%d requests failed: %v", len(problems), problems[:min(5, len(problems))])
	}
	if counts[401]+counts[503] != clients || counts[401] < maxHashes {
		t.Fatalf("answers %v; want only 401 and 503, and at least %d hashed", counts, maxHashes)
	}
	if used > maxSignInMemory {
		t.Fatalf("peak memory %d MiB; the bound is %d MiB", used>>20, maxSignInMemory>>20)
	}
}

// TestSignInHammerBackoff sends 300 wrong passwords in a row for one name, then 256 at
// once: past the free failures they are answered 429 without hashing, so they are fast and
// memory stays bounded.
func TestSignInHammerBackoff(t *testing.T) {
	if inOwnProcess(t) {
		return
	}
	g := newGuardFixture(t, "olga")
	peak := peakRSS(t)
	start := time.Now()
	counts := map[int]int{}
	for range 300 {
		status, _, _ := g.signIn(t, "olga", "wrong password!")
		counts[status]++
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range 256 {
		wg.Go(func() {
			form := url.Values{"name": {"olga"}, "password": {"wrong password!"}}
			resp, err := g.srv.Client().Post(g.srv.URL+"/signin", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				counts[0]++
				return
			}
			resp.Body.Close()
			counts[resp.StatusCode]++
		})
	}
	wg.Wait()
	took, used := time.Since(start), peak()
	t.Logf("556 wrong passwords: %v in %v; peak memory %d MiB", counts, took, used>>20)
	if counts[401] != accountLimits.free+1 || counts[429] != 556-counts[401] {
		t.Fatalf("answers %v; want %d × 401, then only 429", counts, accountLimits.free+1)
	}
	if used > maxSignInMemory {
		t.Fatalf("peak memory %d MiB; the bound is %d MiB", used>>20, maxSignInMemory>>20)
	}
}
