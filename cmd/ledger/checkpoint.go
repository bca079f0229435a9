package main

import (
	"context"
	"fmt"
	"strconv"
)

var checkpointCommand = command{
	name:    "checkpoint",
	summary: "print the latest signed checkpoint (C2SP tlog-checkpoint note, with cosignatures)",
	run:     runCheckpoint,
}

func runCheckpoint(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("checkpoint", e)
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("want: ledger checkpoint: %w", errUsage)
	}
	s, err := openReadOnly(ctx, *data)
	if err != nil {
		return err
	}
	defer s.Close()
	cp, err := s.Checkpoint(ctx)
	if err != nil {
		return err
	}
	_, err = e.stdout.Write(cp.Note)
	return err
}

var proofCommand = command{
	name:    "proof",
	summary: "print an RFC 6962 proof: inclusion --seq N [--size S], consistency --from A [--to B], bundle --seq N | --claim ID",
	run:     runProof,
}

func runProof(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("proof", e)
	seq := fs.Int64("seq", 0, "the event's `seq` (inclusion, bundle)")
	size := fs.Int64("size", 0, "the tree `size` to prove against (inclusion; default the latest checkpoint's)")
	from := fs.Int64("from", 0, "the earlier tree `size` (consistency)")
	to := fs.Int64("to", 0, "the later tree `size` (consistency; default the latest checkpoint's)")
	claim := fs.String("claim", "", "prove the claim `ID`'s latest check, or its import (bundle)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	usage := fmt.Errorf("want: ledger proof inclusion --seq N [--size S] | consistency --from A [--to B] | bundle --seq N | --claim ID: %w", errUsage)
	if len(rest) != 1 {
		return usage
	}
	s, err := openReadOnly(ctx, *data)
	if err != nil {
		return err
	}
	defer s.Close()
	latest := func(v int64) (int64, error) {
		if v != 0 {
			return v, nil
		}
		cp, err := s.Checkpoint(ctx)
		return cp.Size, err
	}
	switch rest[0] {
	case "inclusion":
		n, err := latest(*size)
		if err != nil {
			return err
		}
		p, err := s.InclusionProof(ctx, *seq, n)
		if err != nil {
			return err
		}
		return printJSON(e.stdout, p)
	case "consistency":
		n, err := latest(*to)
		if err != nil {
			return err
		}
		p, err := s.ConsistencyProof(ctx, *from, n)
		if err != nil {
			return err
		}
		return printJSON(e.stdout, p)
	case "bundle":
		if (*seq == 0) == (*claim == "") {
			return fmt.Errorf("proof bundle: give --seq N or --claim ID: %w", errUsage)
		}
		n := *seq
		if *claim != "" {
			if n, err = s.ClaimBundleSeq(ctx, *claim); err != nil {
				return err
			}
		}
		b, err := s.ProofBundle(ctx, n)
		if err != nil {
			return fmt.Errorf("%w (event %s)", err, strconv.FormatInt(n, 10))
		}
		_, err = e.stdout.Write(b)
		return err
	}
	return usage
}
