package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// newFlags makes a subcommand's flag set with the --data flag every subcommand takes. Every
// flag of the set may also be given as an environment variable (see [envName]), which
// [parse] reads from e.
func newFlags(name string, e *env) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("ledger "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	flagEnv.Store(fs, e.getenv)
	return fs, fs.String("data", "./ledger-data", "data `directory` holding ledger.db and signing.key")
}

// flagEnv holds the getenv of each flag set newFlags made, for parse.
var flagEnv sync.Map // *flag.FlagSet → func(string) string

// envName is the environment variable of a flag: LEDGER_ and the flag's name in capitals,
// dashes as underscores (--fetch-delay is LEDGER_FETCH_DELAY, --data LEDGER_DATA).
func envName(flagName string) string {
	return "LEDGER_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parse parses flags wherever they stand among the arguments and returns the others. A flag
// not given on the command line takes the value of its environment variable ([envName])
// when that is set and not empty: the command line wins over the environment, which wins
// over the default. The help lists each flag's variable.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.Contains(f.Usage, "(env LEDGER_") {
			f.Usage += " (env " + envName(f.Name) + ")"
		}
	})
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, err
			}
			return nil, fmt.Errorf("%v: %w", err, errUsage)
		}
		if fs.NArg() == 0 {
			break
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	getenv, ok := flagEnv.LoadAndDelete(fs)
	if !ok {
		return rest, nil
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		v := getenv.(func(string) string)(envName(f.Name))
		if err != nil || given[f.Name] || v == "" {
			return
		}
		if serr := fs.Set(f.Name, v); serr != nil {
			err = fmt.Errorf("%s=%q (for --%s): %v: %w", envName(f.Name), v, f.Name, serr, errUsage)
		}
	})
	return rest, err
}

// readInput reads a subcommand's input: the file rest names, or stdin when rest is empty or
// "-". It returns the bytes and the name of their source ("stdin" or the file's name). what
// names the input in errors ("research"); an input of more than evidence.MaxPasteBytes is
// refused with advice, which says what to do instead.
func readInput(e *env, rest []string, what, advice string) ([]byte, string, error) {
	in, name := e.stdin, "stdin"
	if len(rest) == 1 && rest[0] != "-" {
		f, err := os.Open(rest[0])
		if err != nil {
			return nil, "", fmt.Errorf("read %s: %w", what, err)
		}
		defer f.Close()
		in, name = f, rest[0]
	}
	b, err := io.ReadAll(io.LimitReader(in, evidence.MaxPasteBytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("read %s from %s: %w", what, name, err)
	}
	if len(b) > evidence.MaxPasteBytes {
		return nil, "", fmt.Errorf("%s is more than %d bytes; %s", name, evidence.MaxPasteBytes, advice)
	}
	return b, name, nil
}

// open opens the ledger in dir, creating it when dir holds none. The environment variable
// LEDGER_ORIGIN, when set, is the origin of its checkpoints (docs/chain.md); a ledger keeps
// the origin of its first checkpoint.
func open(ctx context.Context, e *env, dir string) (*ledger.Store, error) {
	return ledger.Open(ctx, dir, ledger.Options{Origin: e.getenv("LEDGER_ORIGIN")})
}

// openReadOnly opens the ledger in dir for a command that only reads it (audit, export,
// keys, checkpoint, proof): no signing key is needed, and nothing is written, so an auditor
// can run it on a read-only copy.
func openReadOnly(ctx context.Context, dir string) (*ledger.Store, error) {
	if _, err := os.Stat(filepath.Join(dir, "ledger.db")); err != nil {
		return nil, noLedger(dir, err)
	}
	return ledger.OpenReadOnly(ctx, dir)
}

func noLedger(dir string, err error) error {
	return fmt.Errorf("no ledger in %s (%w); pass --data DIR or set LEDGER_DATA to the ledger's data directory (serve, import and user add create one)", dir, err)
}

// openExisting opens the ledger in dir for a command that extends an existing one (check,
// keys rotate). It fails, creating nothing, when dir holds no ledger.db: a
// mistyped --data must not yield a new, empty chain that holds.
func openExisting(ctx context.Context, e *env, dir string) (*ledger.Store, error) {
	if _, err := os.Stat(filepath.Join(dir, "ledger.db")); err != nil {
		return nil, noLedger(dir, err)
	}
	return open(ctx, e, dir)
}

// printJSON writes v as one line of JSON, HTML characters unescaped.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
