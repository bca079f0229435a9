package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"evidenceledger/ledger"
)

var exportCommand = command{
	name:    "export",
	summary: "write every event as JSON lines (docs/chain.md) to stdout or --out FILE; --warc FILE [--batch ID]: the stored pages as WARC 1.1",
	run:     runExport,
}

func runExport(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("export", e)
	out := fs.String("out", "", "write to this `file` instead of stdout (replaced only when the export is complete)")
	warc := fs.String("warc", "", "write the stored pages as WARC 1.1 to this `file` (docs/report.md), instead of the events")
	batch := fs.String("batch", "", "with --warc, only the pages stored by the checks of this batch `id`")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 || (*warc != "" && *out != "") || (*batch != "" && *warc == "") {
		return fmt.Errorf("want: ledger export [--out FILE], or ledger export --warc FILE [--batch ID]: %w", errUsage)
	}
	s, err := openReadOnly(ctx, *data)
	if err != nil {
		return err
	}
	defer s.Close()
	if *warc != "" {
		var st ledger.WARCStats
		if err := writeOut(e, *warc, func(w io.Writer) (err error) {
			st, err = s.ExportWARC(ctx, w, *batch)
			return err
		}); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "ledger export: %d capture(s) in %d WARC records, %d bytes, written to %s\n", st.Captures, st.Records, st.Bytes, *warc)
		return nil
	}
	return writeOut(e, *out, func(w io.Writer) error { return s.Export(ctx, w) })
}

// writeOut writes what write produces to stdout when path is empty, otherwise to path: into
// a temporary file beside it, renamed over path only when write succeeded, so path is never
// left half written.
func writeOut(e *env, path string, write func(io.Writer) error) error {
	if path == "" {
		return write(e.stdout)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".ledger-out-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
