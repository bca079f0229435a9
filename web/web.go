// Package web is the evidence ledger's HTTP server: the JSON API behind bearer tokens for
// scripts and workflows, and the HTML pages for people.
//
// [New] returns the handler with every route, built from a [Config]: the [Ledger] it reads
// and writes, the [CheckJobs] that run batch checks, and the first-run token.
//
// # The API
//
// Requests to /api/ carry "Authorization: Bearer TOKEN" (tokens come from ledger user add);
// without a valid token the answer is 401. Auditors read; operators also write, and a user
// whose role may only read gets 403 on a route that writes. [UserFrom] gives a handler the
// signed-in user.
//
//	GET  /healthz                          {"ok":true}, no token needed
//	POST /api/research                     {"text":...} or {"claims":[...]}: 201, the batch and its claims
//	GET  /api/batches, /api/batches/{id}   batches with their counts
//	POST /api/batches/{id}/check           202 {"job":...}: check the batch in the background
//	GET  /api/batches/{id}/report?format=md|html|json   the hand-off report (json by default)
//	GET  /api/jobs/{id}?wait=SECS          the job's state and progress
//	GET  /api/claims?batch=&status=&strength=, /api/claims/{id}
//	                                       claims with citations, documents, verdicts, adjudication
//	GET  /api/seams?state=, /api/seams/{id}; POST /api/seams; POST /api/seams/{id}/resolve
//	GET  /api/sources; POST /api/sources/{id}/classify
//	POST /api/gate                         {"text":...,"check":bool}: may the text be written to memory
//	GET  /api/audit                        the audit report (ok, events, head, problems)
//	GET  /api/events?after=N&limit=M       the events in their exported form
//	GET  /api/keys                         the public keys, with their checkpoint verifier keys
//	GET  /api/proof/inclusion?seq=N&size=S RFC 6962 inclusion proof (size: default the latest checkpoint's)
//	GET  /api/proof/consistency?from=A&to=B  RFC 6962 consistency proof (to: default the latest)
//	GET  /checkpoint                       the latest signed checkpoint, cosigned; public, no token
//	POST /mcp                              the MCP tools over Streamable HTTP (docs/agents.md)
//
// Without CheckJobs the check routes answer 503. Errors are answered as {"error":"..."} by
// [Error], which maps the ledger's errors to HTTP statuses (invalid input 400, no valid token
// 401, a reader writing 403, not found 404, conflict 409; anything else 500, logged and not
// sent). Package gate (gate.StoreLedger) adapts the ledger to the memory-write gate.
//
// # The pages
//
// Everything outside /api/ is server-rendered html/template pages that use the vendored htmx
// where the browser runs it and work as plain links and form posts where it does not:
//
//	GET  /setup?token=T, POST /setup       first run: the one-time link creates the first operator
//	GET  /signin, POST /signin, POST /signout
//	GET  /                                 operators go to /batches, auditors to /audit
//	GET  /paste; POST /paste/preview, /paste   preview research, then commit what was previewed
//	GET  /batches, /batches/{id}?job=      batches; a batch with its claims and a check's progress
//	POST /batches/{id}/check               start checking the batch, then follow it
//	GET  /batches/{id}/report?format=      the hand-off report; ?format=md|html|json downloads it
//	GET  /claims, /claims/{id}             claims; one claim with excerpt, verdicts, adjudication
//	GET  /documents/{sha256}               a stored page's raw bytes as inert plain text (a PDF as a download)
//	GET  /documents/{sha256}/text?claim=&citation=   the text each verifier read, the quote marked
//	GET  /seams; POST /seams, /seams/{id}/resolve
//	GET  /sources; POST /sources/{id}/classify
//	GET  /audit?run=1                      recompute the chain
//	GET  /static/{name}                    htmx and the style sheet, from the binary
//
// Fragments follow one rule: a route answers its whole page, and with "HX-Request: true"
// only the fragment its page's htmx element targets, a {{define}} block of the same template.
// An htmx request's error is retargeted to the page's message box.
//
// Sign-in is by name and password (argon2id, in package ledger); the session id lives in the
// session cookie (__Host-ledger_session over TLS, else ledger_session_PORT: cookieName),
// which is HttpOnly, SameSite=Lax and always Secure. Browsers send a
// Secure cookie back over http to 127.0.0.1, [::1] and localhost only, so a server reached
// from other hosts must be behind TLS. Auditors see every page and get 403 on every form
// that changes state. Against cross-site requests, every page route is behind net/http's
// [http.CrossOriginProtection], and every state-changing form of a signed-in person carries
// a token derived from the session (the csrf field or the X-CSRF-Token header). Every HTML
// answer carries a Content-Security-Policy that allows scripts, styles and connections from
// this origin only; the pages have no inline script or style.
//
// docs/pages.md describes the pages in full: routes, fragments, sessions, first run, CSRF,
// headers and what the tests cover.
package web

