package main

import (
	"context"
	"fmt"
)

var keysCommand = command{
	name:    "keys",
	summary: "print the public keys of the chain, oldest first; `keys rotate` starts a new signing key",
	run:     runKeys,
}

func runKeys(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("keys", e)
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 1 || (len(rest) == 1 && rest[0] != "rotate") {
		return fmt.Errorf("want: ledger keys [rotate]: %w", errUsage)
	}
	s, err := openExisting(ctx, *data)
	if err != nil {
		return err
	}
	defer s.Close()
	if len(rest) == 1 {
		id, err := s.RotateKey(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "ledger keys: events are now signed with key %s\n", id)
	}
	set, err := s.Keys(ctx)
	if err != nil {
		return err
	}
	return printJSON(e.stdout, set)
}
