package verify

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"evidenceledger/evidence"
)

func TestParseHook(t *testing.T) {
	tests := []struct {
		file  string
		path  string
		texts []string
		err   string
	}{
		{"write-memory.json", "/home/u/proj/MEMORY.md", []string{"# Facts\n\n- Acme was founded in 1999.\n"}, ""},
		{"edit.json", "/home/u/proj/memory/acme.md", []string{"Acme was founded in 1999."}, ""},
		{"multiedit.json", "notes.memory.md", []string{"Acme employs 40 people.", "Acme was founded in 1999."}, ""},
		{"write-code.json", "/home/u/proj/main.go", []string{"package main\n"}, ""},
		{"bash.json", "", nil, ""},
		{"no-path.json", "", nil, "names no file_path"},
		{"truncated.json", "", nil, "not a JSON object"},
		{"content-number.json", "", nil, "tool_input.content is not a JSON string"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("../testdata/gate/hook", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			in, err := ParseHook(data)
			if tt.err != "" {
				if err == nil || !errors.Is(err, ErrGate) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v; want ErrGate with %q", err, tt.err)
				}
				return
			}
			if err != nil || in.FilePath != tt.path || !reflect.DeepEqual(in.Texts, tt.texts) {
				t.Fatalf("%+v %v; want %q %q", in, err, tt.path, tt.texts)
			}
		})
	}
	for desc, in := range map[string]string{
		"two objects":            `{"tool_input":{}} {}`,
		"tool_input a string":    `{"tool_input":"x"}`,
		"edits not an array":     `{"tool_input":{"file_path":"a","edits":{"new_string":"x"}}}`,
		"not UTF-8":              "{\"tool_input\":{\"file_path\":\"a\",\"content\":\"\xff\"}}",
		"an array":               `[]`,
		"file_path not string":   `{"tool_input":{"file_path":1,"content":"x"}}`,
		"edit new_string bool":   `{"tool_input":{"file_path":"a","edits":[{"new_string":true}]}}`,
		"empty input":            ``,
		"tool_name not a string": `{"tool_name":{}}`,
	} {
		if _, err := ParseHook([]byte(in)); !errors.Is(err, ErrGate) {
			t.Errorf("%s: err %v; want ErrGate", desc, err)
		}
	}
	// A caller reads at most some bytes more than the limit, so the size it passes is not the
	// input's size: the error names the limit and what to do, never a size it did not see.
	big := `{"tool_input":{"file_path":"MEMORY.md","content":"` + strings.Repeat("a", maxHookBytes) + `"}}`
	_, err := ParseHook([]byte(big))
	if want := fmt.Sprintf("the hook input is more than %d bytes; write the memory file in smaller pieces", maxHookBytes); !errors.Is(err, ErrGate) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), fmt.Sprint(len(big))) {
		t.Errorf("too large: err %v; want ErrGate saying %q", err, want)
	}
}

func FuzzParseHook(f *testing.F) {
	files, err := filepath.Glob("../testdata/gate/hook/*.json")
	if err != nil || len(files) == 0 {
		f.Fatalf("seeds in ../testdata/gate/hook: %v (%d files)", err, len(files))
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseHook(data)
		if err != nil {
			if !errors.Is(err, ErrGate) {
				t.Fatalf("error does not wrap ErrGate: %v", err)
			}
			return
		}
		if len(in.Texts) > 0 && strings.TrimSpace(in.FilePath) == "" {
			t.Fatalf("texts without a file path passed: %+v", in)
		}
		for _, s := range in.Texts {
			if !utf8.ValidString(s) {
				t.Fatalf("text not UTF-8: %q", s)
			}
			GateClaims(s)
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
		{"AGENTS.md at the root", "AGENTS.md", true},
		{"AGENTS.md in a subproject", "/home/u/proj/services/api/AGENTS.md", true},
		{"agents.md in lower case", "/home/u/proj/agents.md", true},
		{"AGENTS.md.orig is not AGENTS.md", "/home/u/proj/AGENTS.md.orig", false},
		{"a folder named AGENTS.md is not the file's name", "/home/u/proj/AGENTS.md/notes.txt", false},
		{"empty path", "", false},
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
	for p, want := range map[string]bool{"notes/a.md": true, "x/notes/a.md": false, "a/b/knowledge.txt": true, "notes/a/b.md": false} {
		if own.Match(p) != want {
			t.Errorf("own patterns: Match(%q) != %v", p, want)
		}
	}
	for _, bad := range []string{"", " , ", "memory/[a-"} {
		if _, err := ParseMemoryFiles(bad); !errors.Is(err, ErrGate) {
			t.Errorf("ParseMemoryFiles(%q): %v; want ErrGate", bad, err)
		}
	}
}

func TestParseMinStrength(t *testing.T) {
	for in, want := range map[string]evidence.Strength{"": "", "LOW": "low", " medium ": "medium", "high": "high"} {
		if got, err := ParseMinStrength(in); err != nil || got != want {
			t.Errorf("ParseMinStrength(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseMinStrength("strong"); !errors.Is(err, ErrGate) {
		t.Errorf("ParseMinStrength(strong): %v", err)
	}
}

func TestGateClaimsOfPastes(t *testing.T) {
	// Every claim the research parser finds is a gate claim; the gate adds only sentences
	// the parser left out.
	files, _ := filepath.Glob("../testdata/pastes/*.md")
	if len(files) == 0 {
		t.Fatal("no pastes in ../testdata/pastes")
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		res, err := evidence.ParseResearch(string(b))
		if err != nil {
			t.Fatal(err)
		}
		got := GateClaims(string(b))
		if len(got) < len(res.Claims) || !reflect.DeepEqual(got[:len(res.Claims)], res.Claims) {
			t.Fatalf("%s: gate claims do not start with the parser's", file)
		}
		for _, c := range got[len(res.Claims):] {
			if c.Citations[0].Note != evidence.NoteNoSource {
				t.Fatalf("%s: an added claim has a source: %+v", file, c)
			}
		}
	}
}
