// Command soak runs a ledger server under load on loopback and reports what it measured.
// scripts/soak.sh builds and runs it; see docs/scale.md.
//
// It starts a page site of its own and `ledger serve` (fetching only from loopback), then
// runs -clients clients for -duration, each in a loop: paste research (5 claims citing the
// site), check the batch and wait for the job, read a page of claims, open an absence seam
// on one of its claims and resolve it, and every tenth round run the audit. At the end it
// runs the audit again over the API and `ledger audit` on the data directory. It prints
// throughput, p50 and p99 latency per kind of request, the server's peak resident memory and
// the error count, and exits 1 when any request failed or an audit did not hold.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	bin := flag.String("ledger", "bin/ledger", "the ledger binary")
	clients := flag.Int("clients", 8, "concurrent clients")
	duration := flag.Duration("duration", 10*time.Minute, "how long the clients run")
	flag.Parse()
	if err := run(*bin, *clients, *duration); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

// stats collects latencies per kind of request and the failures.
type stats struct {
	mu     sync.Mutex
	lat    map[string][]time.Duration
	errors []string
}

func (s *stats) add(kind string, d time.Duration, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lat[kind] = append(s.lat[kind], d)
	if err != nil {
		s.errors = append(s.errors, kind+": "+err.Error())
	}
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func run(bin string, clients int, duration time.Duration) error {
	dir, err := os.MkdirTemp("", "ledger-soak-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	data := filepath.Join(dir, "data")

	site, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go http.Serve(site, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
			return
		}
		n := strings.TrimPrefix(r.URL.Path, "/p/")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><title>Record %s</title><p>Fact %s holds in the record of the soak site, as filed.</p>", n, n)
	}))
	siteURL := "http://" + site.Addr().String()

	token := func(name, role string) (string, error) {
		out, err := exec.Command(bin, "user", "add", name, "--role", role, "--data", data).Output()
		return strings.TrimSpace(string(out)), err
	}
	op, err := token("soak", "operator")
	if err != nil {
		return fmt.Errorf("add the operator: %w", err)
	}
	au, err := token("auditor", "auditor")
	if err != nil {
		return fmt.Errorf("add the auditor: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	srv := exec.Command(bin, "serve", "--data", data, "--addr", addr, "--fetch-allow", "127.0.0.0/8", "--fetch-delay", "0")
	var srvLog bytes.Buffer
	srv.Stderr = &srvLog
	if err := srv.Start(); err != nil {
		return err
	}
	defer srv.Process.Kill()
	base := "http://" + addr
	client := &http.Client{Timeout: 5 * time.Minute}
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := client.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Since(start) > 10*time.Second {
			return fmt.Errorf("the server did not come up: %s", srvLog.String())
		}
	}

	call := func(method, path, tok, ctype string, body []byte, want int, into any) error {
		req, _ := http.NewRequest(method, base+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, strings.TrimSpace(string(b)))
		}
		if into != nil {
			return json.Unmarshal(b, into)
		}
		return nil
	}
	st := &stats{lat: map[string][]time.Duration{}}
	timed := func(kind string, f func() error) error {
		t0 := time.Now()
		err := f()
		st.add(kind, time.Since(t0), err)
		return err
	}

	var peak int64
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if kb := statusKB(srv.Process.Pid, "VmHWM"); kb > peak {
				peak = kb
			}
			select {
			case <-stopSampling:
				return
			case <-time.After(time.Second):
			}
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	var wg sync.WaitGroup
	var rounds sync.Map
	for c := range clients {
		wg.Go(func() {
			for round := 0; ctx.Err() == nil; round++ {
				rounds.Store(c, round+1)
				var paste strings.Builder
				// Four quotes are on their pages; the fifth is not.
				for i := range 5 {
					n := fmt.Sprintf("%d-%d-%d", c, round, i)
					quote := "Fact " + n + " holds in the record of the soak site"
					if i == 4 {
						quote = "Fact " + n + " was never filed with the soak site"
					}
					fmt.Fprintf(&paste, "Claim %d: Fact %s holds.\nSource: %s/p/%s\nQuote: \"%s\"\n\n", i+1, n, siteURL, n, quote)
				}
				var batch struct {
					Batch  string
					Claims []struct{ ID string }
				}
				if timed("paste", func() error {
					return call("POST", "/api/research", op, "text/plain", []byte(paste.String()), 201, &batch)
				}) != nil {
					continue
				}
				var job struct{ Job string }
				if timed("check", func() error {
					return call("POST", "/api/batches/"+batch.Batch+"/check", op, "application/json", nil, 202, &job)
				}) != nil {
					continue
				}
				timed("job", func() error {
					var js struct{ State string }
					if err := call("GET", "/api/jobs/"+job.Job+"?wait=60", au, "", nil, 200, &js); err != nil {
						return err
					}
					if js.State != "done" {
						return fmt.Errorf("job %s is %s after its wait", job.Job, js.State)
					}
					return nil
				})
				timed("claims", func() error {
					return call("GET", "/api/claims?limit=50&batch="+batch.Batch, au, "", nil, 200, nil)
				})
				var seam struct{ ID string }
				seamReq, _ := json.Marshal(map[string]any{"kind": "absence", "summary": "No primary record of this fact was found.", "claims": []string{batch.Claims[0].ID}})
				if timed("seam", func() error {
					return call("POST", "/api/seams", op, "application/json", seamReq, 201, &seam)
				}) == nil {
					res, _ := json.Marshal(map[string]string{"decision": "no primary record exists", "reason": "The registry has no filing for it."})
					timed("resolve", func() error {
						return call("POST", "/api/seams/"+seam.ID+"/resolve", op, "application/json", res, 200, nil)
					})
				}
				if round%10 == 9 {
					timed("audit", func() error { return auditOK(call, au) })
				}
			}
		})
	}
	wg.Wait()
	close(stopSampling)
	<-sampled
	finalErr := timed("final-audit", func() error { return auditOK(call, au) })
	srv.Process.Signal(os.Interrupt)
	srv.Wait()
	out, cliErr := exec.Command(bin, "audit", "--data", data).CombinedOutput()

	total := 0
	var all []time.Duration
	kinds := []string{}
	for k, ds := range st.lat {
		kinds = append(kinds, k)
		total += len(ds)
		all = append(all, ds...)
	}
	slices.Sort(kinds)
	fmt.Printf("soak: %d clients for %v on %s, %d cores\n", clients, duration, addr, nproc())
	fmt.Printf("requests: %d (%.1f/s)\n", total, float64(total)/duration.Seconds())
	fmt.Printf("%-12s %8s %10s %10s %10s\n", "kind", "count", "p50", "p99", "max")
	for _, k := range kinds {
		ds := st.lat[k]
		fmt.Printf("%-12s %8d %10v %10v %10v\n", k, len(ds), pct(ds, 0.5).Round(time.Millisecond), pct(ds, 0.99).Round(time.Millisecond), pct(ds, 1).Round(time.Millisecond))
	}
	fmt.Printf("%-12s %8d %10v %10v %10v\n", "all", len(all), pct(all, 0.5).Round(time.Millisecond), pct(all, 0.99).Round(time.Millisecond), pct(all, 1).Round(time.Millisecond))
	fmt.Printf("server peak memory (VmHWM): %d MiB\n", peak>>10)
	fmt.Printf("errors: %d\n", len(st.errors))
	for _, e := range st.errors[:min(10, len(st.errors))] {
		fmt.Println("  ", e)
	}
	fmt.Printf("ledger audit: %s", out)
	switch {
	case len(st.errors) > 0:
		return fmt.Errorf("%d requests failed", len(st.errors))
	case finalErr != nil:
		return finalErr
	case cliErr != nil:
		return fmt.Errorf("ledger audit: %w", cliErr)
	}
	return nil
}

// auditOK runs the audit over the API and fails unless the chain holds.
func auditOK(call func(string, string, string, string, []byte, int, any) error, tok string) error {
	var rep struct {
		OK       bool
		Events   int
		Problems []json.RawMessage
	}
	if err := call("GET", "/api/audit", tok, "", nil, 200, &rep); err != nil {
		return err
	}
	if !rep.OK {
		return errors.New("the audit does not hold")
	}
	return nil
}

// statusKB reads a "Name: N kB" line of /proc/PID/status.
func statusKB(pid int, name string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	m := regexp.MustCompile(name + `:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n
}

func nproc() int {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	return bytes.Count(b, []byte("\nprocessor")) + 1
}
