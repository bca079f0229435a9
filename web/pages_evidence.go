// The operator's evidence pages, in one file: paste and preview, batches and a batch, its
// check, claims and a claim, the stored document and the seams. They share one filter, one
// set of store methods (evidencePages) and one way to render a list with its pager.

package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
	"evidenceledger/match"
	"evidenceledger/verify"
)

// evidencePages is what the pages need from the store beyond the intake routes
// [intakeLedger]: the stored bodies, for the plain-text view of a page.
type evidencePages interface {
	intakeLedger
	storedPages
	Blob(ctx context.Context, sha256hex string) ([]byte, error)
}

// evidenceStore is the store as the evidence pages see it.
func (s *server) evidenceStore() evidencePages { return s.cfg.Ledger }

// routeEvidencePages adds the pages about research, claims, seams and sources.
func (s *server) routeEvidencePages(handle func(string, http.Handler)) {
	handle("GET /paste", s.page(roleWrite, s.pagePasteForm))
	handle("POST /paste/preview", s.page(roleWrite, s.pagePreview))
	handle("POST /paste", s.page(roleWrite, s.pageCommit))
	handle("GET /batches", s.page(roleRead, s.pageBatches))
	handle("GET /batches/{id}", s.page(roleRead, s.pageBatch))
	handle("POST /batches/{id}/check", s.page(roleWrite, s.pageCheck))
	handle("GET /batches/{id}/report", s.page(roleRead, s.pageReport))
	handle("GET /claims", s.page(roleRead, s.pageClaims))
	handle("GET /claims/{id}", s.page(roleRead, s.pageClaim))
	handle("GET /documents/{sha}", s.page(roleRead, s.pageDocument))
	handle("GET /documents/{sha}/text", s.page(roleRead, s.pageDocumentText))
	handle("GET /seams", s.page(roleRead, s.pageSeams))
	handle("POST /seams", s.page(roleWrite, s.pageOpenSeam))
	handle("POST /seams/{id}/resolve", s.page(roleWrite, s.pageResolve))
	handle("GET /sources", s.page(roleRead, s.pageSources))
	handle("POST /sources/{id}/classify", s.page(roleWrite, s.pageClassify))
}

// pageActor is the chain's actor for the signed-in person.
func pageActor(r *http.Request) string {
	v, _ := viewerFrom(r.Context())
	return "user:" + v.User.Name
}

// pasteText reads the pasted text of a form. Browsers send a textarea's line ends as CRLF;
// they are turned into LF, so the preview and the commit see the same text as a paste of
// the same research through the API would.
func pasteText(r *http.Request) string {
	return strings.ReplaceAll(r.PostFormValue("text"), "\r\n", "\n")
}

func textHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

type pasteData struct {
	Text      string
	Hash      string
	Research  evidence.Research
	Problem   string
	Previewed bool
	Notes     int // citations that cannot be checked
	URLs      int
	// NotRead are the values of a JSON paste the reader did not read that may hold a source
	// or a quote (evidence.NotRead), shown by their place so the person can rename them.
	NotRead []evidence.LeftOut
	// Claims are the claims as the preview shows them: each quote with the source it will be
	// checked against and the marker of the paste that named that source.
	Claims []previewClaim
}

type previewClaim struct {
	Text string
	Rows []previewRow
}

// previewRow is one citation of a claim in the preview: the quote, the URL it is checked
// against, the marker of the paste that gave the URL ("[2]", or ""), and the note.
type previewRow struct {
	Quote, URL, Via, Note string
}

func (s *server) pagePasteForm(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "paste", "", view{Title: "Paste research", Data: pasteData{}})
}

// preview reads text with evidence.ReadPasteLeftOut, the one intake path (evidence.ReadPaste)
// the commit, the API and `ledger import` use too; a paste that cannot be read is a problem shown on the page, not
// an error page.
func preview(text string) pasteData {
	d := pasteData{Text: text, Hash: textHash(text), Previewed: true}
	pv, err := evidence.ReadPastePreview([]byte(text))
	d.NotRead = evidence.NotRead(pv.Left)
	if err != nil {
		d.Problem = err.Error()
		if strings.TrimSpace(text) == "" {
			d.Problem = "The text area is empty; paste the research first."
		}
		return d
	}
	d.Research = pv.Research
	for i, c := range pv.Research.Claims {
		pc := previewClaim{Text: c.Text}
		for j, ct := range c.Citations {
			row := previewRow{Quote: ct.Quote, URL: ct.URL, Note: ct.Note}
			if i < len(pv.Via) && j < len(pv.Via[i]) {
				row.Via = pv.Via[i][j]
			}
			pc.Rows = append(pc.Rows, row)
			if ct.Note != "" {
				d.Notes++
			}
			if ct.URL != "" {
				d.URLs++
			}
		}
		d.Claims = append(d.Claims, pc)
	}
	return d
}

