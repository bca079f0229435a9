package ledger

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"evidenceledger/evidence"
)

// typeCitationChecked is the event of one check of one citation (docs/events.md).
const typeCitationChecked = "citation.checked"

func init() {
	registerEvent(typeCitationChecked, projectorOf(projectCitationChecked))
	registerTable("checks", "seq")
	registerTable("documents", "check_seq")
	registerTable("verdicts", "check_seq, ordinal")
}

// CitationsToCheck returns the citations of a batch to check, in the order of the research
// (claims, then citations within a claim): those never checked yet and those whose page
// could not be read (unreachable: a timeout or a 5xx may pass, so a later check tries
// again), or all of them when recheck is true. A citation that a check left reported (a
// split verdict or a login wall, whose seam is open) has been checked and waits for a person,
// so it is returned only on a recheck. Citations that
// cannot be checked (no URL, no quote) are never recorded as checked, so they are always
// returned; the checker halts them without a fetch.
//
// It fails, wrapping [ErrNotFound] and evidence.ErrNoBatch, when the batch does not exist.
// Together with [Store.RecordCheck] this makes *Store a verify.CheckStore.
func (s *Store) CitationsToCheck(ctx context.Context, batch string, recheck bool) ([]evidence.CheckTarget, error) {
	return s.citationsToCheck(ctx, batch, recheck, 0)
}

// CitationsToResume returns the citations of run's batch that run has yet to check: those
// [Store.CitationsToCheck] gives for run.Recheck, less those whose latest check is later than
// run.Since (the run checked them before it was stopped). Together with [Store.BeginCheckRun],
// [Store.EndCheckRun] and [Store.InterruptedCheckRuns] this makes *Store a verify.RunKeeper.
func (s *Store) CitationsToResume(ctx context.Context, run evidence.CheckRun) ([]evidence.CheckTarget, error) {
	return s.citationsToCheck(ctx, run.Batch, run.Recheck, run.Since)
}

