package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// gateData is a data directory whose ledger holds one claim found at its source (through a
// manual seam a person resolved) and one only reported.
func gateData(t *testing.T) string {
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
	res, err := evidence.ParseRequest(paste)
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

func TestGateCommand(t *testing.T) {
	data := gateData(t)
	dir := t.TempDir()
	allowed := filepath.Join(dir, "allowed.md")
	blocked := filepath.Join(dir, "blocked.md")
	os.WriteFile(allowed, []byte("# Acme\n\n- Acme was founded in 1999.\n"), 0o600)
	os.WriteFile(blocked, []byte("Acme was founded in 1999.\nAcme employs 40 people.\n"), 0o600)
	hook := func(path, field, text string) string {
		return `{"tool_name":"Write","tool_input":{"file_path":"` + path + `","` + field + `":"` + text + `"}}`
	}
	tests := []struct {
		desc         string
		args         []string
		stdin        string
		code         int
		stdout, errs string
	}{
		{"file allowed", []string{"gate", allowed}, "", 0, `{"allow":true`, ""},
		{"file blocked: the reported claim", []string{"gate", blocked}, "", 2, `{"allow":false`, `"Acme employs 40 people.": ledger claim c_`},
		{"stdin allowed", []string{"gate", "-"}, "Acme was founded in 1999.", 0, `"matched":["c_`, ""},
		{"stdin without argument, no source", []string{"gate"}, "Acme was sold in 2021.", 2, `"allow":false`, "no source of record"},
		{"min strength above the claim's", []string{"gate", "--min-strength", "medium", allowed}, "", 2, `"allow":false`, "below the minimum medium"},
		{"empty text is allowed with a note", []string{"gate", "-"}, "", 0, `"note":"the text states nothing`, ""},
		{"missing file", []string{"gate", filepath.Join(dir, "nope.md")}, "", 1, "", "no such file"},
		{"not text", []string{"gate", "-"}, "\x00\x01", 1, "", "not text"},
		{"bad strength", []string{"gate", "--min-strength", "strong", "-"}, "", 2, "", "want low, medium or high"},
		{"two files", []string{"gate", allowed, blocked}, "", 2, "", "want: ledger gate"},
		{"hook: memory file blocked", []string{"gate", "--hook"}, hook("/p/MEMORY.md", "content", "Acme was sold in 2021."), 2, "", "blocked: \"Acme was sold in 2021.\": no source of record"},
		{"hook: AGENTS.md blocked", []string{"gate", "--hook"}, hook("/x/AGENTS.md", "content", "Acme employs 40 people."), 2, "", "blocked: \"Acme employs 40 people.\": ledger claim c_"},
		{"hook: AGENTS.md edit blocked", []string{"gate", "--hook"}, hook(`C:\\x\\AGENTS.md`, "new_string", "Acme was sold in 2021."), 2, "", "no source of record"},
		{"hook: memory file allowed", []string{"gate", "--hook"}, hook("/p/memory/acme.md", "new_string", "Acme was founded in 1999."), 0, "", ""},
		{"hook: multi-edit, one edit unverified", []string{"gate", "--hook"},
			`{"tool_name":"MultiEdit","tool_input":{"file_path":"a.memory.md","edits":[{"new_string":"Acme was founded in 1999."},{"new_string":"Acme employs 40 people."}]}}`, 2, "", "Acme employs 40 people."},
		{"hook: other file allowed", []string{"gate", "--hook"}, hook("/p/main.go", "content", "Acme was sold in 2021."), 0, "", ""},
		{"hook: own patterns", []string{"gate", "--hook", "--memory-files", "**/*.go"}, hook("/p/main.go", "content", "Acme was sold in 2021."), 2, "", "no source of record"},
		{"hook: malformed JSON blocks", []string{"gate", "--hook"}, `{"tool_input":`, 2, "", "not a JSON object"},
		{"hook: a write with no path blocks", []string{"gate", "--hook"}, `{"tool_input":{"content":"x"}}`, 2, "", "names no file_path"},
		{"hook: a file argument is refused", []string{"gate", "--hook", allowed}, "", 2, "", "want: ledger gate"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			var out, errOut bytes.Buffer
			e := &env{stdin: strings.NewReader(tt.stdin), stdout: &out, stderr: &errOut, getenv: func(k string) string {
				if k == "LEDGER_DATA" {
					return data
				}
				return ""
			}}
			code := run(context.Background(), tt.args, e)
			if code != tt.code || !strings.Contains(out.String(), tt.stdout) || !strings.Contains(errOut.String(), tt.errs) {
				t.Fatalf("code %d, stdout %q, stderr %q; want %d, %q, %q", code, out.String(), errOut.String(), tt.code, tt.stdout, tt.errs)
			}
			if strings.Contains(strings.Join(tt.args, " "), "--hook") && out.Len() != 0 {
				t.Fatalf("hook mode wrote to stdout: %q", out.String())
			}
			if code == 0 && errOut.Len() != 0 {
				t.Fatalf("allowed with stderr %q", errOut.String())
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
