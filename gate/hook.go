// The hook inputs of each agent (Claude Code, Codex, Gemini CLI) and the memory files they
// name, in one file: every agent's tool input is read to the same HookInput by the same
// strict decoder, so adding an agent means reading its cases beside the others'.

package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
	"mvdan.cc/sh/v3/syntax"

	"evidenceledger/evidence"
)

// The agents whose hook inputs ParseHook reads.
const (
	AgentClaude = "claude-code" // PreToolUse: Write, Edit, MultiEdit, NotebookEdit
	AgentCodex  = "codex"       // PreToolUse: apply_patch, the patch in tool_input.command
	AgentGemini = "gemini-cli"  // BeforeTool: save_memory's fact, write_file, replace
)

// GeminiMemoryFile is the file Gemini CLI's save_memory tool appends its facts to.
const GeminiMemoryFile = "~/.gemini/GEMINI.md"

// HookWrite is one file a tool would write and how: its whole content (Text), the edits it
// makes to it in order (Edits), the hunks of a patch (Hunks, with MoveFrom for a file a
// patch moves there), a notebook cell (Notebook), or text appended (Append). The hook
// computes the file as it will be and gates what is new or changed in it ([MemoryFiles.Plan]).
type HookWrite struct {
	Path string
	// Text is the whole content, or the text appended; for edits, the edits' new texts.
	Text  string
	Edits []HookEdit
	Hunks []PatchHunk
	// Patched marks an apply_patch Update File section (it may have no hunk: a move).
	Patched bool
	// MoveFrom is, for a patch's "*** Move to:", the file whose patched text this one gets.
	MoveFrom string
	Notebook *NotebookOp
	// Append adds Text at the end of the file; Separate first ends its last line.
	Append, Separate bool
	// Standalone gates Text as it stands, without reading the file: a save_memory fact, a
	// shell write whose target cannot be known.
	Standalone bool
}

// HookInput is what a coding agent's pre-tool hook receives on stdin, as the gate reads it.
type HookInput struct {
	// Agent is AgentClaude, AgentCodex or AgentGemini, told by the event and tool names.
	Agent    string
	Event    string
	ToolName string
	// Cwd is the agent's working directory, from which relative paths are read.
	Cwd string
	// Writes are the files the tool writes, with their texts; none for a tool that writes
	// no file (a read, a search, a shell command that names no memory file).
	Writes []HookWrite
	// Unread are the paths that a tool the gate cannot read (an unknown tool, a shell
	// command, a known tool with members it does not know) names; a caller blocks when one
	// of them is a memory file. Problem says why the tool cannot be read.
	Unread  []string
	Problem string
	// Shell is the command of a shell tool, read by [MemoryFiles.Plan].
	Shell string
}

// maxHookBytes bounds the hook input: a whole memory file, JSON-escaped, and the rest.
const maxHookBytes = 2*evidence.MaxPasteBytes + 64<<10

// MaxHookBytes is the largest hook input ParseHook reads.
const MaxHookBytes = maxHookBytes

// toolFields are the members each known tool's tool_input may have. A known tool writing to
// a memory file with another member is blocked: the gate cannot tell what that member writes.
var toolFields = map[string][]string{
	"Write":        {"file_path", "content"},
	"Edit":         {"file_path", "old_string", "new_string", "replace_all"},
	"MultiEdit":    {"file_path", "edits"},
	"NotebookEdit": {"notebook_path", "new_source", "cell_id", "cell_type", "edit_mode"},
	"apply_patch":  {"command", "input"},
	"save_memory":  {"fact"},
	"write_file":   {"file_path", "content"},
	"replace":      {"file_path", "old_string", "new_string", "expected_replacements", "instruction"},
}

// shellTools run shell commands; the gate does not read what a command writes.
var shellTools = map[string]bool{"Bash": true, "shell": true, "exec_command": true, "local_shell": true, "run_shell_command": true, "container.exec": true}

