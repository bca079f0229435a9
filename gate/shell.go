// Shell commands read for what they write, in one file: one walk of the parsed tree
// (mvdan.cc/sh) decides on redirects and on the arguments of each writing command; the
// cases are a table of commands whose rules only make sense side by side.

package gate

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// shellWord is a word of a command as the shell will expand it, as far as the gate can tell:
// its text with quotes removed, the same as a glob pattern when an unquoted *, ? or [ makes
// it one, and whether it holds an expansion the gate cannot know (a variable, a command
// substitution, arithmetic).
type shellWord struct {
	text, glob string
	unknown    bool
}

// shellScan reads a shell command for what it writes to memory files (docs/gate.md, "Shell
// commands"). It collects the writes it can read and the first reason to block.
type shellScan struct {
	m         MemoryFiles
	home      string
	dirs      []string // the folders commands may run in; "" for one the gate cannot know
	writes    []HookWrite
	block     string
	piped     map[*syntax.Stmt]*syntax.Stmt // a command -> the command whose output it reads
	depth     int
	readBytes int
}

// maxShellDepth bounds how deep bash -c, sh -c and eval are read.
const maxShellDepth = 4

// shellWrites reads a shell command run in cwd and returns the writes it makes to files that
// may be memory files, or why it blocks.
func (m MemoryFiles) shellWrites(cmd, cwd, home string) ([]HookWrite, string) {
	sc := &shellScan{m: m, home: home, dirs: []string{cwd}, piped: map[*syntax.Stmt]*syntax.Stmt{}}
	sc.script(cmd)
	return sc.writes, sc.block
}

func (sc *shellScan) fail(format string, args ...any) {
	if sc.block == "" {
		sc.block = fmt.Sprintf(format, args...)
	}
}

// script parses and reads a whole script.
func (sc *shellScan) script(cmd string) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		// Not a script the parser reads: blocked when its words may name a memory file.
		for _, w := range rePathish.FindAllString(cmd, -1) {
			if sc.mayBeMemory(shellWord{text: strings.Trim(w, "`$")}) {
				sc.fail("a shell command the gate cannot parse (%v) names a memory file (%s)", err, w)
				return
			}
		}
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if b, ok := n.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
			sc.piped[b.Y] = b.X
		}
		return true
	})
	syntax.Walk(f, func(n syntax.Node) bool {
		if st, ok := n.(*syntax.Stmt); ok {
			sc.stmt(st)
		}
		return true
	})
}

// words expands a command's words.
func (sc *shellScan) words(ws []*syntax.Word) []shellWord {
	var out []shellWord
	for _, w := range ws {
		out = append(out, sc.expandWord(w)...)
	}
	return out
}

