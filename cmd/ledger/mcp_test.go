package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"evidenceledger/evidence"
	"evidenceledger/gate"
	"evidenceledger/ledger"
	"evidenceledger/verify"
	"evidenceledger/web"
)

// corpusPages serves the saved real pages of testdata/corpus/pages on 127.0.0.1: /NAME is
// NAME.html, /down answers 503 (unreachable), anything else 404.
func corpusPages(t testing.TB) string {
	t.Helper()
	const dir = "../../testdata/corpus/pages"
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the saved pages are missing (%v)", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /robots.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "User-agent: *\nAllow: /\n")
	})
	mux.HandleFunc("GET /down", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	})
	mux.HandleFunc("GET /{name}", func(w http.ResponseWriter, r *http.Request) {
		body, err := os.ReadFile(filepath.Join(dir, filepath.Base(r.PathValue("name"))+".html"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(body)
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	return site.URL
}

// stdioMCP runs `ledger mcp` in this process with its stdin and stdout on pipes, and
// connects the SDK's client to it. Closing the session ends the command; its exit status
// and stderr come on the returned function.
func stdioMCP(t *testing.T, data string, args []string, opts *mcp.ClientOptions) (*mcp.ClientSession, func() (int, string)) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut syncBuffer
	e := &env{stdin: inR, stdout: outW, stderr: &errOut, getenv: func(k string) string {
		if k == "LEDGER_DATA" {
			return data
		}
		return ""
	}}
	done := make(chan int, 1)
	go func() {
		code := run(context.Background(), append([]string{"mcp"}, args...), e)
		outW.Close()
		done <- code
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "ledger-test", Version: "1"}, opts)
	cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		inW.Close()
		t.Fatalf("connect: %v; stderr: %s", err, errOut.String())
	}
	var once sync.Once
	var code int
	end := func() (int, string) {
		once.Do(func() {
			cs.Close()
			inW.Close()
			code = <-done
		})
		return code, errOut.String()
	}
	t.Cleanup(func() { end() })
	return cs, end
}

// callTool calls a tool and decodes its structured content into out (when not nil); it
// returns the result.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if out != nil && !res.IsError {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return res
}

// toolText is the text of a result's content.
func toolText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// headOf is the number of events of the ledger in data.
func headOf(t *testing.T, data string) int {
	t.Helper()
	r := ledgerCmd(t, data, "export")
	if r.code != 0 {
		t.Fatalf("export: %+v", r)
	}
	return strings.Count(r.stdout, "\n")
}

// mcpBatch is the batch of the MCP tests: found (two real pages), not_found (a quote not on
// its page), unreachable (a 503), a fabricated URL (404).
func mcpBatch(site string) []web.IntakeClaim {
	return []web.IntakeClaim{
		{Text: "The Fetch API reports the destination of an image request.", Citations: []web.IntakeCitation{{URL: site + "/002", Quote: "if the request is from an <img>tag in the controlled document"}}},
		{Text: "The Bardo museum attack was condemned.", Citations: []web.IntakeCitation{{URL: site + "/wapo-1", Quote: "condemned the attack and said"}}},
		{Text: "The museum attack was praised.", Citations: []web.IntakeCitation{{URL: site + "/wapo-1", Quote: "praised the attack and said"}}},
		{Text: "The registry is down.", Citations: []web.IntakeCitation{{URL: site + "/down", Quote: "the registry counted 4,812 companies"}}},
		{Text: "A study found that 97% of readers agree.", Citations: []web.IntakeCitation{{URL: site + "/made-up-study-2025", Quote: "97% of readers agree"}}},
	}
}

