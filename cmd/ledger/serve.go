package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/acme/autocert"

	"evidenceledger/pdf"
	"evidenceledger/replica"
	"evidenceledger/verify"
	"evidenceledger/web"
)

var serveCommand = command{
	name:    "serve",
	summary: "serve the API [--addr 127.0.0.1:8080] [--fetch-allow CIDR,...] [--fetch-delay 1s] [--workers 4] [--user-agent STRING] [--login-walled HOST,...] [--verifier-endpoint URL --verifier-model NAME] [--adjudicator-endpoint URL --adjudicator-model NAME] [--chromium PATH] [--render=false] [--render-scripts=false] [--replicate URL]",
	run:     runServe,
}

func runServe(ctx context.Context, e *env, args []string) error {
	fs, data := newFlags("serve", e)
	addr := fs.String("addr", "127.0.0.1:8080", "`host:port` to listen on")
	tlsCert := fs.String("tls-cert", "", "serve https with this certificate `file` (PEM, the chain after the leaf); needs --tls-key")
	tlsKey := fs.String("tls-key", "", "the private key `file` (PEM) of --tls-cert")
	logFormat := fs.String("log-format", "text", "the log's `format`: text or json (log/slog; one line per request and per check, on stderr)")
	metricsTokenFile := fs.String("metrics-token-file", "", "a `file` holding the bearer token GET /metrics asks for; without it /metrics answers loopback only")
	shutdownGrace := fs.Duration("shutdown-grace", 30*time.Second, "on SIGTERM or SIGINT, how long running checks may take to finish before they are stopped (their checks in flight dropped unrecorded, their batch's lock released); the server exits at most this plus 5s after the signal")
	tlsACME := fs.String("tls-acme", "", "serve https with a certificate for `domain` from an ACME CA (Let's Encrypt), kept in DATA/acme; --addr must be reachable on port 443 from the CA")
	buildModels := addModelFlags(fs, e)
	buildRenderer := addRenderFlags(fs, e)
	replicaConfig := addReplicateFlags(fs, e)
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
	tlsConfig, err := serveTLS(*tlsCert, *tlsKey, *tlsACME, *data)
	if err != nil {
		return err
	}
	logger, err := newLogger(e.stderr, *logFormat)
	if err != nil {
		return err
	}
	metricsToken, err := readMetricsToken(*metricsTokenFile)
	if err != nil {
		return err
	}
	metrics := web.NewMetrics()
	cfg.Observe = metrics.ObserveFetch
	s, err := open(ctx, e, *data)
	if err != nil {
		return err
	}
	defer s.Close()
	if rc := replicaConfig(); rc.URL != "" {
		rep, err := replica.Start(ctx, *data, rc, logger)
		if err != nil {
			return err
		}
		// After the jobs, before the store: what they recorded reaches the replica, unless
		// the replica cannot be reached within the bound.
		defer func() {
			cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := rep.Close(cctx); err != nil {
				fmt.Fprintf(e.stderr, "ledger: the replica may lack the last writes: %v\n", err)
			}
		}()
		fmt.Fprintf(e.stderr, "ledger: replicating to %s every %s\n", replica.Redact(rc.URL), rc.Interval)
	}
	// Closed before the store (defers run last in, first out): checks in flight are
	// dropped unrecorded, and checking the batch again finishes them.
	renderer := buildRenderer()
	if renderer != nil {
		defer renderer.Close() // after the jobs (defers run last in, first out)
	}
	checker := verify.NewChecker(cfg).WithModels(models).WithRenderer(renderer).WithPDFFailures(metrics.ObservePDFFailure)
	jobs := verify.NewJobs(metrics.CheckStore(s, logger), checker, workers)
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
	scheme := "http"
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	if tlsConfig != nil {
		ln, scheme = tls.NewListener(ln, tlsConfig), "https"
	}
	srv := &http.Server{
		Handler: web.New(web.Config{Ledger: s, Jobs: jobs, Checker: checker, CheckWorkers: workers, SetupToken: setupToken, TLS: tlsConfig != nil, Port: port,
			Metrics: metrics, MetricsToken: metricsToken, Log: logger, Stopping: stopping}),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      10 * time.Minute, // an audit of a large chain takes a while
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	srv.RegisterOnShutdown(func() { close(stopping) })
	sayRenderer(e.stderr, renderer)
	fmt.Fprintf(e.stderr, "ledger: serving on %s://%s\n", scheme, ln.Addr())
	if setupToken != "" {
		fmt.Fprintf(e.stderr, "ledger: no user yet; open this link once to create the first operator (valid until used or until the server stops):\n  %s://%s/setup?token=%s\n", scheme, linkHost(ln.Addr()), setupToken)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	// The PDF engine is compiled now rather than by the first PDF a check reads; what it
	// took is said unless the server stops first.
	var said sync.Mutex
	stopped := false
	go func() {
		took, err := pdf.WarmPDFium()
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
	// The check runs a stopped server left are resumed now, and those a killed one left once
	// its lock's lease runs out: looked for again every lease.
	rctx, stopResume := context.WithCancel(ctx)
	rdone := make(chan struct{})
	go func() {
		defer close(rdone)
		resumeRuns(rctx, jobs, verify.LockLease, e.stderr)
	}()
	defer func() { stopResume(); <-rdone }()
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
	// New checks are refused (503) from now on; the pages and polls keep answering while the
	// running checks finish, within the grace.
	fmt.Fprintf(e.stderr, "ledger: shutting down: no new checks; running checks have %s to finish\n", *shutdownGrace)
	graceCtx, cancelGrace := context.WithTimeout(context.Background(), *shutdownGrace)
	if n := jobs.Shutdown(graceCtx); n > 0 {
		fmt.Fprintf(e.stderr, "ledger: stopped %d check job(s) that had not finished; what they recorded stays, and checking their batches again checks the rest\n", n)
	}
	cancelGrace()
	shutCtx, cancel := context.WithTimeout(context.Background(), httpDrain)
	defer cancel()
	if err := srv.Shutdown(shutCtx); errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(e.stderr, "ledger: requests still open after %s were cut\n", httpDrain)
		srv.Close()
	} else if err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// httpDrain bounds how long, after the check jobs ended, open requests have to complete
// before the server closes their connections.
const httpDrain = 5 * time.Second

// newLogger is the server's log on w in format (text or json).
func newLogger(w io.Writer, format string) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json: %w", format, errUsage)
}

// readMetricsToken reads the metrics token from path ("" for none): the file's first line,
// at least 16 characters, so that it is not guessed.
func readMetricsToken(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := readLimited(path, "metrics token file", 4096)
	if err != nil {
		return "", err
	}
	tok, _, _ := strings.Cut(string(b), "\n")
	tok = strings.TrimSpace(tok)
	if len(tok) < 16 {
		return "", fmt.Errorf("the metrics token in %s is %d characters; give at least 16 (for example: head -c 32 /dev/urandom | base64 > %s)", path, len(tok), path)
	}
	return tok, nil
}

// serveTLS returns the TLS configuration of --tls-cert/--tls-key or --tls-acme, or nil to
// serve plain http. The flags are checked first: a certificate needs its key, and ACME is
// not given beside a certificate.
func serveTLS(certFile, keyFile, acmeDomain, data string) (*tls.Config, error) {
	switch {
	case acmeDomain != "" && (certFile != "" || keyFile != ""):
		return nil, fmt.Errorf("give either --tls-acme or --tls-cert with --tls-key, not both: %w", errUsage)
	case (certFile == "") != (keyFile == ""):
		return nil, fmt.Errorf("--tls-cert and --tls-key go together: %w", errUsage)
	case acmeDomain != "":
		m := &autocert.Manager{
			Prompt:     autocert.AcceptTOS,
			HostPolicy: autocert.HostWhitelist(acmeDomain),
			Cache:      autocert.DirCache(filepath.Join(data, "acme")),
		}
		c := m.TLSConfig()
		c.MinVersion = tls.VersionTLS12
		return c, nil
	case certFile != "":
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("--tls-cert %s, --tls-key %s: %w", certFile, keyFile, err)
		}
		return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
	}
	return nil, nil
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

// resumeRuns resumes the interrupted check runs (see [verify.Jobs.Resume]) now and then every
// interval until ctx ends, saying on w which it resumed and what failed.
func resumeRuns(ctx context.Context, jobs *verify.Jobs, interval time.Duration, w io.Writer) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		ids, err := jobs.Resume(ctx)
		for _, id := range ids {
			if st, ok := jobs.Status(id); ok {
				fmt.Fprintf(w, "ledger: resumed the interrupted check of batch %s as job %s (%d citations left)\n", st.Batch, id, st.Total)
			}
		}
		if err != nil && !errors.Is(err, verify.ErrStopping) && ctx.Err() == nil {
			fmt.Fprintf(w, "ledger: an interrupted check was not resumed: %v\n", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
