package web

import (
	"bytes"
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"evidenceledger/evidence"
	"evidenceledger/gate"
	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// mcpFixture is a server with real check jobs over a real ledger, and the saved real pages
// on loopback.
func mcpFixture(t *testing.T) (fixture, corpusSite) {
	t.Helper()
	st, op, au := openUsers(t)
	site := newCorpusSite(t)
	checker := verify.NewChecker(loopbackFetch())
	jobs := verify.NewJobs(st, checker, 2)
	t.Cleanup(jobs.Close)
	srv := httptest.NewServer(New(Config{Ledger: st, Jobs: jobs, Checker: checker, CheckWorkers: 2}))
	t.Cleanup(srv.Close)
	return fixture{srv: srv, store: st, operator: op, auditor: au}, site
}

// bearer adds a bearer token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// mcpClient connects the SDK's client to /mcp with a token.
func mcpClient(t *testing.T, f fixture, token string, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: f.srv.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{token, f.srv.Client().Transport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ledger-test", Version: "1"}, opts).Connect(t.Context(), tr, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// call calls a tool and decodes its structured content into out when it is not an error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if out != nil && !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %s: %v", name, b, err)
		}
	}
	return res
}

func resultText(res *mcp.CallToolResult) string {
	var s []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			s = append(s, tc.Text)
		}
	}
	return strings.Join(s, "\n")
}

// mcpClaims are found (two real pages), not_found (a quote not on its page), unreachable (a
// closed port) and a fabricated URL (a host that does not resolve).
func mcpClaims(port string) []IntakeClaim {
	at := func(host, path string) string { return "http://" + host + ":" + port + path }
	return []IntakeClaim{
		{Text: "The Fetch API reports the destination of an image request.", Citations: []IntakeCitation{{URL: at("hacks.test", "/002"), Quote: "if the request is from an <img>tag in the controlled document"}}},
		{Text: "The Bardo museum attack was condemned.", Citations: []IntakeCitation{{URL: at("news.test", "/wapo-1"), Quote: "condemned the attack and said"}}},
		{Text: "The museum attack was praised.", Citations: []IntakeCitation{{URL: at("news.test", "/wapo-1"), Quote: "praised the attack and said"}}},
		{Text: "The registry is down.", Citations: []IntakeCitation{{URL: "http://down.test:1/registry", Quote: "the registry counted 4,812 companies"}}},
		{Text: "A study found that 97% of readers agree.", Citations: []IntakeCitation{{URL: "http://fabricated-news.example/2025/study", Quote: "97% of readers agree"}}},
	}
}

