package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"evidenceledger/evidence"
	"evidenceledger/verify"
)

var checkCommand = command{
	name:    "check",
	summary: "check --batch ID [--recheck] [--verifier-endpoint URL --verifier-model NAME] [--adjudicator-model NAME]: check a batch's citations at their sources without a server; prints each citation's status and note",
	run:     runCheck,
}

// runCheck checks the citations of a batch not checked yet or left unreachable (every one
// with --recheck), recording each check as it completes, then prints one line per citation
// (id, status, note) and a summary. An interruption (Ctrl-C) keeps what was recorded;
// running the command again checks the rest. It holds the batch's check lock while it runs: when a
// server job or another `ledger check` checks the batch, it checks nothing and says which
// job runs (exit status 1).
func runCheck(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("check", e)
	batch := fs.String("batch", "", "`id` of the batch to check (ledger import prints it)")
	recheck := fs.Bool("recheck", false, "check every citation again, not only those never checked or unreachable")
	buildModels := addModelFlags(fs, e)
	buildRenderer := addRenderFlags(fs, e)
	rest, cfg, workers, err := parseFetchFlags(fs, args)
	if err != nil {
		return err
	}
	models, err := buildModels(cfg)
	if err != nil {
		return err
	}
	if len(rest) > 0 || strings.TrimSpace(*batch) == "" {
		return fmt.Errorf("want: ledger check --batch ID [--recheck] [--fetch-allow CIDR,...]: %w", errUsage)
	}
	s, err := openExisting(ctx, e, *data)
	if err != nil {
		return err
	}
	defer s.Close()
	renderer := buildRenderer()
	if renderer != nil {
		defer renderer.Close()
	}
	start := time.Now()
	// RunBatch calls progress from its workers, at once and not always in order.
	var mu sync.Mutex
	shown := 0
	outs, runErr := verify.RunBatchLocked(ctx, s, s, verify.Holder("ledger check"), verify.NewChecker(cfg).WithModels(models).WithRenderer(renderer), "system", strings.TrimSpace(*batch), *recheck, workers, func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if done > shown {
			shown = done
			fmt.Fprintf(e.stderr, "\rchecked %d of %d", done, total)
		}
	})
	if len(outs) > 0 {
		fmt.Fprintln(e.stderr)
	}
	if runErr != nil && outs == nil {
		return runErr
	}
	if err := printOutcomes(e, *batch, outs, time.Since(start)); err != nil {
		return err
	}
	return runErr
}

// printOutcomes writes the table of outcomes and the summary line.
func printOutcomes(e *env, batch string, outs []verify.Outcome, took time.Duration) error {
	if len(outs) == 0 {
		_, err := fmt.Fprintf(e.stdout, "batch %s: nothing left to check; --recheck checks every citation again\n", batch)
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CITATION\tSTATUS\tNOTE")
	counts := map[evidence.Status]int{}
	seams, halted := 0, 0
	for _, o := range outs {
		st, note := o.Checked.Status, o.Checked.Note
		if o.Halted {
			st, note = evidence.StatusReported, "not checked: "+o.Note
			halted++
		}
		if o.Seam != nil {
			seams++
		}
		counts[st]++
		fmt.Fprintf(tw, "%s\t%s\t%s\n", o.Target.CitationID, st, oneLine(note))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(e.stdout, "batch %s: %d citations in %.1fs: %d found_at_source, %d not_found, %d unreachable, %d reported (%d seams opened for a person, %d not checkable)\n",
		batch, len(outs), took.Seconds(), counts[evidence.StatusFound], counts[evidence.StatusNotFound], counts[evidence.StatusUnreachable], counts[evidence.StatusReported], seams, halted)
	return err
}

// oneLine folds a note's line breaks and tabs so that it stays in its column.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
