package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// CheckJobs runs batch checks in the background; *verify.Jobs implements it.
type CheckJobs interface {
	// Start starts checking a batch as actor (or returns the job already running for it).
	// The error wraps verify.ErrNoBatch when the batch does not exist.
	Start(batch, actor string, recheck bool) (string, error)
	// Wait reports a job once it is done or failed, after wait, or when ctx ends; false
	// when there is no such job.
	Wait(ctx context.Context, id string, wait time.Duration) (verify.JobStatus, bool)
}

// errNoChecker answers 503: the server was built without check jobs.
var errNoChecker = errors.New("checking is not set up on this server")

// checkRoutes registers the routes of check jobs (docs/verification.md):
//
//	POST /api/batches/{id}/check   operators; optional {"recheck":true}; 202 {"job":"..."}
//	GET  /api/jobs/{id}?wait=SECS  {"job","batch","state","total","done"}, long-polling up to
//	                               SECS seconds (capped at verify.MaxWait) until the job ends
func (s *server) checkRoutes(mux *http.ServeMux) {
	mux.Handle("POST /api/batches/{id}/check", s.auth(roleWrite, s.handleCheck))
	mux.Handle("GET /api/jobs/{id}", s.auth(roleRead, s.handleJob))
}

// handleCheck starts checking a batch: 202 with the job id, 404 for an unknown batch, 400
// for a body other than {} or {"recheck":bool}.
func (s *server) handleCheck(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Jobs == nil {
		Error(w, r, errNoChecker)
		return
	}
	var req struct {
		Recheck bool `json:"recheck"`
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxFormBytes))
	if err != nil {
		Error(w, r, fmt.Errorf("the body is more than %d bytes: %w", maxFormBytes, errTooLarge))
		return
	}
	if len(bytes.TrimSpace(body)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil || dec.More() {
			Error(w, r, fmt.Errorf("the body must be empty or {\"recheck\":true}: %w", ledger.ErrInvalid))
			return
		}
	}
	id, err := s.cfg.Jobs.Start(r.PathValue("id"), actorOf(r), req.Recheck)
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"job": id})
}

// handleJob reports a job, waiting up to ?wait=SECS seconds for it to end.
func (s *server) handleJob(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Jobs == nil {
		Error(w, r, errNoChecker)
		return
	}
	wait, err := queryInt(r, "wait", 0, "the seconds to wait", 30)
	if err == nil && wait < 0 {
		err = fmt.Errorf("query parameter wait=%d: want 0 or more seconds: %w", wait, ledger.ErrInvalid)
	}
	if err != nil {
		Error(w, r, err)
		return
	}
	d := verify.MaxWait
	if wait < int64(verify.MaxWait/time.Second) {
		d = time.Duration(wait) * time.Second
	}
	st, ok := s.cfg.Jobs.Wait(r.Context(), r.PathValue("id"), d)
	if !ok {
		Error(w, r, fmt.Errorf("job %q does not exist (jobs are kept in memory until the server restarts; check the batch again): %w", r.PathValue("id"), ledger.ErrNotFound))
		return
	}
	writeJSON(w, http.StatusOK, st)
}
