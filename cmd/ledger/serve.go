package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"evidenceledger/verify"
	"evidenceledger/web"
)

var serveCommand = command{
	name:    "serve",
	summary: "serve the API [--addr 127.0.0.1:8080] [--fetch-allow CIDR,...] [--fetch-delay 1s] [--workers 4]",
	run:     runServe,
}

func runServe(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("serve", e)
	addr := fs.String("addr", "127.0.0.1:8080", "`host:port` to listen on")
	fetchConfig := fetchFlags(fs)
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("want: ledger serve [--addr HOST:PORT] [--fetch-allow CIDR,...]: %w", errUsage)
	}
	cfg, workers, err := fetchConfig()
	if err != nil {
		return err
	}
	s, err := open(ctx, *data)
	if err != nil {
		return err
	}
	defer s.Close()
	// Closed before the store (defers run last in, first out): checks in flight are
	// dropped unrecorded, and checking the batch again finishes them.
	jobs := verify.NewJobs(s, verify.NewChecker(cfg), workers)
	defer jobs.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           web.New(web.Config{Ledger: s, Jobs: jobs}),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      10 * time.Minute, // an audit of a large chain takes a while
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	fmt.Fprintf(e.stderr, "ledger: serving on http://%s\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintln(e.stderr, "ledger: shutting down")
	shutCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
