package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"evidenceledger/ledger"
)

var auditCommand = command{
	name:    "audit",
	summary: "check the chain, incrementally from the auditor's state (--state FILE; --full: everything), or --export FILE --keys FILE offline; --checkpoint FILE holds it to an earlier checkpoint; exit 0 when it holds, 1 when not",
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
	stateFile := fs.String("state", "", "the auditor's state `file` the audit starts from and writes (default: under $XDG_CONFIG_HOME or ~/.config, evidence-ledger/audit/, one per data directory); never inside the data directory")
	full := fs.Bool("full", false, "audit everything (every signature, every table replayed) even when the state allows an incremental audit, and write the state anew")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	needKeys := *exportFile != "" || *cpFile != "" || *bundleFile != ""
	offline := *exportFile != "" || *bundleFile != ""
	if len(rest) > 0 || (needKeys && *keysFile == "") || (*exportFile != "" && *bundleFile != "") || (offline && (*stateFile != "" || *full)) {
		return fmt.Errorf("want: ledger audit [--full] [--state FILE] | [--export FILE | --bundle FILE] [--keys FILE] [--checkpoint FILE] [--witness KEY]... [--json] (--export, --bundle and --checkpoint need --keys; --state and --full are for the audit of the database): %w", errUsage)
	}
	opts := ledger.AuditOptions{Witnesses: witnesses, Full: *full}
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
		if opts.State, err = auditStatePath(e, *data, *stateFile); err != nil {
			return err
		}
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

// auditStatePath is the auditor's state file for the ledger in data: the one given, or by
// default $XDG_CONFIG_HOME/evidence-ledger/audit/ID.state (~/.config when XDG_CONFIG_HOME is
// not set), where ID is the first 16 hex characters of the SHA-256 of the data directory's
// absolute path with its symbolic links resolved: one state per ledger the auditor audits,
// in the auditor's own folder. Without either variable there is no default, and the audit
// is full and keeps no state. A state inside the data directory is refused: whoever writes
// the ledger could rewrite it.
func auditStatePath(e *env, data, given string) (string, error) {
	dir, err := realPath(data)
	if err != nil {
		return "", err
	}
	if given == "" {
		base := e.getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(base) {
			base = ""
			if home := e.getenv("HOME"); filepath.IsAbs(home) {
				base = filepath.Join(home, ".config")
			}
		}
		if base == "" {
			return "", nil
		}
		sum := sha256.Sum256([]byte(dir))
		return filepath.Join(base, "evidence-ledger", "audit", hex.EncodeToString(sum[:8])+".state"), nil
	}
	state, err := realPath(given)
	if err != nil {
		return "", err
	}
	if rel, err := filepath.Rel(dir, state); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("--state %s is inside the ledger's data directory %s, which whoever writes the ledger can rewrite; keep the auditor's state elsewhere: %w", given, data, errUsage)
	}
	return given, nil
}

// realPath is path made absolute, with the symbolic links of its existing part resolved.
func realPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest), nil
		}
		if dir == filepath.Dir(dir) {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// events says "1 event" or "N events".
func events(n int64) string {
	if n == 1 {
		return "1 event"
	}
	return fmt.Sprintf("%d events", n)
}

// printReport writes a summary a person reads: the verdict, then each problem, then which
// audit ran, what it left to the full audit, and what became of the auditor's state.
func printReport(out io.Writer, rep ledger.Report) error {
	w := &firstError{w: out}
	switch {
	case rep.OK && rep.Kind == "incremental":
		fmt.Fprintf(w, "The chain holds: %s; every event re-hashed into the tree the last audit verified, and the %s after it checked.\nHead: %s\nRoot: %s\n", events(rep.Events), events(rep.Events-rep.From), rep.Head, rep.Root)
	case rep.OK:
		fmt.Fprintf(w, "The chain holds: %s, every hash, link and signature checks out.\nHead: %s\nRoot: %s\n", events(rep.Events), rep.Head, rep.Root)
	default:
		fmt.Fprintf(w, "The chain does NOT hold: %d problem(s) in %s.\n", len(rep.Problems), events(rep.Events))
		for _, p := range rep.Problems {
			fmt.Fprintf(w, "  - %s\n", p.Problem)
		}
		fmt.Fprintf(w, "Head: %s\n", rep.Head)
	}
	switch {
	case rep.Kind == "incremental":
		fmt.Fprintf(w, "Audit: incremental, from size %d (the last audit); signatures of the new events verified, the rows they touched recomputed from the events and compared.\n", rep.From)
	case rep.Kind == "full" && rep.State == "":
		fmt.Fprintln(w, "Audit: full (every signature verified, every table replayed from the events and compared); no auditor state kept.")
	case rep.Kind == "full":
		fmt.Fprintln(w, "Audit: full (every signature verified, every table replayed from the events and compared).")
	}
	if rep.NotChecked != "" {
		fmt.Fprintf(w, "Not checked: %s.\n", rep.NotChecked)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "Note: %s.\n", n)
	}
	return w.err
}

// firstError is a writer that keeps the first error of the writes through it and skips the
// writes after it.
type firstError struct {
	w   io.Writer
	err error
}

func (f *firstError) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.w.Write(p)
	f.err = err
	return n, err
}
