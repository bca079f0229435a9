package web

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"evidenceledger/evidence"
)

// nodeClient returns the directory of the npm SDK's client, testdata/mcp-node: client.mjs
// bundled with @modelcontextprotocol/sdk (the versions of its package-lock.json) into
// client.bundle.mjs by scripts/mcp-node-bundle, so that it runs with Node alone, no npm and
// no network. Node must be installed (.ci/run installs it from Debian's packages); without
// it the test fails.
func nodeClient(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is not installed; the second MCP client runs on Node (apt-get install nodejs): %v", err)
	}
	dir, err := filepath.Abs("../testdata/mcp-node")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// nodeRun is what client.mjs prints.
type nodeRun struct {
	Server struct{ Name, Version string }
	Tools  []struct {
		Name          string
		Input, Output map[string]any
	}
	Progress []float64
	Calls    map[string]struct {
		IsError    bool            `json:"isError"`
		Structured json.RawMessage `json:"structured"`
		Text       string
		Error      string
	}
}

// runNode runs client.mjs with args and decodes what it prints.
func runNode(t *testing.T, dir string, args ...string) nodeRun {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "node", append([]string{"client.bundle.mjs"}, args...)...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client.mjs: %v\n%s", err, stderr.String())
	}
	var r nodeRun
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("node client.mjs printed %s: %v", out, err)
	}
	return r
}

// TestMCPNodeClient drives /mcp with the npm SDK's client: it lists the tools, checks a
// batch (the SDK validates every structured answer against the tool's output schema), reads
// the report, gates a text; its malformed call and its call of a tool that does not exist
// are refused.
func TestMCPNodeClient(t *testing.T) {
	dir := nodeClient(t)
	f, site := mcpFixture(t)
	input, _ := json.Marshal(map[string]any{"claims": mcpClaims(site.port), "report": true, "gate": "The Bardo museum attack was condemned."})
	in := filepath.Join(t.TempDir(), "input.json")
	if err := os.WriteFile(in, input, 0o600); err != nil {
		t.Fatal(err)
	}
	r := runNode(t, dir, "http", f.srv.URL+"/mcp", f.operator, in)
	if r.Server.Name != "evidence-ledger" {
		t.Errorf("server %+v", r.Server)
	}
	var names []string
	for _, tool := range r.Tools {
		names = append(names, tool.Name)
		if tool.Input["type"] != "object" || tool.Output["type"] != "object" {
			t.Errorf("tool %s: schemas %v %v", tool.Name, tool.Input, tool.Output)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, slices.Sorted(slices.Values(MCPTools))) {
		t.Fatalf("tools %v", names)
	}
	for _, label := range []string{"check", "report", "status", "gate", "audit"} {
		if c := r.Calls[label]; c.Error != "" || c.IsError || len(c.Structured) == 0 {
			t.Fatalf("%s: %+v", label, c)
		}
	}
	var ans CheckAnswer
	json.Unmarshal(r.Calls["check"].Structured, &ans)
	want := []evidence.Status{evidence.StatusFound, evidence.StatusFound, evidence.StatusNotFound, evidence.StatusUnreachable, evidence.StatusNotFound}
	if len(ans.Claims) != len(want) {
		t.Fatalf("check: %s", r.Calls["check"].Structured)
	}
	for i, c := range ans.Claims {
		if c.Citations[0].Status != want[i] {
			t.Errorf("claim %q: %s, want %s", c.Text, c.Citations[0].Status, want[i])
		}
	}
	if len(r.Progress) == 0 || r.Progress[len(r.Progress)-1] != 5 {
		t.Errorf("progress %v", r.Progress)
	}
	var gate struct{ Allow bool }
	if json.Unmarshal(r.Calls["gate"].Structured, &gate); !gate.Allow {
		t.Errorf("gate: %s", r.Calls["gate"].Structured)
	}
	if c := r.Calls["malformed"]; !c.IsError || !strings.Contains(c.Text, "claims") {
		t.Errorf("malformed call: %+v", c)
	}
	if c := r.Calls["unknown"]; c.Error == "" || !strings.Contains(c.Error, "resolve_seam") {
		t.Errorf("unknown tool: %+v", c)
	}
}
