package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// gateData is a data directory whose ledger holds one claim found at its source (through a
// manual seam a person resolved) and one only reported.
func gateData(t testing.TB) string {
	t.Helper()
	data := t.TempDir()
	ctx := context.Background()
	st, err := ledger.Open(ctx, data, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	paste := []byte(`{"claims":[{"text":"Acme was founded in 1999.","citations":[{"url":"https://acme.example/about","quote":"Acme was founded in 1999 in Leeds"}]},
 {"text":"Acme employs 40 people.","citations":[{"url":"https://acme.example/staff","quote":"Acme employs 40 people"}]}]}`)
	_, res, err := evidence.ReadRequest(paste)
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.ImportResearch(ctx, "system", paste, res)
	if err != nil || len(b.Claims) != 2 {
		t.Fatalf("import: %+v %v", b, err)
	}
	seam, err := st.OpenSeam(ctx, "user:olga", ledger.SeamRequest{Kind: evidence.SeamManual, Summary: "read by hand", Citations: []string{b.Claims[0].Citations[0].ID}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ResolveSeam(ctx, "user:olga", seam.ID, "found_at_source", "the quote is on the page"); err != nil {
		t.Fatal(err)
	}
	return data
}

// gateRun runs ledger gate with stdin and the data directory data.
func gateRun(t *testing.T, data, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, getenv: func(k string) string {
		if k == "LEDGER_DATA" {
			return data
		}
		return ""
	}}
	code := run(context.Background(), append([]string{"gate"}, args...), e)
	return result{code, out.String(), errOut.String()}
}

func TestGateCommand(t *testing.T) {
	data := gateData(t)
	dir := t.TempDir()
	allowed := filepath.Join(dir, "allowed.md")
	blocked := filepath.Join(dir, "blocked.md")
	os.WriteFile(allowed, []byte("# Acme\n\n- Use tabs.\n- Acme was founded in 1999.\n"), 0o600)
	os.WriteFile(blocked, []byte("Acme was founded in 1999.\nAcme employs 40 people.\n"), 0o600)
	hook := func(tool, path, field, text string) string {
		return `{"hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_input":{"file_path":"` + path + `","` + field + `":"` + text + `"}}`
	}
	tests := []struct {
		desc         string
		args         []string
		stdin        string
		code         int
		stdout, errs string
	}{
		{"file allowed", []string{allowed}, "", 0, `{"allow":true`, ""},
		{"file blocked: the reported claim", []string{blocked}, "", 2, `{"allow":false`, `"Acme employs 40 people.": ledger claim c_`},
		{"stdin allowed", []string{"-"}, "Acme was founded in 1999.", 0, `"matched":["c_`, ""},
		{"stdin without argument, no source", nil, "Acme was sold in 2021.", 2, `"allow":false`, "no source of record"},
		{"what to do next is said", nil, "Acme was sold in 2021.", 2, "", "Next: cite the page it comes from: add the URL and an exact quote"},
		{"ordinary memory notes pass", nil, "- The user prefers tabs over spaces.\n- Run go test ./... before committing.\n- Remember to ask before deleting files.\n", 0, `"not_gated":[{"text":"The user prefers tabs over spaces.","kind":"preference"`, ""},
		{"min strength above the claim's", []string{"--min-strength", "medium", allowed}, "", 2, `"allow":false`, "below the minimum medium"},
		{"empty text is allowed with a note", []string{"-"}, "", 0, `"note":"the text states nothing`, ""},
		{"text that cannot be read is blocked", []string{"-"}, `{"claims": [`, 2, `"allow":false`, "the text cannot be read"},
		{"missing file", []string{filepath.Join(dir, "nope.md")}, "", 1, "", "no such file"},
		{"not text", []string{"-"}, "\x00\x01", 1, "", "not text"},
		{"bad strength", []string{"--min-strength", "strong", "-"}, "", 2, "", "want low, medium or high"},
		{"bad timeout", []string{"--check", "--timeout", "0s", "-"}, "", 2, "", "--timeout 0s: want more than 0"},
		{"bad hook output", []string{"--hook", "--hook-output", "xml"}, "", 2, "", "want exit or json"},
		{"two files", []string{allowed, blocked}, "", 2, "", "want: ledger gate"},
		{"hook: memory file blocked", []string{"--hook"}, hook("Write", "/p/MEMORY.md", "content", "Acme was sold in 2021."), 2, "", "blocked: \"Acme was sold in 2021.\": no source of record"},
		{"hook: AGENTS.md blocked", []string{"--hook"}, hook("Write", "/x/AGENTS.md", "content", "Acme employs 40 people."), 2, "", "blocked: \"Acme employs 40 people.\": ledger claim c_"},
		{"hook: CLAUDE.md edit blocked", []string{"--hook"}, `{"tool_name":"Edit","tool_input":{"file_path":"C:\\\\x\\\\CLAUDE.md","old_string":"","new_string":"Acme was sold in 2021."}}`, 2, "", "no source of record"},
		{"hook: memory file allowed", []string{"--hook"}, hook("Write", "/p/memory/acme.md", "content", "Acme was founded in 1999."), 0, "", ""},
		{"hook: multi-edit, one edit unverified", []string{"--hook"},
			`{"tool_name":"MultiEdit","tool_input":{"file_path":"a.memory.md","edits":[{"old_string":"","new_string":"Acme was founded in 1999."},{"old_string":"","new_string":"Acme employs 40 people."}]}}`, 2, "", "Acme employs 40 people."},
		{"hook: other file allowed", []string{"--hook"}, hook("Write", "/p/main.go", "content", "Acme was sold in 2021."), 0, "", ""},
		{"hook: own patterns", []string{"--hook", "--memory-files", "**/*.go"}, hook("Write", "/p/main.go", "content", "Acme was sold in 2021."), 2, "", "no source of record"},
		{"hook: malformed JSON blocks", []string{"--hook"}, `{"tool_input":`, 2, "", "not one JSON object"},
		{"hook: a write with no path blocks", []string{"--hook"}, `{"tool_name":"Write","tool_input":{"content":"x"}}`, 2, "", "has no file_path"},
		{"hook: a file argument is refused", []string{"--hook", allowed}, "", 2, "", "want: ledger gate"},
		{"hook json: a block is a deny decision on stdout, exit 0", []string{"--hook", "--hook-output", "json"}, hook("Write", "/p/MEMORY.md", "content", "Acme was sold in 2021."), 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"ledger gate: blocked: \"Acme was sold in 2021.\": no source of record`, ""},
		{"hook json: an input that cannot be read blocks with exit 2, whatever the agent", []string{"--hook", "--hook-output", "json"}, `null`, 2, "", "not a JSON object"},
		{"hook json: allowed prints nothing", []string{"--hook", "--hook-output", "json"}, hook("Write", "/p/MEMORY.md", "content", "Acme was founded in 1999."), 0, "", ""},
		{"hook json: Gemini's deny form", []string{"--hook", "--hook-output", "json"}, `{"hook_event_name":"BeforeTool","tool_name":"save_memory","tool_input":{"fact":"Acme was sold in 2021."}}`, 0, `{"decision":"deny","reason":"ledger gate: blocked: \"Acme was sold in 2021.\"`, ""},
		{"hook json: Gemini's allow form", []string{"--hook", "--hook-output", "json"}, `{"hook_event_name":"BeforeTool","tool_name":"save_memory","tool_input":{"fact":"The user prefers metric units."}}`, 0, `{"decision":"allow"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			r := gateRun(t, data, tt.stdin, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stdout, tt.stdout) || !strings.Contains(r.stderr, tt.errs) {
				t.Fatalf("code %d, stdout %q, stderr %q; want %d, %q, %q", r.code, r.stdout, r.stderr, tt.code, tt.stdout, tt.errs)
			}
			if slices.Contains(tt.args, "--hook") && !slices.Contains(tt.args, "json") && r.stdout != "" {
				t.Fatalf("hook mode wrote to stdout: %q", r.stdout)
			}
			if r.code == 0 && r.stderr != "" {
				t.Fatalf("allowed with stderr %q", r.stderr)
			}
		})
	}
}

// TestGateHookRecorded runs every recorded hook input under testdata/hooks through
// `ledger gate --hook`: each is allowed or blocked as the table says, and every malformed
// one blocks.
func TestGateHookRecorded(t *testing.T) {
	data := gateData(t)
	allowed := map[string]bool{
		"claude/write-memory-instructions.json": true, "claude/write-code.json": true, "claude/bash.json": true, "claude/read-memory.json": true,
		"codex/apply-patch-agents-instructions.json": true, "codex/apply-patch-code.json": true,
		"gemini/save-memory-preference.json": true, "gemini/read-file.json": true,
		"codex/bash-tests.json": true, "gemini/run-shell-command-ls.json": true,
	}
	why := map[string]string{
		"codex/apply-patch-no-end.json":      "the patch cannot be read",
		"malformed/unknown-tool-memory.json": "the tool str_replace_based_edit_tool, which the gate does not know, names a memory file",
		"malformed/write-extra-member.json":  "members the gate does not know (append)",
		"malformed/duplicate-keys.json":      "appears twice",
	}
	files, _ := filepath.Glob("../../testdata/hooks/*/*.json")
	if len(files) < 30 {
		t.Fatalf("found %d recorded hook inputs", len(files))
	}
	for _, file := range files {
		name := filepath.ToSlash(strings.TrimPrefix(file, "../../testdata/hooks/"))
		if strings.HasPrefix(name, "repro/") {
			continue // TestGateHookReproductions lays them out on disk
		}
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			r := gateRun(t, data, string(in), "--hook")
			want, reason := 2, why[name]
			if allowed[name] {
				want = 0
			} else if reason == "" && !strings.HasPrefix(name, "malformed/") {
				reason = "no source of record"
			}
			if r.code != want || !strings.Contains(r.stderr, reason) || r.stdout != "" {
				t.Fatalf("code %d, stderr %q; want %d with %q", r.code, r.stderr, want, reason)
			}
		})
	}
}

// TestGateModes gates one memory file that mixes instructions with a verified claim, an
// unverified one, a mixed one (a found citation beside a fabricated one) and a sourceless
// one, through every mode: a file, stdin, --check, and the hooks of each agent.
func TestGateModes(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, ok := map[string]string{
			"/about":   "<p>Acme was founded in 1999 in Leeds by two engineers.</p>",
			"/history": "<p>Acme has always been based in Leeds.</p>",
			"/team":    "<p>Acme's founders, Ann Lee and Raj Patel, met at Leeds University.</p>",
		}[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	defer site.Close()
	data := t.TempDir()
	research := filepath.Join(t.TempDir(), "research.json")
	os.WriteFile(research, []byte(fmt.Sprintf(`{"claims":[
 {"text":"Acme was founded in 1999.","citations":[{"url":"%[1]s/about","quote":"Acme was founded in 1999 in Leeds"}]},
 {"text":"Acme moved to York in 2010.","citations":[{"url":"%[1]s/history","quote":"Acme moved its offices to York in 2010"}]},
 {"text":"Acme was founded by two engineers.","citations":[{"url":"%[1]s/about","quote":"in Leeds by two engineers"},{"url":"%[1]s/history","quote":"Acme was founded by two engineers in York"}]}]}`, site.URL)), 0o600)
	r := ledgerCmd(t, data, "import", research)
	if r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	fetch := []string{"--fetch-allow", "127.0.0.0/8", "--fetch-delay", "0"}
	if r = ledgerCmd(t, data, append([]string{"check", "--batch", strings.SplitN(r.stdout, "\n", 2)[0]}, fetch...)...); r.code != 0 {
		t.Fatalf("check: %+v", r)
	}
	mixed := "# MEMORY.md\n\n## Conventions\n- Run `go test ./...` before committing.\n- The user prefers tabs over spaces.\n\n## Facts\n" +
		"- Acme was founded in 1999.\n- Acme moved to York in 2010.\n- Acme was founded by two engineers.\n- Acme has 12 shops.\n"
	clean := "# MEMORY.md\n\n- Run `go test ./...` before committing.\n- Acme was founded in 1999.\n"
	file := filepath.Join(t.TempDir(), "MEMORY.md")
	os.WriteFile(file, []byte(mixed), 0o600)
	js := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	modes := []struct {
		name  string
		args  []string
		stdin func(text string) string
	}{
		{"file", []string{file}, nil},
		{"stdin", []string{"-"}, func(s string) string { return s }},
		{"stdin --check", append([]string{"--check", "-"}, fetch...), func(s string) string { return s }},
		{"claude write", []string{"--hook"}, func(s string) string {
			return `{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/p/MEMORY.md","content":` + js(s) + `}}`
		}},
		{"claude json", []string{"--hook", "--hook-output", "json"}, func(s string) string {
			return `{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/p/CLAUDE.md","content":` + js(s) + `}}`
		}},
		{"codex apply_patch", []string{"--hook"}, func(s string) string {
			patch := "*** Begin Patch\n*** Add File: AGENTS.md\n+" + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n+") + "\n*** End Patch\n"
			return `{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":` + js(patch) + `}}`
		}},
		{"gemini save_memory", []string{"--hook"}, func(s string) string {
			return `{"hook_event_name":"BeforeTool","tool_name":"save_memory","tool_input":{"fact":` + js(s) + `}}`
		}},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			for _, text := range []string{mixed, clean} {
				if m.stdin == nil && text == clean {
					continue
				}
				in := ""
				if m.stdin != nil {
					in = m.stdin(text)
				}
				r := gateRun(t, data, in, m.args...)
				out := r.stdout + r.stderr
				if text == clean {
					if r.code != 0 || strings.Contains(out, "deny") || r.stderr != "" {
						t.Fatalf("instructions and a verified claim: %+v; want allowed", r)
					}
					continue
				}
				want := 2
				if slices.Contains(m.args, "json") {
					want = 0
				}
				if r.code != want {
					t.Fatalf("code %d; want %d: %+v", r.code, want, r)
				}
				for _, s := range []string{
					`Acme moved to York in 2010.\": ledger claim c_`, "it is not_found, not found_at_source",
					`Acme was founded by two engineers.\": ledger claim c_`, "a fabricated citation beside a found one is a fabrication",
					`Acme has 12 shops.\": no source of record`, "Next: cite the page it comes from",
				} {
					s = strings.ReplaceAll(s, `\"`, `"`)
					if slices.Contains(m.args, "json") {
						s = strings.ReplaceAll(s, `"`, `\"`)
					}
					if !strings.Contains(out, s) {
						t.Errorf("%q is not in the answer: %s", s, out)
					}
				}
				for _, s := range []string{`"Acme was founded in 1999.": `, `"Run go test`, `"The user prefers`} {
					if strings.Contains(strings.ReplaceAll(out, `\"`, `"`), "blocked: "+s) {
						t.Errorf("%s is blocked: %s", s, out)
					}
				}
			}
		})
	}
}

func TestGateWithoutLedgerBlocks(t *testing.T) {
	empty := t.TempDir()
	for _, args := range [][]string{{"gate", "--data", empty, "-"}, {"gate", "--hook", "--data", empty}} {
		var out, errOut bytes.Buffer
		in := `{"tool_name":"Write","tool_input":{"file_path":"MEMORY.md","content":"Acme was founded in 1999."}}`
		if args[1] != "--hook" {
			in = "Acme was founded in 1999."
		}
		e := &env{stdin: strings.NewReader(in), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
		if code := run(context.Background(), args, e); code != 2 || !strings.Contains(errOut.String(), "no ledger in") {
			t.Fatalf("%v: code %d, stderr %q; want 2 and no ledger", args, code, errOut.String())
		}
		if _, err := os.Stat(filepath.Join(empty, "ledger.db")); err == nil {
			t.Fatalf("%v created a ledger", args)
		}
	}
}

// TestGateHookEditInContext: an edit is gated in the whole lines it changes, read from the
// file in the hook's cwd, so a changed figure is gated in its sentence.
func TestGateHookEditInContext(t *testing.T) {
	data := gateData(t)
	cwd := t.TempDir()
	os.WriteFile(filepath.Join(cwd, "MEMORY.md"), []byte("# Memory\n\n- Acme was founded in 1999.\n- Use tabs.\n"), 0o600)
	edit := func(old, new string) string {
		return `{"hook_event_name":"PreToolUse","cwd":"` + cwd + `","tool_name":"Edit","tool_input":{"file_path":"MEMORY.md","old_string":"` + old + `","new_string":"` + new + `"}}`
	}
	for _, tt := range []struct {
		old, new string
		code     int
		errs     string
	}{
		{"1999", "2005", 2, `blocked: "Acme was founded in 2005.": no source of record`},
		{"tabs", "spaces", 0, ""},
		{"1999", "1999", 0, ""},
	} {
		r := gateRun(t, data, edit(tt.old, tt.new), "--hook")
		if r.code != tt.code || !strings.Contains(r.stderr, tt.errs) {
			t.Errorf("edit %q to %q: %+v; want %d with %q", tt.old, tt.new, r, tt.code, tt.errs)
		}
	}
}
