package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"evidenceledger/ledger"
)

// witness is one C2SP tlog-witness the server sends its checkpoints to: its add-checkpoint
// URL and its cosigner verifier key. known is the tree size the witness last said it holds
// (from a cosignature or a 409); cosigned is the size of the latest checkpoint it cosigned.
type witness struct {
	url, key string
	client   *http.Client
	known    int64
	cosigned int64
}

// parseWitness reads a --witness value, URL=KEY: the witness's base URL (add-checkpoint is
// POSTed under it) and its verifier key.
func parseWitness(v string) (*witness, error) {
	u, key, ok := strings.Cut(v, "=")
	if !ok || !strings.HasPrefix(u, "http") || key == "" {
		return nil, fmt.Errorf("--witness %q: want URL=KEY, like http://127.0.0.1:7380=witness.example/w1+1234abcd+BASE64: %w", v, errUsage)
	}
	return &witness{url: strings.TrimSuffix(u, "/") + "/add-checkpoint", key: key, client: &http.Client{Timeout: 10 * time.Second}}, nil
}

// witnessMaxAnswer bounds a witness's answer; a cosignature line is about 150 bytes.
const witnessMaxAnswer = 64 << 10

// send offers the latest checkpoint to w (when w has not cosigned it) and keeps the
// cosignature it returns, following C2SP tlog-witness:
//
//   - A 409 names the size the witness holds. When it is at most the ledger's size, the
//     request is made again with "old" set to it, so the witness checks the consistency
//     proof from there or, at equal size, compares the roots: a 422 (or a second 409 naming
//     the same size) means the witness holds another tree, a fork, which is reported.
//   - A 409 with a size larger than the ledger's means the witness holds a checkpoint of this
//     log that the ledger never reached: a fork or a rolled-back ledger. It is reported,
//     naming the witness and both sizes, and the witness is not asked again until the
//     ledger's checkpoint reaches that size (then with "old" that size).
func (w *witness) send(ctx context.Context, s *ledger.Store) error {
	for attempt := 0; attempt < 2; attempt++ {
		body, size, err := s.WitnessRequest(ctx, 0)
		if err != nil {
			return err
		}
		if size == w.cosigned {
			return nil
		}
		if w.known > size {
			return fmt.Errorf("witness %s holds a checkpoint of size %d of this log, but the ledger's latest has size %d: the ledger was rolled back or forked after the witness cosigned; it is asked again once the ledger reaches size %d", w.url, w.known, size, w.known)
		}
		if w.known > 0 {
			if body, size, err = s.WitnessRequest(ctx, w.known); err != nil {
				return err
			}
		}
		sentOld := w.known
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
		if err != nil {
			return err
		}
		resp, err := w.client.Do(req)
		if err != nil {
			return fmt.Errorf("witness %s: %w", w.url, err)
		}
		answer, err := io.ReadAll(io.LimitReader(resp.Body, witnessMaxAnswer))
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("witness %s: %w", w.url, err)
		}
		switch resp.StatusCode {
		case http.StatusOK:
			if err := s.AddCosignature(ctx, size, w.key, answer); err != nil {
				return fmt.Errorf("witness %s: %w", w.url, err)
			}
			w.known, w.cosigned = size, size
			return nil
		case http.StatusConflict:
			n, err := strconv.ParseInt(strings.TrimSpace(string(answer)), 10, 64)
			if err != nil || n < 0 {
				return fmt.Errorf("witness %s: 409 without a tree size: %q", w.url, answer)
			}
			if n == sentOld {
				// The witness holds the size we named and still refuses: at equal size its
				// root differs from ours.
				return fmt.Errorf("witness %s holds another tree of size %d than the ledger's checkpoint of size %d: a fork of this log", w.url, n, size)
			}
			w.known = n
			if n > size {
				return fmt.Errorf("witness %s holds a checkpoint of size %d of this log, but the ledger's latest has size %d: the ledger was rolled back or forked after the witness cosigned; it is asked again once the ledger reaches size %d", w.url, n, size, n)
			}
			continue
		case http.StatusUnprocessableEntity:
			// C2SP tlog-witness: the proof from "old" does not verify (at equal size: the
			// roots differ).
			return fmt.Errorf("witness %s refuses the ledger's checkpoint of size %d as not extending the tree of size %d it holds, a fork of this log: %s", w.url, size, sentOld, bytes.TrimSpace(answer))
		default:
			return fmt.Errorf("witness %s: %s: %s", w.url, resp.Status, bytes.TrimSpace(answer))
		}
	}
	return fmt.Errorf("witness %s: it keeps answering 409 (it holds size %d)", w.url, w.known)
}

// runWitnesses offers each new checkpoint to every witness, every interval, until ctx ends.
// Failures are logged and retried at the next tick.
func runWitnesses(ctx context.Context, s *ledger.Store, ws []*witness, interval time.Duration, log io.Writer) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		for _, w := range ws {
			if err := w.send(ctx, s); err != nil && ctx.Err() == nil {
				fmt.Fprintf(log, "ledger: %v\n", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
