package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGateHookReproductions runs the recorded hook inputs of testdata/hooks/repro, each in a
// folder laid out as its .files says ("-- PATH --" then the content; "-- PATH -> TARGET --"
// a symbolic link), with @CWD@ standing for that folder. Each blocked row is a way a tool
// call used to write an unverified fact into a memory file with exit 0 (docs/gate.md,
// "Hooks"); the allowed rows are what must still pass.
func TestGateHookReproductions(t *testing.T) {
	data := gateData(t)
	allowed := map[string]bool{
		"edit-hard-wrap-verified": true, "bash-variable-target-text": true, "bash-append-instruction": true, "bash-read-memory": true,
	}
	why := map[string]string{
		"bash-sed-in-place":     "sed edits CLAUDE.md in place",
		"bash-unknown-text":     "writes what the gate cannot read to the memory file CLAUDE.md",
		"edit-hard-wrap":        `"Acme was founded in 1999 in York.": no source of record`,
		"multiedit-in-sequence": `"Beta bought Acme.": no source of record`,
	}
	files, _ := filepath.Glob("../../testdata/hooks/repro/*.json")
	if len(files) < 25 {
		t.Fatalf("found %d reproductions", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			cwd := layOut(t, strings.TrimSuffix(file, ".json")+".files")
			in, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			r := gateRun(t, data, strings.ReplaceAll(string(in), "@CWD@", cwd), "--hook")
			want, reason := 2, why[name]
			if allowed[name] {
				want = 0
			} else if reason == "" {
				reason = "no source of record"
			}
			if r.code != want || !strings.Contains(r.stderr, reason) {
				t.Fatalf("code %d, stderr %q; want %d with %q", r.code, r.stderr, want, reason)
			}
		})
	}
}

// layOut makes a folder with the files and links a .files layout names.
func layOut(t *testing.T, layout string) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(layout)
	if err != nil {
		t.Fatal(err)
	}
	var name string
	var body strings.Builder
	flush := func() {
		if name == "" {
			return
		}
		p, target, link := strings.Cut(name, " -> ")
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if link {
			err = os.Symlink(target, full)
		} else {
			err = os.WriteFile(full, []byte(body.String()), 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
		body.Reset()
	}
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if strings.HasPrefix(l, "-- ") && strings.HasSuffix(l, " --\n") {
			flush()
			name = strings.TrimSuffix(strings.TrimPrefix(l, "-- "), " --\n")
			continue
		}
		body.WriteString(l)
	}
	flush()
	return dir
}