func TestMCPStdio(t *testing.T) {
	site := corpusPages(t)
	data := t.TempDir()
	op := strings.TrimSpace(ledgerCmd(t, data, "user", "add", "olga", "--role", "operator").stdout)
	au := strings.TrimSpace(ledgerCmd(t, data, "user", "add", "arno", "--role", "auditor").stdout)
	flags := []string{"--fetch-allow", "127.0.0.0/8", "--fetch-delay", "0"}

	progress := make(chan float64, 64)
	cs, end := stdioMCP(t, data, append([]string{"--token", op}, flags...), &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- r.Params.Progress:
			default:
			}
		},
	})
	lt, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range lt.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema == nil || tool.OutputSchema == nil || tool.Description == "" {
			t.Errorf("tool %s lacks a schema or a description", tool.Name)
		}
	}
	if !slices.Equal(names, []string{"audit_status", "batch_report", "check_claims", "claim_status", "gate_text"}) {
		t.Fatalf("tools: %v", names)
	}

	// check_claims: the five citations, with a progress token.
	before := headOf(t, data)
	var ans web.CheckAnswer
	params := &mcp.CallToolParams{Name: "check_claims", Arguments: map[string]any{"claims": mcpBatch(site), "wait_seconds": 60}}
	params.SetProgressToken("p1")
	res, err := cs.CallTool(t.Context(), params)
	if err != nil || res.IsError {
		t.Fatalf("check_claims: %v %s", err, toolText(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &ans); err != nil {
		t.Fatal(err)
	}
	if !ans.Finished || ans.Job == nil || ans.Job.State != verify.JobDone || ans.Job.Done != 5 || len(ans.Claims) != 5 {
		t.Fatalf("check_claims answer: %s", b)
	}
	want := []evidence.Status{evidence.StatusFound, evidence.StatusFound, evidence.StatusNotFound, evidence.StatusUnreachable, evidence.StatusNotFound}
	for i, c := range ans.Claims {
		ct := c.Citations[0]
		if ct.Status != want[i] || ct.Note == "" || ct.ResidualRisk == "" {
			t.Errorf("claim %d (%s): citation %+v; want %s with a note and a residual risk", i, c.Text, ct, want[i])
		}
	}
	if s := ans.Claims[0].Citations[0]; s.Strength == "" || !strings.Contains(s.Excerpt, "controlled document") {
		t.Errorf("found citation lacks strength or excerpt: %+v", s)
	}
	if !strings.Contains(ans.Claims[4].Citations[0].Note, "does not exist") {
		t.Errorf("fabricated URL's note: %q", ans.Claims[4].Citations[0].Note)
	}
	// Notifications are handled apart from the answer: the one of all five is waited for.
	for p := range progress {
		if p == 5 {
			break
		}
	}
	if got := headOf(t, data); got != before+6 {
		t.Errorf("events after check_claims: %d, want %d (import and 5 checks)", got, before+6)
	}

	// claim_status and batch_report read what was recorded.
	var st web.CheckAnswer
	if res := callTool(t, cs, "claim_status", map[string]any{"claim": ans.Claims[2].ID}, &st); res.IsError || len(st.Claims) != 1 || st.Claims[0].Status != evidence.StatusNotFound {
		t.Fatalf("claim_status: %s", toolText(res))
	}
	if res := callTool(t, cs, "claim_status", map[string]any{"batch": ans.Batch, "job": ans.Job.Job}, &st); res.IsError || !st.Finished || len(st.Claims) != 5 {
		t.Fatalf("claim_status of the batch: %s", toolText(res))
	}
	var rep ledger.HandOff
	if res := callTool(t, cs, "batch_report", map[string]any{"batch": ans.Batch}, &rep); res.IsError || len(rep.Usable) != 2 || len(rep.Withheld) != 3 || rep.At.Seq == 0 {
		t.Fatalf("batch_report: %s", toolText(res))
	}

	// gate_text: a found claim may be written to memory, a not_found one may not.
	var d gate.Decision
	if res := callTool(t, cs, "gate_text", map[string]any{"text": "The Bardo museum attack was condemned."}, &d); res.IsError || !d.Allow {
		t.Fatalf("gate_text of a found claim: %s", toolText(res))
	}
	if res := callTool(t, cs, "gate_text", map[string]any{"text": "The museum attack was praised."}, &d); res.IsError || d.Allow || d.ResidualRisk == "" {
		t.Fatalf("gate_text of a claim not found: %s", toolText(res))
	}
	var au1 web.AuditStatus
	if res := callTool(t, cs, "audit_status", map[string]any{}, &au1); res.IsError || !au1.Audit.OK || au1.Checkpoint.Size == 0 || !strings.Contains(au1.Checkpoint.Note, "\n\n") {
		t.Fatalf("audit_status: %s", toolText(res))
	}
	if code, stderr := end(); code != 0 {
		t.Fatalf("ledger mcp: exit %d: %s", code, stderr)
	}

	// An auditor reads but may not check.
	cs, end = stdioMCP(t, data, append([]string{"--token", au}, flags...), nil)
	head := headOf(t, data)
	res = callTool(t, cs, "check_claims", map[string]any{"claims": mcpBatch(site)[:1]}, nil)
	if !res.IsError || !strings.Contains(toolText(res), "arno is an auditor") {
		t.Fatalf("an auditor's check_claims: %s", toolText(res))
	}
	res = callTool(t, cs, "gate_text", map[string]any{"text": "The Bardo museum attack was condemned.", "check": true}, nil)
	if !res.IsError || !strings.Contains(toolText(res), "only operators") {
		t.Fatalf("an auditor's gate_text with check: %s", toolText(res))
	}
	if res := callTool(t, cs, "batch_report", map[string]any{"batch": ans.Batch}, &rep); res.IsError {
		t.Fatalf("an auditor's batch_report: %s", toolText(res))
	}
	if got := headOf(t, data); got != head {
		t.Errorf("an auditor's calls recorded %d events", got-head)
	}
	if code, stderr := end(); code != 0 {
		t.Fatalf("ledger mcp as the auditor: exit %d: %s", code, stderr)
	}
}

func TestMCPStdioUsage(t *testing.T) {
	data := t.TempDir()
	ledgerCmd(t, data, "user", "add", "olga", "--role", "operator")
	tests := []struct {
		desc string
		args []string
		code int
		want string
	}{
		{"no token", []string{"mcp"}, 2, "want --token TOKEN or LEDGER_TOKEN"},
		{"a token that is no user's", []string{"mcp", "--token", "evl_nobody"}, 1, "--token"},
		{"stray argument", []string{"mcp", "--token", "x", "extra"}, 2, "want: ledger mcp"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			r := ledgerCmd(t, data, tt.args...)
			if r.code != tt.code || r.stdout != "" || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("%+v; want code %d and %q on stderr", r, tt.code, tt.want)
			}
		})
	}
	if r := ledgerCmd(t, t.TempDir(), "mcp", "--token", "x"); r.code != 1 || !strings.Contains(r.stderr, "no ledger in") {
		t.Errorf("mcp without a ledger: %+v", r)
	}
}

// authHeader adds a bearer token to every request.
type authHeader struct {
	token string
	next  http.RoundTripper
}

func (a authHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+a.token)
	return a.next.RoundTrip(r)
}

// TestServeMCP reaches the tools at /mcp on `ledger serve`, and stops the server while the
// client's session (and its event stream) is open: the server still ends with status 0 (the
// stream is ended by the shutdown, which would otherwise wait for it and fail).
func TestServeMCP(t *testing.T) {
	data := t.TempDir()
	au := strings.TrimSpace(ledgerCmd(t, data, "user", "add", "arno", "--role", "auditor").stdout)
	base := startServe(t, "--data", data)
	tr := &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: authHeader{au, http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ledger-test", Version: "1"}, nil).Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	var st web.AuditStatus
	if res := callTool(t, cs, "audit_status", map[string]any{}, &st); res.IsError || !st.Audit.OK {
		t.Fatalf("audit_status: %s", toolText(res))
	}
	if res := callTool(t, cs, "check_claims", map[string]any{"text": "Claim: x\nSource: http://127.0.0.1:1/\nQuote: y"}, nil); !res.IsError || !strings.Contains(toolText(res), "arno is an auditor") {
		t.Fatalf("an auditor's check_claims: %s", toolText(res))
	}
}