// expandWord expands one word: braces, a leading ~, quotes; globs are kept as patterns.
func (sc *shellScan) expandWord(w *syntax.Word) []shellWord {
	cp := &syntax.Word{Parts: append([]syntax.WordPart{}, w.Parts...)}
	var alts []*syntax.Word
	if syntax.SplitBraces(cp) {
		for a, err := range expand.BracesSeq(nil, cp) {
			if err != nil || len(alts) >= 256 {
				return []shellWord{{unknown: true}}
			}
			alts = append(alts, a)
		}
	} else {
		alts = []*syntax.Word{cp}
	}
	var out []shellWord
	for _, a := range alts {
		var text, glob strings.Builder
		sw := shellWord{}
		isGlob := false
		var part func(p syntax.WordPart, quoted bool)
		part = func(p syntax.WordPart, quoted bool) {
			switch p := p.(type) {
			case *syntax.Lit:
				v := p.Value
				if !quoted {
					v = unescapeShell(v)
				}
				for _, r := range v {
					text.WriteRune(r)
					if strings.ContainsRune(`*?[\`, r) && (quoted || !strings.ContainsRune("*?[", r)) {
						glob.WriteRune('\\')
					} else if strings.ContainsRune("*?[", r) {
						isGlob = true
					}
					glob.WriteRune(r)
				}
			case *syntax.SglQuoted:
				if p.Dollar {
					sw.unknown = true
					return
				}
				for _, r := range p.Value {
					text.WriteRune(r)
					if strings.ContainsRune(`*?[\`, r) {
						glob.WriteRune('\\')
					}
					glob.WriteRune(r)
				}
			case *syntax.DblQuoted:
				for _, q := range p.Parts {
					part(q, true)
				}
			case *syntax.BraceExp:
				sw.unknown = true
			default:
				sw.unknown = true
			}
		}
		for _, p := range a.Parts {
			part(p, false)
		}
		sw.text = text.String()
		if isGlob {
			sw.glob = glob.String()
		}
		if sw.text == "~" || strings.HasPrefix(sw.text, "~/") {
			if sc.home == "" {
				sw.unknown = true
			}
			sw.text = filepath.Join(sc.home, strings.TrimPrefix(sw.text[1:], "/"))
			if sw.glob != "" {
				sw.glob = filepath.Join(sc.home, strings.TrimPrefix(sw.glob[1:], "/"))
			}
		}
		out = append(out, sw)
	}
	return out
}

// unescapeShell removes the backslashes of an unquoted literal (\x is x).
func unescapeShell(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// readerCommands only read the files they name (without the options that make them write,
// which stmt checks); naming a memory file with one of them writes nothing.
var readerCommands = map[string]bool{"cat": true, "head": true, "tail": true, "less": true, "more": true, "grep": true, "egrep": true,
	"fgrep": true, "rg": true, "wc": true, "ls": true, "stat": true, "file": true, "diff": true, "cmp": true, "md5sum": true,
	"sha1sum": true, "sha256sum": true, "echo": true, "printf": true, "test": true, "[": true, "true": true, "false": true,
	"pwd": true, "realpath": true, "readlink": true, "basename": true, "dirname": true, "jq": true, "nl": true, "od": true,
	"hexdump": true, "strings": true, "sed": true, "tee": true, "cp": true, "mv": true, "cd": true, "rm": true, "touch": true,
	"mkdir": true, "bat": true, "du": true, "find": true}

// gitReaders are the git subcommands that only read.
var gitReaders = map[string]bool{"diff": true, "log": true, "show": true, "status": true, "blame": true, "grep": true, "ls-files": true, "add": true}

// wrappers run the command after them (after their options and assignments).
var wrapperCommands = map[string]bool{"sudo": true, "env": true, "nohup": true, "command": true, "exec": true, "time": true, "builtin": true, "nice": true, "doas": true}

// stmt reads one command: its redirections and, by its name, what it writes.
func (sc *shellScan) stmt(st *syntax.Stmt) {
	if sc.block != "" {
		return
	}
	call, _ := st.Cmd.(*syntax.CallExpr)
	var args []shellWord
	if call != nil {
		args = sc.words(call.Args)
	}
	for len(args) > 0 && !args[0].unknown && wrapperCommands[args[0].text] {
		args = args[1:]
		for len(args) > 0 && (strings.HasPrefix(args[0].text, "-") || strings.Contains(args[0].text, "=")) {
			args = args[1:]
		}
	}
	name := ""
	if len(args) > 0 {
		name = args[0].text
		if args[0].unknown {
			name = "$"
		}
	}
	stdin := sc.stdin(st)
	out := sc.output(st, name, args, stdin)
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob, syntax.RdrInOut, syntax.DplOut:
			if r.Op == syntax.DplOut && r.Word != nil {
				if l := r.Word.Lit(); l == "-" || strings.Trim(l, "0123456789") == "" && l != "" {
					continue // >&2, >&-: a file descriptor
				}
			}
			text := out
			if r.N != nil && r.N.Value != "1" {
				text = nil // another descriptor (2>): what it writes is not known
			}
			app := r.Op == syntax.AppOut || r.Op == syntax.AppClob || r.Op == syntax.AppAll || r.Op == syntax.AppAllClob
			for _, t := range sc.expandWord(r.Word) {
				sc.write(t, text, app, "a redirection")
			}
		}
	}
	if call == nil || name == "" {
		return
	}
	opts, rest := splitOptions(args[1:])
	switch name {
	case "cd":
		if len(rest) == 0 || rest[0].unknown || rest[0].glob != "" {
			sc.dirs = []string{""}
			return
		}
		var dirs []string
		for _, d := range sc.dirs {
			switch {
			case filepath.IsAbs(rest[0].text):
				dirs = append(dirs, filepath.Clean(rest[0].text))
			case d == "":
				dirs = append(dirs, "")
			default:
				dirs = append(dirs, filepath.Join(d, rest[0].text))
			}
		}
		sc.dirs = dirs
	case "tee":
		for _, t := range rest {
			sc.write(t, stdin, hasOpt(opts, "a", "append"), "tee")
		}
	case "cp", "mv", "ln", "install":
		sc.copyLike(name, opts, rest)
	case "sed", "perl", "ruby":
		inPlace := false
		for _, o := range opts {
			inPlace = inPlace || strings.HasPrefix(o, "-i") || strings.HasPrefix(o, "--in-place") || (name != "sed" && strings.Contains(o, "i") && !strings.HasPrefix(o, "--"))
		}
		if inPlace {
			for _, t := range rest {
				if t.unknown || sc.mayBeMemory(t) {
					sc.fail("%s edits %s in place: the gate cannot tell what it writes; edit memory files with the agent's file tools", name, show(t))
					return
				}
			}
		}
		if name != "sed" {
			sc.namesMemory(name, args[1:], st)
		}
	case "bash", "sh", "zsh", "dash", "ksh", "eval":
		script := ""
		switch {
		case name == "eval":
			var parts []string
			for _, a := range args[1:] {
				if a.unknown {
					sc.fail("eval of a text the gate cannot know")
					return
				}
				parts = append(parts, a.text)
			}
			script = strings.Join(parts, " ")
		case hasOpt(opts, "c", ""):
			if len(rest) == 0 || rest[0].unknown {
				sc.fail("%s -c with a script the gate cannot know", name)
				return
			}
			script = rest[0].text
		default:
			sc.namesMemory(name, args[1:], st)
			return
		}
		if sc.depth >= maxShellDepth {
			sc.fail("scripts nested more than %d deep", maxShellDepth)
			return
		}
		sc.depth++
		sc.script(script)
		sc.depth--
	case "apply_patch", "applypatch":
		// The patch in its here-document is read as a patch (ParseHook).
	case "git":
		if len(rest) > 0 && gitReaders[rest[0].text] {
			return
		}
		sc.namesMemory(name, args[1:], st)
	case "sort", "uniq":
		if hasOpt(opts, "o", "output") || (name == "uniq" && len(rest) > 1) {
			sc.namesMemory(name, args[1:], st)
		}
	default:
		if !readerCommands[name] {
			sc.namesMemory(name, args[1:], st)
		}
	}
}

// copyLike reads cp, mv, ln and install: the last word is the target (a folder takes the
// source's name), or the folder after -t; the text is each source file's.
func (sc *shellScan) copyLike(name string, opts []string, rest []shellWord) {
	var dir *shellWord
	for _, o := range opts {
		if strings.HasPrefix(o, "-t") || strings.HasPrefix(o, "--target-directory") {
			dir = &shellWord{unknown: true} // the folder is the option's value, read as unknown
		}
	}
	if dir == nil && len(rest) < 2 {
		return
	}
	srcs := rest
	var dst shellWord
	if dir != nil {
		dst = *dir
	} else {
		srcs, dst = rest[:len(rest)-1], rest[len(rest)-1]
	}
	for _, src := range srcs {
		target := dst
		if !dst.unknown && dst.glob == "" && (len(srcs) > 1 || strings.HasSuffix(dst.text, "/") || sc.isDir(dst.text)) {
			if src.unknown || src.glob != "" {
				target = shellWord{unknown: true}
			} else {
				target = shellWord{text: filepath.Join(dst.text, filepath.Base(src.text))}
			}
		}
		var text *string
		if !src.unknown && src.glob == "" {
			text = sc.readFile(src.text)
		}
		sc.write(target, text, false, name)
	}
}

// write records a write of text (nil when the gate cannot know it) to target.
func (sc *shellScan) write(target shellWord, text *string, app bool, how string) {
	if target.text == "/dev/null" || target.text == "/dev/stdout" || target.text == "/dev/stderr" {
		return
	}
	if target.unknown {
		if text == nil {
			sc.fail("%s writes what the gate cannot read to a file it cannot name (%s); write memory with the agent's file tools", how, show(target))
			return
		}
		sc.writes = append(sc.writes, HookWrite{Path: show(target), Text: *text, Standalone: true})
		return
	}
	if target.glob != "" {
		if !sc.mayBeMemory(target) {
			return
		}
		if text == nil {
			sc.fail("%s writes what the gate cannot read to %s, which may name a memory file", how, show(target))
			return
		}
		sc.writes = append(sc.writes, HookWrite{Path: show(target), Text: *text, Standalone: true})
		return
	}
	for _, d := range sc.dirs {
		p := target.text
		if d == "" && !filepath.IsAbs(p) {
			// A relative path in a folder the gate cannot know (cd "$D"): any file.
			if text == nil {
				sc.fail("%s writes what the gate cannot read to %s in a folder the gate cannot know", how, p)
				return
			}
			sc.writes = append(sc.writes, HookWrite{Path: p, Text: *text, Standalone: true})
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(d, p)
		}
		if !sc.m.MatchAny(ResolvePaths(p, d, sc.home)) {
			continue
		}
		if text == nil {
			sc.fail("%s writes what the gate cannot read to the memory file %s; write memory with the agent's file tools", how, target.text)
			return
		}
		sc.writes = append(sc.writes, HookWrite{Path: p, Text: *text, Append: app})
	}
}

// namesMemory blocks a command the gate cannot read when one of its words, or the text of a
// here-document it reads, may name a memory file.
func (sc *shellScan) namesMemory(name string, args []shellWord, st *syntax.Stmt) {
	for _, a := range args {
		if !a.unknown && sc.mayBeMemory(a) {
			sc.fail("the command %s names the memory file %s: the gate cannot tell what it writes; write memory with the agent's file tools", name, show(a))
			return
		}
		for _, tok := range rePathish.FindAllString(a.text, -1) {
			if tok != a.text && sc.mayBeMemory(shellWord{text: tok}) {
				sc.fail("the command %s names the memory file %s: the gate cannot tell what it writes", name, tok)
				return
			}
		}
	}
	for _, r := range st.Redirs {
		if r.Hdoc == nil {
			continue
		}
		for _, tok := range rePathish.FindAllString(wordSource(r.Hdoc), -1) {
			if sc.mayBeMemory(shellWord{text: tok}) {
				sc.fail("the command %s reads a here-document that names the memory file %s: the gate cannot tell what it writes", name, tok)
				return
			}
		}
	}
}

// stdin is what a command reads on standard input, when the gate can know it: a
// here-document or here-string, a file redirected in, or the output of the command piped
// into it.
func (sc *shellScan) stdin(st *syntax.Stmt) *string {
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			ws := sc.expandWord(r.Hdoc)
			if len(ws) != 1 || ws[0].unknown {
				return nil
			}
			t := ws[0].text
			if r.Op == syntax.DashHdoc {
				var ls []string
				for _, l := range strings.Split(t, "\n") {
					ls = append(ls, strings.TrimLeft(l, "\t"))
				}
				t = strings.Join(ls, "\n")
			}
			return &t
		case syntax.WordHdoc:
			ws := sc.expandWord(r.Word)
			if len(ws) != 1 || ws[0].unknown {
				return nil
			}
			t := ws[0].text + "\n"
			return &t
		case syntax.RdrIn:
			ws := sc.expandWord(r.Word)
			if len(ws) != 1 || ws[0].unknown || ws[0].glob != "" {
				return nil
			}
			return sc.readFile(ws[0].text)
		}
	}
	if x, ok := sc.piped[st]; ok {
		call, _ := x.Cmd.(*syntax.CallExpr)
		if call == nil {
			return nil
		}
		args := sc.words(call.Args)
		if len(args) == 0 || args[0].unknown {
			return nil
		}
		return sc.output(x, args[0].text, args, sc.stdin(x))
	}
	return nil
}

// output is what a command writes on standard output, when the gate can know it: echo of
// known words, printf of a format without %, cat of known files or of its input, tee of its
// input.
func (sc *shellScan) output(st *syntax.Stmt, name string, args []shellWord, stdin *string) *string {
	if _, ok := st.Cmd.(*syntax.CallExpr); !ok {
		return nil
	}
	for _, a := range args {
		if a.unknown || a.glob != "" {
			return nil
		}
	}
	switch name {
	case "echo":
		ws, nl := args[1:], true
		for len(ws) > 0 && (ws[0].text == "-n" || ws[0].text == "-e" || ws[0].text == "-E" || ws[0].text == "-ne" || ws[0].text == "-en") {
			nl = nl && !strings.Contains(ws[0].text, "n")
			ws = ws[1:]
		}
		var parts []string
		for _, w := range ws {
			parts = append(parts, w.text)
		}
		t := strings.Join(parts, " ")
		if nl {
			t += "\n"
		}
		return &t
	case "printf":
		if len(args) < 2 || strings.Contains(args[1].text, "%") {
			return nil
		}
		t := strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace(args[1].text)
		return &t
	case "cat", "tee":
		_, files := splitOptions(args[1:])
		if name == "tee" || len(files) == 0 || len(files) == 1 && files[0].text == "-" {
			return stdin
		}
		var b strings.Builder
		for _, f := range files {
			t := sc.readFile(f.text)
			if t == nil {
				return nil
			}
			b.WriteString(*t)
		}
		t := b.String()
		return &t
	}
	return nil
}

// readFile reads a file a command names, from the folder the command runs in; nil when it
// cannot (unknown folder, no such file, too large: 2 MiB in all).
func (sc *shellScan) readFile(p string) *string {
	if len(sc.dirs) != 1 || (sc.dirs[0] == "" && !filepath.IsAbs(p)) {
		return nil
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(sc.dirs[0], p)
	}
	t, exists, err := readCurrent(p)
	if err != nil || !exists || sc.readBytes+len(t) > maxCurrentBytes {
		return nil
	}
	sc.readBytes += len(t)
	return &t
}

func (sc *shellScan) isDir(p string) bool {
	for _, d := range sc.dirs {
		if d == "" && !filepath.IsAbs(p) {
			return true // it may be
		}
		q := p
		if !filepath.IsAbs(q) {
			q = filepath.Join(d, q)
		}
		if fi, err := os.Stat(q); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// mayBeMemory reports whether a word may name a memory file: its path (from each folder the
// command may run in) matches a pattern, or, for a glob, the glob may match a name a
// pattern matches (see [MemoryFiles.globMayMatch]).
func (sc *shellScan) mayBeMemory(w shellWord) bool {
	if w.unknown {
		return false
	}
	if w.glob != "" {
		return sc.m.globMayMatch(w.glob)
	}
	for _, d := range sc.dirs {
		if sc.m.MatchAny(ResolvePaths(w.text, d, sc.home)) {
			return true
		}
	}
	return false
}

// globMayMatch reports whether a shell glob may match a path the patterns match: some
// segment of the glob matches a name made from a pattern's segment (its * read as nothing
// and as a letter), or the other way round. It errs towards yes.
func (m MemoryFiles) globMayMatch(glob string) bool {
	gsegs := strings.Split(foldName(strings.ReplaceAll(glob, `\`, "/")), "/")
	for _, p := range m {
		for _, ps := range strings.Split(p, "/") {
			if ps == "**" || ps == "" {
				continue
			}
			for _, gs := range gsegs {
				if gs == "" {
					continue
				}
				for _, name := range globSamples(ps) {
					if ok, _ := path.Match(gs, name); ok {
						return true
					}
				}
				for _, name := range globSamples(gs) {
					if ok, _ := path.Match(ps, name); ok {
						return true
					}
				}
			}
		}
	}
	return false
}

// globSamples are names a glob segment matches: * as nothing and as "x", ? as "x", a class
// as its first member.
func globSamples(seg string) []string {
	var a, b strings.Builder
	for i := 0; i < len(seg); i++ {
		switch c := seg[i]; c {
		case '*':
			b.WriteByte('x')
		case '?':
			a.WriteByte('x')
			b.WriteByte('x')
		case '[':
			j := strings.IndexByte(seg[i:], ']')
			if j < 2 {
				a.WriteByte(c)
				b.WriteByte(c)
				continue
			}
			first := seg[i+1]
			if first == '!' || first == '^' {
				first = '#'
			}
			a.WriteByte(first)
			b.WriteByte(first)
			i += j
		case '\\':
			if i+1 < len(seg) {
				i++
				a.WriteByte(seg[i])
				b.WriteByte(seg[i])
			}
		default:
			a.WriteByte(c)
			b.WriteByte(c)
		}
	}
	return []string{a.String(), b.String()}
}

// splitOptions splits words into options (starting with -, up to --) and the rest.
func splitOptions(ws []shellWord) ([]string, []shellWord) {
	var opts []string
	var rest []shellWord
	done := false
	for _, w := range ws {
		switch {
		case done || w.unknown || !strings.HasPrefix(w.text, "-") || w.text == "-":
			rest = append(rest, w)
		case w.text == "--":
			done = true
		default:
			opts = append(opts, w.text)
		}
	}
	return opts, rest
}

// hasOpt reports whether opts hold the short option (alone or among others: -ac) or the
// long one.
func hasOpt(opts []string, short, long string) bool {
	for _, o := range opts {
		if long != "" && (o == "--"+long || strings.HasPrefix(o, "--"+long+"=")) {
			return true
		}
		if short != "" && !strings.HasPrefix(o, "--") && strings.Contains(o[1:], short) {
			return true
		}
	}
	return false
}

// show is a word as a reason names it.
func show(w shellWord) string {
	if w.unknown {
		if w.text != "" {
			return w.text + "…"
		}
		return "a word with a variable or a command substitution"
	}
	return w.text
}

// wordSource is the literal text of a word's parts, expansions left out.
func wordSource(w *syntax.Word) string {
	var b strings.Builder
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Lit:
			b.WriteString(n.Value)
		case *syntax.SglQuoted:
			b.WriteString(n.Value)
		}
		return true
	})
	return b.String()
}
