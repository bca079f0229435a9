package web

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"evidenceledger/ledger"
)

// handleAudit answers GET /api/audit with the full audit of the chain. The server keeps no
// auditor's state (that is the auditor's own, where the server cannot write: docs/chain.md,
// "Incremental audit"), so the report's kind is always "full", from 0, and its last_full is
// this run.
func (s *server) handleAudit(w http.ResponseWriter, r *http.Request) {
	run, err := s.audits.run(r.Context(), s.chainReads().Audit)
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, run.report)
}

func (s *server) handleEvents(w http.ResponseWriter, r *http.Request) {
	after, err := queryInt(r, "after", 0, "the sequence number of the last event you have", 0)
	if err != nil {
		Error(w, r, err)
		return
	}
	def := ledger.DefaultPage(ledger.MaxEventsPage)
	limit, err := queryInt(r, "limit", int64(def), "the most events to return", def)
	if err != nil {
		Error(w, r, err)
		return
	}
	evs, err := s.chainReads().Events(r.Context(), after, int(limit))
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string][]ledger.Event{"events": evs})
}

func (s *server) handleKeys(w http.ResponseWriter, r *http.Request) {
	set, err := s.chainReads().Keys(r.Context())
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, set)
}

// queryInt reads an integer query parameter, def when absent. A value that is not a whole
// number wraps ledger.ErrInvalid, with what says what the number means ("the seconds to
// wait") and example a value to give.
func queryInt(r *http.Request, name string, def int64, what string, example int) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("query parameter %s=%q is not a whole number; give %s, digits only, like %s=%d: %w", name, v, what, name, example, ledger.ErrInvalid)
	}
	return n, nil
}

// chainLedger is what the chain's read routes (events, keys, audit) call.
type chainLedger interface {
	Audit(ctx context.Context) (ledger.Report, error)
	Events(ctx context.Context, after int64, limit int) ([]ledger.Event, error)
	Keys(ctx context.Context) (ledger.KeySet, error)
}

// chainReads is the store as the chain's read routes see it.
func (s *server) chainReads() chainLedger { return s.cfg.Ledger }
