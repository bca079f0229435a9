package verify_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// BenchmarkCheckCorpusRender checks 1,000 citations of the 40 real corpus pages, 25 per
// page, end to end (both verifiers, the adjudicator, one SQLite commit per citation), with
// the rendering verifier off and on, in the same run. With it on, each verifier renders its
// capture of a page once, in one Chromium with at most 4 tabs, when a quote is found there.
// The browser is started before the timer (a server pays that once). It reports
// citations/s, for render-on the ratio to render-off's rate, and the peak of the browser's
// memory: the sum of the resident set of its process tree, sampled every 100 ms from /proc.
func BenchmarkCheckCorpusRender(b *testing.B) {
	const n = 1000
	claims, wantFound := corpusClaims(b, n)
	renderer := verify.NewRenderer(verify.RenderConfig{Scripts: true})
	defer renderer.Close()
	if err := renderer.Start(); err != nil {
		b.Fatalf("the benchmark needs Chromium: %v", err)
	}
	var offRate float64
	for _, mode := range []string{"render-off", "render-on"} {
		b.Run(mode, func(b *testing.B) {
			store, _ := openStore(b)
			ctx := context.Background()
			var peak int64
			var goCPU, browserCPU time.Duration
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				batch := importClaims(b, store, claims...)
				checker := verify.NewChecker(verify.LoopbackFetchConfig())
				if mode == "render-on" {
					checker = checker.WithRenderer(renderer)
				}
				runtime.GC()
				stop := make(chan struct{})
				sampled := peakRSS(renderer.BrowserPID(), stop)
				cpu0, bcpu0 := selfCPU(), treeCPU(renderer.BrowserPID())
				b.StartTimer()
				outs, err := verify.RunBatch(ctx, store, checker, "system", batch.ID, false, verify.DefaultWorkers, nil)
				b.StopTimer()
				goCPU += selfCPU() - cpu0
				browserCPU += treeCPU(renderer.BrowserPID()) - bcpu0
				close(stop)
				peak = max(peak, <-sampled)
				if err != nil {
					b.Fatal(err)
				}
				if len(outs) != n {
					b.Fatalf("%d outcomes, want %d", len(outs), n)
				}
				cs, err := store.Claims(ctx, ledger.ClaimFilter{Batch: batch.ID, Status: evidence.StatusFound})
				if err != nil {
					b.Fatal(err)
				}
				if len(cs) != wantFound {
					for _, o := range outs {
						if o.Checked.Status != evidence.StatusFound && strings.Contains(o.Checked.Note, evidence.NoteUnseen) {
							b.Logf("%s %q: %s", o.Target.URL, o.Target.Quote, o.Checked.Note)
						}
					}
					b.Fatalf("%d claims found at their source, want %d", len(cs), wantFound)
				}
				b.StartTimer()
			}
			rate := float64(n*b.N) / b.Elapsed().Seconds()
			b.ReportMetric(rate, "citations/s")
			// CPU time, which the machine's other work does not inflate as it does the wall time.
			b.ReportMetric(goCPU.Seconds()/float64(b.N), "go-cpu-s")
			b.ReportMetric(browserCPU.Seconds()/float64(b.N), "browser-cpu-s")
			if mode == "render-off" {
				offRate = rate
				return
			}
			if offRate > 0 {
				b.ReportMetric(rate/offRate, "ratio-to-off")
			}
			b.ReportMetric(float64(peak)/(1<<20), "browser-peak-MB")
		})
	}
}

// corpusClaims serves the 40 corpus pages on loopback (for the test's life) and returns n
// claims citing them, 25 per page, from 20 host names, and how many of their quotes are on
// their page.
func corpusClaims(b *testing.B, n int) ([]evidence.Claim, int) {
	pages, quotes, found := corpusCites(b, n)
	bodies := map[string][]byte{}
	for _, p := range pages {
		if bodies[p] == nil {
			bodies[p] = verify.ReadCorpusPage(b, p)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		body := bodies[strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")[0]]
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	b.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	claims := make([]evidence.Claim, n)
	wantFound := 0
	for i := range claims {
		claims[i] = claimOf(fmt.Sprintf("Claim %d.", i), fmt.Sprintf("http://h%d.test:%s/%s", i%20, u.Port(), pages[i]), quotes[i])
		if found[i] {
			wantFound++
		}
	}
	return claims, wantFound
}

// peakRSS samples, every 100 ms until stop is closed, the resident set of the process pid and
// all its descendants (from /proc), and returns the highest sum seen; 0 when pid is 0.
func peakRSS(pid int, stop <-chan struct{}) <-chan int64 {
	out := make(chan int64, 1)
	go func() {
		var peak int64
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			if pid > 0 {
				peak = max(peak, treeRSS(pid))
			}
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// selfCPU is the CPU time (user and system) this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// treeCPU is the CPU time (user and system, with that of exited children it waited for) of
// pid and its descendants, from /proc; 0 when pid is 0.
func treeCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	var ticks int64
	for _, p := range tree(pid) {
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		// After the comm: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
		if len(f) < 15 {
			continue
		}
		for _, i := range []int{11, 12, 13, 14} {
			v, _ := strconv.ParseInt(f[i], 10, 64)
			ticks += v
		}
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ is 100 on Linux
}

// tree returns pid and its descendants.
func tree(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		parent[p] = pp
	}
	var out []int
	for p := range parent {
		for q, hops := p, 0; q > 0 && hops < 64; q, hops = parent[q], hops+1 {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// treeRSS is the resident set, in bytes, of pid and its descendants.
func treeRSS(pid int) int64 {
	page := int64(os.Getpagesize())
	var sum int64
	for _, p := range tree(pid) {
		statm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "statm"))
		if err != nil {
			continue
		}
		if f := strings.Fields(string(statm)); len(f) >= 2 {
			rss, _ := strconv.ParseInt(f[1], 10, 64)
			sum += rss * page
		}
	}
	return sum
}
