package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"evidenceledger/ledger"
)

var auditCommand = command{
	name:    "audit",
	summary: "check the chain (or --export FILE --keys FILE offline; --checkpoint FILE holds it to an earlier checkpoint); exit 0 when it holds, 1 when not",
	run:     runAudit,
}

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

func runAudit(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("audit", e)
	exportFile := fs.String("export", "", "check this export `file` (JSON lines) instead of the database; needs --keys")
	keysFile := fs.String("keys", "", "the keys `file` you trust (as `ledger keys` printed it): the key history the chain must have, and the checkpoint verifier keys")
	cpFile := fs.String("checkpoint", "", "a checkpoint `file` you kept earlier (as `ledger checkpoint` printed it): the log must extend it; needs --keys")
	bundleFile := fs.String("bundle", "", "check this proof bundle `file` (as `ledger proof bundle` printed it) instead; needs --keys")
	var witnesses repeated
	fs.Var(&witnesses, "witness", "a witness's cosigner verifier `key` (name+hash+base64): the checkpoint must carry its cosignature; may be repeated")
	asJSON := fs.Bool("json", false, "print the report as JSON, as GET /api/audit answers")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	needKeys := *exportFile != "" || *cpFile != "" || *bundleFile != ""
	if len(rest) > 0 || (needKeys && *keysFile == "") || (*exportFile != "" && *bundleFile != "") {
		return fmt.Errorf("want: ledger audit [--export FILE | --bundle FILE] [--keys FILE] [--checkpoint FILE] [--witness KEY]... [--json] (--export, --bundle and --checkpoint need --keys): %w", errUsage)
	}
	opts := ledger.AuditOptions{Witnesses: witnesses}
	if *keysFile != "" {
		if opts.Keys, err = readKeys(*keysFile); err != nil {
			return err
		}
	}
	if *cpFile != "" {
		if opts.Checkpoint, err = readLimited(*cpFile, "checkpoint", maxCheckpointFile); err != nil {
			return err
		}
	}
	if *bundleFile != "" {
		return auditBundle(e, *bundleFile, opts)
	}
	var rep ledger.Report
	if *exportFile != "" {
		rep, err = auditFile(ctx, *exportFile, opts)
	} else {
		var s *ledger.Store
		if s, err = openReadOnly(ctx, *data); err != nil {
			return err
		}
		defer s.Close()
		rep, err = s.AuditWith(ctx, opts)
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

// Limits of the files audit reads whole. A checkpoint is a few hundred bytes (torchwood's
// parser takes at most 1,000,000); a bundle holds one event, whose payload is at most a paste
// (evidence.MaxPasteBytes) and some JSON around it, in base64; a keys file is ~200 bytes a key.
const (
	maxCheckpointFile = 1 << 20
	maxBundleFile     = 64 << 20
	maxKeysFile       = 1 << 20
)

// readLimited reads a whole file of at most limit bytes; a longer one is refused, naming the
// limit.
func readLimited(path, what string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", what, path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s %s is more than %d bytes, which no %s is; check that you gave the right file", what, path, limit, what)
	}
	return b, nil
}

func readKeys(path string) (*ledger.KeyHistory, error) {
	b, err := readLimited(path, "keys file", maxKeysFile)
	if err != nil {
		return nil, err
	}
	return ledger.ParseKeys(bytes.NewReader(b))
}

func auditFile(ctx context.Context, exportFile string, opts ledger.AuditOptions) (ledger.Report, error) {
	ef, err := os.Open(exportFile)
	if err != nil {
		return ledger.Report{}, err
	}
	defer ef.Close()
	return ledger.AuditExportWith(ctx, ef, opts)
}

// auditBundle checks a proof bundle offline and prints the one event it proves.
func auditBundle(e *env, path string, opts ledger.AuditOptions) error {
	b, err := readLimited(path, "proof bundle", maxBundleFile)
	if err != nil {
		return err
	}
	ev, err := ledger.VerifyBundle(b, opts.Keys, opts.Witnesses)
	if err != nil {
		fmt.Fprintf(e.stdout, "The bundle does NOT hold: %v\n", err)
		return exitError(1)
	}
	fmt.Fprintf(e.stdout, "The bundle holds: event %d (%s) is in the log the checkpoint signs, and its hash and signature check out.\n", ev.Seq, ev.Type)
	return printJSON(e.stdout, ev)
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
		_, err := fmt.Fprintf(w, "The chain holds: %s, every hash, link and signature checks out.\nHead: %s\nRoot: %s\n", events(rep.Events), rep.Head, rep.Root)
		return err
	}
	fmt.Fprintf(w, "The chain does NOT hold: %d problem(s) in %s.\n", len(rep.Problems), events(rep.Events))
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "  - %s\n", p.Problem)
	}
	_, err := fmt.Fprintf(w, "Head: %s\n", rep.Head)
	return err
}
