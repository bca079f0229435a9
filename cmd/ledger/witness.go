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
// URL and its cosigner verifier key. known is the tree size the witness last acknowledged.
type witness struct {
	url, key string
	client   *http.Client
	known    int64
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

// send offers the latest checkpoint to w (when w has not acknowledged it) and keeps the
// cosignature it returns. A witness that knows another size answers 409 with it; send then
// retries once from that size.
func (w *witness) send(ctx context.Context, s *ledger.Store) error {
	for attempt := 0; attempt < 2; attempt++ {
		body, size, err := s.WitnessRequest(ctx, w.known)
		if err != nil {
			return err
		}
		if size == w.known {
			return nil
		}
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
			w.known = size
			return nil
		case http.StatusConflict:
			n, err := strconv.ParseInt(strings.TrimSpace(string(answer)), 10, 64)
			if err != nil || n < 0 {
				return fmt.Errorf("witness %s: 409 without a tree size: %q", w.url, answer)
			}
			w.known = n
			continue
		default:
			return fmt.Errorf("witness %s: %s: %s", w.url, resp.Status, bytes.TrimSpace(answer))
		}
	}
	return fmt.Errorf("witness %s: it keeps answering 409 (it knows size %d)", w.url, w.known)
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
