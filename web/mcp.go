package web

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"evidenceledger/evidence"
	"evidenceledger/gate"
	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// The MCP tools (docs/agents.md) are the ledger's reads and its one write an agent may do:
// import claims and check them. No tool resolves a seam, approves, classifies a source or
// changes a decision; those are a person's, on the pages.
//
//	check_claims   claims with URLs and quotes, or pasted research: imported as a batch and
//	               checked; each citation's status, note, strength and residual risk
//	claim_status   a claim, or a batch's claims (and its check job); waits on a job
//	batch_report   the hand-off report (ledger.HandOff) as structured content
//	gate_text      may a text be written to memory (gate.Evaluate), check optional
//	audit_status   the latest signed checkpoint and the result of an audit of the chain
//
// The same tools answer over stdio (`ledger mcp`, one user fixed when it starts) and over
// Streamable HTTP at /mcp behind the API's bearer tokens. Every limit of the API applies:
// research and texts up to evidence.MaxPasteBytes, one check per batch at a time.

// MCPTools are the names of the tools, in the order they are listed.
var MCPTools = []string{"check_claims", "claim_status", "batch_report", "gate_text", "audit_status"}

// mcpVersion is the version the MCP server gives as its implementation's.
const mcpVersion = "1.0.0"

// DefaultMCPWait is how long check_claims and claim_status wait for a check by default;
// MaxMCPWait is the most they wait (verify.MaxWait), after which they answer with the job
// to poll with claim_status.
const (
	DefaultMCPWait = 50 * time.Second
	MaxMCPWait     = verify.MaxWait
)

// mcpUser gives the user a tool call runs as.
type mcpUser func(ctx context.Context, req *mcp.CallToolRequest) (ledger.User, error)

// NewMCPServer returns the MCP server of the ledger's tools, every call made as user u. It
// is what `ledger mcp` serves over stdio: whoever starts it holds the ledger's directory, and
// u is the user whose token it was given.
func NewMCPServer(cfg Config, u ledger.User) *mcp.Server {
	return newServer(cfg).mcpServer(func(context.Context, *mcp.CallToolRequest) (ledger.User, error) { return u, nil })
}

// mcpHTTP serves the tools over Streamable HTTP to the users of the API's bearer tokens. It
// runs behind s.auth, which answered 401 already to a request without a valid token; the
// token's user goes to the SDK as its token info, so a session is bound to the user that
// opened it, and to each tool call.
func (s *server) mcpHTTP() http.HandlerFunc {
	srv := s.mcpServer(func(_ context.Context, req *mcp.CallToolRequest) (ledger.User, error) {
		if req.Extra != nil && req.Extra.TokenInfo != nil {
			if u, ok := req.Extra.TokenInfo.Extra["user"].(ledger.User); ok {
				return u, nil
			}
		}
		return ledger.User{}, fmt.Errorf("the call carries no user: %w", ledger.ErrUnauthenticated)
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		SessionTimeout:      30 * time.Minute,
		MaxRequestBodyBytes: evidence.MaxPasteBytes + 256<<10,
	})
	verifier := func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		u, ok := UserFrom(ctx)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: u.Name, Scopes: []string{u.Role}, Extra: map[string]any{"user": u}}, nil
	}
	authed := auth.RequireBearerToken(verifier, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	return func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.Stopping != nil {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			stop := make(chan struct{})
			defer close(stop)
			go func() {
				select {
				case <-s.cfg.Stopping:
					cancel()
				case <-stop:
				}
			}()
			r = r.WithContext(ctx)
		}
		authed.ServeHTTP(w, r)
	}
}

