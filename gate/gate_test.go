package gate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"evidenceledger/evidence"
)

const soldFact = "- Acme was sold to Beta Corp in 2021.\n"

// TestParseHookRecorded reads the recorded hook inputs of each agent under testdata/hooks.
// Every file there must have a row.
func TestParseHookRecorded(t *testing.T) {
	type want struct {
		agent  string
		writes []HookWrite // Old not compared when empty
		unread string      // a path Unread must hold
		err    string
	}
	tests := map[string]want{
		"claude/write-memory-instructions.json": {AgentClaude, []HookWrite{{Path: "/home/ana/shop/MEMORY.md"}}, "", ""},
		"claude/write-memory-unverified.json":   {AgentClaude, []HookWrite{{Path: "/home/ana/shop/MEMORY.md"}}, "", ""},
		"claude/edit-claude-md.json":            {AgentClaude, []HookWrite{{Path: "/home/ana/shop/CLAUDE.md", Text: "## Facts\n" + soldFact}}, "", ""},
		"claude/multiedit-memory.json":          {AgentClaude, []HookWrite{{Path: "/home/ana/shop/.claude/memory/notes.md", Text: "- Use tabs for indentation.\n\n## Facts\n" + soldFact}}, "", ""},
		"claude/notebook-memory.json":           {AgentClaude, []HookWrite{{Path: "/home/ana/shop/memory/analysis.ipynb", Text: "Acme was sold to Beta Corp in 2021."}}, "", ""},
		"claude/write-code.json":                {AgentClaude, []HookWrite{{Path: "/home/ana/shop/main.go"}}, "", ""},
		"claude/bash.json":                      {AgentClaude, nil, "", ""},
		"claude/bash-echo-memory.json":          {AgentClaude, nil, "", ""},
		"claude/read-memory.json":               {AgentClaude, nil, "", ""},
		"claude/windows-trailing-dot.json":      {AgentClaude, []HookWrite{{Path: `C:\Users\ana\shop\MEMORY.md.`}}, "", ""},
		"claude/windows-trailing-space.json":    {AgentClaude, []HookWrite{{Path: `C:\Users\ana\shop\MEMORY.md `}}, "", ""},
		"claude/windows-ads.json":               {AgentClaude, []HookWrite{{Path: `C:\Users\ana\shop\MEMORY.md::$DATA`}}, "", ""},
		"claude/windows-short-name.json":        {AgentClaude, []HookWrite{{Path: `C:\Users\ana\shop\MEMORY~1.MD`}}, "", ""},
		"claude/windows-case.json":              {AgentClaude, []HookWrite{{Path: `C:\Users\ana\shop\memory.MD`}}, "", ""},
		"claude/dot-dot.json":                   {AgentClaude, []HookWrite{{Path: "/home/ana/shop/src/../MEMORY.md"}}, "", ""},
		"codex/apply-patch-agents-facts.json": {AgentCodex, []HookWrite{{Path: "AGENTS.md",
			Text: "# AGENTS.md\n\n- Run `make test` before committing.\n" + soldFact}}, "", ""},
		"codex/apply-patch-agents-instructions.json": {AgentCodex, []HookWrite{{Path: "AGENTS.md", Text: "- Use tabs for indentation.\n- Never push to main.\n"}}, "", ""},
		"codex/apply-patch-code.json":                {AgentCodex, []HookWrite{{Path: "src/app.py", Text: "    print('Acme was sold to Beta Corp in 2021.')\n"}}, "", ""},
		"codex/apply-patch-move-to-memory.json":      {AgentCodex, []HookWrite{{Path: "memory/acme.md", Text: soldFact}}, "", ""},
		"codex/shell-heredoc-patch.json":             {AgentCodex, []HookWrite{{Path: "MEMORY.md", Text: soldFact}}, "", ""},
		"codex/apply-patch-no-end.json":              {err: "no *** End Patch line"},
		// Codex names its shell tool Bash, as Claude Code does; both take the same answers.
		"codex/bash-append-agents.json":        {AgentClaude, nil, "", ""},
		"codex/bash-tests.json":                {AgentClaude, nil, "", ""},
		"gemini/replace-gemini-md.json":        {AgentGemini, []HookWrite{{Path: "/home/ana/shop/GEMINI.md", Text: "## Facts\n" + soldFact}}, "", ""},
		"gemini/run-shell-command-append.json": {AgentGemini, nil, "", ""},
		"gemini/run-shell-command-ls.json":     {AgentGemini, nil, "", ""},
		"gemini/save-memory-preference.json":   {AgentGemini, []HookWrite{{Path: GeminiMemoryFile, Text: "The user prefers metric units."}}, "", ""},
		"gemini/save-memory-fact.json":         {AgentGemini, []HookWrite{{Path: GeminiMemoryFile, Text: "Acme was sold to Beta Corp in 2021."}}, "", ""},
		"gemini/write-file-gemini-md.json":     {AgentGemini, []HookWrite{{Path: "/home/ana/shop/GEMINI.md"}}, "", ""},
		"gemini/read-file.json":                {AgentGemini, nil, "", ""},
		"malformed/null.json":                  {err: "not a JSON object"},
		"malformed/empty-object.json":          {err: "names no tool_name"},
		"malformed/no-tool-input.json":         {err: "tool_input is missing"},
		"malformed/null-tool-input.json":       {err: "tool_input is missing"},
		"malformed/content-null.json":          {err: "tool_input.content of Write is not a JSON string"},
		"malformed/content-number.json":        {err: "tool_input.content of Write is not a JSON string"},
		"malformed/duplicate-keys.json":        {err: `"file_path" appears twice`},
		"malformed/duplicate-tool-name.json":   {err: `"tool_name" appears twice`},
		"malformed/edit-other-fields.json":     {err: "Edit's tool_input has no file_path"},
		"malformed/notebook-other-fields.json": {err: "NotebookEdit's tool_input has no notebook_path"},
		"malformed/no-file-path.json":          {err: "Write's tool_input has no file_path"},
		"malformed/truncated.json":             {err: "not one JSON object"},
		"malformed/two-objects.json":           {err: "data after the JSON object"},
		"malformed/write-extra-member.json":    {AgentClaude, nil, "/home/ana/shop/MEMORY.md", ""},
		"malformed/unknown-tool-memory.json":   {AgentClaude, nil, "/home/ana/shop/MEMORY.md", ""},
	}
	files, _ := filepath.Glob("../testdata/hooks/*/*.json")
	if len(files) < len(tests) {
		t.Fatalf("found %d recorded hook inputs in ../testdata/hooks, want %d", len(files), len(tests))
	}
	for _, file := range files {
		name := filepath.ToSlash(strings.TrimPrefix(file, "../testdata/hooks/"))
		if strings.HasPrefix(name, "repro/") {
			continue // laid out on disk by TestGateHookReproductions (cmd/ledger)
		}
		t.Run(name, func(t *testing.T) {
			tt, ok := tests[name]
			if !ok {
				t.Fatalf("no row for %s", name)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			in, err := ParseHook(data)
			if tt.err != "" {
				if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v; want ErrInput saying %q", err, tt.err)
				}
				return
			}
			if err != nil || in.Agent != tt.agent || len(in.Writes) != len(tt.writes) {
				t.Fatalf("%+v %v; want agent %s and writes %+v", in, err, tt.agent, tt.writes)
			}
			for i, w := range tt.writes {
				got := in.Writes[i]
				if got.Path != w.Path || (w.Text != "" && got.Text != w.Text) {
					t.Fatalf("write %d: %+v; want %+v", i, got, w)
				}
			}
			if tt.unread != "" && !strings.Contains(strings.Join(in.Unread, "\n"), tt.unread) {
				t.Fatalf("unread %q; want %q in it", in.Unread, tt.unread)
			}
		})
	}
	for desc, in := range map[string]string{
		"tool_input a string":  `{"tool_name":"Write","tool_input":"x"}`,
		"edits not an array":   `{"tool_name":"MultiEdit","tool_input":{"file_path":"a","edits":{"new_string":"x"}}}`,
		"not UTF-8":            "{\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"a\",\"content\":\"\xff\"}}",
		"an array":             `[]`,
		"file_path not string": `{"tool_name":"Write","tool_input":{"file_path":1,"content":"x"}}`,
		"empty file_path":      `{"tool_name":"Write","tool_input":{"file_path":" ","content":"x"}}`,
		"edit new_string bool": `{"tool_name":"MultiEdit","tool_input":{"file_path":"a","edits":[{"new_string":true}]}}`,
		"edit new_string null": `{"tool_name":"MultiEdit","tool_input":{"file_path":"a","edits":[{"new_string":null}]}}`,
		"empty input":          ``,
		"tool_name an object":  `{"tool_name":{},"tool_input":{}}`,
		"nested duplicate":     `{"tool_name":"MultiEdit","tool_input":{"file_path":"a","edits":[{"new_string":"x","new_string":"y"}]}}`,
		"fact null":            `{"tool_name":"save_memory","tool_input":{"fact":null}}`,
		"patch unknown line":   `{"tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: a\n+x\n*** Frobnicate\n*** End Patch"}}`,
		"patch no path":        `{"tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: \n+x\n*** End Patch"}}`,
		"patch stray line":     `{"tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\nhello\n*** End Patch"}}`,
	} {
		if _, err := ParseHook([]byte(in)); !errors.Is(err, ErrInput) {
			t.Errorf("%s: err %v; want ErrInput", desc, err)
		}
	}
	big := `{"tool_name":"Write","tool_input":{"file_path":"MEMORY.md","content":"` + strings.Repeat("a", maxHookBytes) + `"}}`
	_, err := ParseHook([]byte(big))
	if want := fmt.Sprintf("the hook input is more than %d bytes; write the memory file in smaller pieces", maxHookBytes); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), want) {
		t.Errorf("too large: err %v; want ErrInput saying %q", err, want)
	}
	atLimit := `{"tool_name":"Write","tool_input":{"file_path":"MEMORY.md","content":"`
	atLimit += strings.Repeat("a", maxHookBytes-len(atLimit)-3) + `"}}`
	if in, err := ParseHook([]byte(atLimit)); err != nil || len(atLimit) != maxHookBytes || len(in.Writes) != 1 {
		t.Errorf("an input of exactly %d bytes: %v", maxHookBytes, err)
	}
}

