package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"evidenceledger/evidence"
	"evidenceledger/verify"
	"evidenceledger/web"
)

var gateCommand = command{
	name:    "gate",
	summary: "gate [FILE|-] [--hook] [--min-strength low|medium|high] [--memory-files GLOB,...]: may this text be written to memory? exit 0 allow, 2 block (reasons on stderr)",
	run:     runGate,
}

// exitBlock is the exit status of a blocked text.
const exitBlock = exitError(2)

// runGate reads a text from FILE (stdin for "-" or no argument) and asks the memory-write
// gate (verify.Gate) whether it may be written to memory. It prints the decision as one JSON
// line on stdout; when the text is blocked, it prints each blocked claim and why on stderr
// and exits 2. A file that cannot be read or is not text exits 1.
//
// With --hook it reads a pre-write hook's JSON on stdin instead (verify.ParseHook): a write to
// a file that does not match --memory-files is allowed (exit 0) without opening the ledger;
// a write to a memory file is gated on the texts it writes. In hook mode nothing is printed
// on stdout, and every failure (input that cannot be read, no ledger, a ledger that cannot be
// read) blocks with exit 2, because a hook runner treats only 2 as a block.
//
// Outside hook mode a ledger that is missing or cannot be read also blocks with exit 2: the
// gate fails closed.
func runGate(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("gate", e)
	hook := fs.Bool("hook", false, "read a pre-write hook's JSON on stdin; gate only writes to memory files")
	minFlag := fs.String("min-strength", "", "allow only claims of at least this `strength`: low, medium or high")
	memFlag := fs.String("memory-files", verify.DefaultMemoryFiles, "with --hook: comma-separated `globs` of the memory files to gate (** spans folders)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 1 || (*hook && len(rest) > 0) {
		return fmt.Errorf("want: ledger gate [FILE|-] or ledger gate --hook (hook JSON on stdin): %w", errUsage)
	}
	min, err := verify.ParseMinStrength(*minFlag)
	if err != nil {
		return fmt.Errorf("--min-strength: %v: %w", err, errUsage)
	}
	mem, err := verify.ParseMemoryFiles(*memFlag)
	if err != nil {
		return fmt.Errorf("--memory-files: %v: %w", err, errUsage)
	}
	block := func(reasons ...string) error {
		for _, r := range reasons {
			fmt.Fprintln(e.stderr, "ledger gate: blocked: "+r)
		}
		return exitBlock
	}

	var text, name string
	if *hook {
		raw, err := io.ReadAll(io.LimitReader(e.stdin, 8*evidence.MaxPasteBytes))
		if err != nil {
			return block(fmt.Sprintf("read the hook input: %v", err))
		}
		in, err := verify.ParseHook(raw)
		if err != nil {
			return block(err.Error())
		}
		if in.FilePath == "" || !mem.Match(in.FilePath) {
			return nil
		}
		text, name = strings.Join(in.Texts, "\n\n"), in.FilePath
	} else {
		b, src, err := readInput(e, rest, "the text", "gate smaller texts")
		if err != nil {
			return err
		}
		text, name = string(b), src
	}
	if err := evidence.CheckString(text); err != nil {
		if *hook {
			return block(fmt.Sprintf("%s: %v", name, err))
		}
		return fmt.Errorf("%s: %w", name, err)
	}

	if _, err := os.Stat(filepath.Join(*data, "ledger.db")); err != nil {
		return block(fmt.Sprintf("no ledger in %s (%v); pass --data DIR or set LEDGER_DATA to the ledger's data directory", *data, err))
	}
	s, err := open(ctx, *data)
	if err != nil {
		return block(fmt.Sprintf("the ledger could not be opened, so nothing is allowed: %v", err))
	}
	defer s.Close()
	d, gerr := verify.Gate(ctx, web.GateLedger(s), text, min)
	if !*hook {
		if err := printJSON(e.stdout, d); err != nil {
			return err
		}
	}
	if gerr != nil {
		return block(gerr.Error())
	}
	if d.Allow {
		return nil
	}
	var reasons []string
	for _, c := range d.Claims {
		if !c.Allow {
			reasons = append(reasons, fmt.Sprintf("%q: %s", c.Text, strings.Join(c.Reasons, "; ")))
		}
	}
	return block(append(reasons, d.ResidualRisk)...)
}