// pagePreview shows what the parser found, before anything is recorded. Fragment "preview".
func (s *server) pagePreview(w http.ResponseWriter, r *http.Request) {
	d := preview(pasteText(r))
	status := http.StatusOK
	// For htmx the problem is in the words of the fragment, with 200: an error status would
	// only add a console error to the page.
	if d.Problem != "" && !isHTMX(r) {
		status = http.StatusUnprocessableEntity
	}
	s.render(w, r, status, "paste", "preview", view{Title: "Preview", Data: d})
}

// pageCommit records the previewed text as a batch. The commit button belongs to the form
// of the text box, so the form carries the text as it is in the box, with the SHA-256 the
// preview showed: a text edited after its preview is refused with 409 and previewed again
// (for htmx the fragment "preview", with 200, its words saying so), so an edit is never
// dropped silently. A commit answers a redirect to the batch (HX-Redirect for htmx).
func (s *server) pageCommit(w http.ResponseWriter, r *http.Request) {
	text := pasteText(r)
	d := preview(text)
	status := 0
	switch {
	case r.PostFormValue("sha256") != textHash(text):
		status = http.StatusConflict
		if d.Problem != "" {
			d.Problem = "Not committed: the text was changed after its preview, and the text as it is now cannot be read: " + d.Problem
		} else {
			d.Problem = "Not committed: the text was changed after its preview. This is the preview of the text as it is now; check it and commit again."
		}
	case d.Problem != "":
		status = http.StatusUnprocessableEntity
	}
	if status != 0 {
		// For htmx the refusal is in the words of the fragment it swaps in, with 200: an
		// error status would only add a console error to the page.
		if isHTMX(r) {
			status = http.StatusOK
		}
		s.render(w, r, status, "paste", "preview", view{Title: "Paste research", Data: d})
		return
	}
	b, err := s.evidenceStore().ImportResearch(r.Context(), pageActor(r), []byte(text), d.Research)
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	if isHTMX(r) {
		w.Header().Set("HX-Redirect", "/batches/"+b.ID)
		w.WriteHeader(http.StatusOK)
		return
	}
	seeOther(w, r, "/batches/"+b.ID)
}

// filter is the status and strength a list is narrowed to.
type filter struct {
	Status   string
	Strength string
	Batch    string
}

var (
	statusChoices   = []string{string(evidence.StatusReported), string(evidence.StatusFound), string(evidence.StatusNotFound), string(evidence.StatusUnreachable)}
	strengthChoices = []string{"high", "medium", "low", "none"}
)