func FuzzParseHook(f *testing.F) {
	files, err := filepath.Glob("../testdata/hooks/*/*.json")
	if err != nil || len(files) == 0 {
		f.Fatalf("seeds in ../testdata/hooks: %v (%d files)", err, len(files))
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	mem, _ := ParseMemoryFiles(DefaultMemoryFiles)
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseHook(data)
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("error does not wrap ErrInput: %v", err)
			}
			return
		}
		if in.ToolName == "" {
			t.Fatalf("no tool name passed: %+v", in)
		}
		for _, w := range in.Writes {
			if strings.TrimSpace(w.Path) == "" || !utf8.ValidString(w.Text) {
				t.Fatalf("a write without a path or with text that is not UTF-8: %+v", w)
			}
			mem.Match(w.Path)
			if _, err := evidence.TriageText(w.Text); err != nil && !errors.Is(err, evidence.ErrBadResearch) {
				t.Fatalf("triage: %v", err)
			}
		}
		// A tool the gate cannot read says why, so the block it causes has a reason.
		if len(in.Unread) > 0 && in.Problem == "" {
			t.Fatalf("unread paths without a problem: %+v", in)
		}
	})
}

func TestMemoryFiles(t *testing.T) {
	def, err := ParseMemoryFiles(DefaultMemoryFiles)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		desc string
		path string
		want bool
	}{
		{"MEMORY.md at the root", "MEMORY.md", true},
		{"MEMORY.md deep down, absolute", "/home/u/proj/MEMORY.md", true},
		{"case does not matter", "/home/u/proj/memory.MD", true},
		{"anything under a memory folder", "/home/u/.agent/memory/2026/acme.md", true},
		{"anything under a memories folder", "proj/memories/x.txt", true},
		{"a .memory.md file", "docs/acme.memory.md", true},
		{"Windows separators", `C:\proj\memory\acme.md`, true},
		{"source code", "/home/u/proj/main.go", false},
		{"a name that only contains memory", "/home/u/proj/memory_test.go", false},
		{"MEMORY.md.bak is not MEMORY.md", "MEMORY.md.bak", false},
		{"AGENTS.md in a subproject", "/home/u/proj/services/api/AGENTS.md", true},
		{"CLAUDE.md", "/home/u/proj/CLAUDE.md", true},
		{"CLAUDE.local.md", "/home/u/proj/CLAUDE.local.md", true},
		{"GEMINI.md in the home folder", "~/.gemini/GEMINI.md", true},
		{"a memory file under .claude", "/home/u/.claude/projects/p/memory.json", true},
		{"a memory folder under .claude", "/home/u/.claude/projects/p/memory/MEMORY.md", true},
		{"other files under .claude are not memory", "/home/u/.claude/settings.json", false},
		{"AGENTS.md.orig is not AGENTS.md", "/home/u/proj/AGENTS.md.orig", false},
		{"a folder named AGENTS.md is not the file", "/home/u/proj/AGENTS.md/notes.txt", false},
		{"a trailing dot (Windows drops it)", `C:\proj\MEMORY.md.`, true},
		{"a trailing space (Windows drops it)", `C:\proj\MEMORY.md `, true},
		{"trailing dots and spaces", "/p/MEMORY.md . .", true},
		{"the default data stream", `C:\proj\MEMORY.md::$DATA`, true},
		{"a named data stream", `C:\proj\MEMORY.md:notes`, true},
		{"an 8.3 short name", `C:\proj\MEMORY~1.MD`, true},
		{"an 8.3 short name of CLAUDE.md", `C:\proj\CLAUDE~2.MD`, true},
		{"an 8.3 short name of another file", `C:\proj\MAIN~1.GO`, false},
		{"a short folder name of memories", `C:\proj\MEMORI~1\x.txt`, true},
		{"dot-dot resolved into a memory file", "/p/src/../MEMORY.md", true},
		{"dot-dot resolved out of a memory folder", "/p/memory/../main.go", false},
		{"a device path", `\\?\C:\proj\MEMORY.md`, true},
		{"empty path", "", false},
		{"the long s folds to s (NFKC)", "/p/AGENTſ.md", true},
		{"a memories folder with a long s", "/p/memorieſ/acme.md", true},
		{"a zero-width non-joiner is ignored", "/p/CLAUDE\u200c.md", true},
		{"a soft hyphen is ignored", "/p/MEM\u00adORY.md", true},
		{"full-width letters fold", "/p/ＣＬＡＵＤＥ.md", true},
		{"full case folding", "/p/GEMİNI.md", false},
		{"drive-relative", "C:CLAUDE.md", true},
		{"drive-relative in a folder", `C:memory\acme.md`, true},
		{"a drive alone", "C:", false},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			if got := def.Match(tt.path); got != tt.want {
				t.Fatalf("Match(%q) = %v; want %v", tt.path, got, tt.want)
			}
		})
	}
	own, err := ParseMemoryFiles(" notes/*.md , KNOWLEDGE.txt ")
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{"notes/a.md": true, "x/notes/a.md": false, "a/b/knowledge.txt": true, "notes/a/b.md": false, `C:\kb\KNOWLE~1.TXT`: true} {
		if own.Match(p) != want {
			t.Errorf("own patterns: Match(%q) != %v", p, want)
		}
	}
	for _, bad := range []string{"", " , ", "memory/[a-"} {
		if _, err := ParseMemoryFiles(bad); !errors.Is(err, ErrInput) {
			t.Errorf("ParseMemoryFiles(%q): %v; want ErrInput", bad, err)
		}
	}
}

