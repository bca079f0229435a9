package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"evidenceledger/web"
)

var reportCommand = command{
	name:    "report",
	summary: "the hand-off report of a batch: --batch ID [--format md|html|json] [--out FILE]",
	run:     runReport,
}

func runReport(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("report", e)
	batch := fs.String("batch", "", "the batch `id` (ledger import prints it)")
	format := fs.String("format", web.ReportMarkdown, "`md`, html or json")
	out := fs.String("out", "", "write to this `file` instead of stdout (replaced only when the report is complete)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	want := "want: ledger report --batch ID [--format " + strings.Join(web.ReportFormats, "|") + "] [--out FILE]"
	if len(rest) > 0 || *batch == "" {
		return fmt.Errorf("%s: %w", want, errUsage)
	}
	if !slices.Contains(web.ReportFormats, *format) {
		return fmt.Errorf("format %q: %s: %w", *format, want, errUsage)
	}
	s, err := openReadOnly(ctx, *data)
	if err != nil {
		return err
	}
	defer s.Close()
	h, err := s.HandOff(ctx, *batch)
	if err != nil {
		return err
	}
	return writeOut(e, *out, func(w io.Writer) error { return web.WriteReport(w, h, *format) })
}
