package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// startServe runs `ledger serve` with args on a free loopback port until the test ends, and
// returns its base URL.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	e := &env{stdout: &bytes.Buffer{}, stderr: &stderr, getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), e) }()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve ended with %d: %s", code, stderr.String())
		}
	})
	return stderr.waitFor(t, regexp.MustCompile(`serving on (http://127\.0\.0\.1:\d+)`), done)[1]
}

// call sends a request with a bearer token and decodes the JSON answer into out; it fails the
// test unless the status is want.
func call(t *testing.T, method, url, token, body string, want int, out any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d %s; want %d", method, url, resp.StatusCode, b, want)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s %s: %v in %s", method, url, err, b)
	}
}

// TestServeFetchFlags shows that the server's checks use --user-agent and --login-walled:
// the site records the host, path and User-Agent of every request, the page is requested
// with the operator's agent, and the host added as login-walled is never requested but
// opens a manual seam.
func TestServeFetchFlags(t *testing.T) {
	port, requests := recordingSite(t)
	data := t.TempDir()
	token := strings.TrimSpace(ledgerCmd(t, data, "user", "add", "olga", "--role", "operator").stdout)
	const agent = "registry-checks/2.0 (+https://checks.example.org/contact)"
	base := startServe(t, "--data", data, "--fetch-allow", "127.0.0.0/8", "--fetch-delay", "0",
		"--user-agent", agent, "--login-walled", "members.example.org,localhost")

	var batch struct{ Batch string }
	call(t, "POST", base+"/api/research", token, fmt.Sprintf(`{"claims":[
		{"text":"The registry counted 4,812 companies.","citations":[{"url":"http://127.0.0.1:%[1]s/report","quote":"the registry counted 4,812 companies"}]},
		{"text":"The members' area says the same.","citations":[{"url":"http://localhost:%[1]s/members","quote":"the registry counted 4,812 companies"}]}]}`, port),
		http.StatusCreated, &batch)
	var job struct{ Job string }
	call(t, "POST", base+"/api/batches/"+batch.Batch+"/check", token, "", http.StatusAccepted, &job)
	var state struct {
		State       string
		Total, Done int
	}
	// Each answer waits up to 60 s; the loop waits for the job's end, however long it takes.
	for state.State != "done" && state.State != "failed" {
		call(t, "GET", base+"/api/jobs/"+job.Job+"?wait=60", token, "", http.StatusOK, &state)
	}
	if state.State != "done" || state.Done != 2 {
		t.Fatalf("job %+v; want done with 2 citations", state)
	}
	var seams struct {
		Seams []struct{ Kind, Summary string }
	}
	call(t, "GET", base+"/api/seams?state=open", token, "", http.StatusOK, &seams)
	if len(seams.Seams) != 1 || seams.Seams[0].Kind != "manual" {
		t.Errorf("open seams %+v; want one manual seam for the login-walled citation", seams.Seams)
	}
	want := []string{
		"127.0.0.1 /report " + agent, "127.0.0.1 /report " + agent,
		"127.0.0.1 /robots.txt " + agent, "127.0.0.1 /robots.txt " + agent,
	}
	if got := requests(); !slices.Equal(got, want) {
		t.Errorf("the site got\n%q\nwant\n%q", got, want)
	}
}

func TestServeRefusesBadFetchFlags(t *testing.T) {
	tests := []struct {
		desc string
		args []string
		want string
	}{
		{"a User-Agent with a line break", []string{"--user-agent", "ua\nX: 1"}, "--user-agent"},
		{"a login-walled host with a port", []string{"--login-walled", "members.example.org:443"}, `"members.example.org:443" is not a host name`},
		{"negative delay", []string{"--fetch-delay", "-1s"}, "want 0 or more"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			data := t.TempDir()
			r := ledgerCmd(t, data, append([]string{"serve", "--addr", "127.0.0.1:0"}, tt.args...)...)
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) || strings.Contains(r.stderr, "serving on") {
				t.Fatalf("%+v; want exit 2 with %q and no server", r, tt.want)
			}
		})
	}
}

// TestServeSaysWhenNoBrowser starts the server with a Chromium that does not exist: it
// serves all the same, and says at start, on one line, that the visibility of found quotes
// rests on the style rules alone; with a browser it names it.
func TestServeSaysWhenNoBrowser(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want *regexp.Regexp
	}{
		{[]string{"--chromium", t.TempDir() + "/no-chromium"}, regexp.MustCompile(`(?m)^ledger: no browser for the rendering verifier \(no Chromium at .*no-chromium.*\): the visibility of found quotes on web pages rests on the style rules alone$`)},
		{[]string{"--render=false"}, regexp.MustCompile(`(?m)^ledger: rendering verifier off \(--render=false\): the visibility of found quotes on web pages rests on the style rules alone$`)},
		{nil, regexp.MustCompile(`(?m)^ledger: rendering verifier: \S*chrom\S*, started at the first quote found on a web page$`)},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		var stderr syncBuffer
		e := &env{stdout: &bytes.Buffer{}, stderr: &stderr, getenv: func(string) string { return "" }}
		done := make(chan int, 1)
		args := append([]string{"serve", "--data", t.TempDir(), "--addr", "127.0.0.1:0"}, tc.args...)
		go func() { done <- run(ctx, args, e) }()
		stderr.waitFor(t, regexp.MustCompile(`serving on (http://127\.0\.0\.1:\d+)`), done)
		if !tc.want.MatchString(stderr.String()) {
			t.Errorf("%v: stderr does not match %s:\n%s", tc.args, tc.want, stderr.String())
		}
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve ended with %d: %s", code, stderr.String())
		}
	}
}
