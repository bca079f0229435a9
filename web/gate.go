package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"

	"evidenceledger/evidence"
	"evidenceledger/gate"
	"evidenceledger/ledger"
)

// gateRequest is the body of POST /api/gate.
type gateRequest struct {
	Text        *string `json:"text"`
	MinStrength string  `json:"min_strength"`
	Check       bool    `json:"check"`
}

// gateAnswer is the answer of POST /api/gate when the ledger could not be read: it blocks.
type gateAnswer struct {
	gate.Decision
	Error string `json:"error,omitempty"`
}

// errGateTooLarge answers a gate request whose text is over evidence.MaxPasteBytes.
var errGateTooLarge = fmt.Errorf("the text is more than %d bytes; ask about it in smaller pieces: %w", evidence.MaxPasteBytes, errTooLarge)

// handleGate answers POST /api/gate {"text":"...","min_strength":"low|medium|high","check":bool}
// with 200 {"allow","claims","not_gated","residual_risk"} (docs/gate.md). Without check it
// reads only, so auditors may call it. With "check": true the cited claims the ledger does
// not hold are imported as a batch of the caller's and checked on the spot with the server's
// fetch settings, within gate.DefaultTimeout; that writes, so only operators may ask
// (403 otherwise), and a server without a checker answers 503. 400 for a body that is not
// that object or an unknown strength, 413 over evidence.MaxPasteBytes, 415 for a text that is
// not text. When the ledger cannot be read or the check cannot be recorded the answer is 500
// and still carries "allow": false, so a caller that reads only allow blocks.
func (s *server) handleGate(w http.ResponseWriter, r *http.Request) {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, evidence.MaxPasteBytes+64<<10))
	dec.DisallowUnknownFields()
	var req gateRequest
	err := dec.Decode(&req)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		Error(w, r, errGateTooLarge)
		return
	case err != nil:
		Error(w, r, fmt.Errorf(`the body is not {"text":"...","min_strength":"...","check":false} (%v); see docs/gate.md: %w`, err, ledger.ErrInvalid))
		return
	case dec.Decode(&struct{}{}) != io.EOF:
		Error(w, r, fmt.Errorf("unexpected data after the JSON object; send one object: %w", ledger.ErrInvalid))
		return
	case req.Text == nil:
		Error(w, r, fmt.Errorf(`the body has no "text"; send the text to be written to memory: %w`, ledger.ErrInvalid))
		return
	case len(*req.Text) > evidence.MaxPasteBytes:
		Error(w, r, errGateTooLarge)
		return
	}
	if err := evidence.CheckString(*req.Text); err != nil {
		Error(w, r, err)
		return
	}
	min, err := gate.ParseMinStrength(req.MinStrength)
	if err != nil {
		Error(w, r, fmt.Errorf("%w: %w", err, ledger.ErrInvalid))
		return
	}
	opt := gate.Options{Min: min}
	if req.Check {
		if u, _ := UserFrom(r.Context()); !u.CanWrite() {
			Error(w, r, fmt.Errorf(`user %s is an %s; "check": true records a check, which only operators may do; ask without it to look up only: %w`, u.Name, u.Role, errForbidden))
			return
		}
		if s.cfg.Checker == nil {
			Error(w, r, errNoChecker)
			return
		}
		opt.Check = &gate.Check{Store: gate.StoreImporter(s.cfg.Ledger), Checker: s.cfg.Checker, Actor: actorOf(r), Workers: s.cfg.CheckWorkers}
	}
	d, err := gate.Evaluate(r.Context(), gate.StoreLedger(s.cfg.Ledger), *req.Text, opt)
	if err != nil {
		log.Printf("%s %s: %v", r.Method, r.URL.Path, err)
		writeJSON(w, http.StatusInternalServerError, gateAnswer{Decision: d, Error: "the ledger could not be read or the check could not be recorded, so nothing is allowed; the server log has the details"})
		return
	}
	writeJSON(w, http.StatusOK, d)
}
