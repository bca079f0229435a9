package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// installSnippet is a file of testdata/gate/install: an agent's hook settings for the gate
// and what they were written against.
type installSnippet struct {
	Agent          string   `json:"agent"`
	Version        string   `json:"version"`
	File           string   `json:"file"`
	Event          string   `json:"event"`
	TimeoutUnit    string   `json:"timeout_unit"`
	DefaultTimeout *float64 `json:"default_timeout"`
	Recorded       string   `json:"recorded"`
	Routed         []string `json:"routed"`
	Settings       struct {
		Hooks map[string][]map[string]json.RawMessage `json:"hooks"`
	} `json:"settings"`
}

// agentTools are, per agent, the tools that write files (all must be routed) and read-only
// tools (none may be), as each agent's documentation names them.
var agentTools = map[string]struct{ write, read []string }{
	"Claude Code": {[]string{"Write", "Edit", "MultiEdit", "NotebookEdit", "Bash"}, []string{"Read", "Grep", "Glob", "LS", "WebFetch", "TodoWrite", "Task"}},
	"Codex CLI":   {[]string{"apply_patch", "Bash"}, []string{"read_file", "list_dir", "grep_files", "view_image"}},
	"Gemini CLI":  {[]string{"write_file", "replace", "save_memory", "run_shell_command"}, []string{"read_file", "read_many_files", "glob", "search_file_content", "list_directory", "google_web_search", "web_fetch"}},
}

// TestInstallSnippets checks the install snippets of docs/gate.md against the agents'
// documented hook schemas and tool names, and runs each routed tool's recorded inputs
// through the snippet's command.
func TestInstallSnippets(t *testing.T) {
	doc, err := os.ReadFile("../../docs/gate.md")
	if err != nil {
		t.Fatal(err)
	}
	var docBlocks []any
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllSubmatch(doc, -1) {
		var v any
		if json.Unmarshal(m[1], &v) == nil {
			docBlocks = append(docBlocks, v)
		}
	}
	data := gateData(t)
	files, _ := filepath.Glob("../../testdata/gate/install/*.json")
	if len(files) != 3 {
		t.Fatalf("%d install snippets; want one per agent", len(files))
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var sn installSnippet
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&sn); err != nil {
				t.Fatal(err)
			}
			var whole struct {
				Settings json.RawMessage `json:"settings"`
			}
			json.Unmarshal(b, &whole)
			var settings any
			json.Unmarshal(whole.Settings, &settings)
			if !slices.ContainsFunc(docBlocks, func(v any) bool { return reflect.DeepEqual(v, settings) }) {
				t.Fatalf("docs/gate.md has no block equal to the settings of %s", file)
			}
			tools, ok := agentTools[sn.Agent]
			if !ok || sn.Version == "" || sn.File == "" {
				t.Fatalf("agent %q, version %q, file %q: want a known agent, its version and the settings file", sn.Agent, sn.Version, sn.File)
			}
			if !slices.Equal(sn.Routed, tools.write) {
				t.Fatalf("routes %q; want every tool that writes: %q", sn.Routed, tools.write)
			}
			if len(sn.Settings.Hooks) != 1 || len(sn.Settings.Hooks[sn.Event]) != 1 {
				t.Fatalf("hooks %v; want one group under %s", sn.Settings.Hooks, sn.Event)
			}
			group := sn.Settings.Hooks[sn.Event][0]
			for k := range group {
				if k != "matcher" && k != "hooks" && !(sn.Agent == "Gemini CLI" && k == "sequential") {
					t.Fatalf("the group has %q, which the %s schema does not", k, sn.Agent)
				}
			}
			var matcher string
			if err := json.Unmarshal(group["matcher"], &matcher); err != nil {
				t.Fatal(err)
			}
			re, err := regexp.Compile(matcher)
			if err != nil {
				t.Fatalf("the matcher is not a regular expression: %v", err)
			}
			for _, tool := range tools.write {
				if loc := re.FindStringIndex(tool); loc == nil || loc[0] != 0 || loc[1] != len(tool) {
					t.Errorf("the matcher %q does not match %s whole", matcher, tool)
				}
			}
			for _, tool := range tools.read {
				if re.MatchString(tool) {
					t.Errorf("the matcher %q matches the read-only %s", matcher, tool)
				}
			}
			var hooks []map[string]json.RawMessage
			if err := json.Unmarshal(group["hooks"], &hooks); err != nil || len(hooks) != 1 {
				t.Fatalf("hooks %s: %v", group["hooks"], err)
			}
			h := hooks[0]
			for k := range h {
				if !slices.Contains([]string{"type", "command", "timeout", "name", "description"}, k) {
					t.Fatalf("the hook has %q, which the %s schema does not", k, sn.Agent)
				}
			}
			var typ, command string
			var timeout float64
			json.Unmarshal(h["type"], &typ)
			json.Unmarshal(h["command"], &command)
			if err := json.Unmarshal(h["timeout"], &timeout); err != nil || typ != "command" {
				t.Fatalf("type %q, timeout %s: want a command with a timeout", typ, h["timeout"])
			}
			// In the agent's unit, above the gate's bounded work (about 20 s at worst on a
			// loaded machine) and at most 10 minutes.
			scale := map[string]float64{"seconds": 1, "milliseconds": 1000}[sn.TimeoutUnit]
			if scale == 0 || timeout < 30*scale || timeout > 600*scale {
				t.Fatalf("timeout %v %s: want 30 to 600 seconds in the agent's unit", timeout, sn.TimeoutUnit)
			}
			words := strings.Fields(command)
			i := slices.Index(words, "ledger")
			if i < 0 || !slices.Contains(words[i:], "--hook") {
				t.Fatalf("command %q: want ledger gate --hook", command)
			}
			args := words[i+2:]
			for _, tool := range sn.Routed {
				inputs := recordedInputs(t, sn.Recorded, tool)
				if len(inputs) == 0 {
					t.Fatalf("no recorded %s input of %s in testdata/hooks/%s", sn.Agent, tool, sn.Recorded)
				}
				for name, in := range inputs {
					r := gateRun(t, data, in, args...)
					if (r.code != 0 && r.code != 2) || (r.code == 2) != strings.Contains(r.stderr, "ledger gate: blocked") {
						t.Errorf("%s through %q: %+v; want a decision", name, command, r)
					}
				}
			}
		})
	}
}

// recordedInputs are the recorded hook inputs of testdata/hooks/dir whose tool_name is tool.
func recordedInputs(t *testing.T, dir, tool string) map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("../../testdata/hooks", dir, "*.json"))
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var in struct {
			ToolName string `json:"tool_name"`
		}
		if json.Unmarshal(b, &in) == nil && in.ToolName == tool {
			out[filepath.Base(f)] = string(b)
		}
	}
	return out
}
