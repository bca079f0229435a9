package main

import (
	"context"
	"fmt"
	"time"

	"evidenceledger/ledger"
	"evidenceledger/replica"
)

var backupCommand = command{
	name:    "backup",
	summary: "--out FILE [--with-key]: a consistent copy of the ledger, also while it serves (mode 0600)",
	run:     runBackup,
}

var restoreCommand = command{
	name:    "restore",
	summary: "FILE | --from URL [--timestamp T]: put a backup or a replica's state in place as the ledger of --data DIR (never over a ledger), then audit it",
	run:     runRestore,
}

// runBackup copies the ledger of --data with ledger.Store.Backup. It opens the ledger
// read-only, so it needs no signing key (unless --with-key) and runs beside a server.
func runBackup(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("backup", e)
	out := fs.String("out", "", "the backup `file` to write; it must not exist")
	withKey := fs.Bool("with-key", false, "also copy the signing key, to FILE"+ledger.BackupKeySuffix+" (mode 0600): whoever holds it can sign as this ledger")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 || *out == "" {
		return fmt.Errorf("want: ledger backup --out FILE [--with-key]: %w", errUsage)
	}
	s, err := openReadOnly(ctx, *data)
	if err != nil {
		return err
	}
	defer s.Close()
	h, err := s.Backup(ctx, *out, *withKey)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Backed up %s to %s (head %s).\n", events(h.Seq), *out, h.Hash)
	if *withKey {
		fmt.Fprintf(e.stdout, "The signing key is in %s: keep it as safe as the key itself.\n", *out+ledger.BackupKeySuffix)
	} else {
		fmt.Fprintln(e.stdout, "The signing key is not in the backup: keep a copy of it apart (or use --with-key), or the restored ledger can be audited but not written.")
	}
	return nil
}

// runRestore puts a backup in place with ledger.Restore and audits the result, all of it,
// as `ledger audit` does: exit 0 when the restored chain holds, 1 when not.
func runRestore(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("restore", e)
	from := fs.String("from", "", "restore from the replica at `URL` (as serve --replicate wrote it) instead of a backup file")
	timestamp := fs.String("timestamp", "", "with --from: the ledger as it was at this `time` (RFC 3339); the newest state when empty")
	replicaConfig := addReplicaFlags(fs, e, from)
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	var res ledger.RestoreResult
	var source string
	switch {
	case *from != "" && len(rest) == 0:
		var at time.Time
		if *timestamp != "" {
			if at, err = time.Parse(time.RFC3339Nano, *timestamp); err != nil {
				return fmt.Errorf("--timestamp %q: want an RFC 3339 time such as 2026-12-02T20:15:00Z: %w", *timestamp, errUsage)
			}
		}
		source = replica.Redact(*from)
		if res, err = replica.Restore(ctx, replicaConfig(), at, *data); err != nil {
			return err
		}
	case *from == "" && *timestamp == "" && len(rest) == 1:
		source = rest[0]
		if res, err = ledger.Restore(ctx, rest[0], *data); err != nil {
			return err
		}
	default:
		return fmt.Errorf("want: ledger restore FILE [--data DIR], or ledger restore --from URL [--timestamp T] [--data DIR]: %w", errUsage)
	}
	fmt.Fprintf(e.stdout, "Restored %s to %s.\n", source, res.Database)
	if res.Key == "" {
		fmt.Fprintf(e.stdout, "The backup has no signing key: put the ledger's signing.key in %s (mode 0600) before writing to it.\n", *data)
	}
	s, err := ledger.OpenReadOnly(ctx, *data)
	if err != nil {
		return err
	}
	defer s.Close()
	rep, err := s.Audit(ctx)
	if err != nil {
		return err
	}
	if err := printReport(e.stdout, rep); err != nil {
		return err
	}
	if !rep.OK {
		fmt.Fprintf(e.stderr, "ledger restore: the restored ledger does not hold; it is left in %s for inspection\n", *data)
		return exitError(1)
	}
	return nil
}