// mcpServer builds the server of the five tools.
func (s *server) mcpServer(user mcpUser) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "evidence-ledger", Title: "Evidence ledger", Version: mcpVersion}, &mcp.ServerOptions{
		Instructions: "Check claims against their cited sources before using them or writing them to memory: check_claims imports and checks them, gate_text says what of a text may be written to memory. A found quote proves only that the words were on the page when it was fetched. Seams, approvals and source classes are decided by a person on the ledger's pages, never through these tools.",
	})
	t := &mcpTools{s: s, user: user}
	mcp.AddTool(srv, &mcp.Tool{Name: "check_claims", Title: "Check claims at their sources",
		Description: "Import claims with the URLs and quotes they cite (claims) or pasted research (text) as a new batch, fetch every cited page and check that each quote is on it. Answers each citation's status (found_at_source, not_found, unreachable, reported), note, strength and residual risk. Waits up to wait_seconds (default 50, at most 60); a check still running is answered with its job, to poll with claim_status. Operators only.",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: new(true)}}, t.checkClaims)
	mcp.AddTool(srv, &mcp.Tool{Name: "claim_status", Title: "Status of a claim or batch",
		Description: "The status of one claim (claim), or of every claim of a batch (batch), with each citation's status, note, strength and residual risk. With job, waits up to wait_seconds for that check to end and reports it.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.claimStatus)
	mcp.AddTool(srv, &mcp.Tool{Name: "batch_report", Title: "Hand-off report of a batch",
		Description: "What of a batch may be handed on (usable) and what may not (withheld, each with its reason), at a point of the signed chain.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.batchReport)
	mcp.AddTool(srv, &mcp.Tool{Name: "gate_text", Title: "May this text be written to memory",
		Description: "Decide whether a text may be written to persistent memory: every factual claim in it must match a ledger claim found at its source with no open question. Answers allow, each claim with its reasons and next steps, and the residual risk. With check, cited claims the ledger does not hold are imported and checked first (operators only).",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false}}, t.gateText)
	mcp.AddTool(srv, &mcp.Tool{Name: "audit_status", Title: "Audit of the signed chain",
		Description: "The latest signed checkpoint of the chain and the result of an audit that recomputes every event's hash and signature (one audit runs at a time; a call while one runs gets its result).",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.auditStatus)
	return srv
}

type mcpTools struct {
	s    *server
	user mcpUser
}

// CheckClaimsIn is the input of check_claims: claims or text, not both.
type CheckClaimsIn struct {
	Claims      []IntakeClaim `json:"claims,omitempty" jsonschema:"the claims, each with the citations it rests on"`
	Text        string        `json:"text,omitempty" jsonschema:"pasted research (Claim:/Source:/Quote: lines, Markdown footnotes, ...) instead of claims"`
	WaitSeconds *int          `json:"wait_seconds,omitempty" jsonschema:"seconds to wait for the check (0 to 60, default 50)"`
}

// IntakeClaim is one claim of the JSON intake form.
type IntakeClaim struct {
	Text      string           `json:"text" jsonschema:"the claim as it would be written"`
	Citations []IntakeCitation `json:"citations" jsonschema:"the sources the claim cites"`
}

// IntakeCitation is one citation of the JSON intake form.
type IntakeCitation struct {
	URL   string `json:"url" jsonschema:"the cited page"`
	Quote string `json:"quote" jsonschema:"the words the claim says are on that page"`
}

// CheckAnswer is the output of check_claims and claim_status.
type CheckAnswer struct {
	Batch string `json:"batch"`
	// Job is the check's job; absent when no job was asked about.
	Job *verify.JobStatus `json:"job,omitempty"`
	// Finished is true when the check ended (done or failed); when false, poll with
	// claim_status {"batch","job"}.
	Finished bool       `json:"finished"`
	Claims   []MCPClaim `json:"claims"`
	Meaning  string     `json:"meaning"`
}

// MCPClaim is a claim as the tools answer it.
type MCPClaim struct {
	ID       string            `json:"id"`
	Text     string            `json:"text"`
	Status   evidence.Status   `json:"status"`
	Strength evidence.Strength `json:"strength"`
	// Usable is true only when the claim may be handed on (evidence.HandOn); Withheld says
	// why not, and Standing what people's decisions made of it (a claim a person found
	// contradicted keeps the status found_at_source, since its words are on the page, but is
	// never usable).
	Usable    bool              `json:"usable"`
	Withheld  evidence.Withheld `json:"withheld"`
	Standing  evidence.Standing `json:"standing"`
	Notes     []string          `json:"notes"`
	OpenSeams []string          `json:"open_seams"`
	Citations []MCPCitation     `json:"citations"`
}

// MCPCitation is a citation as the tools answer it.
type MCPCitation struct {
	ID           string            `json:"id"`
	URL          string            `json:"url"`
	Quote        string            `json:"quote"`
	Status       evidence.Status   `json:"status"`
	Note         string            `json:"note"`
	Strength     evidence.Strength `json:"strength"`
	Excerpt      string            `json:"excerpt"`
	ResidualRisk string            `json:"residual_risk"`
	OpenSeams    []string          `json:"open_seams"`
}

// ClaimStatusIn is the input of claim_status: claim or batch.
type ClaimStatusIn struct {
	Claim       string `json:"claim,omitempty" jsonschema:"a claim id (cl_...)"`
	Batch       string `json:"batch,omitempty" jsonschema:"a batch id (b_...): all its claims"`
	Job         string `json:"job,omitempty" jsonschema:"a check job id (j_...) of the batch, to wait for and report"`
	WaitSeconds *int   `json:"wait_seconds,omitempty" jsonschema:"seconds to wait for the job (0 to 60, default 50)"`
}

// BatchReportIn is the input of batch_report.
type BatchReportIn struct {
	Batch string `json:"batch" jsonschema:"a batch id (b_...)"`
}

// GateTextIn is the input of gate_text.
type GateTextIn struct {
	Text        string `json:"text" jsonschema:"the text that is to be written to memory"`
	MinStrength string `json:"min_strength,omitempty" jsonschema:"low, medium or high: the least strength a claim must have"`
	Check       bool   `json:"check,omitempty" jsonschema:"import and check the cited claims the ledger does not hold (operators only)"`
}

// AuditStatusIn is the input of audit_status: nothing.
type AuditStatusIn struct{}

// AuditStatus is the output of audit_status.
type AuditStatus struct {
	Checkpoint MCPCheckpoint `json:"checkpoint"`
	Audit      ledger.Report `json:"audit"`
	// AuditedAt is when the audit reported started (RFC 3339); TookMS how long it ran.
	AuditedAt string `json:"audited_at"`
	TookMS    int64  `json:"took_ms"`
}

// MCPCheckpoint is a signed checkpoint: its size, root and the signed note itself.
type MCPCheckpoint struct {
	Origin string `json:"origin"`
	Size   int64  `json:"size"`
	Root   string `json:"root" jsonschema:"standard base64 of the RFC 6962 root"`
	Note   string `json:"note" jsonschema:"the C2SP signed note, as GET /checkpoint serves it"`
}

// mcpMeaning is what a check's answer says about itself.
const mcpMeaning = "found_at_source means the quote was found, word for word, in the visible text of the cited page as fetched at the time recorded; it does not show that the claim is true. A person decides the open seams on the ledger's pages."

// errMCPInput is a tool input the tools refuse; it wraps ledger.ErrInvalid.
var errMCPInput = fmt.Errorf("invalid tool input: %w", ledger.ErrInvalid)

// toolError is the error a tool answers: the words of an error the API would answer below
// 500, a generic sentence (the cause logged) otherwise.
func toolError(tool string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: the call was cancelled", tool)
	}
	if status, ok := statusOf(err); ok && status < 500 {
		return fmt.Errorf("%s: %w", tool, err)
	}
	log.Printf("mcp %s: %v", tool, err)
	return fmt.Errorf("%s: the ledger could not answer; the server log has the details", tool)
}

// waitFor reads a wait_seconds input.
func waitFor(secs *int) (time.Duration, error) {
	if secs == nil {
		return DefaultMCPWait, nil
	}
	if *secs < 0 || time.Duration(*secs)*time.Second > MaxMCPWait {
		return 0, fmt.Errorf("wait_seconds %d: want 0 to %d: %w", *secs, int(MaxMCPWait/time.Second), errMCPInput)
	}
	return time.Duration(*secs) * time.Second, nil
}

// writer returns the call's user when it may write, or the tool error for one who may not.
func (t *mcpTools) writer(ctx context.Context, req *mcp.CallToolRequest, what string) (ledger.User, error) {
	u, err := t.user(ctx, req)
	if err != nil {
		return u, err
	}
	if !u.CanWrite() {
		return u, fmt.Errorf("user %s is an %s; %s records a check, which only operators may do: %w", u.Name, u.Role, what, errForbidden)
	}
	return u, nil
}

func (t *mcpTools) checkClaims(ctx context.Context, req *mcp.CallToolRequest, in CheckClaimsIn) (*mcp.CallToolResult, CheckAnswer, error) {
	ans, err := t.doCheckClaims(ctx, req, in)
	if err != nil {
		return nil, CheckAnswer{}, toolError("check_claims", err)
	}
	return nil, ans, nil
}

func (t *mcpTools) doCheckClaims(ctx context.Context, req *mcp.CallToolRequest, in CheckClaimsIn) (CheckAnswer, error) {
	u, err := t.writer(ctx, req, "check_claims")
	if err != nil {
		return CheckAnswer{}, err
	}
	wait, err := waitFor(in.WaitSeconds)
	if err != nil {
		return CheckAnswer{}, err
	}
	// The research goes through the API's own reader, as the body of POST /api/research.
	var body []byte
	switch {
	case (len(in.Claims) > 0) == (in.Text != ""):
		return CheckAnswer{}, fmt.Errorf(`give either "claims" ([{"text","citations":[{"url","quote"}]}]) or "text" (pasted research), not both and not neither: %w`, errMCPInput)
	case in.Text != "":
		if len(in.Text) > evidence.MaxPasteBytes {
			return CheckAnswer{}, fmt.Errorf("the text is %d bytes, more than the limit of %d; split it into smaller batches: %w", len(in.Text), evidence.MaxPasteBytes, errTooLarge)
		}
		body, err = json.Marshal(map[string]string{"text": in.Text})
	default:
		for i, c := range in.Claims {
			if c.Citations == nil {
				in.Claims[i].Citations = []IntakeCitation{}
			}
		}
		body, err = json.Marshal(struct {
			Claims []IntakeClaim `json:"claims"`
		}{in.Claims})
	}
	if err != nil {
		return CheckAnswer{}, err
	}
	if len(body) > evidence.MaxPasteBytes {
		return CheckAnswer{}, fmt.Errorf("the claims are %d bytes as JSON, more than the limit of %d; split them into smaller batches: %w", len(body), evidence.MaxPasteBytes, errTooLarge)
	}
	paste, res, err := evidence.ReadRequest(body)
	if err != nil {
		return CheckAnswer{}, err
	}
	// Input is judged first, so that it gets the same answer on a server without checks.
	if t.s.cfg.Jobs == nil {
		return CheckAnswer{}, errNoChecker
	}
	if err := ctx.Err(); err != nil {
		return CheckAnswer{}, err
	}
	actor := "user:" + u.Name
	b, err := t.s.mcpStore().ImportResearch(ctx, actor, paste, res)
	if err != nil {
		return CheckAnswer{}, err
	}
	job, err := t.s.cfg.Jobs.Start(b.ID, actor, false)
	if err != nil {
		return CheckAnswer{}, err
	}
	st, err := t.waitJob(ctx, req, job, wait)
	if err != nil {
		// The call was cancelled: the check it started stops, what it recorded stays.
		if c, ok := t.s.cfg.Jobs.(jobCanceller); ok && ctx.Err() != nil {
			c.Cancel(job, errors.New("the check_claims call that started it was cancelled"))
		}
		return CheckAnswer{}, err
	}
	return t.answer(ctx, b.ID, &st)
}

// jobCanceller is what check_claims needs to stop the check of a cancelled call;
// *verify.Jobs implements it.
type jobCanceller interface {
	Cancel(id string, why error) bool
}

// waitJob waits up to wait for a job to end, sending a progress notification each time its
// count of checked citations moves when the caller asked for them. A call cancelled by its
// client stops waiting; the job goes on and can be polled.
func (t *mcpTools) waitJob(ctx context.Context, req *mcp.CallToolRequest, job string, wait time.Duration) (verify.JobStatus, error) {
	end := time.Now().Add(wait)
	var token any
	if req != nil && req.Params != nil {
		token = req.Params.GetProgressToken()
	}
	sent := -1
	for {
		step := time.Until(end)
		if token != nil {
			step = min(step, time.Second)
		}
		st, ok := t.s.cfg.Jobs.Wait(ctx, job, step)
		if !ok {
			return verify.JobStatus{}, fmt.Errorf("job %q does not exist (jobs are kept in memory until the server restarts; check the batch again): %w", job, ledger.ErrNotFound)
		}
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if token != nil && st.Done != sent && req.Session != nil {
			sent = st.Done
			// A notification that cannot be sent is no reason to stop waiting.
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(st.Done), Total: float64(st.Total),
				Message: fmt.Sprintf("batch %s, job %s: checked %d of %d citations", st.Batch, st.Job, st.Done, st.Total)})
		}
		if st.State == verify.JobDone || st.State == verify.JobFailed || !time.Now().Before(end) {
			return st, nil
		}
	}
}

