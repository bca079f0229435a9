// What a tool leaves in a memory file, in one file: each edit form (write, edit, multi-edit,
// notebook, patch hunk) applied to the file as it stands, then what of the result is new and
// so gated. The forms share one apply-and-compare path; splitting them would copy it.

package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"index/suffixarray"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// HookEdit is one replacement of an edit tool: Old by New, in the first occurrence or, with
// All, in every one (Claude Code's replace_all, Gemini CLI's expected_replacements).
type HookEdit struct {
	Old, New string
	All      bool
}

// PatchHunk is one hunk of an apply_patch Update File section: the lines it expects (context
// and removed lines, in order) and the lines it leaves in their place (context and added).
// Seek is the text after "@@ " that the hunk is found after, if any; EOF anchors it at the
// end of the file.
type PatchHunk struct {
	Seek     string
	Old, New []string
	EOF      bool
}

// NotebookOp is a NotebookEdit: the cell (by id; "" for the first) is replaced, a new cell
// is inserted after it, or it is deleted.
type NotebookOp struct {
	CellID, CellType, Mode, Source string
}

// maxCurrentBytes bounds the current file the hook reads to compute what a tool leaves in
// it: the largest text the gate reads. A larger memory file blocks.
const maxCurrentBytes = 2 << 20

// readCurrent reads the file at path (already resolved): its text, whether it exists, and
// an error when it exists but cannot be read or is larger than maxCurrentBytes.
func readCurrent(path string) (string, bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", true, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return "", true, fmt.Errorf("%s is a folder", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxCurrentBytes+1))
	if err != nil {
		return "", true, err
	}
	if len(b) > maxCurrentBytes {
		return "", true, fmt.Errorf("%s is more than %d bytes, more than the gate reads", path, maxCurrentBytes)
	}
	return string(b), true, nil
}

// after computes the text of the file w writes as it will be after the tool runs, from
// current, the file's text now (exists false when there is none). loose are texts that
// belong to the write but could not be placed in the file (an edit whose old text is not in
// it: the tool fails on it, but if it matched otherwise than the gate reads, its new text
// must not pass unread); they are gated as they stand. An error means the gate cannot tell
// what the file will hold, and blocks.
func (w HookWrite) after(current string, exists bool) (text string, loose []string, err error) {
	switch {
	case w.Notebook != nil:
		return notebookAfter(current, exists, *w.Notebook)
	case w.Hunks != nil || w.Patched:
		if !exists {
			// The patch cannot apply to a file that is not there; if it does anyway, what it
			// adds must not pass unread.
			return "", []string{w.Text}, nil
		}
		t, err := applyHunks(current, w.Hunks)
		return t, nil, err
	case w.Edits != nil:
		return applyEdits(current, w.Edits)
	case w.Append:
		if current != "" && !strings.HasSuffix(current, "\n") && w.Separate {
			current += "\n"
		}
		return current + w.Text, nil, nil
	}
	return w.Text, nil, nil
}

// applyHunks applies the hunks of an Update File section to text, each found after the one
// before, as Codex CLI's apply_patch finds them: the expected lines exactly, else with
// trailing white space ignored, else with white space around ignored.
func applyHunks(text string, hunks []PatchHunk) (string, error) {
	lines := strings.Split(text, "\n")
	final := strings.HasSuffix(text, "\n")
	if final {
		lines = lines[:len(lines)-1]
	}
	at := 0
	for n, h := range hunks {
		if h.Seek != "" {
			i := findLines(lines, []string{h.Seek}, at, false)
			if i < 0 {
				return "", fmt.Errorf("hunk %d of the patch: the line %q it is placed after is not in the file", n+1, h.Seek)
			}
			at = i + 1
		}
		var i int
		switch {
		case len(h.Old) == 0 && h.EOF, len(h.Old) == 0 && h.Seek == "":
			i = len(lines)
		case len(h.Old) == 0:
			i = at
		default:
			i = findLines(lines, h.Old, at, h.EOF)
		}
		if i < 0 {
			return "", fmt.Errorf("hunk %d of the patch: its lines are not in the file", n+1)
		}
		rest := append(append([]string{}, h.New...), lines[i+len(h.Old):]...)
		lines = append(lines[:i], rest...)
		at = i + len(h.New)
	}
	out := strings.Join(lines, "\n")
	if final || len(lines) > 0 {
		out += "\n"
	}
	return out, nil
}