func TestParseMinStrength(t *testing.T) {
	for in, want := range map[string]evidence.Strength{"": "", "LOW": "low", " medium ": "medium", "high": "high"} {
		if got, err := ParseMinStrength(in); err != nil || got != want {
			t.Errorf("ParseMinStrength(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseMinStrength("strong"); !errors.Is(err, ErrInput) {
		t.Errorf("ParseMinStrength(strong): %v", err)
	}
}

// TestGateReadsThroughTheParser: the gate's claims are the parser's; a list item starting
// with "a)" or pretty-printed JSON adds no sourceless claim of its own.
func TestGateReadsThroughTheParser(t *testing.T) {
	for _, text := range []string{
		"a) Acme was founded in 1999 ([about](https://acme.example/about)): “Acme was founded in 1999 in Leeds”.\n",
		"{\n  \"claims\": [\n    {\n      \"text\": \"Acme was founded in 1999.\",\n      \"url\": \"https://acme.example/about\",\n      \"quote\": \"Acme was founded in 1999 in Leeds\"\n    }\n  ]\n}\n",
	} {
		sorted, err := evidence.TriageText(text)
		if err != nil {
			t.Fatal(err)
		}
		gated := 0
		for _, s := range sorted {
			if s.Gated() {
				gated++
				if s.Claim == nil || s.Claim.Citations[0].URL == "" {
					t.Errorf("%q: a gated statement without its source: %+v", text, s)
				}
			}
		}
		if gated != 1 {
			t.Errorf("%q: %d gated statements; want the one cited claim: %+v", text, gated, sorted)
		}
	}
}

func TestResolvePaths(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "memories"), 0o755)
	os.WriteFile(filepath.Join(dir, "CLAUDE.md"), nil, 0o600)
	os.Symlink("CLAUDE.md", filepath.Join(dir, "notes.md"))
	os.Symlink("memories", filepath.Join(dir, "kb"))
	os.Symlink("AGENTS.md", filepath.Join(dir, "todo.md"))
	os.Symlink(filepath.Join(dir, "loop"), filepath.Join(dir, "loop"))
	mem, _ := ParseMemoryFiles(DefaultMemoryFiles)
	for p, want := range map[string]bool{
		"notes.md": true, "kb/acme.md": true, "kb/2026/new.md": true, "todo.md": true, "main.go": false,
		"loop": false, "~/.gemini/GEMINI.md": true, filepath.Join(dir, "kb", "x"): true,
	} {
		if got := mem.MatchAny(ResolvePaths(p, dir, "/home/ana")); got != want {
			t.Errorf("%s: memory %v (%q); want %v", p, got, ResolvePaths(p, dir, "/home/ana"), want)
		}
	}
}

