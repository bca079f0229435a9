package web

import (
	"net/http"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// handleClaims answers one page {"claims":[...],"next_after","prev_before"} for the filters
// batch, status and strength (low, medium, high or none) and limit, after, before.
func (s *server) handleClaims(w http.ResponseWriter, r *http.Request) {
	f := ledger.ClaimFilter{Batch: trimmed(r, "batch"), Status: evidence.Status(trimmed(r, "status")), Strength: trimmed(r, "strength")}
	p, err := readPage(r)
	if err != nil {
		Error(w, r, err)
		return
	}
	cp, err := s.intake().ClaimsPage(r.Context(), f, p)
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, cp)
}

// handleClaim answers one claim with its citations.
func (s *server) handleClaim(w http.ResponseWriter, r *http.Request) {
	c, err := s.intake().Claim(r.Context(), r.PathValue("id"))
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, c)
}