func readFilter(r *http.Request) (filter, error) {
	q := r.URL.Query()
	f := filter{Status: q.Get("status"), Strength: q.Get("strength"), Batch: q.Get("batch")}
	if f.Status != "" && !evidence.Status(f.Status).Valid() {
		return f, fmt.Errorf("status %q: want one of %s: %w", f.Status, strings.Join(statusChoices, ", "), ledger.ErrInvalid)
	}
	if f.Strength != "" && !contains(strengthChoices, f.Strength) {
		return f, fmt.Errorf("strength %q: want one of %s: %w", f.Strength, strings.Join(strengthChoices, ", "), ledger.ErrInvalid)
	}
	return f, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

type listData struct {
	Filter    filter
	Statuses  []string
	Strengths []string
	Batches   []ledger.Batch
	Claims    []ledger.ClaimView
	Pager     pager
}

// pageBatches lists batches, newest first, a page at a time; a filter keeps the batches
// with at least one claim of that status and of that strength.
func (s *server) pageBatches(w http.ResponseWriter, r *http.Request) {
	f, err := readFilter(r)
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	p, err := readPage(r)
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	bp, err := s.evidenceStore().BatchesPage(r.Context(), ledger.BatchFilter{Status: f.Status, Strength: f.Strength}, p)
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	d := listData{Filter: f, Statuses: statusChoices, Strengths: strengthChoices, Batches: bp.Batches, Pager: pagerOf(r, "/batches", bp.Cursors)}
	s.render(w, r, http.StatusOK, "batches", "", view{Title: "Batches", Data: d})
}

type batchData struct {
	// Batch holds one page of its claims.
	Batch ledger.Batch
	Pager pager
	// Poll is the address the progress fragment polls: this page, following the job.
	Poll string
	// CanCheck is false when the server was built without check jobs.
	CanCheck bool
	// Job is the check job the page follows (?job=ID); nil when none.
	Job *verify.JobStatus
	// JobGone says the page asked for a job the server does not know (it restarted).
	JobGone bool
	// Summary counts the citations by what their checks found, and why not.
	Summary checkSummary
}

// Running reports whether the followed job has yet to end.
func (d batchData) Running() bool {
	return d.Job != nil && d.Job.State != verify.JobDone && d.Job.State != verify.JobFailed
}

// pageBatch shows a batch with its claims; with ?job=ID it follows that check job. Fragment
// "progress": the counts, the job's progress and the claims' statuses. While the job runs
// the fragment polls itself every second (htmx) and the page refreshes itself every two
// seconds inside <noscript>; both stop when the job is done.
func (s *server) pageBatch(w http.ResponseWriter, r *http.Request) {
	d, err := s.batchData(r, r.PathValue("id"), r.URL.Query().Get("job"))
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	s.render(w, r, http.StatusOK, "batch", "progress", view{Title: "Batch " + d.Batch.ID, Data: d, Refresh: d.Running()})
}

func (s *server) batchData(r *http.Request, id, job string) (batchData, error) {
	b, cur, err := s.batchPage(r, id)
	if err != nil {
		return batchData{}, err
	}
	// The check summary counts every citation of the batch, not only this page's, by an
	// aggregate: the page costs what it shows, not what the batch holds.
	tallies, err := s.evidenceStore().BatchTallies(r.Context(), b.ID)
	if err != nil {
		return batchData{}, err
	}
	path := "/batches/" + url.PathEscape(b.ID)
	d := batchData{Batch: b, CanCheck: s.cfg.Jobs != nil, Summary: summarize(tallies), Pager: pagerOf(r, path, cur)}
	q := url.Values{}
	for _, k := range []string{"limit", "after", "before"} {
		if v := r.URL.Query().Get(k); v != "" {
			q.Set(k, v)
		}
	}
	q.Set("job", job)
	d.Poll = path + "?" + q.Encode()
	if job != "" && s.cfg.Jobs != nil {
		st, ok := s.cfg.Jobs.Wait(r.Context(), job, 0)
		if ok && st.Batch == b.ID {
			d.Job = &st
		} else {
			d.JobGone = true
		}
	}
	return d, nil
}

// pageCheck starts checking a batch (every citation again with recheck=on), then shows its
// progress: the fragment "progress" for htmx, else a redirect to the batch page following
// the job.
func (s *server) pageCheck(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Jobs == nil {
		s.pageError(w, r, viewer{}, errNoChecker)
		return
	}
	batch := r.PathValue("id")
	job, err := s.cfg.Jobs.Start(batch, pageActor(r), r.PostFormValue("recheck") == "on")
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	if !isHTMX(r) {
		seeOther(w, r, "/batches/"+url.PathEscape(batch)+"?job="+url.QueryEscape(job))
		return
	}
	d, err := s.batchData(r, batch, job)
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	w.Header().Set("HX-Push-Url", "/batches/"+url.PathEscape(batch)+"?job="+url.QueryEscape(job))
	s.render(w, r, http.StatusOK, "batch", "progress", view{Title: "Batch " + d.Batch.ID, Data: d})
}

func (s *server) pageClaims(w http.ResponseWriter, r *http.Request) {
	f, err := readFilter(r)
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	p, err := readPage(r)
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	cp, err := s.evidenceStore().ClaimsPage(r.Context(), ledger.ClaimFilter{Batch: f.Batch, Status: evidence.Status(f.Status), Strength: f.Strength}, p)
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	d := listData{Filter: f, Statuses: statusChoices, Strengths: strengthChoices, Claims: cp.Claims, Pager: pagerOf(r, "/claims", cp.Cursors)}
	s.render(w, r, http.StatusOK, "claims", "", view{Title: "Claims", Data: d})
}

type claimData struct {
	Claim ledger.ClaimView
	Seams []ledger.SeamView
	// Withheld is why the claim may not be handed on (evidence.HandOn, the rule the report and
	// the gate use); "" when it may.
	Withheld evidence.Withheld
}

func (s *server) pageClaim(w http.ResponseWriter, r *http.Request) {
	c, err := s.evidenceStore().Claim(r.Context(), r.PathValue("id"))
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	d := claimData{Claim: c}
	ids := append([]string{}, c.OpenSeams...)
	for _, ct := range c.Citations {
		ids = append(ids, ct.OpenSeams...)
	}
	d.Withheld = c.Withheld()
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		sm, err := s.evidenceStore().Seam(r.Context(), id)
		if err != nil {
			s.pageError(w, r, viewer{}, err)
			return
		}
		d.Seams = append(d.Seams, sm)
	}
	s.render(w, r, http.StatusOK, "claim", "", view{Title: "Claim", Data: d})
}