// readOnlyTools write nothing.
var readOnlyTools = map[string]bool{"Read": true, "Glob": true, "Grep": true, "LS": true, "WebFetch": true, "WebSearch": true, "TodoWrite": true, "Task": true,
	"read_file": true, "read_many_files": true, "glob": true, "search_file_content": true, "list_directory": true, "google_web_search": true, "web_fetch": true}

// ParseHook reads the JSON a pre-tool hook receives (docs/gate.md, "Hooks"):
//
//	{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {"file_path": "...", "content": "..."}}
//
// with tool_input as each known tool has it: Claude Code's Write (content), Edit
// (new_string), MultiEdit (edits[].new_string) and NotebookEdit (notebook_path, new_source);
// Codex CLI's apply_patch (the patch text in command; the lines it adds to each file); Gemini
// CLI's BeforeTool save_memory (fact, written to GeminiMemoryFile), write_file and replace.
// Read-only tools write nothing; a shell command or an unknown tool writes nothing the gate
// can read, and the paths its strings name are returned in Unread.
//
// It fails closed: the error wraps [ErrInput] when the input is not one JSON object, is too
// large or not UTF-8, has a duplicate member name at any depth, has no tool_name, has no
// tool_input object, or when a known tool's members are missing or of another type (a null
// content, a file_path that is not a string, a patch that cannot be read).
func ParseHook(data []byte) (HookInput, error) {
	if len(data) > maxHookBytes {
		return HookInput{}, fmt.Errorf("%w: the hook input is more than %d bytes; write the memory file in smaller pieces", ErrInput, maxHookBytes)
	}
	if !utf8.Valid(data) {
		return HookInput{}, fmt.Errorf("%w: the hook input is not UTF-8 text", ErrInput)
	}
	if err := noDuplicateKeys(data); err != nil {
		return HookInput{}, fmt.Errorf("%w: %v; a hook input with a member named twice is refused, since readers disagree on which one counts", ErrInput, err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		return HookInput{}, fmt.Errorf("%w: the hook input is not a JSON object; the hook must pass the agent's JSON on stdin", ErrInput)
	}
	var in HookInput
	if err := optString(raw["hook_event_name"], "hook_event_name", &in.Event); err != nil {
		return HookInput{}, err
	}
	if err := optString(raw["tool_name"], "tool_name", &in.ToolName); err != nil {
		return HookInput{}, err
	}
	if err := optString(raw["cwd"], "cwd", &in.Cwd); err != nil {
		return HookInput{}, err
	}
	if strings.TrimSpace(in.ToolName) == "" {
		return HookInput{}, fmt.Errorf("%w: the hook input names no tool_name; install the gate as a pre-tool hook (PreToolUse, BeforeTool)", ErrInput)
	}
	var ti map[string]json.RawMessage
	if r := raw["tool_input"]; len(r) == 0 || json.Unmarshal(r, &ti) != nil || ti == nil {
		return HookInput{}, fmt.Errorf("%w: tool_input is missing or not a JSON object", ErrInput)
	}
	in.Agent = agentOf(in)
	str := func(name string) (string, bool, error) {
		r, ok := ti[name]
		if !ok {
			return "", false, nil
		}
		var s string
		if err := json.Unmarshal(r, &s); err != nil || string(r) == "null" {
			return "", true, fmt.Errorf("%w: tool_input.%s of %s is not a JSON string", ErrInput, name, in.ToolName)
		}
		return s, true, nil
	}
	need := func(name string) (string, error) {
		s, ok, err := str(name)
		if err == nil && !ok {
			err = fmt.Errorf("%w: %s's tool_input has no %s, so the gate cannot tell what it writes", ErrInput, in.ToolName, name)
		}
		return s, err
	}
	tool := in.ToolName
	switch {
	case readOnlyTools[tool]:
		return in, nil
	case shellTools[tool]:
		cmd, err := shellCommand(ti, tool)
		if err != nil {
			return HookInput{}, err
		}
		// The folder the command runs in: Gemini CLI's dir_path, Codex's workdir.
		for _, k := range []string{"dir_path", "workdir", "cwd"} {
			d, ok, err := str(k)
			if err != nil {
				return HookInput{}, err
			}
			if ok && d != "" {
				if filepath.IsAbs(d) || in.Cwd == "" {
					in.Cwd = d
				} else {
					in.Cwd = filepath.Join(in.Cwd, d)
				}
			}
		}
		if strings.Contains(cmd, "*** Begin Patch") {
			ws, err := parsePatch(cmd)
			if err != nil {
				return HookInput{}, err
			}
			in.Writes = ws
		}
		in.Shell = cmd
		return in, nil
	case toolFields[tool] == nil:
		in.Unread = stringPaths(ti)
		in.Problem = fmt.Sprintf("the tool %s, which the gate does not know, names a memory file: the gate cannot tell what it writes", tool)
		return in, nil
	}
	pathField := "file_path"
	switch tool {
	case "NotebookEdit":
		pathField = "notebook_path"
	case "apply_patch", "save_memory":
		pathField = ""
	}
	var file string
	if pathField != "" {
		p, err := need(pathField)
		if err != nil {
			return HookInput{}, err
		}
		if strings.TrimSpace(p) == "" {
			return HookInput{}, fmt.Errorf("%w: %s's tool_input.%s is empty, so the gate cannot tell whether it is memory", ErrInput, tool, pathField)
		}
		file = p
	}
	var unknown []string
	for k := range ti {
		if !slices.Contains(toolFields[tool], k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	if len(unknown) > 0 {
		in.Unread = append(stringPaths(ti), file)
		if tool == "save_memory" {
			in.Unread = append(in.Unread, GeminiMemoryFile)
		}
		in.Problem = fmt.Sprintf("%s's tool_input has members the gate does not know (%s), so it cannot tell what the tool writes", tool, strings.Join(unknown, ", "))
		return in, nil
	}
	switch tool {
	case "Write", "write_file":
		s, err := need("content")
		if err != nil {
			return HookInput{}, err
		}
		in.Writes = []HookWrite{{Path: file, Text: s}}
	case "Edit", "replace":
		s, err := need("new_string")
		if err != nil {
			return HookInput{}, err
		}
		old, _, err := str("old_string")
		if err != nil {
			return HookInput{}, err
		}
		all, err := replaceAll(ti, tool)
		if err != nil {
			return HookInput{}, err
		}
		in.Writes = []HookWrite{{Path: file, Text: s, Edits: []HookEdit{{Old: old, New: s, All: all}}}}
	case "NotebookEdit":
		s, ok, err := str("new_source")
		if err != nil {
			return HookInput{}, err
		}
		mode, _, err := str("edit_mode")
		if err != nil {
			return HookInput{}, err
		}
		if !ok && mode != "delete" {
			return HookInput{}, fmt.Errorf("%w: NotebookEdit's tool_input has no new_source", ErrInput)
		}
		id, _, err := str("cell_id")
		if err != nil {
			return HookInput{}, err
		}
		typ, _, err := str("cell_type")
		if err != nil {
			return HookInput{}, err
		}
		in.Writes = []HookWrite{{Path: file, Text: s, Notebook: &NotebookOp{CellID: id, CellType: typ, Mode: mode, Source: s}}}
	case "MultiEdit":
		var edits []map[string]json.RawMessage
		if err := json.Unmarshal(ti["edits"], &edits); err != nil || edits == nil {
			return HookInput{}, fmt.Errorf("%w: MultiEdit's tool_input.edits is not an array of objects", ErrInput)
		}
		if len(edits) > MaxHookEdits {
			return HookInput{}, fmt.Errorf("%w: MultiEdit makes %d edits, more than the %d the gate reads; make fewer edits at a time", ErrInput, len(edits), MaxHookEdits)
		}
		w := HookWrite{Path: file, Edits: make([]HookEdit, 0, len(edits))}
		var news []string
		for i, e := range edits {
			var ed HookEdit
			for k := range e {
				if k != "old_string" && k != "new_string" && k != "replace_all" {
					return HookInput{}, fmt.Errorf("%w: MultiEdit's tool_input.edits[%d] has the member %q, which the gate does not know", ErrInput, i, k)
				}
			}
			if r, ok := e["new_string"]; !ok || string(r) == "null" || json.Unmarshal(r, &ed.New) != nil {
				return HookInput{}, fmt.Errorf("%w: MultiEdit's tool_input.edits[%d].new_string is missing or not a JSON string", ErrInput, i)
			}
			if r, ok := e["old_string"]; ok && json.Unmarshal(r, &ed.Old) != nil {
				return HookInput{}, fmt.Errorf("%w: MultiEdit's tool_input.edits[%d].old_string is not a JSON string", ErrInput, i)
			}
			if r, ok := e["replace_all"]; ok && string(r) != "null" && json.Unmarshal(r, &ed.All) != nil {
				return HookInput{}, fmt.Errorf("%w: MultiEdit's tool_input.edits[%d].replace_all is not true or false", ErrInput, i)
			}
			w.Edits = append(w.Edits, ed)
			news = append(news, ed.New)
		}
		w.Text = strings.Join(news, "\n\n")
		in.Writes = []HookWrite{w}
	case "save_memory":
		s, err := need("fact")
		if err != nil {
			return HookInput{}, err
		}
		in.Writes = []HookWrite{{Path: GeminiMemoryFile, Text: s, Standalone: true}}
	case "apply_patch":
		s, ok, err := str("command")
		if err == nil && !ok {
			s, ok, err = str("input")
		}
		if err == nil && !ok {
			err = fmt.Errorf("%w: apply_patch's tool_input has no command holding the patch", ErrInput)
		}
		if err != nil {
			return HookInput{}, err
		}
		ws, err := parsePatch(s)
		if err != nil {
			return HookInput{}, err
		}
		in.Writes = ws
	}
	return in, nil
}

// MaxHookEdits is the most edits one tool call may make for the gate to read it (a MultiEdit's
// edits, a patch's hunks); more blocks. With the 2 MiB bound on the file it keeps the hook's
// work bounded (docs/gate.md, "Limits").
const MaxHookEdits = 10000

// replaceAll reads whether an edit replaces every occurrence: Claude Code's replace_all
// (true or false), or Gemini CLI's expected_replacements (a count; any count but 1 means
// every occurrence, which the tool checks).
func replaceAll(ti map[string]json.RawMessage, tool string) (bool, error) {
	if r, ok := ti["replace_all"]; ok && string(r) != "null" {
		var b bool
		if err := json.Unmarshal(r, &b); err != nil {
			return false, fmt.Errorf("%w: %s's tool_input.replace_all is not true or false", ErrInput, tool)
		}
		return b, nil
	}
	if r, ok := ti["expected_replacements"]; ok && string(r) != "null" {
		var n float64
		if err := json.Unmarshal(r, &n); err != nil {
			return false, fmt.Errorf("%w: %s's tool_input.expected_replacements is not a number", ErrInput, tool)
		}
		return n != 1, nil
	}
	return false, nil
}

// agentOf tells the agent from the event and the tool.
func agentOf(in HookInput) string {
	switch {
	case in.Event == "BeforeTool" || in.ToolName == "save_memory" || in.ToolName == "write_file" || in.ToolName == "replace" || in.ToolName == "run_shell_command":
		return AgentGemini
	case in.ToolName == "apply_patch" || in.ToolName == "exec_command" || in.ToolName == "shell" || in.ToolName == "local_shell":
		return AgentCodex
	}
	return AgentClaude
}

// parsePatch reads an apply_patch patch (Codex CLI):
//
//	*** Begin Patch
//	*** Add File: PATH        then lines starting with +
//	*** Update File: PATH     optionally *** Move to: PATH, then hunks (@@, " ", -, + lines)
//	*** Delete File: PATH
//	*** End Patch
//
// and returns a write per file added (its text) or updated (its hunks, applied to the file
// by the hook); a moved file is written under its new name with the patched text of the old
// one (MoveFrom). Text before "*** Begin Patch" (a shell heredoc) is ignored. A patch without
// its end marker, a directive it does not know, or a line of another shape is refused.
func parsePatch(patch string) ([]HookWrite, error) {
	bad := func(format string, args ...any) ([]HookWrite, error) {
		return nil, fmt.Errorf("%w: the patch cannot be read: %s", ErrInput, fmt.Sprintf(format, args...))
	}
	patch = strings.ReplaceAll(patch, "\r\n", "\n")
	i := strings.Index(patch, "*** Begin Patch")
	if i < 0 {
		return bad("no *** Begin Patch line")
	}
	lines := strings.Split(patch[i:], "\n")
	var out []HookWrite
	cur := -1 // index in out of the file being patched
	var adding bool
	var hunk *PatchHunk
	hunks := 0
	endHunk := func() {
		if hunk != nil && cur >= 0 {
			out[cur].Hunks = append(out[cur].Hunks, *hunk)
			hunks++
		}
		hunk = nil
	}
	ended := false
	for n, l := range lines[1:] {
		switch {
		case ended:
			if t := strings.TrimSpace(l); t != "" && t != "EOF" && t != "'EOF'" && !strings.HasPrefix(t, "EOF") {
				return bad("text after *** End Patch at line %d", n+2)
			}
		case l == "*** End Patch":
			endHunk()
			ended = true
		case strings.HasPrefix(l, "*** Add File: "):
			endHunk()
			out = append(out, HookWrite{Path: strings.TrimSpace(strings.TrimPrefix(l, "*** Add File: "))})
			cur, adding = len(out)-1, true
		case strings.HasPrefix(l, "*** Update File: "):
			endHunk()
			out = append(out, HookWrite{Path: strings.TrimSpace(strings.TrimPrefix(l, "*** Update File: ")), Patched: true})
			cur, adding = len(out)-1, false
		case strings.HasPrefix(l, "*** Move to: "):
			if cur < 0 || adding || hunk != nil || out[cur].MoveFrom != "" {
				return bad("*** Move to outside the head of an Update File section at line %d", n+2)
			}
			from := out[cur].Path
			out[cur].Path, out[cur].MoveFrom = strings.TrimSpace(strings.TrimPrefix(l, "*** Move to: ")), from
		case strings.HasPrefix(l, "*** Delete File: "):
			endHunk()
			cur = -1
		case l == "*** End of File":
			if hunk == nil {
				return bad("*** End of File outside a hunk at line %d", n+2)
			}
			hunk.EOF = true
		case strings.HasPrefix(l, "***"):
			return bad("unknown directive %q at line %d", l, n+2)
		case cur < 0:
			if strings.TrimSpace(l) != "" {
				return bad("line %d belongs to no file", n+2)
			}
		case adding:
			switch {
			case strings.HasPrefix(l, "+"):
				out[cur].Text += l[1:] + "\n"
			case l != "":
				return bad("line %d of an added file does not start with +", n+2)
			}
		case strings.HasPrefix(l, "@@"):
			endHunk()
			hunk = &PatchHunk{Seek: strings.TrimSpace(strings.TrimPrefix(l, "@@"))}
		case strings.HasPrefix(l, " "), strings.HasPrefix(l, "-"), strings.HasPrefix(l, "+"), l == "":
			if hunk == nil {
				hunk = &PatchHunk{}
			}
			switch {
			case l == "":
				hunk.Old, hunk.New = append(hunk.Old, ""), append(hunk.New, "")
			case l[0] == ' ':
				hunk.Old, hunk.New = append(hunk.Old, l[1:]), append(hunk.New, l[1:])
			case l[0] == '-':
				hunk.Old = append(hunk.Old, l[1:])
			default:
				hunk.New = append(hunk.New, l[1:])
				out[cur].Text += l[1:] + "\n"
			}
		default:
			return bad("line %d is not a hunk line (@@, space, - or +)", n+2)
		}
		if hunks > MaxHookEdits {
			return bad("more than %d hunks; patch fewer at a time", MaxHookEdits)
		}
	}
	if !ended {
		return bad("no *** End Patch line")
	}
	for _, w := range out {
		if w.Path == "" {
			return bad("a file section names no path")
		}
	}
	return out, nil
}

// rePathish finds words in strings that may name files: anything between white space, quotes
// and shell punctuation.
var rePathish = regexp.MustCompile(`[^\s"'<>|;&()=]+`)

// stringPaths returns every word of every string in v (at any depth) that could be a path.
func stringPaths(v map[string]json.RawMessage) []string {
	var out []string
	var walk func(x any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			for _, e := range t {
				walk(e)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		case string:
			out = append(out, rePathish.FindAllString(t, -1)...)
		}
	}
	for _, r := range v {
		var x any
		if json.Unmarshal(r, &x) == nil {
			walk(x)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// noDuplicateKeys reports the first object member named twice in the JSON data, at any depth.
func noDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var walk func() error
	walk = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key, _ := k.(string)
				if seen[key] {
					return fmt.Errorf("the member %q appears twice in one object", key)
				}
				seen[key] = true
				if err := walk(); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case json.Delim('['):
			for dec.More() {
				if err := walk(); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		}
		return nil
	}
	if err := walk(); err != nil {
		return fmt.Errorf("not one JSON object (%v)", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the JSON object")
	}
	return nil
}

// optString decodes an optional JSON string member into dst; null counts as absent.
func optString(raw json.RawMessage, name string, dst *string) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%w: %s is not a JSON string", ErrInput, name)
	}
	return nil
}

// DefaultMemoryFiles are the memory-file patterns of `ledger gate --hook` (docs/gate.md):
// memory files and folders of the agents, and the files of standing instructions they read
// at every start (AGENTS.md, CLAUDE.md, GEMINI.md), where a fact is remembered like one in a
// memory file.
const DefaultMemoryFiles = "**/MEMORY.md,**/AGENTS.md,**/CLAUDE.md,**/CLAUDE.local.md,**/GEMINI.md,**/memory/**,**/memories/**,**/*.memory.md,**/.claude/**/memory*"

// MemoryFiles is a list of glob patterns that name memory files. A pattern is matched against
// the whole cleaned path with forward slashes, case-insensitively; "**" matches any number of
// path segments (also none), and within a segment "*", "?" and "[...]" work as in path.Match.
// A pattern without a slash matches a file name in any folder.
//
// The path is folded the way Windows reads names, so that no spelling of a memory file
// escapes the gate: backslashes are separators; "." and ".." segments are resolved; trailing
// dots and spaces of a segment are dropped ("MEMORY.md." and "MEMORY.md " are MEMORY.md); an
// alternate data stream is dropped ("MEMORY.md::$DATA", "MEMORY.md:x"); and an 8.3 short name
// ("MEMORY~1.MD") matches every name whose short form it can be. Case is always folded, as on
// the case-insensitive file systems of Windows and macOS.
type MemoryFiles []string

// ParseMemoryFiles reads comma-separated patterns. The error wraps [ErrInput] for an empty
// list or a pattern path.Match refuses.
func ParseMemoryFiles(list string) (MemoryFiles, error) {
	var m MemoryFiles
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		for _, seg := range strings.Split(p, "/") {
			if _, err := path.Match(seg, ""); err != nil {
				return nil, fmt.Errorf("%w: memory-file pattern %q: %v", ErrInput, p, err)
			}
		}
		if !strings.Contains(p, "/") {
			p = "**/" + p
		}
		m = append(m, foldName(p))
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("%w: no memory-file pattern given; pass GLOB,... (default %s)", ErrInput, DefaultMemoryFiles)
	}
	return m, nil
}

// reShortName is an 8.3 short name: up to six characters, ~ and a number, an extension of up
// to three.
var reShortName = regexp.MustCompile(`^([^.~]{1,6})~[0-9]{1,6}(?:\.([^.]{0,3}))?$`)

// Match reports whether file (a path with / or \ separators) matches one of the patterns,
// after the folding described at [MemoryFiles].
func (m MemoryFiles) Match(file string) bool {
	segs := foldPath(file)
	if len(segs) == 0 {
		return false
	}
	for _, p := range m {
		if matchSegs(strings.Split(strings.TrimLeft(p, "/"), "/"), segs) {
			return true
		}
	}
	return false
}

// foldPath splits a path into folded segments: the way Windows reads names, and, since
// file systems fold names too (NTFS and APFS case, APFS and others Unicode forms), with
// compatibility forms folded (NFKC: the long s ſ is s, full-width letters are letters),
// default-ignorable characters removed (zero-width joiners, soft hyphens, variation
// selectors), and full Unicode case folding.
func foldPath(file string) []string {
	file = foldName(strings.ReplaceAll(file, "\\", "/"))
	if len(file) >= 2 && file[1] == ':' && (len(file) == 2 || file[2] != '/') {
		file = file[:2] + "/" + file[2:] // drive-relative: C:CLAUDE.md is CLAUDE.md in C:'s folder
	}
	var segs []string
	for i, s := range strings.Split(file, "/") {
		if k := strings.IndexByte(s, ':'); k >= 0 && !(i == 0 && k == 1) {
			s = s[:k] // an alternate data stream; a drive letter (c:) stays
		}
		if s != "." && s != ".." {
			s = strings.TrimRight(s, ". ")
		}
		switch {
		case s == "" || s == "." || s == "?":
		case s == "..":
			if len(segs) > 0 {
				segs = segs[:len(segs)-1]
			}
		default:
			segs = append(segs, s)
		}
	}
	return segs
}

func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if matchSegs(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 || !matchSeg(pat[0], segs[0]) {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// matchSeg matches one segment, an 8.3 short name against the long names it can stand for.
func matchSeg(pat, seg string) bool {
	if ok, _ := path.Match(pat, seg); ok {
		return true
	}
	sm := reShortName.FindStringSubmatch(seg)
	if sm == nil {
		return false
	}
	base, ext := pat, ""
	if i := strings.LastIndexByte(pat, '.'); i >= 0 {
		base, ext = pat[:i], pat[i+1:]
	}
	base = strings.ReplaceAll(strings.ReplaceAll(base, " ", ""), ".", "")
	if !strings.ContainsAny(base, "*?[") {
		if !strings.HasPrefix(base, sm[1]) && !strings.HasPrefix(sm[1], base) {
			return false
		}
	}
	if strings.ContainsAny(ext, "*?[") {
		return true
	}
	return strings.HasPrefix(ext, sm[2]) && (len(sm[2]) == min(3, len(ext)))
}

// pathFold is full Unicode case folding.
var pathFold = cases.Fold()

// foldName folds a name as foldPath does: NFKC, default-ignorable characters removed, case
// folded, NFKC again (folding may leave a form NFKC composes).
func foldName(s string) string {
	s = norm.NFKC.String(s)
	s = strings.Map(func(r rune) rune {
		if evidence.IsInvisible(r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) {
			return -1
		}
		return r
	}, s)
	return norm.NFKC.String(pathFold.String(s))
}

// shellCommand reads a shell tool's command: a string, or an array of words (["bash", "-lc",
// "..."]) made one command line with each word quoted.
func shellCommand(ti map[string]json.RawMessage, tool string) (string, error) {
	r, ok := ti["command"]
	if !ok || string(r) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s, nil
	}
	var ws []string
	if err := json.Unmarshal(r, &ws); err != nil {
		return "", fmt.Errorf("%w: tool_input.command of %s is neither a string nor an array of strings", ErrInput, tool)
	}
	for i, w := range ws {
		q, err := syntax.Quote(w, syntax.LangBash)
		if err != nil {
			return "", fmt.Errorf("%w: tool_input.command of %s: %v", ErrInput, tool, err)
		}
		ws[i] = q
	}
	return strings.Join(ws, " "), nil
}
