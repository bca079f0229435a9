package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"evidenceledger/ledger"
)

// scrape reads GET /metrics and parses it with the Prometheus text parser, into its samples
// by name (a histogram's _count, _sum and _bucket apart).
func scrape(t *testing.T, base string) map[string][]*model.Sample {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /metrics: %d", resp.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the metrics do not parse: %v", err)
	}
	out := map[string][]*model.Sample{}
	for _, f := range fams {
		vec, err := expfmt.ExtractSamples(&expfmt.DecodeOptions{Timestamp: model.Now()}, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range vec {
			name := string(s.Metric[model.MetricNameLabel])
			out[name] = append(out[name], s)
		}
	}
	return out
}

// value is the sample of name whose labels include want, or -1 when there is none.
func value(m map[string][]*model.Sample, name string, want map[string]string) float64 {
	for _, s := range m[name] {
		ok := true
		for k, v := range want {
			ok = ok && string(s.Metric[model.LabelName(k)]) == v
		}
		if ok {
			return float64(s.Value)
		}
	}
	return -1
}

// TestServeMetricsAndLog: GET /metrics, scraped before and after a check, counts the check
// by status and the verifiers' fetches, reads the ledger's gauges, and times the requests by
// route; the JSON log has one line per request and one per check, and neither the token nor
// the password used appears anywhere in it.
func TestServeMetricsAndLog(t *testing.T) {
	port, _ := recordingSite(t)
	data := t.TempDir()
	const password = "correct horse battery staple 42"
	s, err := ledger.Open(context.Background(), data, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	token, err := s.AddUserWithPassword(context.Background(), "system", "olga", ledger.RoleOperator, password)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	e := &env{stdout: &bytes.Buffer{}, stderr: &stderr, getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", data, "--log-format", "json",
			"--fetch-allow", "127.0.0.0/8", "--fetch-delay", "0"}, e)
	}()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			if code := <-done; code != 0 {
				t.Errorf("serve ended with %d: %s", code, stderr.String())
			}
		}
	}
	t.Cleanup(stop)
	base := stderr.waitFor(t, regexp.MustCompile(`serving on (http://127\.0\.0\.1:\d+)`), done)[1]

	before := scrape(t, base)
	if v := value(before, "ledger_checks_total", map[string]string{"status": "found_at_source"}); v > 0 {
		t.Fatalf("checks before any check: %v", v)
	}
	var batch struct{ Batch string }
	call(t, "POST", base+"/api/research", token, fmt.Sprintf(`{"claims":[
		{"text":"The registry counted 4,812 companies.","citations":[{"url":"http://127.0.0.1:%[1]s/report","quote":"the registry counted 4,812 companies"}]},
		{"text":"The registry counted 9,999 companies.","citations":[{"url":"http://127.0.0.1:%[1]s/other","quote":"the registry counted 9,999 companies"}]}]}`, port),
		http.StatusCreated, &batch)
	var job struct{ Job string }
	call(t, "POST", base+"/api/batches/"+batch.Batch+"/check", token, "", http.StatusAccepted, &job)
	for {
		var state struct{ State string }
		call(t, "GET", base+"/api/jobs/"+job.Job+"?wait=60", token, "", http.StatusOK, &state)
		if state.State == "done" {
			break
		}
		if state.State == "failed" {
			t.Fatal("the check job failed")
		}
	}
	// A sign-in with the password, so that the log could hold it if it logged forms.
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.PostForm(base+"/signin", url.Values{"name": {"olga"}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	var audit struct{ OK bool }
	call(t, "GET", base+"/api/audit", token, "", http.StatusOK, &audit)

	after := scrape(t, base)
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"ledger_checks_total", map[string]string{"status": "found_at_source"}, 1},
		{"ledger_checks_total", map[string]string{"status": "not_found"}, 1},
		{"ledger_fetches_total", map[string]string{"outcome": "ok"}, 4}, // two pages, each by both verifiers
		{"ledger_citations", map[string]string{"status": "found_at_source"}, 1},
		{"ledger_citations", map[string]string{"status": "not_found"}, 1},
		{"ledger_audits_total", map[string]string{"result": "ok"}, 1},
	} {
		if got := value(after, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if v := value(after, "ledger_events", nil); v <= value(before, "ledger_events", nil) {
		t.Errorf("ledger_events did not grow: %v then %v", value(before, "ledger_events", nil), v)
	}
	if v := value(after, "ledger_checkpoint_size", nil); v < 1 {
		t.Errorf("ledger_checkpoint_size = %v", v)
	}
	if v := value(after, "ledger_http_request_duration_seconds_count", map[string]string{"route": "POST /api/research", "code": "201"}); v != 1 {
		t.Errorf("requests to POST /api/research counted %v times", v)
	}

	stop()
	log := stderr.String()
	for _, secret := range []string{token, password, url.QueryEscape(password)} {
		if strings.Contains(log, secret) {
			t.Fatalf("the log holds a secret (%q)", secret)
		}
	}
	routes, checks := map[string]int{}, 0
	sc := bufio.NewScanner(strings.NewReader(log))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "{") {
			continue // the server's own start and stop lines
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a log line is not JSON: %q: %v", line, err)
		}
		switch rec["msg"] {
		case "request":
			for _, k := range []string{"request_id", "method", "route", "status", "took"} {
				if _, ok := rec[k]; !ok {
					t.Errorf("request line %q lacks %s", line, k)
				}
			}
			routes[rec["route"].(string)]++
		case "check recorded":
			checks++
			if rec["citation"] == "" || rec["status"] == "" {
				t.Errorf("check line %q lacks ids", line)
			}
		}
	}
	if routes["POST /api/research"] != 1 || routes["POST /signin"] != 1 || routes["GET /metrics"] != 2 || checks != 2 {
		t.Errorf("log lines: routes %v, checks %d", routes, checks)
	}
}
