package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

func TestImport(t *testing.T) {
	data := t.TempDir()
	ids := regexp.MustCompile(`^b_[0-9a-f]{16}\n(c_[0-9a-f]{16}\n)+$`)
	r := ledgerCmd(t, data, "import", "../../testdata/pastes/labelled-list.txt")
	if r.code != 0 || !ids.MatchString(r.stdout) || r.stderr != "" {
		t.Fatalf("import of a file: %+v", r)
	}
	stdinRun := func(args []string, stdin string) result {
		var out, errOut bytes.Buffer
		e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, getenv: func(k string) string {
			if k == "LEDGER_DATA" {
				return data
			}
			return ""
		}}
		return result{run(context.Background(), args, e), out.String(), errOut.String()}
	}
	paste := "Claim: Acme was founded in 1999.\nSource: https://acme.example/about\nQuote: Acme was founded in 1999\n"
	for _, args := range [][]string{{"import", "-"}, {"import"}} {
		r := stdinRun(args, paste)
		if r.code != 0 || !ids.MatchString(r.stdout) || strings.Count(r.stdout, "\n") != 2 {
			t.Fatalf("%v from stdin: %+v", args, r)
		}
	}
	before := ledgerCmd(t, data, "audit")
	tests := []struct {
		desc  string
		args  []string
		stdin string
		code  int
		want  string
	}{
		{"missing file", []string{"import", "no-such-file.md"}, "", 1, "no such file"},
		{"two files", []string{"import", "a", "b"}, "", 2, "want: ledger import"},
		{"nothing usable", []string{"import", "-"}, "Thanks! Anything else?", 1, "no claim"},
		{"binary", []string{"import", "-"}, "\x89PNG\r\n\x1a\n\x00\x00", 1, "not text"},
		{"too large", []string{"import", "-"}, strings.Repeat("x", 2<<20+1), 1, "smaller files"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			r := stdinRun(tt.args, tt.stdin)
			if r.code != tt.code || r.stdout != "" || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("%+v; want code %d and %q on stderr", r, tt.code, tt.want)
			}
		})
	}
	if after := ledgerCmd(t, data, "audit"); after.stdout != before.stdout || after.code != 0 {
		t.Fatalf("refused imports changed the chain:\n%s\n%s", before.stdout, after.stdout)
	}
}
