package gate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// fuzzLedger is a ledger with two claims found at their sources (a person resolved their
// manual seams), so that a memory file of them passes the gate.
func fuzzLedger(t testing.TB) Ledger {
	t.Helper()
	ctx := context.Background()
	st, err := ledger.Open(ctx, t.TempDir(), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	paste := []byte(`{"claims":[{"text":"Acme was founded in 1999.","citations":[{"url":"https://acme.example/about","quote":"Acme was founded in 1999 in Leeds"}]},
 {"text":"Acme employs 40 people.","citations":[{"url":"https://acme.example/staff","quote":"Acme employs 40 people"}]}]}`)
	_, res, err := evidence.ReadRequest(paste)
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.ImportResearch(ctx, "system", paste, res)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range b.Claims {
		s, err := st.OpenSeam(ctx, "user:olga", ledger.SeamRequest{Kind: evidence.SeamManual, Summary: "read by hand", Citations: []string{c.Citations[0].ID}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.ResolveSeam(ctx, "user:olga", s.ID, "found_at_source", "the quote is on the page"); err != nil {
			t.Fatal(err)
		}
	}
	return StoreLedger(st)
}

// fuzzBase is a memory file the gate allows whole.
const fuzzBase = "# Notes\n\n- Use tabs.\n- Acme was founded in 1999.\n- Acme employs 40\n  people.\n\nAsk Ann before a release.\nKeep answers short.\n\n```sh\ngo test ./...\n```\n"

// fuzzPieces are what the random edits put in: verified and unverified facts and parts of
// them, instructions, blank lines, hard wraps, list markers and fences.
var fuzzPieces = []string{"", "\n", "\n\n", "\n  ", "- ", "1999", "2005", "Acme was sold to Beta Corp in 2021.", "Acme was founded in 1999.",
	"Acme employs 40 people.", "Use spaces.", "not ", "Beta", " in Leeds", "```", "# Facts\n", "Run make.", "people.", "founded", "."}

// FuzzHookEditsMatchWholeFile applies random edit sequences (a MultiEdit: each edit replaces
// a span of the file as it stands after the edits before it, once or everywhere) to a memory
// file the gate allows, and checks that the hook's verdict (what Plan gates of the result)
// is the verdict of gating the whole resulting file.
func FuzzHookEditsMatchWholeFile(f *testing.F) {
	for _, seed := range [][]byte{{0, 3, 7}, {1, 20, 2, 3, 40, 5}, {9, 9, 9, 9}, {4, 30, 11, 2, 60, 14, 0, 90, 1}, {5, 45, 13}} {
		f.Add(seed)
	}
	l := fuzzLedger(f)
	mem, _ := ParseMemoryFiles(DefaultMemoryFiles)
	ctx := context.Background()
	dir := f.TempDir()
	file := filepath.Join(dir, "CLAUDE.md")
	f.Fuzz(func(t *testing.T, ops []byte) {
		if d, err := Evaluate(ctx, l, fuzzBase, Options{}); err != nil || !d.Allow {
			t.Fatalf("the base file is blocked: %+v %v", d, err)
		}
		if err := os.WriteFile(file, []byte(fuzzBase), 0o600); err != nil {
			t.Fatal(err)
		}
		cur := fuzzBase
		var edits []HookEdit
		for i := 0; i+2 < len(ops) && len(edits) < 8; i += 3 {
			if cur == "" {
				break
			}
			start := int(ops[i+1]) * len(cur) / 256
			n := 1 + int(ops[i])%12
			end := min(len(cur), start+n)
			for end < len(cur) && !utf8Start(cur[end]) {
				end++
			}
			for start > 0 && !utf8Start(cur[start]) {
				start--
			}
			old := cur[start:end]
			e := HookEdit{Old: old, New: fuzzPieces[int(ops[i+2])%len(fuzzPieces)], All: ops[i]%5 == 0}
			if e.All {
				cur = strings.ReplaceAll(cur, e.Old, e.New)
			} else {
				cur = strings.Replace(cur, e.Old, e.New, 1)
			}
			edits = append(edits, e)
		}
		in := HookInput{Agent: AgentClaude, ToolName: "MultiEdit", Cwd: dir,
			Writes: []HookWrite{{Path: file, Edits: edits}}}
		plan := mem.Plan(in, dir)
		if plan.Block != "" {
			t.Fatalf("blocked without the ledger: %s", plan.Block)
		}
		hook := true
		if len(plan.Texts) > 0 {
			d, err := Evaluate(ctx, l, strings.Join(plan.Texts, "\n\n"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			hook = d.Allow
		}
		whole, err := Evaluate(ctx, l, cur, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if hook != whole.Allow {
			t.Fatalf("edits %+v: the hook says allow %v, the whole file %v\nresult:\n%s\ngated:\n%s", edits, hook, whole.Allow, cur, strings.Join(plan.Texts, "\n\n"))
		}
	})
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
