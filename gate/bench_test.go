package gate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hookBenchFile is a memory file of about 1.8 MB in the shapes agents keep (headings,
// instructions, preferences, verified claims, hard-wrapped paragraphs), and 5,000 edits of
// distinct lines in it.
func hookBenchFile() (string, []HookEdit) {
	var b strings.Builder
	var edits []HookEdit
	for i := 0; b.Len() < 1_800_000; i++ {
		fmt.Fprintf(&b, "## Section %d\n\n- Use tabs in module m%d.\n- Acme was founded in 1999.\n- Keep answers short for team t%d.\n  Ask Ann before a release of r%d.\n\n", i, i, i, i)
		if len(edits) < 5000 {
			edits = append(edits, HookEdit{Old: fmt.Sprintf("- Use tabs in module m%d.", i), New: fmt.Sprintf("- Use spaces in module m%d.", i)})
		}
	}
	return b.String(), edits
}

// BenchmarkHookEdits is the 5,000-edit MultiEdit of a 1.8 MB CLAUDE.md (docs/gate.md,
// "Limits"): the hook (reading the file, applying the edits in sequence, gating what
// changed) against the gate of the whole resulting file, each against a real ledger. It
// reports both and their ratio (hook/whole).
func BenchmarkHookEdits(b *testing.B) {
	l := fuzzLedger(b)
	mem, _ := ParseMemoryFiles(DefaultMemoryFiles)
	ctx := context.Background()
	dir := b.TempDir()
	file := filepath.Join(dir, "CLAUDE.md")
	text, edits := hookBenchFile()
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		b.Fatal(err)
	}
	result := text
	for _, e := range edits {
		result = strings.Replace(result, e.Old, e.New, 1)
	}
	in := HookInput{Agent: AgentClaude, ToolName: "MultiEdit", Cwd: dir, Writes: []HookWrite{{Path: file, Edits: edits}}}
	var hook, whole, planned time.Duration
	for b.Loop() {
		t0 := time.Now()
		plan := mem.Plan(in, dir)
		if plan.Block != "" {
			b.Fatal(plan.Block)
		}
		planned += time.Since(t0)
		d, err := Evaluate(ctx, l, strings.Join(plan.Texts, "\n\n"), Options{})
		if err != nil || !d.Allow {
			b.Fatalf("the hook blocks: %v", err)
		}
		t1 := time.Now()
		dw, err := Evaluate(ctx, l, result, Options{})
		if err != nil || !dw.Allow {
			b.Fatalf("the whole file is blocked: %v", err)
		}
		hook, whole = hook+t1.Sub(t0), whole+time.Since(t1)
	}
	b.ReportMetric(hook.Seconds()/float64(b.N), "hook-s/op")
	b.ReportMetric(whole.Seconds()/float64(b.N), "whole-s/op")
	b.ReportMetric(planned.Seconds()/float64(b.N), "plan-s/op")
	b.ReportMetric(hook.Seconds()/whole.Seconds(), "hook/whole")
}