// findLines returns where want starts in lines at or after from (at the end, with eof), or
// -1: exactly, else ignoring trailing white space, else ignoring white space around.
func findLines(lines, want []string, from int, eof bool) int {
	for _, norm := range []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t\r") },
		strings.TrimSpace,
	} {
		start, end := from, len(lines)-len(want)
		if eof {
			start = max(from, end)
		}
		for i := start; i <= end; i++ {
			ok := true
			for j, w := range want {
				if norm(lines[i+j]) != norm(w) {
					ok = false
					break
				}
			}
			if ok {
				return i
			}
		}
	}
	return -1
}

// notebook is the part of a Jupyter notebook the gate reads.
type notebook struct {
	Cells []struct {
		ID       string          `json:"id"`
		CellType string          `json:"cell_type"`
		Source   json.RawMessage `json:"source"`
	} `json:"cells"`
}

// notebookAfter renders the notebook as it will be after op as the text the gate reads:
// markdown cells as they are, every other cell in a code fence.
func notebookAfter(current string, exists bool, op NotebookOp) (string, []string, error) {
	type cell struct{ typ, src string }
	var cells []cell
	var ids []string
	if exists && strings.TrimSpace(current) != "" {
		var nb notebook
		if err := json.Unmarshal([]byte(current), &nb); err != nil {
			return "", nil, fmt.Errorf("the notebook cannot be read: %v", err)
		}
		for _, c := range nb.Cells {
			var s string
			if json.Unmarshal(c.Source, &s) != nil {
				var parts []string
				if err := json.Unmarshal(c.Source, &parts); err != nil {
					return "", nil, fmt.Errorf("a cell of the notebook has a source that is not text")
				}
				s = strings.Join(parts, "")
			}
			cells = append(cells, cell{c.CellType, s})
			ids = append(ids, c.ID)
		}
	}
	at := 0
	if op.CellID != "" {
		at = -1
		for i, id := range ids {
			if id == op.CellID {
				at = i
			}
		}
		if at < 0 {
			if n, err := fmt.Sscanf(op.CellID, "cell-%d", &at); n != 1 || err != nil || at < 0 || at >= len(cells) {
				return "", []string{op.Source}, nil
			}
		}
	}
	typ := op.CellType
	switch op.Mode {
	case "insert":
		if typ == "" {
			typ = "code"
		}
		pos := 0
		if op.CellID != "" {
			pos = at + 1
		}
		cells = append(cells[:pos], append([]cell{{typ, op.Source}}, cells[pos:]...)...)
	case "delete":
		if at < len(cells) {
			cells = append(cells[:at], cells[at+1:]...)
		}
	default:
		if at >= len(cells) {
			if typ == "" {
				typ = "code"
			}
			cells = append(cells, cell{typ, op.Source})
			break
		}
		if typ != "" {
			cells[at].typ = typ
		}
		cells[at].src = op.Source
	}
	var b strings.Builder
	for _, c := range cells {
		if c.typ == "markdown" {
			b.WriteString(strings.TrimRight(c.src, "\n") + "\n\n")
			continue
		}
		b.WriteString("```\n" + strings.TrimRight(strings.ReplaceAll(c.src, "```", "` ``"), "\n") + "\n```\n\n")
	}
	return b.String(), nil, nil
}

