package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"evidenceledger/web"
)

// corpus25 are 25 citations of found quotes on 25 saved pages (testdata/quotes/corpus.jsonl,
// the first found quote of each page), at site.
func corpus25(b *testing.B, site string) []web.IntakeClaim {
	f, err := os.Open("../../testdata/quotes/corpus.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var claims []web.IntakeClaim
	pages := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() && len(claims) < 25 {
		var q struct {
			Page, Quote string
			Found       bool
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			b.Fatal(err)
		}
		if !q.Found || pages[q.Page] {
			continue
		}
		pages[q.Page] = true
		claims = append(claims, web.IntakeClaim{Text: "Claim " + strconv.Itoa(len(claims)+1) + " of the benchmark.",
			Citations: []web.IntakeCitation{{URL: site + "/" + strings.TrimSuffix(q.Page, ".html"), Quote: q.Quote}}})
	}
	if len(claims) != 25 {
		b.Fatalf("%d citations", len(claims))
	}
	return claims
}

// rssKiB is a process's resident set size.
func rssKiB(b *testing.B, pid int) float64 {
	s, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(string(s)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return n
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

// BenchmarkMCPCheck25 measures check_claims of 25 citations (25 saved pages on loopback),
// called on a running `ledger mcp` over its stdio, against `ledger check` of the same 25
// citations imported as a batch just before (the import not timed), in the same run and
// alternately, with the same binary, ledger, workers and fetch settings. check_claims'
// time includes its import, its check and its answer; ledger check's includes starting the
// process. It reports both in ms, their ratio (x-check), and the resident memory of the idle
// MCP server, after it started (idle-rss-MiB) and after the calls (after-rss-MiB).
//
//	go test ./cmd/ledger -run '^$' -bench MCPCheck25 -benchtime 10x
func BenchmarkMCPCheck25(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "ledger")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build the binary: %v\n%s", err, out)
	}
	site := corpusPages(b)
	data := b.TempDir()
	env := append(os.Environ(), "LEDGER_DATA="+data)
	run := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("%v: %v", args, err)
		}
		return string(out)
	}
	token := strings.TrimSpace(run("user", "add", "olga", "--role", "operator"))
	claims := corpus25(b, site)
	paste := filepath.Join(b.TempDir(), "claims.json")
	body, _ := json.Marshal(map[string]any{"claims": claims})
	if err := os.WriteFile(paste, body, 0o600); err != nil {
		b.Fatal(err)
	}
	fetchFlags := []string{"--fetch-allow", "127.0.0.0/8", "--fetch-delay", "0"}

	srv := exec.Command(bin, append([]string{"mcp", "--token", token}, fetchFlags...)...)
	srv.Env = env
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(b.Context(), &mcp.CommandTransport{Command: srv}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(b.Context(), nil); err != nil {
		b.Fatal(err)
	}
	idle := rssKiB(b, srv.Process.Pid)

	var checkTime, mcpTime time.Duration
	for b.Loop() {
		b.StopTimer()
		batch := strings.SplitN(run("import", paste), "\n", 2)[0]
		b.StartTimer()
		start := time.Now()
		out := run(append([]string{"check", "--batch", batch}, fetchFlags...)...)
		checkTime += time.Since(start)
		if !strings.Contains(out, "25 citations in") || !strings.Contains(out, ": 25 found_at_source") {
			b.Fatalf("ledger check: %s", out)
		}
		start = time.Now()
		res, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "check_claims", Arguments: map[string]any{"claims": claims}})
		mcpTime += time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("check_claims: %v %v", err, res)
		}
		var ans web.CheckAnswer
		raw, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(raw, &ans)
		if !ans.Finished || ans.Job.Done != 25 || len(ans.Claims) != 25 {
			b.Fatalf("check_claims: %s", raw)
		}
		for _, c := range ans.Claims {
			if c.Citations[0].Status != "found_at_source" {
				b.Fatalf("check_claims: %s: %s %s", c.Citations[0].URL, c.Citations[0].Status, c.Citations[0].Note)
			}
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(checkTime.Milliseconds())/n, "check-ms")
	b.ReportMetric(float64(mcpTime.Milliseconds())/n, "mcp-ms")
	b.ReportMetric(mcpTime.Seconds()/checkTime.Seconds(), "x-check")
	b.ReportMetric(idle/1024, "idle-rss-MiB")
	b.ReportMetric(rssKiB(b, srv.Process.Pid)/1024, "after-rss-MiB")
}
