package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"evidenceledger/ledger"
)

// newFlags makes a subcommand's flag set with the --data flag every subcommand takes.
func newFlags(name string, e *env) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("ledger "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	def := e.getenv("LEDGER_DATA")
	if def == "" {
		def = "./ledger-data"
	}
	return fs, fs.String("data", def, "data `directory` holding ledger.db and signing.key (env LEDGER_DATA)")
}

// parse parses flags wherever they stand among the arguments and returns the others.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, err
			}
			return nil, fmt.Errorf("%v: %w", err, errUsage)
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// open opens the ledger in dir.
func open(ctx context.Context, dir string) (*ledger.Store, error) {
	return ledger.Open(ctx, dir, ledger.Options{})
}

// printJSON writes v as one line of JSON, HTML characters unescaped.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
