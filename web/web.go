// Package web is the evidence ledger's HTTP server: the JSON API behind bearer tokens.
//
// [New] returns the handler with every route. Requests to /api/ carry
// "Authorization: Bearer TOKEN"; without a valid token the answer is 401, and a user whose
// role may only read gets 403 on a route that writes. Errors are answered as
// {"error":"..."} by [Error], which maps the ledger's errors to HTTP statuses.
package web

import (
	"context"
	"net/http"

	"evidenceledger/ledger"
)

// Ledger is what the server needs from the store.
type Ledger interface {
	Authenticate(ctx context.Context, token string) (ledger.User, error)
	Audit(ctx context.Context) (ledger.Report, error)
	Events(ctx context.Context, after int64, limit int) ([]ledger.Event, error)
	Keys(ctx context.Context) (ledger.KeySet, error)
	intakeLedger
	GateStore
	accounts
	evidencePages
}

// Config is what the server is built from.
type Config struct {
	Ledger Ledger
	// Jobs runs batch checks (POST /api/batches/{id}/check and the batch page's check
	// button); without it those answer 503.
	Jobs CheckJobs
	// SetupToken, when not empty, is the one-time first-run token: while the ledger has no
	// user, /setup?token=SetupToken creates the first operator. Only its hash is kept.
	SetupToken string
}

type server struct {
	cfg   Config
	pages *pages
}

// New returns the handler for all routes:
//
//	GET /healthz        200 {"ok":true}, no token needed
//	GET /api/audit      the audit report (ok, events, head, problems)
//	GET /api/events     ?after=N&limit=M (default 100, at most 1000): {"events":[...]}
//	GET /api/keys       {"keys":[...]}
//
// the routes of research intake and check jobs, and the HTML pages for people, signed in
// with a name and password (docs/pages.md).
func New(cfg Config) http.Handler {
	s := &server{cfg: cfg, pages: newPages(cfg.SetupToken)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	})
	mux.Handle("GET /api/audit", s.auth(roleRead, s.handleAudit))
	mux.Handle("GET /api/events", s.auth(roleRead, s.handleEvents))
	mux.Handle("GET /api/keys", s.auth(roleRead, s.handleKeys))
	s.intakeRoutes(mux)
	s.checkRoutes(mux)
	mux.Handle("POST /api/gate", s.auth(roleRead, s.handleGate))
	mux.Handle("/api/", s.auth(roleRead, func(w http.ResponseWriter, r *http.Request) {
		Error(w, r, errNoRoute)
	}))
	s.routePages(mux)
	return mux
}
