package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"evidenceledger/evidence"
	"evidenceledger/gate"
	"evidenceledger/verify"
)

var gateCommand = command{
	name:    "gate",
	summary: "gate [FILE|-] [--hook [--hook-output exit|json]] [--check [--timeout 60s]] [--min-strength low|medium|high] [--verifier-endpoint URL --verifier-model NAME] [--adjudicator-model NAME] [--memory-files GLOB,...] [fetch flags of check]: may this text be written to memory? exit 0 allow, 2 block (reasons on stderr)",
	run:     runGate,
}

// exitBlock is the exit status of a blocked text.
const exitBlock = exitError(2)

// runGate reads a text from FILE (stdin for "-" or no argument) and asks the memory-write
// gate (gate.Evaluate) whether it may be written to memory. It prints the decision as one JSON
// line on stdout; when the text is blocked, it prints each blocked claim, why, and what to do
// next on stderr, then the residual risk, and exits 2. A file that cannot be read or is not
// text exits 1.
//
// With --check, the cited claims the ledger does not hold are imported as one batch (actor
// system, format json) and checked on the spot with the fetch flags of `ledger check`, for at
// most --timeout; what was not checked by then is blocked as still checking.
//
// With --hook it reads an agent's pre-tool hook JSON on stdin instead (gate.ParseHook): a
// tool that writes no memory file is allowed (exit 0) without opening the ledger; for a write
// to a memory file, gate.MemoryFiles.Plan computes the file as the tool will leave it and
// what is new or changed in it is gated. Every failure in hook mode (input that cannot
// be read, a tool the gate cannot read that names a memory file, no ledger, a ledger that
// cannot be read) blocks. --hook-output exit (the default) blocks with exit 2 and the reasons
// on stderr, which Claude Code, Codex CLI and Gemini CLI show to the model; --hook-output json
// prints the agent's JSON form on stdout and exits 0 (docs/gate.md), except for an input it
// cannot read, which names no agent and so is blocked with exit 2.
//
// Outside hook mode a ledger that is missing or cannot be read also blocks with exit 2: the
// gate fails closed.
func runGate(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("gate", e)
	hook := fs.Bool("hook", false, "read an agent's pre-tool hook JSON on stdin; gate only writes to memory files")
	hookOut := fs.String("hook-output", "exit", "with --hook: `exit` (block with exit 2, reasons on stderr) or json (the agent's JSON decision on stdout, exit 0)")
	check := fs.Bool("check", false, "check on the spot the cited claims the ledger does not hold, and record the check")
	timeout := fs.Duration("timeout", gate.DefaultTimeout, "with --check: the longest `time` the check may take; past it the claims are blocked as still checking")
	minFlag := fs.String("min-strength", "", "allow only claims of at least this `strength`: low, medium or high")
	memFlag := fs.String("memory-files", gate.DefaultMemoryFiles, "with --hook: comma-separated `globs` of the memory files to gate (** spans folders)")
	buildModels := addModelFlags(fs, e)
	buildRenderer := addRenderFlags(fs, e)
	rest, fcfg, workers, err := parseFetchFlags(fs, args)
	if err != nil {
		return err
	}
	models, err := buildModels(fcfg)
	if err != nil {
		return err
	}
	if len(rest) > 1 || (*hook && len(rest) > 0) {
		return fmt.Errorf("want: ledger gate [FILE|-] or ledger gate --hook (hook JSON on stdin): %w", errUsage)
	}
	if *hookOut != "exit" && *hookOut != "json" {
		return fmt.Errorf("--hook-output %q: want exit or json: %w", *hookOut, errUsage)
	}
	if *timeout <= 0 {
		return fmt.Errorf("--timeout %v: want more than 0: %w", *timeout, errUsage)
	}
	min, err := gate.ParseMinStrength(*minFlag)
	if err != nil {
		return fmt.Errorf("--min-strength: %v: %w", err, errUsage)
	}
	mem, err := gate.ParseMemoryFiles(*memFlag)
	if err != nil {
		return fmt.Errorf("--memory-files: %v: %w", err, errUsage)
	}
	var agent string
	block := func(reasons ...string) error {
		// Until the input is read the agent is not known, so no JSON form can be chosen:
		// exit 2 blocks in every agent.
		if *hook && *hookOut == "json" && agent != "" {
			return printJSON(e.stdout, hookDeny(agent, reasons))
		}
		for _, r := range reasons {
			fmt.Fprintln(e.stderr, "ledger gate: blocked: "+r)
		}
		return exitBlock
	}
	allow := func() error {
		if *hook && *hookOut == "json" && agent == gate.AgentGemini {
			_, err := fmt.Fprintln(e.stdout, `{"decision":"allow"}`)
			return err
		}
		return nil
	}

	var text, name string
	if *hook {
		raw, err := io.ReadAll(io.LimitReader(e.stdin, gate.MaxHookBytes+1))
		if err != nil {
			return block(fmt.Sprintf("read the hook input: %v", err))
		}
		in, err := gate.ParseHook(raw)
		agent = in.Agent
		if err != nil {
			return block(err.Error())
		}
		home, _ := os.UserHomeDir()
		plan := mem.Plan(in, home)
		if plan.Block != "" {
			return block(plan.Block)
		}
		if len(plan.Texts) == 0 {
			return allow()
		}
		text, name = strings.Join(plan.Texts, "\n\n"), strings.Join(plan.Files, ", ")
	} else {
		b, src, err := readInput(e, rest, "the text", "gate smaller texts")
		if err != nil {
			return err
		}
		text, name = string(b), src
	}
	if err := evidence.CheckString(text); err != nil {
		if *hook {
			return block(fmt.Sprintf("%s: %v", name, err))
		}
		return fmt.Errorf("%s: %w", name, err)
	}

	if _, err := os.Stat(filepath.Join(*data, "ledger.db")); err != nil {
		return block(fmt.Sprintf("no ledger in %s (%v); pass --data DIR or set LEDGER_DATA to the ledger's data directory", *data, err))
	}
	s, err := open(ctx, e, *data)
	if err != nil {
		return block(fmt.Sprintf("the ledger could not be opened, so nothing is allowed: %v", err))
	}
	defer s.Close()
	opt := gate.Options{Min: min}
	if *check {
		renderer := buildRenderer()
		if renderer != nil {
			defer renderer.Close()
		}
		opt.Check = &gate.Check{Store: gate.StoreImporter(s), Checker: verify.NewChecker(fcfg).WithModels(models).WithRenderer(renderer), Actor: "system", Timeout: *timeout, Workers: workers}
	}
	d, gerr := gate.Evaluate(ctx, gate.StoreLedger(s), text, opt)
	if !*hook {
		if err := printJSON(e.stdout, d); err != nil {
			return err
		}
	}
	if gerr != nil {
		return block(gerr.Error())
	}
	if d.Allow {
		return allow()
	}
	var reasons []string
	if d.Note != "" {
		reasons = append(reasons, d.Note)
	}
	for _, c := range d.Claims {
		if !c.Allow {
			reasons = append(reasons, fmt.Sprintf("%q: %s. Next: %s", c.Text, strings.Join(c.Reasons, "; "), strings.Join(c.Next, "; ")))
		}
	}
	return block(append(reasons, d.ResidualRisk)...)
}

// hookDeny is the JSON decision that blocks a tool call: Gemini CLI's {"decision":"deny"}
// form, or the hookSpecificOutput form of Claude Code and Codex CLI.
func hookDeny(agent string, reasons []string) any {
	reason := "ledger gate: blocked: " + strings.Join(reasons, "\nledger gate: blocked: ")
	if agent == gate.AgentGemini {
		return map[string]string{"decision": "deny", "reason": reason}
	}
	return map[string]any{"hookSpecificOutput": map[string]string{
		"hookEventName":            "PreToolUse",
		"permissionDecision":       "deny",
		"permissionDecisionReason": reason,
	}}
}
