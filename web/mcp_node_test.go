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

// nodeClient installs the npm SDK's client (testdata/mcp-node, the versions of its
// package-lock.json) in a temporary directory and returns the directory. Node and npm must
// be installed (.ci/run installs them from Debian's packages); without them the test fails.
func nodeClient(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed; the second MCP client runs on Node (apt-get install nodejs npm): %v", tool, err)
		}
	}
	dir := t.TempDir()
	for _, name := range []string{"package.json", "package-lock.json", "client.mjs"} {
		b, err := os.ReadFile(filepath.Join("../testdata/mcp-node", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.CommandContext(t.Context(), "npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci: %v\n%s", err, out)
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
	cmd := exec.CommandContext(t.Context(), "node", append([]string{"client.mjs"}, args...)...)
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
	in := filepath.Join(dir, "input.json")
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
