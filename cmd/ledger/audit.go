package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"evidenceledger/ledger"
)

var auditCommand = command{
	name:    "audit",
	summary: "check the chain (or --export FILE --keys FILE offline); exit 0 when it holds, 1 when not",
	run:     runAudit,
}

func runAudit(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("audit", e)
	exportFile := fs.String("export", "", "check this export `file` (JSON lines) instead of the database; needs --keys")
	keysFile := fs.String("keys", "", "the keys `file` (as `ledger keys` prints) to check --export against")
	asJSON := fs.Bool("json", false, "print the report as JSON, as GET /api/audit answers")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 || (*exportFile == "") != (*keysFile == "") {
		return fmt.Errorf("want: ledger audit [--export FILE --keys FILE] [--json]: %w", errUsage)
	}
	var rep ledger.Report
	if *exportFile != "" {
		rep, err = auditFiles(ctx, *exportFile, *keysFile)
	} else {
		var s *ledger.Store
		if s, err = openExisting(ctx, *data); err != nil {
			return err
		}
		defer s.Close()
		rep, err = s.Audit(ctx)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		err = printJSON(e.stdout, rep)
	} else {
		err = printReport(e.stdout, rep)
	}
	if err != nil {
		return err
	}
	if !rep.OK {
		return exitError(1)
	}
	return nil
}

func auditFiles(ctx context.Context, exportFile, keysFile string) (ledger.Report, error) {
	ef, err := os.Open(exportFile)
	if err != nil {
		return ledger.Report{}, err
	}
	defer ef.Close()
	kf, err := os.Open(keysFile)
	if err != nil {
		return ledger.Report{}, err
	}
	defer kf.Close()
	return ledger.AuditExport(ctx, ef, kf)
}

// events says "1 event" or "N events".
func events(n int64) string {
	if n == 1 {
		return "1 event"
	}
	return fmt.Sprintf("%d events", n)
}

// printReport writes a summary a person reads: the verdict, then each problem.
func printReport(w io.Writer, rep ledger.Report) error {
	if rep.OK {
		_, err := fmt.Fprintf(w, "The chain holds: %s, every hash, link and signature checks out.\nHead: %s\n", events(rep.Events), rep.Head)
		return err
	}
	fmt.Fprintf(w, "The chain does NOT hold: %d problem(s) in %s.\n", len(rep.Problems), events(rep.Events))
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "  - %s\n", p.Problem)
	}
	_, err := fmt.Fprintf(w, "Head: %s\n", rep.Head)
	return err
}
