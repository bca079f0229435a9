package main

import (
	"bufio"
	"context"
	"fmt"

	"evidenceledger/evidence"
)

var importCommand = command{
	name:    "import",
	summary: "import [FILE|-]: read research (default stdin), record it as one batch; prints the batch id, then each claim id, one per line",
	run:     runImport,
}

// runImport reads research from FILE (or stdin for "-" or no argument), reads it with
// evidence.ReadPaste (the intake path of the pages and the API too) and records it as system. Output: the batch id on the first line,
// then one claim id per line in the order of the research. Nothing is recorded when the
// research is refused (too large, not text, nothing usable); the exit status is 1 then.
func runImport(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("import", e)
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 1 {
		return fmt.Errorf("want: ledger import [FILE|-] (one file, or - for stdin): %w", errUsage)
	}
	paste, name, err := readInput(e, rest, "research", "split the research into smaller files")
	if err != nil {
		return err
	}
	research, err := evidence.ReadPaste(paste)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	s, err := open(ctx, e, *data)
	if err != nil {
		return err
	}
	defer s.Close()
	b, err := s.ImportResearch(ctx, "system", paste, research)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(e.stdout)
	fmt.Fprintln(w, b.ID)
	for _, c := range b.Claims {
		fmt.Fprintln(w, c.ID)
	}
	return w.Flush()
}
