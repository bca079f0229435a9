package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// GateStore is what the memory-write gate reads of the store.
type GateStore interface {
	FindClaims(ctx context.Context, text string) ([]ledger.ClaimView, error)
	FindClaimsQuoting(ctx context.Context, quote string) ([]ledger.ClaimView, error)
	FindClaimsNear(ctx context.Context, text string, limit int) ([]ledger.ClaimView, error)
}

// GateCheckStore is what the gate's check on the spot needs of the store: it imports the
// claims as a batch and checks it like any batch.
type GateCheckStore interface {
	ImportResearch(ctx context.Context, actor string, paste []byte, research evidence.Research) (ledger.Batch, error)
	verify.CheckStore
}

// GateLedger presents the store to verify.Gate. `ledger gate` uses it too.
func GateLedger(s GateStore) verify.GateLedger { return gateLedger{s} }

// GateImporter presents the store to verify.Gate's check on the spot: ImportClaims records
// the claims as one batch in the API's JSON form ({"claims":[{"text","citations":[{"url",
// "quote"}]}]}, format json), so the batch's paste is what an operator could have posted.
// `ledger gate --check` uses it too.
func GateImporter(s GateCheckStore) verify.GateImporter { return gateImporter{s} }

type gateLedger struct{ s GateStore }

func (g gateLedger) ClaimsWithText(ctx context.Context, text string) ([]verify.LedgerClaim, error) {
	cs, err := g.s.FindClaims(ctx, text)
	return ledgerClaims(cs), err
}

func (g gateLedger) ClaimsQuoting(ctx context.Context, quote string) ([]verify.LedgerClaim, error) {
	cs, err := g.s.FindClaimsQuoting(ctx, quote)
	return ledgerClaims(cs), err
}

func (g gateLedger) ClaimsNear(ctx context.Context, text string, limit int) ([]verify.LedgerClaim, error) {
	cs, err := g.s.FindClaimsNear(ctx, text, limit)
	return ledgerClaims(cs), err
}

type gateImporter struct{ GateCheckStore }

func (g gateImporter) ImportClaims(ctx context.Context, actor string, claims []evidence.Claim) (string, error) {
	type cit struct {
		URL   string `json:"url"`
		Quote string `json:"quote"`
	}
	type claim struct {
		Text      string `json:"text"`
		Citations []cit  `json:"citations"`
	}
	body := struct {
		Claims []claim `json:"claims"`
	}{}
	for _, c := range claims {
		cl := claim{Text: c.Text, Citations: []cit{}}
		for _, ct := range c.Citations {
			cl.Citations = append(cl.Citations, cit{ct.URL, ct.Quote})
		}
		body.Claims = append(body.Claims, cl)
	}
	paste, err := json.Marshal(body)
	if err != nil {
		return "", err
	}
	b, err := g.ImportResearch(ctx, actor, paste, evidence.Research{Claims: claims})
	return b.ID, err
}

func ledgerClaims(cs []ledger.ClaimView) []verify.LedgerClaim {
	out := make([]verify.LedgerClaim, len(cs))
	for i, c := range cs {
		lc := verify.LedgerClaim{ID: c.ID, Text: c.Text, Status: c.Status, Strength: c.Strength, Standing: c.Standing, DecidedBy: []string{}, OpenSeams: c.OpenSeams,
			Citations: make([]verify.LedgerCitation, len(c.Citations))}
		for _, d := range c.Decisions {
			if d.Standing != evidence.StandingClear {
				lc.DecidedBy = append(lc.DecidedBy, d.Seam)
			}
		}
		for j, ct := range c.Citations {
			lc.Citations[j] = verify.LedgerCitation{ID: ct.ID, URL: ct.URL, Quote: ct.Quote, Status: ct.Status, OpenSeams: ct.OpenSeams}
		}
		out[i] = lc
	}
	return out
}

// gateRequest is the body of POST /api/gate.
type gateRequest struct {
	Text        *string `json:"text"`
	MinStrength string  `json:"min_strength"`
	Check       bool    `json:"check"`
}

// gateAnswer is the answer of POST /api/gate when the ledger could not be read: it blocks.
type gateAnswer struct {
	verify.GateDecision
	Error string `json:"error,omitempty"`
}

// errGateTooLarge answers a gate request whose text is over evidence.MaxPasteBytes.
var errGateTooLarge = fmt.Errorf("the text is more than %d bytes; ask about it in smaller pieces: %w", evidence.MaxPasteBytes, errTooLarge)

// handleGate answers POST /api/gate {"text":"...","min_strength":"low|medium|high","check":bool}
// with 200 {"allow","claims","not_gated","residual_risk"} (docs/gate.md). Without check it
// reads only, so auditors may call it. With "check": true the cited claims the ledger does
// not hold are imported as a batch of the caller's and checked on the spot with the server's
// fetch settings, within verify.DefaultGateTimeout; that writes, so only operators may ask
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
	min, err := verify.ParseMinStrength(req.MinStrength)
	if err != nil {
		Error(w, r, fmt.Errorf("%w: %w", err, ledger.ErrInvalid))
		return
	}
	opt := verify.GateOptions{Min: min}
	if req.Check {
		if u, _ := UserFrom(r.Context()); !u.CanWrite() {
			Error(w, r, fmt.Errorf(`user %s is an %s; "check": true records a check, which only operators may do; ask without it to look up only: %w`, u.Name, u.Role, errForbidden))
			return
		}
		if s.cfg.Checker == nil {
			Error(w, r, errNoChecker)
			return
		}
		opt.Check = &verify.GateCheck{Store: GateImporter(s.cfg.Ledger), Checker: s.cfg.Checker, Actor: actorOf(r), Workers: s.cfg.CheckWorkers}
	}
	d, err := verify.Gate(r.Context(), GateLedger(s.cfg.Ledger), *req.Text, opt)
	if err != nil {
		log.Printf("%s %s: %v", r.Method, r.URL.Path, err)
		writeJSON(w, http.StatusInternalServerError, gateAnswer{GateDecision: d, Error: "the ledger could not be read or the check could not be recorded, so nothing is allowed; the server log has the details"})
		return
	}
	writeJSON(w, http.StatusOK, d)
}
