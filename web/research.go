package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// intakeLedger is what the research, claim, batch, seam and source routes need of the store.
type intakeLedger interface {
	ImportResearch(ctx context.Context, actor string, paste []byte, research evidence.Research) (ledger.Batch, error)
	ClaimsPage(ctx context.Context, f ledger.ClaimFilter, p ledger.Page) (ledger.ClaimPage, error)
	Claim(ctx context.Context, id string) (ledger.ClaimView, error)
	BatchesPage(ctx context.Context, f ledger.BatchFilter, p ledger.Page) (ledger.BatchPage, error)
	Batch(ctx context.Context, id string) (ledger.Batch, error)
	BatchSummary(ctx context.Context, id string) (ledger.Batch, error)
	BatchTallies(ctx context.Context, batch string) ([]ledger.CitationTally, error)
	SeamsPage(ctx context.Context, state evidence.SeamState, p ledger.Page) (ledger.SeamPage, error)
	Seam(ctx context.Context, id string) (ledger.SeamView, error)
	OpenSeam(ctx context.Context, actor string, req ledger.SeamRequest) (ledger.SeamView, error)
	ResolveSeam(ctx context.Context, actor, id, decision, reason string) (ledger.SeamView, error)
	SourcesPage(ctx context.Context, p ledger.Page) (ledger.SourcePage, error)
	ClassifySource(ctx context.Context, actor, id string, class evidence.SourceClass, publisher string) (ledger.SourceView, error)
}

// Errors of the intake routes, beyond the ledger's.
var (
	// errTooLarge answers 413: the body is over its limit.
	errTooLarge = errors.New("request body too large")
	// errMediaType answers 415: the body is neither JSON nor text.
	errMediaType = errors.New("unsupported media type")
)

// intakeRoutes registers the routes of research intake (docs/intake.md):
//
//	POST /api/research                  paste research: text/plain or text/markdown body, or JSON
//	                                    {"text":"..."} or {"claims":[...]}; 201 {"batch","claims"}
//	GET  /api/batches, /api/batches/{id}
//	GET  /api/batches/{id}/report?format=md|html|json   the hand-off report (docs/report.md)
//	GET  /api/report.schema.json        the JSON Schema of the JSON report; no sign-in
//	GET  /api/claims?batch=&status=&strength=, /api/claims/{id}
//	GET  /api/seams?state=open|resolved, /api/seams/{id}
//	POST /api/seams                     {"kind","summary","claims":[...],"citations":[...]}; 201
//	POST /api/seams/{id}/resolve        {"decision","reason"}
//	GET  /api/sources
//	POST /api/sources/{id}/classify     {"class":"primary|semi|lead","publisher":"..."}
func (s *server) intakeRoutes(mux *http.ServeMux) {
	mux.Handle("POST /api/research", s.auth(roleWrite, s.handleResearch))
	mux.Handle("GET /api/batches", s.auth(roleRead, s.handleBatches))
	mux.Handle("GET /api/batches/{id}", s.auth(roleRead, s.handleBatch))
	mux.Handle("GET /api/batches/{id}/report", s.auth(roleRead, s.handleReport))
	mux.HandleFunc("GET /api/report.schema.json", handleReportSchema)
	mux.Handle("GET /api/claims", s.auth(roleRead, s.handleClaims))
	mux.Handle("GET /api/claims/{id}", s.auth(roleRead, s.handleClaim))
	mux.Handle("GET /api/seams", s.auth(roleRead, s.handleSeams))
	mux.Handle("GET /api/seams/{id}", s.auth(roleRead, s.handleSeam))
	mux.Handle("POST /api/seams", s.auth(roleWrite, s.handleOpenSeam))
	mux.Handle("POST /api/seams/{id}/resolve", s.auth(roleWrite, s.handleResolveSeam))
	mux.Handle("GET /api/sources", s.auth(roleRead, s.handleSources))
	mux.Handle("POST /api/sources/{id}/classify", s.auth(roleWrite, s.handleClassify))
}

// actorOf is the chain actor of the request's user.
func actorOf(r *http.Request) string {
	u, _ := UserFrom(r.Context())
	return "user:" + u.Name
}

// researchAnswer is the 201 answer of POST /api/research.
type researchAnswer struct {
	Batch  string             `json:"batch"`
	Claims []answerClaim      `json:"claims"`
	Counts ledger.BatchCounts `json:"counts"`
}

type answerClaim struct {
	ID        string           `json:"id"`
	Text      string           `json:"text"`
	Status    evidence.Status  `json:"status"`
	Notes     []string         `json:"notes"`
	Citations []answerCitation `json:"citations"`
}

type answerCitation struct {
	ID     string          `json:"id"`
	URL    string          `json:"url"`
	Quote  string          `json:"quote"`
	Status evidence.Status `json:"status"`
	Note   string          `json:"note"`
}

