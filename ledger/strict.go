package ledger

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// checkStrictJSON accepts exactly one JSON value that every RFC 8785 implementation hashes
// the same way, as docs/chain.md rules: valid UTF-8 with no lone surrogate escapes, no
// object with a member name twice (at any depth), and numbers that are integers of
// magnitude at most 2^53-1. The checks are those of the jsontext decoder
// (github.com/go-json-experiment/json), which refuses duplicate names and invalid UTF-8 by
// default, plus the number rule. The error says what was refused and wraps [ErrInvalid].
func checkStrictJSON(b []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(b))
	values := 0
	for {
		if dec.PeekKind() == '0' {
			v, err := dec.ReadValue()
			if err != nil {
				return strictError(err)
			}
			if err := checkInteger(string(v)); err != nil {
				return err
			}
		} else if _, err := dec.ReadToken(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return strictError(err)
		}
		if dec.StackDepth() == 0 {
			if values++; values > 1 {
				return fmt.Errorf("more than one JSON value: %w", ErrInvalid)
			}
		}
	}
	if values == 0 {
		return fmt.Errorf("no JSON value: %w", ErrInvalid)
	}
	return nil
}

func strictError(err error) error {
	return fmt.Errorf("it is not JSON that every RFC 8785 implementation reads the same way (duplicate member names, invalid UTF-8 and lone surrogates are refused): %v: %w", err, ErrInvalid)
}

// checkInteger accepts a JSON number that is an integer of magnitude at most 2^53-1.
func checkInteger(num string) error {
	if n, err := strconv.ParseInt(num, 10, 64); err != nil || n > maxSafeInteger || n < -maxSafeInteger {
		if bytes.ContainsAny([]byte(num), ".eE") {
			return fmt.Errorf("it holds the number %s: only integers are allowed (floating-point numbers do not canonicalize the same everywhere): %w", num, ErrInvalid)
		}
		return fmt.Errorf("it holds the integer %s, beyond ±(2^53-1), which not every RFC 8785 implementation writes exactly: %w", num, ErrInvalid)
	}
	return nil
}

// decodeSig decodes an event's sig: the canonical standard base64, with padding, of a
// 64-byte Ed25519 signature. Any other spelling of the same bytes is refused, so that one
// event has one exported form.
func decodeSig(s string) ([]byte, error) {
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != 64 || base64.StdEncoding.EncodeToString(b) != s {
		return nil, fmt.Errorf("sig %q is not the canonical standard base64 (with padding) of a 64-byte signature: %w", s, ErrInvalid)
	}
	return b, nil
}