// pageDocument serves a stored body, its raw bytes. A page a check stored as a PDF
// ([verify.IsPDF]) is sent as application/pdf, as an attachment named by its SHA-256, so the
// person's own PDF viewer opens it, never a page of the ledger's origin; anything else is
// sent as plain text that no browser will run or render as HTML. Both come with nosniff and
// a CSP sandbox (no script, no same origin). Bytes that are not UTF-8 are shown as U+FFFD.
func (s *server) pageDocument(w http.ResponseWriter, r *http.Request) {
	body, err := s.evidenceStore().Blob(r.Context(), r.PathValue("sha"))
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	if p, err := s.evidenceStore().StoredPage(r.Context(), r.PathValue("sha")); err == nil && verify.IsPDF(p.ContentType, p.Body) {
		h.Set("Content-Type", "application/pdf")
		h.Set("Content-Disposition", `attachment; filename="`+p.SHA256[:16]+`.pdf"`)
	}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "private, max-age=86400, immutable")
	if h.Get("Content-Type") != "application/pdf" && !utf8.Valid(body) {
		body = []byte(strings.ToValidUTF8(string(body), "\uFFFD"))
	}
	w.Write(body)
}

// seamRow is a seam with what it is about, for side-by-side display.
type seamRow struct {
	Seam      ledger.SeamView
	Claims    []ledger.ClaimView
	Citations []ledger.CitationView
	// Decisions are the decisions the seam's kind accepts (evidence.Decisions), each with the
	// words that say what it does.
	Decisions []evidence.Choice
	// Decided is, for a resolved seam, the words of its decision; "" for a decision recorded
	// as free text before decisions were fixed.
	Decided string
}

// seamRowOf loads the claims and citations a seam names.
func (s *server) seamRowOf(ctx context.Context, sm ledger.SeamView) (seamRow, error) {
	row := seamRow{Seam: sm, Decisions: evidence.Decisions(sm.Kind)}
	for _, c := range row.Decisions {
		if string(c.Decision) == sm.Decision {
			row.Decided = c.Label
		}
	}
	for _, id := range sm.Claims {
		c, err := s.evidenceStore().Claim(ctx, id)
		if err != nil {
			return row, err
		}
		row.Claims = append(row.Claims, c)
		for _, ct := range c.Citations {
			if contains(sm.Citations, ct.ID) {
				row.Citations = append(row.Citations, ct)
			}
		}
	}
	return row, nil
}

type seamsData struct {
	State string
	Rows  []seamRow
	Pager pager
}

func (s *server) pageSeams(w http.ResponseWriter, r *http.Request) {
	state := evidence.SeamState(r.URL.Query().Get("state"))
	if state == "" {
		state = evidence.SeamOpen
	}
	if !state.Valid() {
		s.pageError(w, r, viewer{}, fmt.Errorf("state %q: want open or resolved: %w", state, ledger.ErrInvalid))
		return
	}
	p, err := readPage(r)
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	sp, err := s.evidenceStore().SeamsPage(r.Context(), state, p)
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	d := seamsData{State: string(state), Pager: pagerOf(r, "/seams", sp.Cursors)}
	for _, sm := range sp.Seams {
		row, err := s.seamRowOf(r.Context(), sm)
		if err != nil {
			s.pageError(w, r, viewer{}, err)
			return
		}
		d.Rows = append(d.Rows, row)
	}
	s.render(w, r, http.StatusOK, "seams", "", view{Title: "Seams", Data: d})
}

