// Command ledger is the evidence ledger. Its subcommands wire the packages together:
//
//	ledger serve  [--addr 127.0.0.1:8080] [--fetch-allow CIDR,...]   the HTTP server (package web)
//	ledger user add NAME --role operator|auditor                    prints the new API token
//	ledger import [FILE|-]                                          records research as a batch
//	ledger check  --batch ID [--recheck]                            checks a batch without a server
//	ledger audit  [--export F --keys F] [--checkpoint F] [--witness K]  exit 0 when the chain holds, 1 when not
//	ledger export [--out FILE]                                      the events as JSON lines
//	ledger export --warc FILE [--batch ID]                          the stored pages as WARC 1.1
//	ledger keys   [rotate]                                          the public keys; rotate starts a new one
//	ledger checkpoint                                               the latest signed checkpoint
//	ledger proof  inclusion|consistency|bundle ...                  RFC 6962 proofs, tlog-proof bundles
//	ledger gate   [FILE|-] [--hook] [--check]                       exit 0 allow, 2 block
//	ledger report --batch ID [--format md|html|json]                what may be handed on, and what may not
//	ledger backup --out FILE [--with-key]                           a consistent copy, also while serving
//	ledger restore FILE                                             a backup put in place in --data, then audited
//	ledger mcp    [--token TOKEN]                                   the MCP tools over stdio, for an agent
//
// Every subcommand takes --data DIR (env LEDGER_DATA, default ./ledger-data), the directory
// of the database and the signing key; audit, export, keys, checkpoint and proof need no
// signing key and write nothing. LEDGER_ORIGIN sets a new ledger's checkpoint origin. Run
// `ledger help` for each subcommand's flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"evidenceledger/pdf"
)

// command is one subcommand. run gets the arguments after the subcommand's name.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *env, args []string) error
}

// commands lists the subcommands; a new one is a new file and one line here.
var commands = []command{
	serveCommand,
	userCommand,
	keysCommand,
	auditCommand,
	exportCommand,
	reportCommand,
	importCommand,
	checkCommand,
	gateCommand,
	checkpointCommand,
	proofCommand,
	backupCommand,
	restoreCommand,
	mcpCommand,
}

// env is what a subcommand may touch of the outside world.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// exitError ends the program with a code and no further message.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// errUsage marks a command line that cannot be run; the exit status is 2.
var errUsage = errors.New("usage")

func main() {
	// The PDF engine github.com/ledongthuc/pdf runs in a child process: this program,
	// started again as a PDF worker (package pdf). It is served before anything else.
	if pdf.IsWorker() {
		os.Exit(pdf.RunWorker())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv})
	stop()
	os.Exit(code)
}

// run runs one command line and returns the exit status: 0 done, 1 failed, 2 bad usage
// (a subcommand may give its own, like audit's 1 for a chain that does not hold).
func run(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(e.stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, e, args[1:])
		var code exitError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &code):
			return int(code)
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			fmt.Fprintf(e.stderr, "ledger %s: %v\n", c.name, err)
			return 2
		default:
			fmt.Fprintf(e.stderr, "ledger %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(e.stderr, "ledger: unknown command %q\n", args[0])
	usage(e.stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ledger COMMAND [flags]   (every command takes --data DIR, env LEDGER_DATA, default ./ledger-data)")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
}
