package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"evidenceledger/verify"
	"evidenceledger/web"
)

var mcpCommand = command{
	name:    "mcp",
	summary: "mcp [--token TOKEN] [--fetch-allow CIDR,...] [--workers 4] [...the fetch and model flags of check]: the MCP tools over stdio, for an agent that starts it (docs/agents.md)",
	run:     runMCP,
}

// runMCP serves the MCP tools (web.NewMCPServer) over stdin and stdout, newline-delimited
// JSON-RPC, until the client closes stdin or the process is stopped. Every call is made as
// the user of --token (env LEDGER_TOKEN), a token of `ledger user add`: an auditor's reads
// only. Nothing but the protocol is written to stdout; what the server has to say goes to
// stderr. Checks run as jobs of this process and hold the batch's check lock, so a server on
// the same ledger and this command never check one batch at once.
func runMCP(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("mcp", e)
	token := fs.String("token", e.getenv("LEDGER_TOKEN"), "the API `token` (ledger user add) whose user the calls are made as (env LEDGER_TOKEN)")
	buildModels := addModelFlags(fs, e)
	rest, cfg, workers, err := parseFetchFlags(fs, args)
	if err != nil {
		return err
	}
	models, err := buildModels(cfg)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("want: ledger mcp [--token TOKEN] [--fetch-allow CIDR,...]: %w", errUsage)
	}
	if strings.TrimSpace(*token) == "" {
		return fmt.Errorf("want --token TOKEN or LEDGER_TOKEN: the calls are made as the user of a token of `ledger user add NAME --role operator|auditor`: %w", errUsage)
	}
	s, err := openExisting(ctx, e, *data)
	if err != nil {
		return err
	}
	defer s.Close()
	u, err := s.Authenticate(ctx, strings.TrimSpace(*token))
	if err != nil {
		return fmt.Errorf("--token: %w", err)
	}
	checker := verify.NewChecker(cfg).WithModels(models)
	jobs := verify.NewJobs(s, checker, workers)
	defer jobs.Close()
	srv := web.NewMCPServer(web.Config{Ledger: s, Jobs: jobs, Checker: checker, CheckWorkers: workers}, u)
	fmt.Fprintf(e.stderr, "ledger mcp: serving the MCP tools on stdio as %s (%s)\n", u.Name, u.Role)
	err = srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}})
	if err == nil || errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil
	}
	return err
}

// nopWriteCloser is stdout for the transport, which closes what it writes to.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
