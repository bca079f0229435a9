package main

import (
	"context"
	"fmt"
)

var userCommand = command{
	name:    "user",
	summary: "user add NAME --role operator|auditor: add a user; prints the new API token, alone",
	run:     runUser,
}

func runUser(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("user add", e)
	role := fs.String("role", "", "the user's `role`: operator (reads and writes) or auditor (reads)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 2 || rest[0] != "add" {
		return fmt.Errorf("want: ledger user add NAME --role operator|auditor: %w", errUsage)
	}
	s, err := open(ctx, *data)
	if err != nil {
		return err
	}
	defer s.Close()
	token, err := s.AddUser(ctx, "system", rest[1], *role)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.stdout, token)
	return err
}