import (
	"log/slog"
	"net/http"

	"evidenceledger/gate"
	"evidenceledger/verify"
)

// Ledger is what the server needs from the store: the union of what its handler groups
// declare, each in its own file, and reach through their own accessor (s.intake(),
// s.chainReads(), ...), so a handler calls only the methods its group names.
type Ledger interface {
	authLedger
	chainLedger
	intakeLedger
	proofLedger
	gate.StoreReader
	verify.CheckStore
	accounts
	evidencePages
	reportLedger
	storedPages
	statsLedger
}

// Config is what the server is built from.
type Config struct {
	Ledger Ledger
	// Jobs runs batch checks (POST /api/batches/{id}/check and the batch page's check
	// button); without it those answer 503.
	Jobs CheckJobs
	// Checker checks the claims of POST /api/gate {"check": true} on the spot, with the
	// server's fetch settings, CheckWorkers at a time; without it such a request answers 503.
	Checker      *verify.Checker
	CheckWorkers int
	// SetupToken, when not empty, is the one-time first-run token: while the ledger has no
	// user, /setup?token=SetupToken creates the first operator. Only its hash is kept.
	SetupToken string
	// TLS: the server is reached over https (ledger serve --tls-cert or --tls-acme). The
	// session cookie is then __Host-ledger_session, and every answer carries
	// Strict-Transport-Security.
	TLS bool
	// Port is the port the server listens on; without TLS the session cookie's name carries
	// it (see cookieName). "" leaves it out.
	Port string
	// Metrics counts what the server does, for GET /metrics; nil makes a new set. Pass the
	// one whose CheckStore and ObserveFetch the check jobs and the checker use, so that
	// their counts are served too.
	Metrics *Metrics
	// MetricsToken, when not empty, is the bearer token GET /metrics asks for; without it
	// /metrics answers direct loopback requests only.
	MetricsToken string
	// Log, when not nil, gets one line per request (observeRequests); nothing when nil.
	Log *slog.Logger
	// Stopping, when closed, ends the requests to /mcp (the MCP sessions' event streams and
	// the tool calls waiting on a check), so that a graceful shutdown need not wait for
	// streams that never go idle. `ledger serve` closes it from its server's shutdown hook.
	Stopping <-chan struct{}
}

// hsts is the Strict-Transport-Security of a server on TLS: two years, as the HSTS preload
// list asks, without includeSubDomains (other services of the domain are not this one's).
const hsts = "max-age=63072000"

type server struct {
	cfg    Config
	cookie string // the session cookie's name
	pages  *pages
	signin *signInGuard
	audits *auditRun
}

func newServer(cfg Config) *server {
	if cfg.Metrics == nil {
		cfg.Metrics = NewMetrics()
	}
	return &server{cfg: cfg, cookie: cookieName(cfg.TLS, cfg.Port), pages: newPages(cfg.SetupToken), signin: newSignInGuard(),
		audits: &auditRun{observe: cfg.Metrics.observeAudit}}
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
func New(cfg Config) http.Handler { return newServer(cfg).handler() }

func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	})
	mux.Handle("GET /api/audit", s.auth(roleRead, s.handleAudit))
	mux.Handle("GET /api/events", s.auth(roleRead, s.handleEvents))
	mux.Handle("GET /api/keys", s.auth(roleRead, s.handleKeys))
	s.intakeRoutes(mux)
	s.checkRoutes(mux)
	s.proofRoutes(mux)
	mux.Handle("POST /api/gate", s.auth(roleRead, s.handleGate))
	mux.Handle("/mcp", s.auth(roleRead, s.mcpHTTP())) // the MCP tools over Streamable HTTP (mcp.go)
	mux.Handle("/api/", s.auth(roleRead, func(w http.ResponseWriter, r *http.Request) {
		Error(w, r, notRouted(w, r, mux, "/api/", errNoRoute))
	}))
	mux.Handle("GET /metrics", s.handleMetrics(s.cfg.Metrics.handler(s.cfg.Ledger)))
	s.routePages(mux)
	var h http.Handler = mux
	if s.cfg.TLS {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Strict-Transport-Security", hsts)
			mux.ServeHTTP(w, r)
		})
	}
	return observeRequests(s.cfg.Metrics, s.cfg.Log, mux, h)
}