// TestChangedText: what of a memory file the hook gates after a change.
func TestChangedText(t *testing.T) {
	before := "# Notes\n\n- Acme was founded\n  in 1999 in Leeds.\n- Use tabs.\n\n| a | b |\n|---|---|\n| x | y |\n\n```\ngo test\n```\n\n[1]: https://acme.example\n"
	for _, tt := range []struct{ after, want string }{
		{before, ""},
		{strings.Replace(before, "Leeds", "York", 1), "- Acme was founded\n  in 1999 in York.\n\n[1]: https://acme.example\n"},
		{strings.Replace(before, "tabs", "spaces", 1), "- Use spaces.\n\n[1]: https://acme.example\n"},
		{strings.Replace(before, "| x |", "| z |", 1), "| a | b |\n|---|---|\n| z | y |\n\n[1]: https://acme.example\n"},
		{strings.Replace(before, "go test", "go vet", 1), "```\ngo vet\n```\n\n[1]: https://acme.example\n"},
		{before + "\n- Acme employs 40 people.\n", "- Acme employs 40 people.\n\n[1]: https://acme.example\n"},
		{strings.Replace(before, "- Use tabs.", "- Use tabs.\n- Use tabs.", 1), "- Use tabs.\n\n[1]: https://acme.example\n"},
		{strings.Replace(before, "```\ngo test\n```\n", "```\ngo test\n", 1), "```\ngo test\n\n[1]: https://acme.example\n"}, // an unclosed fence runs to the end
	} {
		if got := ChangedText(before, tt.after); got != tt.want {
			t.Errorf("ChangedText(…, %q) = %q; want %q", tt.after, got, tt.want)
		}
	}
	if got := ChangedText("", "x\n"); got != "x\n" {
		t.Errorf("a new file is gated whole: %q", got)
	}
}