func TestMCPHTTP(t *testing.T) {
	f, site := mcpFixture(t)
	if _, err := mcpClient(t, f, "evl_not-a-token", nil); err == nil {
		t.Fatal("a client without a valid token connected")
	}
	if status, body := f.send(t, "POST", "/mcp", "", "application/json", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); status != 401 || !strings.Contains(string(body), "Bearer") {
		t.Fatalf("no token: %d %s", status, body)
	}

	progress := make(chan float64, 64)
	cs, err := mcpClient(t, f, f.operator, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		select {
		case progress <- r.Params.Progress:
		default:
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	lt, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range lt.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	want := slices.Sorted(slices.Values(MCPTools))
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}

	params := &mcp.CallToolParams{Name: "check_claims", Arguments: map[string]any{"claims": mcpClaims(site.port)}}
	params.SetProgressToken(7)
	res, err := cs.CallTool(t.Context(), params)
	if err != nil || res.IsError {
		t.Fatalf("check_claims: %v %s", err, resultText(res))
	}
	var ans CheckAnswer
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &ans)
	statuses := []evidence.Status{evidence.StatusFound, evidence.StatusFound, evidence.StatusNotFound, evidence.StatusUnreachable, evidence.StatusNotFound}
	if !ans.Finished || len(ans.Claims) != len(statuses) {
		t.Fatalf("check_claims: %s", b)
	}
	for i, c := range ans.Claims {
		if ct := c.Citations[0]; ct.Status != statuses[i] || ct.Note == "" || ct.ResidualRisk == "" {
			t.Errorf("claim %q: %+v, want %s with a note and a residual risk", c.Text, ct, statuses[i])
		}
	}
	// Notifications are handled apart from the answer: they are waited for.
	for p := range progress {
		if p == 5 {
			break
		}
	}
	var rep ledger.HandOff
	if res := call(t, cs, "batch_report", map[string]any{"batch": ans.Batch}, &rep); res.IsError || len(rep.Usable) != 2 || len(rep.Withheld) != 3 {
		t.Fatalf("batch_report: %s", resultText(res))
	}
	var d gate.Decision
	if res := call(t, cs, "gate_text", map[string]any{"text": "The Fetch API reports the destination of an image request."}, &d); res.IsError || !d.Allow {
		t.Fatalf("gate_text: %s", resultText(res))
	}
	// With check, a cited claim the ledger does not hold is checked on the spot.
	text := "The Bardo attack was condemned by the president [1].\n\n[1]: http://news.test:" + site.port + "/wapo-1 \"condemned the attack and said\""
	if res := call(t, cs, "gate_text", map[string]any{"text": text, "check": true}, &d); res.IsError {
		t.Fatalf("gate_text with check: %s", resultText(res))
	}

	// The auditor reads everything and checks nothing.
	acs, err := mcpClient(t, f, f.auditor, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, head := f.head(t)
	if res := call(t, acs, "check_claims", map[string]any{"claims": mcpClaims(site.port)[:1]}, nil); !res.IsError || !strings.Contains(resultText(res), "arno is an auditor") {
		t.Fatalf("the auditor's check_claims: %s", resultText(res))
	}
	if res := call(t, acs, "gate_text", map[string]any{"text": text, "check": true}, nil); !res.IsError || !strings.Contains(resultText(res), "only operators") {
		t.Fatalf("the auditor's gate_text with check: %s", resultText(res))
	}
	var st CheckAnswer
	if res := call(t, acs, "claim_status", map[string]any{"batch": ans.Batch}, &st); res.IsError || len(st.Claims) != 5 {
		t.Fatalf("the auditor's claim_status: %s", resultText(res))
	}
	if res := call(t, acs, "batch_report", map[string]any{"batch": ans.Batch}, &rep); res.IsError {
		t.Fatalf("the auditor's batch_report: %s", resultText(res))
	}
	var as AuditStatus
	if res := call(t, acs, "audit_status", nil, &as); res.IsError || !as.Audit.OK || as.Audit.Events != n || as.Checkpoint.Size != n {
		t.Fatalf("audit_status: %s (events %d)", resultText(res), n)
	}
	if n2, head2 := f.head(t); n2 != n || head2 != head {
		t.Fatalf("the auditor's calls changed the chain: %d → %d events", n, n2)
	}
	// A session belongs to the user that opened it: another token may not use it.
	sid := acs.ID()
	req, _ := http.NewRequest("POST", f.srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+f.operator)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	if resp, err := f.srv.Client().Do(req); err != nil || resp.StatusCode < 400 {
		t.Fatalf("another user's token on the auditor's session: %v %v", resp.Status, err)
	}
}

// TestMCPMalformedInput shows that input of the wrong type, with unknown members, too large
// or otherwise refused gets a tool error naming the problem, and records nothing.
func TestMCPMalformedInput(t *testing.T) {
	f, site := mcpFixture(t)
	cs, err := mcpClient(t, f, f.operator, nil)
	if err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("Claim: a.\n", evidence.MaxPasteBytes/10+1)
	one := mcpClaims(site.port)[:1]
	tests := []struct {
		desc, tool string
		args       any
		words      string
	}{
		{"claims of the wrong type", "check_claims", map[string]any{"claims": "The sky is green."}, "claims"},
		{"a quote of the wrong type", "check_claims", map[string]any{"claims": []any{map[string]any{"text": "x", "citations": []any{map[string]any{"url": "http://a.test/", "quote": 7}}}}}, "quote"},
		{"an unknown member", "check_claims", map[string]any{"claims": one, "recheck": true}, "recheck"},
		{"an unknown member of a claim", "check_claims", map[string]any{"claims": []any{map[string]any{"text": "x", "citations": []any{}, "source": "y"}}}, "source"},
		{"both claims and text", "check_claims", map[string]any{"claims": one, "text": "Claim: x"}, "not both"},
		{"neither claims nor text", "check_claims", map[string]any{}, "not neither"},
		{"a text over the paste limit", "check_claims", map[string]any{"text": huge}, "more than the limit"},
		{"a wait past the bound", "check_claims", map[string]any{"claims": one, "wait_seconds": 600}, "wait_seconds 600"},
		{"a NUL in the research", "check_claims", map[string]any{"text": "Claim: a\x00b\nSource: http://a.test/\nQuote: a"}, "NUL"},
		{"research with nothing usable", "check_claims", map[string]any{"text": "hello"}, "claim"},
		{"a gate text of the wrong type", "gate_text", map[string]any{"text": 12}, "text"},
		{"a gate text over the limit", "gate_text", map[string]any{"text": huge}, "more than"},
		{"an unknown strength", "gate_text", map[string]any{"text": "x", "min_strength": "huge"}, "huge"},
		{"no batch", "batch_report", map[string]any{}, "batch"},
		{"an unknown batch", "batch_report", map[string]any{"batch": "b_0000000000000000"}, "does not exist"},
		{"claim and batch", "claim_status", map[string]any{"claim": "cl_1", "batch": "b_1"}, `either "claim" or "batch"`},
		{"an unknown claim", "claim_status", map[string]any{"claim": "cl_0000000000000000"}, "does not exist"},
		{"an unknown job", "claim_status", map[string]any{"batch": "b_0000000000000000", "job": "j_0000000000000000"}, "does not exist"},
		{"an audit with arguments", "audit_status", map[string]any{"full": true}, "full"},
	}
	n, head := f.head(t)
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			res := call(t, cs, tt.tool, tt.args, nil)
			t.Log(resultText(res))
			if !res.IsError || !strings.Contains(resultText(res), tt.words) {
				t.Fatalf("%s: error %v %q; want a tool error naming %q", tt.tool, res.IsError, resultText(res), tt.words)
			}
		})
	}
	if n2, head2 := f.head(t); n2 != n || head2 != head {
		t.Fatalf("refused calls changed the chain: %d → %d events", n, n2)
	}
	// An unknown tool is a protocol error, not a call.
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "resolve_seam", Arguments: map[string]any{"decision": "accept"}}); err == nil || !strings.Contains(err.Error(), "resolve_seam") {
		t.Fatalf("resolve_seam: %v", err)
	}
}