// handleResearch reads a paste, parses it and imports it as one batch. Refusals (413 over
// evidence.MaxPasteBytes, 415 for another media type or a body that is not text, 400 for
// JSON that does not parse, 422 when nothing usable is in it) record nothing.
func (s *server) handleResearch(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, evidence.MaxPasteBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		Error(w, r, fmt.Errorf("the research is more than %d bytes; split it into smaller batches: %w", evidence.MaxPasteBytes, errTooLarge))
		return
	}
	if err != nil {
		Error(w, r, fmt.Errorf("read the research: %w", ledger.ErrInvalid))
		return
	}
	mt := ""
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err = mime.ParseMediaType(ct); err != nil {
			Error(w, r, fmt.Errorf("Content-Type %q does not parse; send application/json or text/plain: %w", ct, errMediaType))
			return
		}
	}
	var res evidence.Research
	paste := body
	switch {
	case mt == "text/plain" || mt == "text/markdown":
		res, err = evidence.ReadPaste(body)
	case mt == "" || mt == "application/json":
		paste, res, err = evidence.ReadRequest(body)
	default:
		Error(w, r, fmt.Errorf("Content-Type %q: send research as application/json, text/plain or text/markdown: %w", mt, errMediaType))
		return
	}
	if err != nil {
		Error(w, r, err)
		return
	}
	b, err := s.intake().ImportResearch(r.Context(), actorOf(r), paste, res)
	if err != nil {
		Error(w, r, err)
		return
	}
	ans := researchAnswer{Batch: b.ID, Claims: make([]answerClaim, len(b.Claims)), Counts: b.Counts}
	for i, c := range b.Claims {
		ac := answerClaim{ID: c.ID, Text: c.Text, Status: c.Status, Notes: c.Notes, Citations: make([]answerCitation, len(c.Citations))}
		for j, ct := range c.Citations {
			ac.Citations[j] = answerCitation{ID: ct.ID, URL: ct.URL, Quote: ct.Quote, Status: ct.Status, Note: ct.Note}
		}
		ans.Claims[i] = ac
	}
	writeJSON(w, http.StatusCreated, ans)
}

// maxFormBytes bounds the JSON body of the seam and source routes.
const maxFormBytes = 64 << 10

// decodeBody reads a small JSON object into v; unknown members are refused.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxFormBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return fmt.Errorf("the body is more than %d bytes: %w", maxFormBytes, errTooLarge)
		}
		return fmt.Errorf("the body is not the JSON object this route takes (%v); see docs/intake.md: %w", err, ledger.ErrInvalid)
	}
	if dec.More() {
		return fmt.Errorf("unexpected data after the JSON object; send one object: %w", ledger.ErrInvalid)
	}
	return nil
}

// handleBatches answers one page {"batches":[...],"next_after","prev_before"}, newest
// first: status and strength keep batches with a claim of them; limit, after, before.
func (s *server) handleBatches(w http.ResponseWriter, r *http.Request) {
	p, err := readPage(r)
	if err != nil {
		Error(w, r, err)
		return
	}
	bp, err := s.intake().BatchesPage(r.Context(), ledger.BatchFilter{Status: trimmed(r, "status"), Strength: trimmed(r, "strength")}, p)
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, bp)
}

// handleBatch answers a batch with its counts and one page of its claims (limit, after,
// before), with "next_after" and "prev_before" when there are more.
func (s *server) handleBatch(w http.ResponseWriter, r *http.Request) {
	b, cur, err := s.batchPage(r, r.PathValue("id"))
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		ledger.Batch
		ledger.Cursors
	}{b, cur})
}

// batchPage reads a batch with the page of its claims that the request's limit, after and
// before ask for.
func (s *server) batchPage(r *http.Request, id string) (ledger.Batch, ledger.Cursors, error) {
	p, err := readPage(r)
	if err != nil {
		return ledger.Batch{}, ledger.Cursors{}, err
	}
	b, err := s.intake().BatchSummary(r.Context(), id)
	if err != nil {
		return ledger.Batch{}, ledger.Cursors{}, err
	}
	cp, err := s.intake().ClaimsPage(r.Context(), ledger.ClaimFilter{Batch: b.ID}, p)
	if err != nil {
		return ledger.Batch{}, ledger.Cursors{}, err
	}
	b.Claims = cp.Claims
	return b, cp.Cursors, nil
}

// trimmed is strings.TrimSpace, for query values.
func trimmed(r *http.Request, name string) string { return strings.TrimSpace(r.URL.Query().Get(name)) }

// intake is the store as the intake API (research, batches, claims, seams, sources) sees it.
func (s *server) intake() intakeLedger { return s.cfg.Ledger }