func TestHookWriteAfter(t *testing.T) {
	cur := "# Notes\n- Ask TBD.\n- Acme was sold to TBD.\n"
	nb := `{"cells":[{"id":"a1","cell_type":"markdown","source":["# Acme\n","Use tabs.\n"]},{"id":"b2","cell_type":"code","source":"print(1)"}]}`
	for _, tt := range []struct {
		desc  string
		w     HookWrite
		cur   string
		want  string
		loose string
		err   string
	}{
		{"first occurrence", HookWrite{Edits: []HookEdit{{Old: "TBD", New: "Beta"}}}, cur, "# Notes\n- Ask Beta.\n- Acme was sold to TBD.\n", "", ""},
		{"every occurrence", HookWrite{Edits: []HookEdit{{Old: "TBD", New: "Beta", All: true}}}, cur, "# Notes\n- Ask Beta.\n- Acme was sold to Beta.\n", "", ""},
		{"in sequence", HookWrite{Edits: []HookEdit{{Old: "Ask TBD.", New: "Ask X."}, {Old: "X", New: "Y"}}}, cur, "# Notes\n- Ask Y.\n- Acme was sold to TBD.\n", "", ""},
		{"an edit not found is gated alone", HookWrite{Edits: []HookEdit{{Old: "nope", New: "Acme was sold."}}}, cur, cur, "Acme was sold.", ""},
		{"a patch", HookWrite{Patched: true, Hunks: []PatchHunk{{Old: []string{"- Ask TBD."}, New: []string{"- Ask Ann."}}}}, cur, "# Notes\n- Ask Ann.\n- Acme was sold to TBD.\n", "", ""},
		{"a patch after a seek line, trailing space ignored", HookWrite{Patched: true, Hunks: []PatchHunk{{Seek: "# Notes", Old: []string{"- Acme was sold to TBD.  "}, New: []string{"- Acme was sold."}}}}, cur, "# Notes\n- Ask TBD.\n- Acme was sold.\n", "", ""},
		{"a patch that does not apply", HookWrite{Patched: true, Hunks: []PatchHunk{{Old: []string{"gone"}, New: []string{"x"}}}}, cur, "", "", "its lines are not in the file"},
		{"an append", HookWrite{Append: true, Text: "- Acme employs 40 people.\n"}, cur, cur + "- Acme employs 40 people.\n", "", ""},
		{"a notebook cell replaced", HookWrite{Notebook: &NotebookOp{CellID: "a1", Source: "Acme was sold."}}, nb, "Acme was sold.\n\n```\nprint(1)\n```\n\n", "", ""},
		{"a notebook cell inserted", HookWrite{Notebook: &NotebookOp{CellID: "a1", Mode: "insert", CellType: "markdown", Source: "Acme was sold."}}, nb, "# Acme\nUse tabs.\n\nAcme was sold.\n\n```\nprint(1)\n```\n\n", "", ""},
		{"a notebook cell deleted", HookWrite{Notebook: &NotebookOp{CellID: "b2", Mode: "delete"}}, nb, "# Acme\nUse tabs.\n\n", "", ""},
		{"a notebook that is not JSON", HookWrite{Notebook: &NotebookOp{Source: "x"}}, "{", "", "", "cannot be read"},
	} {
		got, loose, err := tt.w.after(tt.cur, true)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err %v; want %q", tt.desc, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want || strings.Join(loose, "|") != tt.loose {
			t.Errorf("%s: %q %q %v; want %q %q", tt.desc, got, loose, err, tt.want, tt.loose)
		}
	}
}