// TestMCPSurfaceDecidesNothing proves that the MCP tools cannot reach what a person decides:
// no tool's code calls a method of the store that resolves or opens a seam, classifies a
// source, adds a user or changes a decision, and after every tool has run the chain holds no
// event of those kinds.
func TestMCPSurfaceDecidesNothing(t *testing.T) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "mcp.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	forbidden := []string{"ResolveSeam", "OpenSeam", "ClassifySource", "AddUser", "AddUserWithPassword", "Decide", "Approve", "handleResolveSeam", "handleClassify", "handleOpenSeam"}
	ast.Inspect(file, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && slices.Contains(forbidden, sel.Sel.Name) {
			t.Errorf("%s: the MCP tools call %s", fset.Position(sel.Pos()), sel.Sel.Name)
		}
		return true
	})

	f, site := mcpFixture(t)
	cs, err := mcpClient(t, f, f.operator, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ans CheckAnswer
	call(t, cs, "check_claims", map[string]any{"claims": mcpClaims(site.port)}, &ans)
	call(t, cs, "claim_status", map[string]any{"batch": ans.Batch}, nil)
	call(t, cs, "batch_report", map[string]any{"batch": ans.Batch}, nil)
	call(t, cs, "gate_text", map[string]any{"text": "The museum attack was praised.", "check": true}, nil)
	call(t, cs, "audit_status", nil, nil)
	// What a check records, and nothing a person decides.
	allowed := []string{"batch.imported", "citation.checked", "seam.opened", "claim.invented"}
	var buf bytes.Buffer
	if err := f.store.Export(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	for i, line := range slices.Collect(strings.Lines(buf.String())) {
		var ev struct{ Type string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		if i >= 3 && !slices.Contains(allowed, ev.Type) { // key.created and the two users first
			t.Errorf("the tools recorded a %s event", ev.Type)
		}
	}
}

// TestMCPCancel shows that a check_claims call its client cancels stops the check it
// started: the held page is never read, the job ends failed saying why, and what the call
// imported stays.
func TestMCPCancel(t *testing.T) {
	f, site := mcpFixture(t)
	site.hold("wapo-1")
	progress := make(chan string, 64)
	cs, err := mcpClient(t, f, f.operator, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		select {
		case progress <- r.Params.Message:
		default:
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	params := &mcp.CallToolParams{Name: "check_claims", Arguments: map[string]any{"claims": mcpClaims(site.port)[1:2]}}
	params.SetProgressToken("c")
	called := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, params)
		called <- err
	}()
	// The first notification names the batch and the job, still at 0 of 1.
	m := regexp.MustCompile(`^batch (b_\S+), job (j_\S+): checked 0 of 1 citations$`).FindStringSubmatch(<-progress)
	if m == nil {
		t.Fatal("the first progress notification names no batch and job")
	}
	cancel()
	if err := <-called; err == nil {
		t.Fatal("the cancelled call answered")
	}
	var st CheckAnswer
	for st.Job == nil || !st.Finished {
		if res := call(t, cs, "claim_status", map[string]any{"batch": m[1], "job": m[2], "wait_seconds": 60}, &st); res.IsError {
			t.Fatalf("claim_status: %s", resultText(res))
		}
	}
	if st.Job.State != verify.JobFailed || !strings.Contains(st.Job.Error, "call that started it was cancelled") || st.Claims[0].Citations[0].Status != evidence.StatusReported {
		t.Fatalf("the cancelled check: %+v %+v", st.Job, st.Claims)
	}
}