// citationsToCheck is [Store.CitationsToCheck] when since is 0, else [Store.CitationsToResume].
func (s *Store) citationsToCheck(ctx context.Context, batch string, recheck bool, since int64) ([]evidence.CheckTarget, error) {
	tx, err := s.readTx(ctx)
	if err != nil {
		return nil, fmt.Errorf("citations to check in batch %s: %w", batch, err)
	}
	defer tx.Rollback()
	var one int
	if err := tx.QueryRowContext(ctx, "SELECT 1 FROM batches WHERE id = ?", batch).Scan(&one); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("batch %q does not exist; check the id (ledger import prints it): %w: %w", batch, ErrNotFound, evidence.ErrNoBatch)
		}
		return nil, fmt.Errorf("citations to check in batch %s: %w", batch, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT c.id, c.text, ct.id, ct.url, ct.quote
		FROM citations ct JOIN claims c ON c.id = ct.claim
		WHERE c.batch = ? AND (? OR ct.last_check IS NULL OR ct.status = ?)
		AND (? = 0 OR ct.last_check IS NULL OR ct.last_check <= ?) ORDER BY c.position, ct.position`, batch, recheck, evidence.StatusUnreachable, since, since)
	if err != nil {
		return nil, fmt.Errorf("citations to check in batch %s: %w", batch, err)
	}
	defer rows.Close()
	out := []evidence.CheckTarget{}
	for rows.Next() {
		var t evidence.CheckTarget
		if err := rows.Scan(&t.ClaimID, &t.ClaimText, &t.CitationID, &t.URL, &t.Quote); err != nil {
			return nil, fmt.Errorf("citations to check in batch %s: %w", batch, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("citations to check in batch %s: %w", batch, err)
	}
	return out, nil
}

// RecordCheck commits one check of one citation in one transaction: the page body and the
// heads of the final request and response (each stored once under its SHA-256), one
// citation.checked event whose payload is checked, and, when
// seam is not nil, one seam.opened event. The projector appends the check, its document and
// its verdicts, sets the citation's status, note and excerpt, and recomputes the claim's
// status and strength.
//
// body must hash to checked.Document.SHA256, and be empty when there is no document;
// reqHead and respHead must hash to its RequestHead and ResponseHead, and be empty when
// those are (a capture recorded without its heads). A seam
// must be about the checked citation. Errors wrap [ErrInvalid] for a payload that does not
// fit (a bad id, status, decision, body, seam, or no residual risk) and [ErrNotFound] for a
// citation that does not exist or a claim that is not the citation's. Nothing is recorded
// then.
func (s *Store) RecordCheck(ctx context.Context, actor string, checked evidence.Checked, body, reqHead, respHead []byte, seam *evidence.SeamOpened) error {
	if err := checkChecked(checked, body, reqHead, respHead, seam); err != nil {
		return fmt.Errorf("record the check of citation %s: %w", checked.Citation, err)
	}
	if checked.Verdicts == nil {
		checked.Verdicts = []evidence.CheckVerdict{}
	}
	// A person's decision is read in the transaction that records the check, so no
	// resolution can slip in between and be overwritten.
	_, err := s.recordDecided(ctx, actor, func(tx *sql.Tx) ([]Draft, error) {
		checked, seam := checked, seam
		var err error
		if seam, err = respectPerson(ctx, tx, &checked, seam); err != nil {
			return nil, err
		}
		d := Draft{Type: typeCitationChecked, Payload: checked}
		if doc := checked.Document; doc != nil {
			d.Blobs = [][]byte{body}
			if doc.RequestHead != "" {
				d.Blobs = append(d.Blobs, reqHead, respHead)
			}
		}
		drafts := []Draft{d}
		if seam != nil {
			drafts = append(drafts, Draft{Type: typeSeamOpened, Payload: seamOpened{
				Seam: seam.Seam, Kind: seam.Kind, Summary: seam.Summary, Claims: nonNil(seam.Claims), Citations: nonNil(seam.Citations)}})
		}
		return drafts, nil
	})
	if err != nil {
		return fmt.Errorf("record the check of citation %s: %w", checked.Citation, err)
	}
	return nil
}

// respectPerson applies evidence.RespectPerson to a re-check of a citation whose status
// was last set by a person resolving a manual or disagreement seam (the column
// citations.decided_by_seam names that seam until the next check is recorded); a citation
// no person decided is left as checked. The check is recorded either way (a re-check
// appends); checked and the returned seam are what to record. tx is the transaction that
// records them.
func respectPerson(ctx context.Context, tx *sql.Tx, checked *evidence.Checked, seam *evidence.SeamOpened) (*evidence.SeamOpened, error) {
	var prior evidence.PersonDecision
	err := tx.QueryRowContext(ctx, `SELECT s.id, s.resolved_by, s.decision FROM citations ct
		JOIN seams s ON s.id = ct.decided_by_seam WHERE ct.id = ?`, checked.Citation).Scan(&prior.Seam, &prior.By, &prior.Status)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return seam, nil
	case err != nil:
		return nil, fmt.Errorf("read the decision a person made on citation %s: %w", checked.Citation, err)
	}
	return evidence.RespectPerson(checked, seam, prior, newID("s_")), nil
}

// checkChecked refuses a check whose payload, body or seam do not fit together. It reads
// nothing: existence is checked by the projector.
func checkChecked(ch evidence.Checked, body, reqHead, respHead []byte, seam *evidence.SeamOpened) error {
	if err := checkCheckedPayload(ch); err != nil {
		return err
	}
	switch {
	case ch.Document == nil && len(body)+len(reqHead)+len(respHead) > 0:
		return fmt.Errorf("%d bytes of body and heads came without a document to describe them: %w", len(body)+len(reqHead)+len(respHead), ErrInvalid)
	case ch.Document != nil:
		for _, b := range []struct {
			what, want string
			data       []byte
		}{{"body", ch.Document.SHA256, body}, {"request head", ch.Document.RequestHead, reqHead}, {"response head", ch.Document.ResponseHead, respHead}} {
			if b.what != "body" && b.want == "" && len(b.data) == 0 {
				continue
			}
			sum := sha256.Sum256(b.data)
			if got := hex.EncodeToString(sum[:]); got != b.want {
				return fmt.Errorf("the %s hashes to %s, not to the document's %q; store the bytes that were exchanged: %w", b.what, got, b.want, ErrInvalid)
			}
		}
	}
	if seam != nil && (len(seam.Citations) != 1 || seam.Citations[0] != ch.Citation) {
		return fmt.Errorf("the seam opened with a check must be about the checked citation %s alone, not %v: %w", ch.Citation, seam.Citations, ErrInvalid)
	}
	return nil
}

// checkCheckedPayload refuses a citation.checked payload with a bad id, status, decision or
// document hash, or without a residual-risk statement. Verdicts are kept as given: an
// off-schema verdict is part of the record, with its problem.
func checkCheckedPayload(ch evidence.Checked) error {
	switch {
	case !validID("ct_", ch.Citation):
		return fmt.Errorf("citation id %q: want ct_ and 16 hex characters: %w", ch.Citation, ErrInvalid)
	case !validID("c_", ch.Claim):
		return fmt.Errorf("claim id %q: want c_ and 16 hex characters: %w", ch.Claim, ErrInvalid)
	case !ch.Status.Valid():
		return fmt.Errorf("status %q: want reported, found_at_source, not_found or unreachable: %w", ch.Status, ErrInvalid)
	case ch.Adjudication.Decision != "" && !ch.Adjudication.Decision.Valid():
		return fmt.Errorf("decision %q: want supported, contradicted, not_found, unreachable or none: %w", ch.Adjudication.Decision, ErrInvalid)
	case strings.TrimSpace(ch.Adjudication.ResidualRisk) == "":
		return fmt.Errorf("the adjudication has no residual-risk statement; every result must say what it does not prove: %w", ErrInvalid)
	case ch.Document != nil && !isHex(ch.Document.SHA256, 64):
		return fmt.Errorf("document sha256 %q: want 64 lowercase hex characters: %w", ch.Document.SHA256, ErrInvalid)
	case ch.Document != nil && (ch.Document.RequestHead == "") != (ch.Document.ResponseHead == ""):
		return fmt.Errorf("document: a request head without a response head, or the reverse; both are kept or neither: %w", ErrInvalid)
	case ch.Document != nil && ch.Document.RequestHead != "" && (!isHex(ch.Document.RequestHead, 64) || !isHex(ch.Document.ResponseHead, 64)):
		return fmt.Errorf("document heads %q and %q: want 64 lowercase hex characters: %w", ch.Document.RequestHead, ch.Document.ResponseHead, ErrInvalid)
	}
	for i, v := range ch.Verdicts {
		if v.Document != "" && !isHex(v.Document, 64) {
			return fmt.Errorf("verdict %d: document %q: want 64 lowercase hex characters: %w", i+1, v.Document, ErrInvalid)
		}
	}
	return nil
}

// citationChecked is the payload of citation.checked as recorded, with the blobs member.
type citationChecked struct {
	evidence.Checked
	Blobs []string `json:"blobs"`
}

// projectCitationChecked appends the check (keyed by the event's seq), its document and
// verdicts, sets the citation's status, note, excerpt and last check, and recomputes its
// claim.
func projectCitationChecked(tx *sql.Tx, ev *Event, p *citationChecked) error {
	ch := p.Checked
	if err := checkCheckedPayload(ch); err != nil {
		return err
	}
	var claim string
	if err := tx.QueryRow("SELECT claim FROM citations WHERE id = ?", ch.Citation).Scan(&claim); err != nil {
		return notFound(err, fmt.Sprintf("citation %q", ch.Citation))
	}
	if claim != ch.Claim {
		return fmt.Errorf("citation %s belongs to claim %s, not %s: %w", ch.Citation, claim, ch.Claim, ErrNotFound)
	}
	consistency, support, err := supportColumns(ch)
	if err != nil {
		return err
	}
	a := ch.Adjudication
	if _, err := tx.Exec(`INSERT INTO checks (seq, citation, claim, at, actor, status, note, excerpt, tier, agree, escalated, decision, residual_risk, page, consistency, support)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		ev.Seq, ch.Citation, ch.Claim, ev.At, ev.Actor, ch.Status, ch.Note, ch.Excerpt, ch.Tier, a.Agree, a.Escalated, a.Decision, a.ResidualRisk, ch.Page, consistency, support); err != nil {
		return fmt.Errorf("check of citation %s: %w", ch.Citation, err)
	}
	if d := ch.Document; d != nil {
		for _, h := range []string{d.SHA256, d.RequestHead, d.ResponseHead} {
			if h != "" && !slices.Contains(p.Blobs, h) {
				return fmt.Errorf("the document's %s is not among the event's stored bodies: %w", h, ErrInvalid)
			}
		}
		hops := d.Hops
		if hops == nil {
			hops = []evidence.Hop{}
		}
		hj, err := json.Marshal(hops)
		if err != nil {
			return err
		}
		extractors := d.Extractors
		if extractors == nil {
			extractors = []string{}
		}
		xj, err := json.Marshal(extractors)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO documents (check_seq, sha256, url, final_url, fetched_at, http_status, content_type, truncated, ip, hops, pages, extractors, request_head, response_head)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			ev.Seq, d.SHA256, d.URL, d.FinalURL, d.FetchedAt, d.HTTPStatus, d.ContentType, d.Truncated, d.IP, string(hj), d.Pages, string(xj), d.RequestHead, d.ResponseHead); err != nil {
			return fmt.Errorf("document of the check of citation %s: %w", ch.Citation, err)
		}
	}
	// tx.Exec, not tx.Prepare: a statement prepared on a Tx stays referenced by it until the
	// transaction ends, so a replay of a million checks in one transaction would keep a
	// million of them (the connection's statement cache makes Exec as cheap).
	for i, v := range ch.Verdicts {
		if _, err := tx.Exec(`INSERT INTO verdicts (check_seq, ordinal, verifier, verdict, accuracy_estimate, reasoning, document, problem)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, ev.Seq, i, v.Verifier, v.Verdict, v.AccuracyEstimate, v.Reasoning, v.Document, v.Problem); err != nil {
			return fmt.Errorf("verdict %d of the check of citation %s: %w", i+1, ch.Citation, err)
		}
	}
	if _, err := tx.Exec("UPDATE citations SET status = ?, note = ?, excerpt = ?, last_check = ?, decided_by_seam = NULL, support = ? WHERE id = ?",
		ch.Status, ch.Note, ch.Excerpt, ev.Seq, support, ch.Citation); err != nil {
		return fmt.Errorf("citation %s: %w", ch.Citation, err)
	}
	if err := projectSupport(tx, ev.Seq, ch); err != nil {
		return err
	}
	return recomputeClaim(tx, ch.Claim)
}

// detailQuery is one query of loadCheckDetails and how it fills the citations of its rows.
type detailQuery struct {
	q    string
	scan func(rows *sql.Rows) error
}

// loadCheckDetails fills Document, Verdicts, Adjudication, Consistency and Support of each
// citation from its latest check, in a fixed number of queries whatever the number of
// citations. A citation never checked keeps an empty Consistency and no Support.
func loadCheckDetails(ctx context.Context, tx *sql.Tx, cits []*CitationView) error {
	if len(cits) == 0 {
		return nil
	}
	ids := make([]string, len(cits))
	byID := make(map[string]*CitationView, len(cits))
	for i, c := range cits {
		ids[i] = c.ID
		byID[c.ID] = c
		c.Consistency = []evidence.Mismatch{}
	}
	idList, _ := json.Marshal(ids)
	const latest = `SELECT ct.id, ct.last_check FROM citations ct
		WHERE ct.id IN (SELECT value FROM json_each(?1)) AND ct.last_check IS NOT NULL`
	bySeq := map[int64]*CitationView{}
	queries := []detailQuery{
		{`SELECT l.last_check, k.agree, k.escalated, k.decision, k.residual_risk, k.page, k.consistency FROM (` + latest + `) l JOIN checks k ON k.seq = l.last_check`,
			func(rows *sql.Rows) error {
				var seq int64
				var a AdjudicationView
				var page int
				var cons string
				if err := rows.Scan(&seq, &a.Agree, &a.Escalated, &a.Decision, &a.ResidualRisk, &page, &cons); err != nil {
					return err
				}
				c := bySeq[seq]
				c.Adjudication = &a
				c.ExcerptPage = page
				return json.Unmarshal([]byte(cons), &c.Consistency)
			}},
		{`SELECT l.last_check, d.sha256, d.url, d.final_url, d.fetched_at, d.pages, d.extractors FROM (` + latest + `) l JOIN documents d ON d.check_seq = l.last_check`,
			func(rows *sql.Rows) error {
				var seq int64
				var d DocumentView
				var extractors string
				if err := rows.Scan(&seq, &d.SHA256, &d.URL, &d.FinalURL, &d.FetchedAt, &d.Pages, &extractors); err != nil {
					return err
				}
				if d.Pages > 0 {
					if err := json.Unmarshal([]byte(extractors), &d.Extractors); err != nil {
						return fmt.Errorf("extractors of document %s: %w", d.SHA256, err)
					}
				}
				bySeq[seq].Document = &d
				return nil
			}},
		{`SELECT l.last_check, v.verifier, v.verdict, v.accuracy_estimate, v.reasoning, v.document, v.problem
			FROM (` + latest + `) l JOIN verdicts v ON v.check_seq = l.last_check ORDER BY v.check_seq, v.ordinal`,
			func(rows *sql.Rows) error {
				var seq int64
				var v VerdictView
				if err := rows.Scan(&seq, &v.Verifier, &v.Verdict, &v.AccuracyEstimate, &v.Reasoning, &v.Document, &v.Problem); err != nil {
					return err
				}
				c := bySeq[seq]
				c.Verdicts = append(c.Verdicts, v)
				return nil
			}},
	}
	err := eachRow(ctx, tx, latest, []any{string(idList)}, func(rows *sql.Rows) error {
		var id string
		var seq int64
		if err := rows.Scan(&id, &seq); err != nil {
			return err
		}
		bySeq[seq] = byID[id]
		return nil
	})
	if err != nil || len(bySeq) == 0 {
		return err
	}
	for _, q := range append(queries, supportQueries(latest, bySeq)...) {
		if err := eachRow(ctx, tx, q.q, []any{string(idList)}, q.scan); err != nil {
			return err
		}
	}
	return nil
}
