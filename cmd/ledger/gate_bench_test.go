package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"evidenceledger/evidence"
)

// BenchmarkGateProcess runs the built ledger binary as a hook runner does: a new process per
// call, `ledger gate FILE` on a 200-line memory file with nothing to check (headings,
// instructions, preferences, plans and a claim the ledger holds as found, repeated), against a
// real ledger. The floor is the same binary started to print its usage (`ledger help`),
// measured in the same run; the ratio is reported as x-floor. docs/gate.md has the figures.
//
//	go test -run '^$' -bench GateProcess -benchtime 50x ./cmd/ledger
func BenchmarkGateProcess(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "ledger")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build the binary: %v\n%s", err, out)
	}
	data := gateData(b)
	file := filepath.Join(b.TempDir(), "MEMORY.md")
	if err := os.WriteFile(file, []byte(memoryFile200(b)), 0o600); err != nil {
		b.Fatal(err)
	}
	runOnce := func(args ...string) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "LEDGER_DATA="+data)
		if out, err := cmd.CombinedOutput(); err != nil && !strings.Contains(strings.Join(args, " "), "help") {
			b.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	b.Run("floor=help", func(b *testing.B) {
		for b.Loop() {
			runOnce("help")
		}
	})
	b.Run("gate-200-lines", func(b *testing.B) {
		for b.Loop() {
			runOnce("gate", file)
		}
	})
}

// memoryFile200 is 200 lines in the shape of a MEMORY.md: the labelled not-a-claim lines
// of the triage table that the gate lets pass (those it gates wrongly would block) and, every tenth line, a claim the ledger of gateData holds as found.
func memoryFile200(b *testing.B) string {
	files, _ := filepath.Glob("../../testdata/gate/triage/*.labels")
	more, _ := filepath.Glob("../../testdata/gate/triage/*/*.labels")
	var notClaims []string
	for _, lf := range append(files, more...) {
		f, err := os.Open(lf)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			label, line, _ := strings.Cut(sc.Text(), "\t")
			if sorted, err := evidence.TriageText(line); label == "N" && err == nil && !anyGated(sorted) {
				notClaims = append(notClaims, line)
			}
		}
		f.Close()
	}
	var lines []string
	for i := 0; len(lines) < 200; i++ {
		if i%10 == 9 {
			lines = append(lines, "- Acme was founded in 1999.")
			continue
		}
		lines = append(lines, notClaims[i%len(notClaims)])
	}
	return strings.Join(lines, "\n") + "\n"
}

func anyGated(sorted []evidence.Sorted) bool {
	for _, s := range sorted {
		if s.Gated() {
			return true
		}
	}
	return false
}
