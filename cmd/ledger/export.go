package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

var exportCommand = command{
	name:    "export",
	summary: "write every event as JSON lines (docs/chain.md) to stdout or --out FILE",
	run:     runExport,
}

func runExport(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("export", e)
	out := fs.String("out", "", "write to this `file` instead of stdout (replaced only when the export is complete)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("want: ledger export [--out FILE]: %w", errUsage)
	}
	s, err := openExisting(ctx, *data)
	if err != nil {
		return err
	}
	defer s.Close()
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
