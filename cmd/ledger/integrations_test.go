package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// integrations is the folder of the agent plugin, extension and configuration files.
const integrations = "../../integrations"

// readJSON decodes a JSON file of integrations/ strictly: one value, nothing after it.
func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(integrations, name))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil || dec.More() {
		t.Fatalf("%s does not parse as one JSON value: %v", name, err)
	}
}

// mcpServer is an MCP server entry of a configuration file.
type mcpServer struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	EnvVars []string          `json:"env_vars"`
}

// hookSet is the "hooks" object of Claude Code, Gemini CLI and (as TOML) Codex CLI.
type hookSet map[string][]struct {
	Matcher string `json:"matcher"`
	Hooks   []struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	} `json:"hooks"`
}

// checkServer requires an entry that starts `ledger mcp` with the ledger's data and token
// from the environment, and a subcommand mcp in this binary.
func checkServer(t *testing.T, file string, s mcpServer) {
	t.Helper()
	if s.Command != "ledger" || !slices.Equal(s.Args, []string{"mcp"}) {
		t.Errorf("%s: the MCP server is %q %q, want ledger mcp", file, s.Command, s.Args)
	}
	for _, v := range []string{"LEDGER_DATA", "LEDGER_TOKEN"} {
		if !strings.Contains(s.Env[v], v) && !slices.Contains(s.EnvVars, v) {
			t.Errorf("%s: %s is not passed on from the environment", file, v)
		}
	}
	if !slices.ContainsFunc(commands, func(c command) bool { return c.name == "mcp" }) {
		t.Error("the binary has no mcp command")
	}
}

// checkHooks runs each hook's command line as the binary would on recorded inputs of the
// agent: the write of code is allowed (exit 0), the write to memory of a claim the ledger
// does not hold is blocked (exit 2, with the reason on stderr).
func checkHooks(t *testing.T, file string, hooks hookSet, event, agent, allowed, blocked string) {
	t.Helper()
	groups := hooks[event]
	if len(groups) != 1 || len(groups[0].Hooks) != 1 || groups[0].Hooks[0].Type != "command" {
		t.Fatalf("%s: %s hooks %+v, want one command", file, event, hooks)
	}
	if len(hooks) != 1 {
		t.Errorf("%s: hooks for %d events, want %s only", file, len(hooks), event)
	}
	args := strings.Fields(groups[0].Hooks[0].Command)
	if len(args) < 3 || args[0] != "ledger" || args[1] != "gate" || !slices.Contains(args, "--hook") {
		t.Fatalf("%s: the hook runs %q, want ledger gate --hook", file, args)
	}
	data := t.TempDir()
	ledgerCmd(t, data, "user", "add", "olga", "--role", "operator")
	for _, c := range []struct {
		input string
		code  int
	}{{allowed, 0}, {blocked, 2}} {
		in, err := os.ReadFile(filepath.Join("../../testdata/hooks", agent, c.input))
		if err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		e := &env{stdin: bytes.NewReader(in), stdout: &out, stderr: &errOut, getenv: func(k string) string {
			if k == "LEDGER_DATA" {
				return data
			}
			return ""
		}}
		if code := run(context.Background(), args[1:], e); code != c.code || (c.code == 2 && errOut.Len() == 0) {
			t.Errorf("%s: %s on %s: exit %d (stderr %q), want %d", file, groups[0].Hooks[0].Command, c.input, code, errOut.String(), c.code)
		}
	}
	// The matcher names the agent's tools that write.
	re, err := regexp.Compile("^(" + groups[0].Matcher + ")$")
	if err != nil {
		t.Fatalf("%s: matcher %q: %v", file, groups[0].Matcher, err)
	}
	var hook struct {
		ToolName string `json:"tool_name"`
	}
	b, _ := os.ReadFile(filepath.Join("../../testdata/hooks", agent, blocked))
	json.Unmarshal(b, &hook)
	if !re.MatchString(hook.ToolName) {
		t.Errorf("%s: matcher %q does not match %s, the tool of %s", file, groups[0].Matcher, hook.ToolName, blocked)
	}
}