// FuzzFastEdits: when the linear way of applying edits applies, its result is the one of
// applying them one by one.
func FuzzFastEdits(f *testing.F) {
	f.Add("- Use tabs 1.\n- Use tabs 2.\n- Use tabs 3.\n- Use tabs 4.\n- Use tabs 5.\n- Use tabs 6.\n- Use tabs 7.\n- Use tabs 8.\n- Use tabs 9.\n", []byte{1, 2, 3, 4, 5, 6, 7, 8, 9}, "x")
	f.Add("abcabcabcabcabcabcabcabcabcabc", []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, "bc")
	f.Fuzz(func(t *testing.T, text string, ops []byte, piece string) {
		var edits []HookEdit
		for i := 0; i+1 < len(ops) && len(edits) < 40; i += 2 {
			if text == "" {
				return
			}
			start := int(ops[i]) * len(text) / 256
			end := min(len(text), start+1+int(ops[i+1])%6)
			edits = append(edits, HookEdit{Old: text[start:end], New: piece + text[start:end][:1]})
		}
		got, gotLoose, ok := fastEdits(text, edits)
		if !ok {
			return
		}
		want, wantLoose := text, []string(nil)
		for _, e := range edits {
			if !strings.Contains(want, e.Old) {
				wantLoose = append(wantLoose, e.New)
				continue
			}
			want = strings.Replace(want, e.Old, e.New, 1)
		}
		if got != want || strings.Join(gotLoose, "\x00") != strings.Join(wantLoose, "\x00") {
			t.Fatalf("fast %q %q; one by one %q %q", got, gotLoose, want, wantLoose)
		}
	})
}

