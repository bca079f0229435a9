package web

import (
	"fmt"
	"net/http"
	"strconv"

	"evidenceledger/ledger"
)

func (s *server) handleAudit(w http.ResponseWriter, r *http.Request) {
	rep, err := s.cfg.Ledger.Audit(r.Context())
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

func (s *server) handleEvents(w http.ResponseWriter, r *http.Request) {
	after, err := queryInt(r, "after", 0)
	if err != nil {
		Error(w, r, err)
		return
	}
	limit, err := queryInt(r, "limit", 100)
	if err != nil {
		Error(w, r, err)
		return
	}
	evs, err := s.cfg.Ledger.Events(r.Context(), after, int(limit))
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string][]ledger.Event{"events": evs})
}

func (s *server) handleKeys(w http.ResponseWriter, r *http.Request) {
	set, err := s.cfg.Ledger.Keys(r.Context())
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, set)
}

// queryInt reads an integer query parameter, def when absent.
func queryInt(r *http.Request, name string, def int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("query parameter %s=%q is not an integer: %w", name, v, ledger.ErrInvalid)
	}
	return n, nil
}