// answer reads the claims of a batch as the tools answer them, with the job's status.
func (t *mcpTools) answer(ctx context.Context, batch string, st *verify.JobStatus) (CheckAnswer, error) {
	ans := CheckAnswer{Batch: batch, Job: st, Claims: []MCPClaim{}, Meaning: mcpMeaning}
	ans.Finished = st == nil || st.State == verify.JobDone || st.State == verify.JobFailed
	p := ledger.Page{Limit: ledger.MaxListPage}
	for {
		cp, err := t.s.mcpStore().ClaimsPage(ctx, ledger.ClaimFilter{Batch: batch}, p)
		if err != nil {
			return CheckAnswer{}, err
		}
		for _, c := range cp.Claims {
			ans.Claims = append(ans.Claims, mcpClaim(c))
		}
		if cp.Next == "" {
			return ans, nil
		}
		p.After = cp.Next
	}
}

func mcpClaim(c ledger.ClaimView) MCPClaim {
	w := c.Withheld()
	mc := MCPClaim{ID: c.ID, Text: c.Text, Status: c.Status, Strength: c.Strength, Usable: w == evidence.HandOnOK, Withheld: w, Standing: c.Standing,
		Notes: nonNil(c.Notes), OpenSeams: nonNil(c.OpenSeams), Citations: []MCPCitation{}}
	for _, ct := range c.Citations {
		risk := ""
		if ct.Adjudication != nil {
			risk = ct.Adjudication.ResidualRisk
		}
		mc.Citations = append(mc.Citations, MCPCitation{ID: ct.ID, URL: ct.URL, Quote: ct.Quote, Status: ct.Status, Note: ct.Note,
			Strength: ct.Strength, Excerpt: ct.Excerpt, ResidualRisk: risk, OpenSeams: nonNil(ct.OpenSeams)})
	}
	return mc
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (t *mcpTools) claimStatus(ctx context.Context, req *mcp.CallToolRequest, in ClaimStatusIn) (*mcp.CallToolResult, CheckAnswer, error) {
	ans, err := t.doClaimStatus(ctx, req, in)
	if err != nil {
		return nil, CheckAnswer{}, toolError("claim_status", err)
	}
	return nil, ans, nil
}

func (t *mcpTools) doClaimStatus(ctx context.Context, req *mcp.CallToolRequest, in ClaimStatusIn) (CheckAnswer, error) {
	if _, err := t.user(ctx, req); err != nil {
		return CheckAnswer{}, err
	}
	wait, err := waitFor(in.WaitSeconds)
	if err != nil {
		return CheckAnswer{}, err
	}
	in.Claim, in.Batch, in.Job = strings.TrimSpace(in.Claim), strings.TrimSpace(in.Batch), strings.TrimSpace(in.Job)
	switch {
	case (in.Claim == "") == (in.Batch == ""):
		return CheckAnswer{}, fmt.Errorf(`give either "claim" or "batch": %w`, errMCPInput)
	case in.Claim != "":
		if in.Job != "" {
			return CheckAnswer{}, fmt.Errorf(`"job" goes with "batch", not "claim": %w`, errMCPInput)
		}
		c, err := t.s.mcpStore().Claim(ctx, in.Claim)
		if err != nil {
			return CheckAnswer{}, err
		}
		return CheckAnswer{Batch: c.Batch, Finished: true, Claims: []MCPClaim{mcpClaim(c)}, Meaning: mcpMeaning}, nil
	}
	if _, err := t.s.mcpStore().BatchSummary(ctx, in.Batch); err != nil {
		return CheckAnswer{}, err
	}
	if in.Job == "" {
		return t.answer(ctx, in.Batch, nil)
	}
	if t.s.cfg.Jobs == nil {
		return CheckAnswer{}, errNoChecker
	}
	st, err := t.waitJob(ctx, req, in.Job, wait)
	if err != nil {
		return CheckAnswer{}, err
	}
	if st.Batch != in.Batch {
		return CheckAnswer{}, fmt.Errorf("job %s checks batch %s, not %s: %w", in.Job, st.Batch, in.Batch, errMCPInput)
	}
	return t.answer(ctx, in.Batch, &st)
}

func (t *mcpTools) batchReport(ctx context.Context, req *mcp.CallToolRequest, in BatchReportIn) (*mcp.CallToolResult, ledger.HandOff, error) {
	if _, err := t.user(ctx, req); err != nil {
		return nil, ledger.HandOff{}, toolError("batch_report", err)
	}
	if strings.TrimSpace(in.Batch) == "" {
		return nil, ledger.HandOff{}, toolError("batch_report", fmt.Errorf(`give "batch", a batch id: %w`, errMCPInput))
	}
	h, err := t.s.mcpStore().HandOff(ctx, strings.TrimSpace(in.Batch))
	if err != nil {
		return nil, ledger.HandOff{}, toolError("batch_report", err)
	}
	return nil, h, nil
}

func (t *mcpTools) gateText(ctx context.Context, req *mcp.CallToolRequest, in GateTextIn) (*mcp.CallToolResult, gate.Decision, error) {
	d, err := t.doGate(ctx, req, in)
	if err != nil {
		return nil, gate.Decision{}, toolError("gate_text", err)
	}
	return nil, d, nil
}

// doGate is POST /api/gate's decision (handleGate), for a tool call.
func (t *mcpTools) doGate(ctx context.Context, req *mcp.CallToolRequest, in GateTextIn) (gate.Decision, error) {
	u, err := t.user(ctx, req)
	if err != nil {
		return gate.Decision{}, err
	}
	if len(in.Text) > evidence.MaxPasteBytes {
		return gate.Decision{}, errGateTooLarge
	}
	if err := evidence.CheckString(in.Text); err != nil {
		return gate.Decision{}, err
	}
	min, err := gate.ParseMinStrength(in.MinStrength)
	if err != nil {
		return gate.Decision{}, fmt.Errorf("%w: %w", err, errMCPInput)
	}
	opt := gate.Options{Min: min}
	if in.Check {
		if _, err := t.writer(ctx, req, `gate_text with "check": true`); err != nil {
			return gate.Decision{}, err
		}
		if t.s.cfg.Checker == nil {
			return gate.Decision{}, errNoChecker
		}
		opt.Check = &gate.Check{Store: gate.StoreImporter(t.s.cfg.Ledger), Checker: t.s.cfg.Checker, Actor: "user:" + u.Name, Workers: t.s.cfg.CheckWorkers}
	}
	d, err := gate.Evaluate(ctx, gate.StoreLedger(t.s.cfg.Ledger), in.Text, opt)
	if err != nil {
		// The decision of a failed gate blocks; the error says so and carries no detail.
		log.Printf("mcp gate_text: %v", err)
		return gate.Decision{}, errors.New("the ledger could not be read or the check could not be recorded, so nothing is allowed; the server log has the details")
	}
	return d, nil
}

func (t *mcpTools) auditStatus(ctx context.Context, req *mcp.CallToolRequest, _ AuditStatusIn) (*mcp.CallToolResult, AuditStatus, error) {
	if _, err := t.user(ctx, req); err != nil {
		return nil, AuditStatus{}, toolError("audit_status", err)
	}
	run, err := t.s.audits.run(ctx, t.s.mcpStore().Audit)
	if err != nil {
		return nil, AuditStatus{}, toolError("audit_status", err)
	}
	cp, err := t.s.mcpStore().Checkpoint(ctx)
	if err != nil {
		return nil, AuditStatus{}, toolError("audit_status", err)
	}
	rep := run.report
	if rep.Problems == nil {
		rep.Problems = []ledger.Problem{}
	}
	return nil, AuditStatus{
		Checkpoint: MCPCheckpoint{Origin: cp.Origin, Size: cp.Size, Root: base64.StdEncoding.EncodeToString(cp.Root[:]), Note: string(cp.Note)},
		Audit:      rep, AuditedAt: run.at.UTC().Format(time.RFC3339), TookMS: run.took.Milliseconds(),
	}, nil
}

// mcpLedger is what the MCP tools call of the store, besides the gate's adapters.
type mcpLedger interface {
	Audit(ctx context.Context) (ledger.Report, error)
	BatchSummary(ctx context.Context, id string) (ledger.Batch, error)
	Checkpoint(ctx context.Context) (ledger.Checkpoint, error)
	Claim(ctx context.Context, id string) (ledger.ClaimView, error)
	ClaimsPage(ctx context.Context, f ledger.ClaimFilter, p ledger.Page) (ledger.ClaimPage, error)
	HandOff(ctx context.Context, batch string) (ledger.HandOff, error)
	ImportResearch(ctx context.Context, actor string, paste []byte, research evidence.Research) (ledger.Batch, error)
}

// mcpStore is the store as the MCP tools see it.
func (s *server) mcpStore() mcpLedger { return s.cfg.Ledger }