// pageOpenSeam opens a contradiction (this claim and the claims named in "others") or an
// absence (this claim) from the claim page, then shows the claim again.
func (s *server) pageOpenSeam(w http.ResponseWriter, r *http.Request) {
	kind := evidence.SeamKind(r.PostFormValue("kind"))
	claim := r.PostFormValue("claim")
	req := ledger.SeamRequest{Kind: kind, Summary: r.PostFormValue("summary"), Claims: []string{claim}}
	switch kind {
	case evidence.SeamContradiction:
		for _, id := range strings.FieldsFunc(r.PostFormValue("others"), func(c rune) bool { return c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r' }) {
			if id != claim && !contains(req.Claims, id) {
				req.Claims = append(req.Claims, id)
			}
		}
	case evidence.SeamAbsence:
	default:
		s.pageError(w, r, viewer{}, fmt.Errorf("a person opens a contradiction or records an absence here; kind %q is neither: %w", kind, ledger.ErrInvalid))
		return
	}
	if _, err := s.evidenceStore().OpenSeam(r.Context(), pageActor(r), req); err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	seeOther(w, r, "/claims/"+url.PathEscape(claim))
}

// pageResolve resolves a seam. Fragment "seam-row": the resolved row, swapped in place.
func (s *server) pageResolve(w http.ResponseWriter, r *http.Request) {
	sm, err := s.evidenceStore().ResolveSeam(r.Context(), pageActor(r), r.PathValue("id"), strings.TrimSpace(r.PostFormValue("decision")), strings.TrimSpace(r.PostFormValue("reason")))
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	if !isHTMX(r) {
		seeOther(w, r, "/seams")
		return
	}
	row, err := s.seamRowOf(r.Context(), sm)
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	s.render(w, r, http.StatusOK, "seams", "seam-row", view{Title: "Seams", Data: row})
}

type sourcesData struct {
	Sources []ledger.SourceView // the sources there are, to classify
	// Absent are the sources of this page whose every citation was checked and whose host
	// name does not exist: listed apart, with nothing to classify.
	Absent  []ledger.SourceView
	Classes []string
	Pager   pager
}

var classChoices = []string{string(evidence.ClassPrimary), string(evidence.ClassSemi), string(evidence.ClassLead)}

func (s *server) pageSources(w http.ResponseWriter, r *http.Request) {
	p, err := readPage(r)
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	sp, err := s.evidenceStore().SourcesPage(r.Context(), p)
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	d := sourcesData{Sources: []ledger.SourceView{}, Classes: classChoices, Pager: pagerOf(r, "/sources", sp.Cursors)}
	for _, v := range sp.Sources {
		if v.Absent() {
			d.Absent = append(d.Absent, v)
		} else {
			d.Sources = append(d.Sources, v)
		}
	}
	s.render(w, r, http.StatusOK, "sources", "", view{Title: "Sources", Data: d})
}

// sourceRow is one row of the sources table.
type sourceRow struct {
	Source  ledger.SourceView
	Classes []string
}

// pageClassify sets a source's class. Fragment "source-row".
func (s *server) pageClassify(w http.ResponseWriter, r *http.Request) {
	src, err := s.evidenceStore().ClassifySource(r.Context(), pageActor(r), r.PathValue("id"), evidence.SourceClass(r.PostFormValue("class")), strings.TrimSpace(r.PostFormValue("publisher")))
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	if !isHTMX(r) {
		seeOther(w, r, "/sources")
		return
	}
	s.render(w, r, http.StatusOK, "sources", "source-row", view{Title: "Sources", Data: sourceRow{Source: src, Classes: classChoices}})
}

// segment is a piece of an excerpt, marked when it is the matched quote.
type segment struct {
	Text string
	Mark bool
}

// highlight cuts an excerpt (the page's own words) into segments, marking where the quote
// matches, from the byte offsets the matcher reports. The segments are plain strings: the
// template escapes them, so page text never becomes markup.
func highlight(excerpt, quote string) []segment {
	if excerpt == "" {
		return nil
	}
	m, err := match.Quote(excerpt, quote)
	if err != nil || !m.Found {
		return []segment{{Text: excerpt}}
	}
	var out []segment
	at := 0
	for _, sp := range m.Spans {
		if sp.Start < at || sp.End > len(excerpt) || sp.Start >= sp.End {
			return []segment{{Text: excerpt}}
		}
		if sp.Start > at {
			out = append(out, segment{Text: excerpt[at:sp.Start]})
		}
		out = append(out, segment{Text: excerpt[sp.Start:sp.End], Mark: true})
		at = sp.End
	}
	if at < len(excerpt) {
		out = append(out, segment{Text: excerpt[at:]})
	}
	return out
}