func TestIntegrationsClaudeCode(t *testing.T) {
	var market struct {
		Name    string
		Plugins []struct{ Name, Source string }
	}
	readJSON(t, ".claude-plugin/marketplace.json", &market)
	if len(market.Plugins) != 1 || market.Plugins[0].Source != "./claude-code" {
		t.Fatalf("marketplace: %+v", market)
	}
	var plugin struct{ Name, Version, Description string }
	readJSON(t, "claude-code/.claude-plugin/plugin.json", &plugin)
	if plugin.Name != market.Plugins[0].Name || plugin.Version == "" || plugin.Description == "" {
		t.Errorf("plugin.json %+v", plugin)
	}
	var mcpFile struct{ MCPServers map[string]mcpServer }
	readJSON(t, "claude-code/.mcp.json", &mcpFile)
	if len(mcpFile.MCPServers) != 1 {
		t.Fatalf(".mcp.json: %+v", mcpFile)
	}
	checkServer(t, ".mcp.json", mcpFile.MCPServers["evidence-ledger"])
	var hooks struct{ Hooks hookSet }
	readJSON(t, "claude-code/hooks/hooks.json", &hooks)
	checkHooks(t, "claude-code/hooks/hooks.json", hooks.Hooks, "PreToolUse", "claude", "write-code.json", "write-memory-unverified.json")

	name, desc := skillFrontMatter(t)
	if name != "verify-claims" {
		t.Errorf("the skill is named %q", name)
	}
	for _, want := range []string{"verify these claims", "sources are real", "double-check before writing something to memory", "publish", "citations are real", "Do not use for an editorial second opinion", "choosing or comparing models", "grounding an answer in documents while reading", "summarising"} {
		if !strings.Contains(desc, want) {
			t.Errorf("the skill's description lacks %q", want)
		}
	}
}

// skillFrontMatter reads the name and description of SKILL.md's front matter: exactly those
// two keys, one line each, the description at most 1024 characters.
func skillFrontMatter(t *testing.T) (name, desc string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(integrations, "claude-code/skills/verify-claims/SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\A---\n((?:[a-z]+: .+\n)+)---\n`).FindSubmatch(b)
	if m == nil {
		t.Fatal("SKILL.md has no front matter of key: value lines")
	}
	keys := map[string]string{}
	for line := range strings.Lines(string(m[1])) {
		k, v, _ := strings.Cut(strings.TrimSuffix(line, "\n"), ": ")
		keys[k] = v
	}
	if len(keys) != 2 || keys["name"] == "" || keys["description"] == "" {
		t.Fatalf("front matter %v, want name and description", keys)
	}
	if n := len([]rune(keys["description"])); n > 1024 {
		t.Errorf("the description has %d characters, more than 1024", n)
	}
	return keys["name"], keys["description"]
}

func TestIntegrationsGemini(t *testing.T) {
	var ext struct {
		Name, Version, ContextFileName string
		MCPServers                     map[string]mcpServer
	}
	readJSON(t, "gemini-cli/evidence-ledger/gemini-extension.json", &ext)
	if ext.Name != "evidence-ledger" || ext.Version == "" || len(ext.MCPServers) != 1 {
		t.Fatalf("gemini-extension.json: %+v", ext)
	}
	if _, err := os.Stat(filepath.Join(integrations, "gemini-cli/evidence-ledger", ext.ContextFileName)); err != nil {
		t.Errorf("context file: %v", err)
	}
	checkServer(t, "gemini-extension.json", ext.MCPServers["evidence-ledger"])
	var hooks struct{ Hooks hookSet }
	readJSON(t, "gemini-cli/evidence-ledger/hooks/hooks.json", &hooks)
	checkHooks(t, "gemini-cli hooks.json", hooks.Hooks, "BeforeTool", "gemini", "read-file.json", "save-memory-fact.json")
}

// TestIntegrationsCodex reads the Codex CLI configuration with Python's TOML reader
// (tomllib), python3 being needed by the tests already.
func TestIntegrationsCodex(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "python3", "-c", "import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], 'rb'))))", filepath.Join(integrations, "codex/config.toml")).Output()
	if err != nil {
		t.Fatalf("python3 tomllib: %v", err)
	}
	var cfg struct {
		MCPServers map[string]mcpServer `json:"mcp_servers"`
		Hooks      hookSet
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.MCPServers) != 1 {
		t.Fatalf("config.toml: %s", out)
	}
	checkServer(t, "codex/config.toml", cfg.MCPServers["evidence-ledger"])
	checkHooks(t, "codex/config.toml", cfg.Hooks, "PreToolUse", "codex", "apply-patch-code.json", "apply-patch-agents-facts.json")
}
