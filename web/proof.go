package web

import (
	"context"
	"fmt"
	"net/http"

	"evidenceledger/ledger"
)

// proofLedger is what the checkpoint and proof routes need from the store.
type proofLedger interface {
	Checkpoint(ctx context.Context) (ledger.Checkpoint, error)
	InclusionProof(ctx context.Context, seq, size int64) (ledger.InclusionProof, error)
	ConsistencyProof(ctx context.Context, from, to int64) (ledger.ConsistencyProof, error)
}

func (s *server) proofRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /checkpoint", s.handleCheckpoint)
	mux.Handle("GET /api/proof/inclusion", s.auth(roleRead, s.handleInclusion))
	mux.Handle("GET /api/proof/consistency", s.auth(roleRead, s.handleConsistency))
}

// handleCheckpoint serves the latest signed checkpoint with its cosignatures, as C2SP
// tlog-checkpoint and tlog-tiles serve one: text/plain, public, cached a few seconds at most.
func (s *server) handleCheckpoint(w http.ResponseWriter, r *http.Request) {
	cp, err := s.proofs().Checkpoint(r.Context())
	if err != nil {
		Error(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(cp.Note)
}

// sizeParam reads a tree size parameter; absent, it is the latest checkpoint's size.
func (s *server) sizeParam(r *http.Request, name, what string) (int64, error) {
	n, err := queryInt(r, name, 0, what, 10)
	if err != nil || n != 0 || r.URL.Query().Has(name) {
		return n, err
	}
	cp, err := s.proofs().Checkpoint(r.Context())
	if err != nil {
		return 0, err
	}
	return cp.Size, nil
}

func (s *server) handleInclusion(w http.ResponseWriter, r *http.Request) {
	if !r.URL.Query().Has("seq") {
		Error(w, r, fmt.Errorf("give seq, the event to prove, like ?seq=7&size=10: %w", ledger.ErrInvalid))
		return
	}
	seq, err := queryInt(r, "seq", 0, "the seq of the event to prove", 7)
	if err != nil {
		Error(w, r, err)
		return
	}
	size, err := s.sizeParam(r, "size", "the tree size to prove it in")
	if err != nil {
		Error(w, r, err)
		return
	}
	p, err := s.proofs().InclusionProof(r.Context(), seq, size)
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

func (s *server) handleConsistency(w http.ResponseWriter, r *http.Request) {
	if !r.URL.Query().Has("from") {
		Error(w, r, fmt.Errorf("give from, the size of the checkpoint you hold, like ?from=7&to=10: %w", ledger.ErrInvalid))
		return
	}
	from, err := queryInt(r, "from", 0, "the size of the checkpoint you hold", 7)
	if err != nil {
		Error(w, r, err)
		return
	}
	to, err := s.sizeParam(r, "to", "the later tree size")
	if err != nil {
		Error(w, r, err)
		return
	}
	p, err := s.proofs().ConsistencyProof(r.Context(), from, to)
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

// proofs is the store as the proof routes see it.
func (s *server) proofs() proofLedger { return s.cfg.Ledger }
