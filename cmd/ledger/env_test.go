package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestFlagsFromEnvironment: every flag may be given as LEDGER_<NAME>; the command line wins
// over the environment, which wins over the default; a bad value names its variable; the
// help lists each flag's variable.
func TestFlagsFromEnvironment(t *testing.T) {
	data := t.TempDir()
	runEnv := func(vars map[string]string, args ...string) result {
		var out, errOut bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string { return vars[k] }}
		return result{run(context.Background(), args, e), out.String(), errOut.String()}
	}
	if r := runEnv(map[string]string{"LEDGER_DATA": data}, "import", "../../testdata/pastes/labelled-list.txt"); r.code != 0 {
		t.Fatalf("import with LEDGER_DATA: %+v", r)
	}
	// LEDGER_JSON=true makes audit print JSON; the flag on the command line wins over it.
	if r := runEnv(map[string]string{"LEDGER_DATA": data, "LEDGER_JSON": "true"}, "audit"); r.code != 0 || !strings.HasPrefix(r.stdout, "{") {
		t.Fatalf("audit with LEDGER_JSON=true: %+v", r)
	}
	if r := runEnv(map[string]string{"LEDGER_DATA": data, "LEDGER_JSON": "true"}, "audit", "--json=false"); r.code != 0 || !strings.HasPrefix(r.stdout, "The chain holds") {
		t.Fatalf("audit --json=false over LEDGER_JSON=true: %+v", r)
	}
	other := t.TempDir()
	if r := runEnv(map[string]string{"LEDGER_DATA": other}, "audit", "--data", data); r.code != 0 {
		t.Fatalf("--data over LEDGER_DATA: %+v", r)
	}
	if r := runEnv(map[string]string{"LEDGER_DATA": data, "LEDGER_JSON": "maybe"}, "audit"); r.code != 2 || !strings.Contains(r.stderr, `LEDGER_JSON="maybe" (for --json)`) {
		t.Fatalf("a bad value: %+v", r)
	}
	if r := runEnv(map[string]string{"LEDGER_FETCH_DELAY": "-1s"}, "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir()); r.code != 2 || !strings.Contains(r.stderr, "--fetch-delay -1s") || strings.Contains(r.stderr, "serving on") {
		t.Fatalf("a bad LEDGER_FETCH_DELAY: %+v", r)
	}
	r := runEnv(nil, "serve", "--help")
	for _, want := range []string{"(env LEDGER_ADDR)", "(env LEDGER_DATA)", "(env LEDGER_FETCH_DELAY)", "(env LEDGER_LOG_FORMAT)", "(env LEDGER_TLS_CERT)"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("serve --help does not list %s:\n%s", want, r.stderr)
		}
	}
}