// TestHookWorkIsBounded: the hook's work is bounded by bytes and edits, not time: more than
// MaxHookEdits edits is refused, and edits that must be applied one by one stop at
// maxEditWork bytes of searching and copying, and block.
func TestHookWorkIsBounded(t *testing.T) {
	var edits []string
	for i := 0; i <= MaxHookEdits; i++ {
		edits = append(edits, `{"old_string":"a","new_string":"b"}`)
	}
	in := `{"tool_name":"MultiEdit","tool_input":{"file_path":"CLAUDE.md","edits":[` + strings.Join(edits, ",") + `]}}`
	if _, err := ParseHook([]byte(in)); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "more than the 10000 the gate reads") {
		t.Fatalf("%d edits: %v; want refused", MaxHookEdits+1, err)
	}
	text := strings.Repeat("- Use tabs.\n", (1<<20)/12)
	var many []HookEdit
	for i := 0; i < MaxHookEdits; i++ {
		many = append(many, HookEdit{Old: "not there", New: "x", All: true})
	}
	if _, _, err := applyEdits(text, many); !errors.Is(err, errEditWork) {
		t.Fatalf("%d edits one by one on %d bytes: %v; want the work bound", len(many), len(text), err)
	}
	// As many edits, far enough apart for the linear way, are within the bound.
	var lines []string
	var distinct []HookEdit
	for i := 0; i < MaxHookEdits; i++ {
		lines = append(lines, fmt.Sprintf("- Use tabs in module m%05d. Keep the rest of this line as it is.", i))
		distinct = append(distinct, HookEdit{Old: fmt.Sprintf("tabs in module m%05d.", i), New: "spaces."})
	}
	got, loose, err := applyEdits(strings.Join(lines, "\n")+"\n", distinct)
	if err != nil || len(loose) != 0 || strings.Count(got, "- Use spaces. Keep") != MaxHookEdits {
		t.Fatalf("%d distinct edits: %v, %d loose", MaxHookEdits, err, len(loose))
	}
}

// TestCitedBySameURL: the gate matches a text's citation with a ledger citation by
// evidence.SameURL, the rule ledger.Store.FindCitations finds citations by (its test has
// the same variant), so a URL spelled otherwise only in what evidence.NormalizeURL
// normalises is the same citation to both.
func TestCitedBySameURL(t *testing.T) {
	lc := LedgerClaim{Citations: []LedgerCitation{{URL: "https://acme.example/about", Quote: "Acme was founded in 1999", Status: evidence.StatusFound}}}
	tests := []struct {
		desc, url string
		want      bool
	}{
		{"as stored", "https://acme.example/about", true},
		{"scheme and host in capitals, default port, fragment", "HTTPS://Acme.Example:443/about#history", true},
		{"another path", "https://acme.example/About", false},
		{"another port", "https://acme.example:8443/about", false},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			ct := evidence.Citation{URL: tt.url, Quote: "acme was founded in 1999"}
			if got := citedBy(lc, ct, true); got != tt.want {
				t.Fatalf("citedBy(%q) = %v; want %v", tt.url, got, tt.want)
			}
		})
	}
}
