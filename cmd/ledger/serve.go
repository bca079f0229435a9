package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"evidenceledger/fetch"
	"evidenceledger/verify"
	"evidenceledger/web"
)

var serveCommand = command{
	name:    "serve",
	summary: "serve the API [--addr 127.0.0.1:8080] [--fetch-allow CIDR,...] [--fetch-delay 1s] [--workers 4] [--user-agent STRING] [--login-walled HOST,...] [--verifier-endpoint URL --verifier-model NAME] [--adjudicator-endpoint URL --adjudicator-model NAME]",
	run:     runServe,
}

func runServe(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("serve", e)
	addr := fs.String("addr", "127.0.0.1:8080", "`host:port` to listen on")
	buildModels := addModelFlags(fs, e)
	var witnessFlags repeated
	fs.Var(&witnessFlags, "witness", "a C2SP tlog-witness to send each new checkpoint to, as `URL=KEY` (its base URL and cosigner verifier key); may be repeated")
	rest, cfg, workers, err := parseFetchFlags(fs, args)
	if err != nil {
		return err
	}
	models, err := buildModels(cfg)
	if err != nil {
		return err
	}
	var witnesses []*witness
	for _, v := range witnessFlags {
		w, err := parseWitness(v)
		if err != nil {
			return err
		}
		witnesses = append(witnesses, w)
	}
	if len(rest) > 0 {
		return fmt.Errorf("want: ledger serve [--addr HOST:PORT] [--fetch-allow CIDR,...]: %w", errUsage)
	}
	s, err := open(ctx, e, *data)
	if err != nil {
		return err
	}
	defer s.Close()
	// Closed before the store (defers run last in, first out): checks in flight are
	// dropped unrecorded, and checking the batch again finishes them.
	checker := verify.NewChecker(cfg).WithModels(models)
	jobs := verify.NewJobs(s, checker, workers)
	defer jobs.Close()
	// First run: with no user yet, a one-time link creates the first operator.
	var setupToken string
	if has, err := s.HasUsers(ctx); err != nil {
		return err
	} else if !has {
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return fmt.Errorf("make the first-run token: %w", err)
		}
		setupToken = base64.RawURLEncoding.EncodeToString(b[:])
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	// Closed when the shutdown starts: MCP event streams never go idle by themselves.
	stopping := make(chan struct{})
	srv := &http.Server{
		Handler:           web.New(web.Config{Ledger: s, Jobs: jobs, Checker: checker, CheckWorkers: workers, SetupToken: setupToken, Stopping: stopping}),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      10 * time.Minute, // an audit of a large chain takes a while
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	srv.RegisterOnShutdown(func() { close(stopping) })
	fmt.Fprintf(e.stderr, "ledger: serving on http://%s\n", ln.Addr())
	if setupToken != "" {
		fmt.Fprintf(e.stderr, "ledger: no user yet; open this link once to create the first operator (valid until used or until the server stops):\n  http://%s/setup?token=%s\n", linkHost(ln.Addr()), setupToken)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	// The PDF engine is compiled now rather than by the first PDF a check reads; what it
	// took is said unless the server stops first.
	var said sync.Mutex
	stopped := false
	go func() {
		took, err := fetch.WarmPDFium()
		said.Lock()
		defer said.Unlock()
		switch {
		case stopped:
		case err != nil:
			fmt.Fprintf(e.stderr, "ledger: the PDFium engine did not start, so checks of PDFs will say it failed: %v\n", err)
		default:
			fmt.Fprintf(e.stderr, "ledger: PDF engine ready (PDFium compiled in %s)\n", took.Round(time.Millisecond))
		}
	}()
	if len(witnesses) > 0 {
		wctx, stop := context.WithCancel(ctx)
		wdone := make(chan struct{})
		go func() {
			defer close(wdone)
			runWitnesses(wctx, s, witnesses, 2*time.Second, e.stderr)
		}()
		defer func() { stop(); <-wdone }() // before the store closes
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	said.Lock()
	stopped = true
	said.Unlock()
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

// linkHost is the host:port a browser on this machine can open for a listener's address: an
// unspecified address (0.0.0.0, ::) becomes the loopback one.
func linkHost(a net.Addr) string {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return a.String()
	}
	if ap.Addr().IsUnspecified() {
		return netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), ap.Port()).String()
	}
	return ap.String()
}
