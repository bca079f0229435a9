package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/web"
)

// TestMCPNodeStdio runs the built binary's `ledger mcp` under the npm SDK's stdio client
// (testdata/mcp-node/client.mjs), which starts it as an agent would: tools listed, a batch of
// saved pages on loopback checked (each structured answer validated by that SDK against the
// tool's output schema), the report read, a text gated. Node must be installed.
func TestMCPNodeStdio(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is not installed; the second MCP client runs on Node (apt-get install nodejs): %v", err)
	}
	dir := t.TempDir() // the input file; the client is testdata/mcp-node/client.bundle.mjs
	client, err := filepath.Abs("../../testdata/mcp-node/client.bundle.mjs")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "ledger")
	if out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build the binary: %v\n%s", err, out)
	}
	site := corpusPages(t)
	data := t.TempDir()
	op := strings.TrimSpace(ledgerCmd(t, data, "user", "add", "olga", "--role", "operator").stdout)
	input, _ := json.Marshal(map[string]any{"claims": mcpBatch(site), "report": true, "gate": "The Bardo museum attack was condemned."})
	in := filepath.Join(dir, "input.json")
	if err := os.WriteFile(in, input, 0o600); err != nil {
		t.Fatal(err)
	}
	node := exec.CommandContext(t.Context(), "node", client, "stdio", in, bin, "mcp", "--data", data, "--token", op, "--fetch-allow", "127.0.0.0/8", "--fetch-delay", "0")
	node.Dir = dir
	var stderr strings.Builder
	node.Stderr = &stderr
	out, err := node.Output()
	if err != nil {
		t.Fatalf("node client.mjs: %v\n%s", err, stderr.String())
	}
	var r struct {
		Tools []struct{ Name string }
		Calls map[string]struct {
			IsError    bool            `json:"isError"`
			Structured json.RawMessage `json:"structured"`
			Text       string
			Error      string
		}
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("node client.mjs printed %s: %v", out, err)
	}
	if len(r.Tools) != len(web.MCPTools) {
		t.Fatalf("tools %+v", r.Tools)
	}
	for _, label := range []string{"check", "report", "status", "gate", "audit"} {
		if c := r.Calls[label]; c.Error != "" || c.IsError {
			t.Fatalf("%s: %+v", label, c)
		}
	}
	var ans web.CheckAnswer
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
	if c := r.Calls["malformed"]; !c.IsError || !strings.Contains(c.Text, "claims") {
		t.Errorf("malformed call: %+v", c)
	}
	if r := ledgerCmd(t, data, "audit"); r.code != 0 {
		t.Errorf("audit after the session: %+v", r)
	}
}
