package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"evidenceledger/ledger"
)

var userCommand = command{
	name:    "user",
	summary: "user add NAME --role operator|auditor [--password-stdin]: add a user; prints the new API token, alone",
	run:     runUser,
}

func runUser(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("user add", e)
	role := fs.String("role", "", "the user's `role`: operator (reads and writes) or auditor (reads)")
	pwStdin := fs.Bool("password-stdin", false, "also set a sign-in password for the pages, read from the first line of stdin")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 2 || rest[0] != "add" {
		return fmt.Errorf("want: ledger user add NAME --role operator|auditor [--password-stdin]: %w", errUsage)
	}
	var password string
	if *pwStdin {
		if password, err = readPassword(e.stdin); err != nil {
			return err
		}
	}
	s, err := open(ctx, e, *data)
	if err != nil {
		return err
	}
	defer s.Close()
	var token string
	if *pwStdin {
		token, err = s.AddUserWithPassword(ctx, "system", rest[1], *role, password)
	} else {
		token, err = s.AddUser(ctx, "system", rest[1], *role)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.stdout, token)
	return err
}

// readPassword reads a password from the first line of r (the line end, \n or \r\n, is not
// part of it) and checks it against the ledger's rules before anything is written.
func readPassword(r io.Reader) (string, error) {
	line, err := bufio.NewReader(io.LimitReader(r, 4*ledger.MaxPasswordLen+2)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("--password-stdin: read the password: %w", err)
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if line == "" {
		return "", fmt.Errorf("--password-stdin: stdin held no password; pipe one in, e.g. `printf '%%s\\n' \"$PW\" | ledger user add ...`: %w", errUsage)
	}
	if err := ledger.CheckPasswordRules(line); err != nil {
		return "", fmt.Errorf("--password-stdin: %w", err)
	}
	return line, nil
}
