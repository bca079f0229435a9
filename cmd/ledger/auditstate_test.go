package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"evidenceledger/ledger"
)

// envRun runs the command with exactly the environment vars.
func envRun(vars map[string]string, args ...string) result {
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string { return vars[k] }}
	return result{run(context.Background(), args, e), out.String(), errOut.String()}
}

// `ledger audit --state FILE` on a real ledger: the first audit is full and writes the
// state, the next ones are incremental from the size the one before reached and say what
// they leave to --full, --full audits everything again, and a state edited by hand is
// refused until --full writes a new one.
func TestAuditStateAndFullFlags(t *testing.T) {
	data := t.TempDir()
	state := filepath.Join(t.TempDir(), "auditor", "ledger.state")
	paste := "../../testdata/pastes/labelled-list.txt"
	if r := ledgerCmd(t, data, "import", paste); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	first := ledgerCmd(t, data, "audit", "--state", state)
	if first.code != 0 || !strings.Contains(first.stdout, "The chain holds") || !strings.Contains(first.stdout, "Audit: full") ||
		!strings.Contains(first.stdout, "no auditor state in "+state) || !strings.Contains(first.stdout, "state written to "+state) {
		t.Fatalf("first audit: %+v", first)
	}
	size := regexp.MustCompile(`holds: (\d+) events`).FindStringSubmatch(first.stdout)[1]
	if r := ledgerCmd(t, data, "import", paste); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	inc := ledgerCmd(t, data, "audit", "--state", state)
	if inc.code != 0 || !strings.Contains(inc.stdout, "Audit: incremental, from size "+size) ||
		!strings.Contains(inc.stdout, "Not checked: rows that no event after size "+size+" touched") || !strings.Contains(inc.stdout, "ledger audit --full") {
		t.Fatalf("incremental audit: %+v", inc)
	}
	// As JSON, as GET /api/audit answers, with what the kind of audit adds.
	js := ledgerCmd(t, data, "audit", "--state", state, "--json")
	var rep ledger.Report
	if err := json.Unmarshal([]byte(js.stdout), &rep); err != nil || js.code != 0 || !rep.OK || rep.Kind != "incremental" || rep.From == 0 || rep.LastFull == "" || rep.State != state {
		t.Fatalf("incremental audit as JSON: %+v %v %+v", js, err, rep)
	}
	if r := ledgerCmd(t, data, "audit", "--state", state, "--full"); r.code != 0 || !strings.Contains(r.stdout, "Audit: full") || strings.Contains(r.stdout, "Not checked") {
		t.Fatalf("--full: %+v", r)
	}

	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(state, bytes.Replace(b, []byte(`"size": `), []byte(`"size": 9`), 1), 0o600)
	if r := ledgerCmd(t, data, "audit", "--state", state); r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "is refused") || !strings.Contains(r.stderr, "run ledger audit --full") {
		t.Fatalf("audit from a state edited by hand: %+v", r)
	}
	if r := ledgerCmd(t, data, "audit", "--state", state, "--full"); r.code != 0 || !strings.Contains(r.stdout, "is refused") || !strings.Contains(r.stdout, "state written to") {
		t.Fatalf("--full over a state edited by hand: %+v", r)
	}
	if r := ledgerCmd(t, data, "audit", "--state", state); r.code != 0 || !strings.Contains(r.stdout, "Audit: incremental") {
		t.Fatalf("incremental after --full: %+v", r)
	}

	// A changed row: the full audit finds it and says which table; the state stays.
	raw, err := sql.Open("sqlite", filepath.Join(data, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("UPDATE claims SET text = 'A claim nobody made.' WHERE rowid = 1"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if r := ledgerCmd(t, data, "audit", "--state", state, "--full"); r.code != 1 || !strings.Contains(r.stdout, "table claims") || !strings.Contains(r.stdout, "is left as it was") {
		t.Fatalf("--full after a change behind the program's back: %+v", r)
	}
}

// The flags' rules: --state is never inside the data directory, and --state and --full are
// for the audit of the database, not of an export or a bundle.
func TestAuditStateFlagRules(t *testing.T) {
	data := t.TempDir()
	if r := ledgerCmd(t, data, "import", "../../testdata/pastes/labelled-list.txt"); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	for _, args := range [][]string{
		{"audit", "--state", filepath.Join(data, "audit.state")},
		{"audit", "--state", filepath.Join(data, "sub", "audit.state")},
		{"audit", "--export", "x.jsonl", "--keys", "k.json", "--state", filepath.Join(t.TempDir(), "s")},
		{"audit", "--bundle", "b.txt", "--keys", "k.json", "--full"},
	} {
		if r := ledgerCmd(t, data, args...); r.code != 2 {
			t.Errorf("%v: %+v; want exit 2", args, r)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "audit.state")); err == nil {
		t.Error("a state was written inside the data directory")
	}
}

// Without --state, the state is the auditor's own, under its config folder, one per data
// directory; LEDGER_STATE names it too.
func TestAuditDefaultState(t *testing.T) {
	data, home, xdg := t.TempDir(), t.TempDir(), t.TempDir()
	if r := envRun(map[string]string{"LEDGER_DATA": data}, "import", "../../testdata/pastes/labelled-list.txt"); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	vars := map[string]string{"LEDGER_DATA": data, "HOME": home}
	if r := envRun(vars, "audit"); r.code != 0 || !strings.Contains(r.stdout, "state written to "+filepath.Join(home, ".config", "evidence-ledger", "audit")) {
		t.Fatalf("audit with HOME: %+v", r)
	}
	if r := envRun(vars, "audit"); r.code != 0 || !strings.Contains(r.stdout, "Audit: incremental") {
		t.Fatalf("second audit with HOME: %+v", r)
	}
	states, _ := filepath.Glob(filepath.Join(home, ".config", "evidence-ledger", "audit", "*.state"))
	if len(states) != 1 {
		t.Fatalf("states under HOME: %v", states)
	}
	vars["XDG_CONFIG_HOME"] = xdg
	if r := envRun(vars, "audit"); r.code != 0 || !strings.Contains(r.stdout, "state written to "+filepath.Join(xdg, "evidence-ledger", "audit")) {
		t.Fatalf("audit with XDG_CONFIG_HOME: %+v", r)
	}
	mine := filepath.Join(t.TempDir(), "mine.state")
	vars["LEDGER_STATE"] = mine
	if r := envRun(vars, "audit"); r.code != 0 || !strings.Contains(r.stdout, "state written to "+mine) {
		t.Fatalf("audit with LEDGER_STATE: %+v", r)
	}
	// No HOME, no XDG_CONFIG_HOME: a full audit that keeps no state.
	if r := envRun(map[string]string{"LEDGER_DATA": data}, "audit"); r.code != 0 || !strings.Contains(r.stdout, "no auditor state kept") {
		t.Fatalf("audit without a config folder: %+v", r)
	}
}
