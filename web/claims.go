package web

import (
	"net/http"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// handleClaims answers {"claims":[...]} for the filters batch, status and strength
// (low, medium, high or none).
func (s *server) handleClaims(w http.ResponseWriter, r *http.Request) {
	f := ledger.ClaimFilter{Batch: trimmed(r, "batch"), Status: evidence.Status(trimmed(r, "status")), Strength: trimmed(r, "strength")}
	cs, err := s.cfg.Ledger.Claims(r.Context(), f)
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string][]ledger.ClaimView{"claims": cs})
}

// handleClaim answers one claim with its citations.
func (s *server) handleClaim(w http.ResponseWriter, r *http.Request) {
	c, err := s.cfg.Ledger.Claim(r.Context(), r.PathValue("id"))
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, c)
}