// ChangedText returns the part of after, a memory file as a tool leaves it, that the hook
// gates given before, the file as it is now: every unit of after that before does not hold
// (as many times), joined by blank lines, followed by every reference definition of after
// (so a marker in a changed unit keeps its source). A unit is a paragraph with its hard
// wraps, a list item with its continuation lines and the items nested under it, a heading, a
// table row, a reference definition, or a fenced code block with its fences (an unclosed
// fence runs to the end). So an edit of one line of a wrapped paragraph gates the paragraph
// and a word put into a sentence gates the sentence. A file that was empty is gated whole.
func ChangedText(before, after string) string {
	if strings.TrimSpace(before) == "" {
		return after
	}
	have := map[string]int{}
	for _, u := range memoryUnits(before) {
		have[u]++
	}
	var out, refs []string
	for _, u := range memoryUnits(after) {
		if isRefDef(u) {
			refs = append(refs, u)
		}
		if have[u] > 0 {
			have[u]--
			continue
		}
		out = append(out, u)
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(append(out, refs...), "\n\n") + "\n"
}

// memoryUnits splits a memory file into the units of ChangedText. The units are never finer
// than the research parser's statements (evidence.ParseResearchLeftOut), so that no statement
// spans two units: a blank line ends a unit only before a line at the left margin that is not
// a block quote or a "Key: value" field (the parser joins those, and indented lines, to the
// item above); a list item at the left margin starts one unless the line above is a field
// waiting for its bullets ("Sources:"); a table is one unit; a heading is one.
func memoryUnits(text string) []string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var units []string
	var cur []string
	blank := false
	flush := func() {
		if len(cur) > 0 {
			units = append(units, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		if fence := fenceOf(l); fence != "" {
			flush()
			block := []string{l}
			for i++; i < len(lines); i++ {
				block = append(block, lines[i])
				if strings.HasPrefix(strings.TrimSpace(lines[i]), fence) && strings.Trim(strings.TrimSpace(lines[i]), fence[:1]) == "" {
					break
				}
			}
			units = append(units, strings.Join(block, "\n"))
			blank = false
			continue
		}
		if t == "" {
			blank = len(cur) > 0
			if len(cur) > 0 {
				cur = append(cur, l)
			}
			continue
		}
		margin := len(l) == len(strings.TrimLeft(l, " \t"))
		joins := !margin || strings.HasPrefix(t, ">") || isField(t)
		table := strings.HasPrefix(t, "|")
		switch {
		case strings.HasPrefix(t, "#"):
			flush()
		case blank && !joins:
			flush()
		case table && len(cur) > 0 && !strings.HasPrefix(strings.TrimSpace(cur[len(cur)-1]), "|"):
			flush()
		case margin && startsItem(l) && len(cur) > 0 && !strings.HasSuffix(strings.TrimSpace(cur[len(cur)-1]), ":"):
			flush()
		case isRefDef(t) && margin:
			flush()
		}
		blank = false
		cur = append(cur, l)
		if strings.HasPrefix(t, "#") {
			flush()
		}
	}
	flush()
	for i, u := range units {
		units[i] = strings.TrimRight(u, " \t\n")
	}
	return units
}

// isField reports whether a line reads as a "Key: value" field (a short key of letters and
// spaces, after an optional list marker), which the parser may join to the item above.
func isField(t string) bool {
	t = strings.TrimLeft(t, "-*+ ")
	k, _, ok := strings.Cut(t, ":")
	if !ok || k == "" || len(k) > 40 {
		return false
	}
	for _, r := range k {
		if !unicode.IsLetter(r) && r != ' ' && r != '*' && r != '_' {
			return false
		}
	}
	return true
}

// reListItem is the research parser's list marker (evidence/parse.go, reList); the units
// must start a list item exactly where it does.
var reListItem = regexp.MustCompile(`^([-*+•·‣▪◦–]|\d{1,4}[.)]|\(\d{1,4}\)|[a-zA-Z][.)])\s+`)

// startsItem reports whether a line at the left margin starts a list item.
func startsItem(t string) bool { return reListItem.MatchString(t) }

// fenceOf returns the fence a line opens (``` or ~~~, three or more, indented at most three
// spaces), or "".
func fenceOf(l string) string {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 {
		return ""
	}
	for _, c := range []string{"`", "~"} {
		n := len(t) - len(strings.TrimLeft(t, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// isRefDef reports whether a unit is a reference definition: [id]: ...
func isRefDef(u string) bool {
	t := strings.TrimSpace(u)
	if !strings.HasPrefix(t, "[") {
		return false
	}
	i := strings.Index(t, "]:")
	return i > 1 && !strings.ContainsAny(t[1:i], "[]\n")
}

// ResolvePaths returns the paths a tool's path p names as the file system will read it: p
// made absolute from cwd (~ from home), cleaned, and the same with every symbolic link in it
// followed, in its folders and in itself, also when the file or some of its folders do not
// exist yet (a link to a memory folder, a dangling link to a memory file). The memory-file
// patterns are matched against each.
func ResolvePaths(p, cwd, home string) []string {
	abs := p
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		abs = filepath.Join(home, strings.TrimPrefix(p[1:], "/"))
	case !filepath.IsAbs(p) && cwd != "" && !isWindowsPath(p):
		abs = filepath.Join(cwd, p)
	}
	out := []string{p}
	if abs != p {
		out = append(out, abs)
	}
	if r := followLinks(abs); r != abs {
		out = append(out, r)
	}
	return out
}

// isWindowsPath reports whether p is written as a Windows path: a drive letter, or \.
func isWindowsPath(p string) bool {
	return len(p) >= 2 && p[1] == ':' || strings.Contains(p, `\`)
}

// followLinks follows the symbolic links in an absolute path, component by component, up to
// 40 of them; a component that does not exist ends the walk and the rest is kept as written.
func followLinks(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	rest := strings.Split(filepath.Clean(p), string(filepath.Separator))[1:]
	cur := string(filepath.Separator)
	for hops := 0; len(rest) > 0 && hops < 40; {
		next := filepath.Join(cur, rest[0])
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{cur}, rest...)...)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur, rest = next, rest[1:]
			continue
		}
		hops++
		target, err := os.Readlink(next)
		if err != nil {
			return filepath.Join(append([]string{next}, rest[1:]...)...)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(cur, target)
		}
		parts := strings.Split(filepath.Clean(target), string(filepath.Separator))[1:]
		cur, rest = string(filepath.Separator), append(parts, rest[1:]...)
	}
	return filepath.Join(append([]string{cur}, rest...)...)
}

// MatchAny reports whether one of paths matches.
func (m MemoryFiles) MatchAny(paths []string) bool {
	for _, p := range paths {
		if m.Match(p) {
			return true
		}
	}
	return false
}

// HookPlan is what the hook gates for one tool call: the texts to gate (what is new or
// changed in each memory file the tool writes), the memory files written, or why the call is
// blocked without asking the ledger.
type HookPlan struct {
	Texts []string
	Files []string
	Block string
}

// Plan works out what hook input in writes to memory files and what of it the hook must gate
// (docs/gate.md, "Hooks"): each write's path is resolved as the file system will
// ([ResolvePaths], home for ~); for a memory file, the file is read, the tool's edits,
// patch or cell applied to it as the tool will, and the units that are new or changed
// ([ChangedText]) are what is gated. A shell command is read with a shell parser for its
// redirections, tee, cp, mv, ln and in-place edits. It fails closed: a tool the gate cannot
// read that names a memory file, a memory file that cannot be read, a patch that does not
// apply, and a shell write it cannot follow block.
func (m MemoryFiles) Plan(in HookInput, home string) HookPlan {
	var plan HookPlan
	for _, p := range in.Unread {
		if m.MatchAny(ResolvePaths(p, in.Cwd, home)) {
			plan.Block = fmt.Sprintf("%s (%s)", in.Problem, p)
			return plan
		}
	}
	writes := in.Writes
	if in.Shell != "" {
		ws, block := m.shellWrites(in.Shell, in.Cwd, home)
		if block != "" {
			plan.Block = "a shell command: " + block
			return plan
		}
		writes = append(append([]HookWrite{}, writes...), ws...)
	}
	for _, w := range writes {
		if w.Standalone {
			// A save_memory fact, or a shell write the gate could not place in a file: gated
			// as it stands.
			plan.Texts, plan.Files = append(plan.Texts, w.Text), append(plan.Files, w.Path)
			continue
		}
		paths := ResolvePaths(w.Path, in.Cwd, home)
		if !m.MatchAny(paths) {
			continue
		}
		plan.Files = append(plan.Files, w.Path)
		target := paths[len(paths)-1]
		before, exists, err := readCurrent(target)
		if err != nil {
			plan.Block = fmt.Sprintf("the memory file %s cannot be read, so the gate cannot tell what it will hold: %v", w.Path, err)
			return plan
		}
		src, srcExists := before, exists
		if w.MoveFrom != "" {
			fp := ResolvePaths(w.MoveFrom, in.Cwd, home)
			src, srcExists, err = readCurrent(fp[len(fp)-1])
			if err != nil {
				plan.Block = fmt.Sprintf("the patch moves %s to the memory file %s, and the gate cannot read it: %v", w.MoveFrom, w.Path, err)
				return plan
			}
			before = "" // all the moved text is new to the memory file
		}
		after, loose, err := w.after(src, srcExists)
		if err != nil {
			plan.Block = fmt.Sprintf("the gate cannot tell what the memory file %s will hold: %v", w.Path, err)
			return plan
		}
		if len(after) > maxCurrentBytes {
			plan.Block = fmt.Sprintf("the memory file %s would be more than %d bytes, more than the gate reads", w.Path, maxCurrentBytes)
			return plan
		}
		if t := ChangedText(before, after); t != "" {
			plan.Texts = append(plan.Texts, t)
		}
		plan.Texts = append(plan.Texts, loose...)
	}
	return plan
}

// maxEditWork bounds the bytes the hook may search and copy to apply one tool call's edits in
// sequence when the fast way does not apply (each edit searches the file as the edits before
// it left it): past it the hook blocks. About 1.5 s of work on the 2-core machine.
const maxEditWork = 1 << 30

// errEditWork is the block past maxEditWork.
var errEditWork = fmt.Errorf("the edits are too many for the gate to follow on a file this large (more than %d bytes of work); make fewer edits at a time", maxEditWork)

// applyEdits applies edits in sequence to text, each to the first occurrence of its old text
// in the text the edits before it left (or every occurrence), as Claude Code's MultiEdit and
// Gemini CLI's replace do. An edit whose old text is not there adds its new text to loose.
//
// It takes time linear in the text and the edits when the edits replace single occurrences
// far enough apart that none can meet the text another put in (fastEdits); otherwise it
// applies them one by one, within maxEditWork.
func applyEdits(text string, edits []HookEdit) (string, []string, error) {
	if out, loose, ok := fastEdits(text, edits); ok {
		return out, loose, nil
	}
	var loose []string
	work := 0
	for _, e := range edits {
		work += len(text) + len(e.New)
		if work > maxEditWork {
			return "", nil, errEditWork
		}
		switch {
		case e.Old == "":
			text = e.New + text
		case !strings.Contains(text, e.Old):
			loose = append(loose, e.New)
		case e.All:
			work += len(text)
			text = strings.ReplaceAll(text, e.Old, e.New)
		default:
			text = strings.Replace(text, e.Old, e.New, 1)
		}
	}
	return text, loose, nil
}

// fastEdits applies edits that each replace one occurrence, in linear time, when it can show
// that the result is the one of applying them in sequence: a suffix array of text gives each
// old text's occurrences; an edit takes the first one that no earlier edit replaced; and no
// old text occurs in the neighbourhood of a replaced span (its new text with the original
// text around it, as wide as the longest old text), and no two replaced spans are nearer than
// that, so the text an edit put in can never be part of a later edit's match. ok is false
// when that cannot be shown, and the caller applies the edits one by one.
func fastEdits(text string, edits []HookEdit) (string, []string, bool) {
	if len(edits) < 8 {
		return "", nil, false
	}
	width := 0
	for _, e := range edits {
		if e.All || e.Old == "" || strings.IndexByte(e.Old, 0) >= 0 {
			return "", nil, false
		}
		width = max(width, len(e.Old))
	}
	sa := suffixarray.New([]byte(text))
	type span struct{ start, end, edit int }
	var spans []span
	var loose []string
	var used []span
	seen := 0
	for k, e := range edits {
		pos := sa.Lookup([]byte(e.Old), -1)
		if seen += len(pos); seen > 4*len(text)+len(edits) {
			return "", nil, false // old texts that occur everywhere: one by one, within the bound
		}
		slices.Sort(pos)
		chosen := -1
		for _, p := range pos {
			free := true
			for _, u := range used {
				if p < u.end && u.start < p+len(e.Old) {
					free = false
					break
				}
			}
			if free {
				chosen = p
				break
			}
		}
		if chosen < 0 {
			if len(pos) > 0 {
				return "", nil, false // only inside text an edit replaced: one by one
			}
			loose = append(loose, e.New)
			continue
		}
		s := span{chosen, chosen + len(e.Old), k}
		spans = append(spans, s)
		used = append(used, s)
		if len(used) > 64 {
			// Keep the overlap check cheap: spans far apart are checked after sorting below.
			used = used[len(used)-64:]
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	for i := 1; i < len(spans); i++ {
		if spans[i].start-spans[i-1].end < width {
			return "", nil, false
		}
	}
	// The neighbourhoods of the replaced spans, one suffix array for all: no old text may
	// occur in one.
	var nb strings.Builder
	for _, s := range spans {
		nb.WriteString(text[max(0, s.start-width):s.start])
		nb.WriteString(edits[s.edit].New)
		nb.WriteString(text[s.end:min(len(text), s.end+width)])
		nb.WriteByte(0)
	}
	nsa := suffixarray.New([]byte(nb.String()))
	for _, e := range edits {
		if len(nsa.Lookup([]byte(e.Old), 1)) > 0 {
			return "", nil, false
		}
	}
	var b strings.Builder
	b.Grow(len(text))
	at := 0
	for _, s := range spans {
		b.WriteString(text[at:s.start])
		b.WriteString(edits[s.edit].New)
		at = s.end
	}
	b.WriteString(text[at:])
	return b.String(), loose, true
}
