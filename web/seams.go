package web

import (
	"net/http"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// handleSeams answers one page {"seams":[...],"next_after","prev_before"}: state=open or
// state=resolved, every seam without it; limit, after, before.
func (s *server) handleSeams(w http.ResponseWriter, r *http.Request) {
	p, err := readPage(r)
	if err != nil {
		Error(w, r, err)
		return
	}
	sp, err := s.intake().SeamsPage(r.Context(), evidence.SeamState(trimmed(r, "state")), p)
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, sp)
}

func (s *server) handleSeam(w http.ResponseWriter, r *http.Request) {
	v, err := s.intake().Seam(r.Context(), r.PathValue("id"))
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// handleOpenSeam opens a seam: 201 with the seam.
func (s *server) handleOpenSeam(w http.ResponseWriter, r *http.Request) {
	var req ledger.SeamRequest
	if err := decodeBody(w, r, &req); err != nil {
		Error(w, r, err)
		return
	}
	v, err := s.intake().OpenSeam(r.Context(), actorOf(r), req)
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, v)
}

// handleResolveSeam resolves a seam: 200 with the seam, 409 when it was resolved already.
func (s *server) handleResolveSeam(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	if err := decodeBody(w, r, &req); err != nil {
		Error(w, r, err)
		return
	}
	v, err := s.intake().ResolveSeam(r.Context(), actorOf(r), r.PathValue("id"), req.Decision, req.Reason)
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}
