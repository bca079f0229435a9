package gate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShellWrites: what a shell command writes to memory files, read with the shell parser.
// want is the texts gated, joined by "|"; block a part of the reason to block.
func TestShellWrites(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("Acme was sold.\n"), 0o600)
	os.Mkdir(filepath.Join(dir, "memory"), 0o755)
	os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("# Notes\n"), 0o600)
	mem, _ := ParseMemoryFiles(DefaultMemoryFiles)
	tests := []struct {
		cmd, want, block string
	}{
		{`go test ./...`, "", ""},
		{`cat CLAUDE.md | grep Acme`, "", ""},
		{`git diff CLAUDE.md`, "", ""},
		{`echo hi > out.txt`, "", ""},
		{`echo "Acme was sold." >> CLAUDE.md`, "CLAUDE.md:Acme was sold.\n", ""},
		{`echo Acme was sold. >> CLAU""DE.md`, "CLAUDE.md:Acme was sold.\n", ""},
		{`echo x >> 'CLAUDE'.md`, "CLAUDE.md:x\n", ""},
		{`echo x >> CLAU\DE.md`, "CLAUDE.md:x\n", ""},
		{`echo x >> CLAUD?.md`, "CLAUD?.md:x\n", ""},
		{`echo x >> "CLAUD?.md"`, "", ""}, // quoted: a literal name, no memory file
		{`echo x >> [C]LAUDE.md`, "[C]LAUDE.md:x\n", ""},
		{`echo x >> *.md`, "*.md:x\n", ""},
		{`echo x >> CLAUDE.{md,txt}`, "CLAUDE.md:x\n", ""},
		{`echo x > ~/.gemini/GEMINI.md`, "GEMINI.md:x\n", ""},
		{`printf 'a\nb\n' > AGENTS.md`, "AGENTS.md:a\nb\n", ""},
		{`printf '%s\n' "$X" > AGENTS.md`, "", "writes what the gate cannot read to the memory file AGENTS.md"},
		{`echo "$X" > AGENTS.md`, "", "writes what the gate cannot read"},
		{`echo x > "$F"`, "a word with a variable or a command substitution:x\n", ""},
		{`curl -s https://x.example > "$F"`, "", "to a file it cannot name"},
		{"cat > CLAUDE.md <<'EOF'\n# Notes\nAcme was sold.\nEOF", "CLAUDE.md:# Notes\nAcme was sold.\n", ""},
		{"cat <<EOF >> CLAUDE.md\n$(date)\nEOF", "", "writes what the gate cannot read"},
		{`cat <<< "Acme was sold." > memory/a.md`, "a.md:Acme was sold.\n", ""},
		{`echo Acme was sold. | tee -a CLAUDE.md`, "CLAUDE.md:Acme was sold.\n", ""},
		{`some-tool | tee CLAUDE.md`, "", "tee writes what the gate cannot read"},
		{`cp notes.md AGENTS.md`, "AGENTS.md:Acme was sold.\n", ""},
		{`mv notes.md memory/`, "notes.md:Acme was sold.\n", ""},
		{`cp missing.md AGENTS.md`, "", "cp writes what the gate cannot read"},
		{`ln -s notes.md CLAUDE.local.md`, "CLAUDE.local.md:Acme was sold.\n", ""},
		{`sed -i 's/a/b/' CLAUDE.md`, "", "sed edits CLAUDE.md in place"},
		{`sed 's/a/b/' CLAUDE.md`, "", ""},
		{`perl -pi -e 's/a/b/' AGENTS.md`, "", "perl edits AGENTS.md in place"},
		{`python3 -c "open('CLAUDE.md','a').write('x')"`, "", "names the memory file"},
		{"python3 - <<'EOF'\nopen('MEMORY.md','a').write('x')\nEOF", "", "here-document that names the memory file MEMORY.md"},
		{`bash -c "echo Acme was sold. >> CLAUDE.md"`, "CLAUDE.md:Acme was sold.\n", ""},
		{`sh -c "$CMD"`, "", "sh -c with a script the gate cannot know"},
		{`eval "echo x >> CLAUDE.md"`, "CLAUDE.md:x\n", ""},
		{`cd memory && echo Acme was sold. > a.md`, "a.md:Acme was sold.\n", ""},
		{`cd "$D" && echo x > notes.md`, "notes.md:x\n", ""},
		{`x=$(echo Acme was sold. >> MEMORY.md)`, "MEMORY.md:Acme was sold.\n", ""},
		{`sudo -E tee CLAUDE.md <<< hi`, "CLAUDE.md:hi\n", ""},
		{`echo x 2> CLAUDE.md`, "", "writes what the gate cannot read"},
		{`echo x >&2`, "", ""},
		{`echo x &>> CLAUDE.md`, "CLAUDE.md:x\n", ""},
		{`dd of=CLAUDE.md`, "", "names the memory file"},
		{`if true; then echo x > AGENTS.md; fi`, "AGENTS.md:x\n", ""},
		{`echo x >> AGENTſ.md`, "AGENTſ.md:x\n", ""},
		{`echo x >> CLAUDE` + "\u200c" + `.md`, "CLAUDE\u200c.md:x\n", ""},
	}
	for _, tt := range tests {
		ws, block := mem.shellWrites(tt.cmd, dir, "/home/ana")
		var got []string
		for _, w := range ws {
			got = append(got, filepath.Base(w.Path)+":"+w.Text)
		}
		if g := strings.Join(got, "|"); (tt.block == "") != (block == "") || !strings.Contains(block, tt.block) || (tt.block == "" && g != tt.want) {
			t.Errorf("%q: writes %q, block %q; want %q, block %q", tt.cmd, g, block, tt.want, tt.block)
		}
	}
}

// FuzzShellWrites: reading any command never panics, a write names its path, and a command
// that writes a fact to CLAUDE.md in any of the seed spellings is never let through unread.
func FuzzShellWrites(f *testing.F) {
	for _, s := range []string{`echo x >> CLAU""DE.md`, `echo x >> CLAUD?.md`, "cat > CLAUDE.md <<'EOF'\nx\nEOF", `cp a b`, `tee -a memory/x`, `bash -c 'echo x > AGENTS.md'`} {
		f.Add(s)
	}
	// And every recorded shell command.
	files, _ := filepath.Glob("../testdata/hooks/*/*.json")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var in struct {
			ToolInput struct {
				Command json.RawMessage `json:"command"`
			} `json:"tool_input"`
		}
		var cmd string
		if json.Unmarshal(b, &in) == nil && json.Unmarshal(in.ToolInput.Command, &cmd) == nil && cmd != "" {
			f.Add(cmd)
		}
	}
	mem, _ := ParseMemoryFiles(DefaultMemoryFiles)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, cmd string) {
		ws, _ := mem.shellWrites(cmd, dir, dir)
		for _, w := range ws {
			if w.Path == "" {
				t.Fatalf("%q: a write without a path: %+v", cmd, w)
			}
		}
		// Appending to CLAUDE.md what cmd echoes is gated or blocked, whatever cmd is.
		ws, block := mem.shellWrites("echo Acme was sold. >> CLAUDE.md; "+cmd, dir, dir)
		if block == "" && !strings.Contains(joinTexts(ws), "Acme was sold.") {
			t.Fatalf("%q: the write to CLAUDE.md got lost: %+v", cmd, ws)
		}
	})
}

func joinTexts(ws []HookWrite) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(w.Text)
	}
	return b.String()
}
