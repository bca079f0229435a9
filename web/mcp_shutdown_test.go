package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"evidenceledger/verify"
)

// TestMCPShutdown shows that a graceful shutdown of the HTTP server ends the MCP sessions'
// event streams, which never go idle by themselves: with a client connected (its standalone
// stream open), Shutdown returns, without a deadline of its own, once Stopping is closed by
// the server's shutdown hook.
func TestMCPShutdown(t *testing.T) {
	st, op, _ := openUsers(t)
	stopping := make(chan struct{})
	jobs := verify.NewJobs(st, verify.NewChecker(loopbackFetch()), 1)
	t.Cleanup(jobs.Close)
	srv := httptest.NewUnstartedServer(New(Config{Ledger: st, Jobs: jobs, Stopping: stopping}))
	srv.Config.RegisterOnShutdown(func() { close(stopping) })
	srv.Start()
	t.Cleanup(srv.Close)
	f := fixture{srv: srv, store: st, operator: op}
	cs, err := mcpClient(t, f, op, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res := call(t, cs, "audit_status", nil, nil); res.IsError {
		t.Fatalf("audit_status: %s", resultText(res))
	}
	if err := srv.Config.Shutdown(context.Background()); err != nil && err != http.ErrServerClosed {
		t.Fatalf("shutdown: %v", err)
	}
	if _, err := cs.ListTools(t.Context(), nil); err == nil {
		t.Error("the session answers after the shutdown")
	}
}
