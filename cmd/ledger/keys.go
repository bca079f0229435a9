package main

import (
	"context"
	"fmt"

	"evidenceledger/ledger"
)

var keysCommand = command{
	name:    "keys",
	summary: "print the public keys of the chain, oldest first, with their checkpoint verifier keys; `keys rotate` starts a new signing key",
	run:     runKeys,
}

// runKeys prints the keys document. Printing needs no signing key and writes nothing;
// rotate opens the ledger with its key.
func runKeys(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("keys", e)
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 1 || (len(rest) == 1 && rest[0] != "rotate") {
		return fmt.Errorf("want: ledger keys [rotate]: %w", errUsage)
	}
	var s *ledger.Store
	if len(rest) == 1 {
		if s, err = openExisting(ctx, e, *data); err != nil {
			return err
		}
		defer s.Close()
		id, err := s.RotateKey(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "ledger keys: events are now signed with key %s\n", id)
	} else {
		if s, err = openReadOnly(ctx, *data); err != nil {
			return err
		}
		defer s.Close()
	}
	set, err := s.Keys(ctx)
	if err != nil {
		return err
	}
	return printJSON(e.stdout, set)
}
