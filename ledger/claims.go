package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"evidenceledger/evidence"
)

// ClaimView is a claim as the read model holds it, with its citations in the order the
// research gave them.
type ClaimView struct {
	ID    string `json:"id"`
	Batch string `json:"batch"`
	Text  string `json:"text"`
	// Notes say why the claim cannot be checked (evidence.NoteNoSource); empty when it can.
	Notes []string `json:"notes"`
	// Status is evidence.ClaimStatus over the citations' statuses.
	Status evidence.Status `json:"status"`
	// Strength is evidence.ComputeStrength over the found citations; "" when none was found.
	Strength evidence.Strength `json:"strength"`
	// Standing is what people's decisions made of the claim (evidence.ClaimStanding over its
	// resolved seams): "" (clear), "unsettled" or "contradicted".
	Standing evidence.Standing `json:"standing"`
	// OpenSeams are the ids of the open seams about the claim, oldest first.
	OpenSeams []string `json:"open_seams"`
	// Decisions are the resolved seams about the claim, oldest first: what people decided.
	Decisions []ClaimDecision `json:"decisions"`
	Citations []CitationView  `json:"citations"`
}

// Withheld is why the claim may not be handed on (evidence.HandOn over its status, standing,
// open seams, its own and its citations', and its citations' statuses); evidence.HandOnOK
// for a usable claim. The hand-off report, the claim page and the MCP tools read it.
func (c ClaimView) Withheld() evidence.Withheld {
	seams := len(c.OpenSeams)
	statuses := make([]evidence.Status, 0, len(c.Citations))
	for _, ct := range c.Citations {
		seams += len(ct.OpenSeams)
		statuses = append(statuses, ct.Status)
	}
	return evidence.HandOn(c.Status, c.Standing, seams, statuses)
}

// ClaimDecision is a person's resolution of a seam about a claim.
type ClaimDecision struct {
	Seam     string            `json:"seam"`
	Kind     evidence.SeamKind `json:"kind"`
	Decision string            `json:"decision"`
	// Standing is what the decision made of the claim (evidence.DecisionEffect).
	Standing   evidence.Standing `json:"standing"`
	Reason     string            `json:"reason"`
	ResolvedBy string            `json:"resolved_by"`
	ResolvedAt string            `json:"resolved_at"`
}

// CitationView is a citation with its latest state. Document, Verdicts and Adjudication
// describe its latest check; they stay null and empty until the citation was checked.
type CitationView struct {
	ID    string `json:"id"`
	Claim string `json:"claim"`
	URL   string `json:"url"`
	Quote string `json:"quote"`
	// Source is the id of the publisher behind the URL (its registrable domain); "" when
	// the URL is not http(s) or names no registrable domain.
	Source string          `json:"source"`
	Status evidence.Status `json:"status"`
	// Note is the latest word on the citation: the intake note (evidence.NoteNoQuote, ...),
	// then the check's note or a person's decision.
	Note string `json:"note"`
	// Notes are the notes the citation was imported with.
	Notes []string `json:"notes"`
	// Excerpt is the page's own words around a found quote.
	Excerpt string `json:"excerpt"`
	// ExcerptPage is, for a quote found in a PDF, the page the excerpt is on; 0 otherwise.
	ExcerptPage int `json:"excerpt_page,omitempty"`
	// Strength is the strength of the citation's claim.
	Strength evidence.Strength `json:"strength"`
	// OpenSeams are the ids of the open seams about the citation itself.
	OpenSeams    []string          `json:"open_seams"`
	Document     *DocumentView     `json:"document"`
	Verdicts     []VerdictView     `json:"verdicts"`
	Adjudication *AdjudicationView `json:"adjudication"`
	// Consistency holds what the latest check found wrong between the claim and the found
	// quote (evidence.CompareClaim); empty when nothing.
	Consistency []evidence.Mismatch `json:"consistency"`
	// Support is the model tier's judgement of the latest check; null when the tier was off.
	Support *SupportView `json:"support"`
}

// DocumentView is the page stored with a citation's latest check.
type DocumentView struct {
	SHA256    string `json:"sha256"`
	URL       string `json:"url"`
	FinalURL  string `json:"final_url"`
	FetchedAt string `json:"fetched_at"`
	// Pages is, for a PDF, its page count; Extractors the engines that read it.
	Pages      int      `json:"pages,omitempty"`
	Extractors []string `json:"extractors,omitempty"`
}

// VerdictView is one verifier's answer in a citation's latest check.
type VerdictView struct {
	Verifier         string           `json:"verifier"`
	Verdict          evidence.Verdict `json:"verdict"`
	AccuracyEstimate int              `json:"accuracy_estimate"`
	Reasoning        string           `json:"reasoning"`
	// Document is the SHA-256 of the body the verifier read, when it fetched one.
	Document string `json:"document,omitempty"`
	// Problem says why the answer is off its schema; empty when it is on it.
	Problem string `json:"problem,omitempty"`
}

// AdjudicationView is how the verdicts of a citation's latest check were weighed.
type AdjudicationView struct {
	Agree        bool             `json:"agree"`
	Escalated    bool             `json:"escalated"`
	Decision     evidence.Verdict `json:"decision,omitempty"`
	ResidualRisk string           `json:"residual_risk"`
}

// ClaimFilter selects claims. Empty members select everything.
type ClaimFilter struct {
	Batch  string
	Status evidence.Status
	// Strength is "low", "medium", "high", or "none" for claims with no strength.
	Strength string
}

// where returns the filter as SQL over the claims alias c.
func (f ClaimFilter) where() (string, []any, error) {
	conds := []string{"1"}
	var args []any
	if f.Batch != "" {
		conds = append(conds, "c.batch = ?")
		args = append(args, f.Batch)
	}
	if f.Status != "" {
		if !f.Status.Valid() {
			return "", nil, fmt.Errorf("status %q: want reported, found_at_source, not_found or unreachable: %w", f.Status, ErrInvalid)
		}
		conds = append(conds, "c.status = ?")
		args = append(args, string(f.Status))
	}
	switch f.Strength {
	case "":
	case "none":
		conds = append(conds, "c.strength = ''")
	case string(evidence.StrengthLow), string(evidence.StrengthMedium), string(evidence.StrengthHigh):
		conds = append(conds, "c.strength = ?")
		args = append(args, f.Strength)
	default:
		return "", nil, fmt.Errorf("strength %q: want low, medium, high or none: %w", f.Strength, ErrInvalid)
	}
	return strings.Join(conds, " AND "), args, nil
}

// Claims returns the claims the filter selects, oldest batch first and in the order of
// their research, each with its citations. A filter on a batch that does not exist selects
// nothing. Errors wrap [ErrInvalid] for a status or strength that does not exist.
func (s *Store) Claims(ctx context.Context, f ClaimFilter) ([]ClaimView, error) {
	where, args, err := f.where()
	if err != nil {
		return nil, fmt.Errorf("claims: %w", err)
	}
	tx, err := s.readTx(ctx)
	if err != nil {
		return nil, fmt.Errorf("claims: %w", err)
	}
	defer tx.Rollback()
	return loadClaims(ctx, tx, where, args...)
}

// Claim returns one claim with its citations. It fails, wrapping [ErrNotFound], when there
// is no claim with that id.
func (s *Store) Claim(ctx context.Context, id string) (ClaimView, error) {
	return readOne(ctx, s, "claim", id, "c.id = ?", loadClaims)
}

// FindClaims returns every claim whose text equals text once both are normalized
// ([evidence.NormalizeText]), oldest first, with their citations, strength and open seams. None is
// not an error.
func (s *Store) FindClaims(ctx context.Context, text string) ([]ClaimView, error) {
	tx, err := s.readTx(ctx)
	if err != nil {
		return nil, fmt.Errorf("find claims: %w", err)
	}
	defer tx.Rollback()
	return loadClaims(ctx, tx, "c.norm = ?", evidence.NormalizeText(text))
}

// FindCitations returns every citation with this URL (the same page by [evidence.SameURL],
// the rule the memory-write gate matches citations by) whose quote equals quote once both
// are normalized ([evidence.NormalizeText]), oldest first, each
// with its status, the strength of its claim and its open seams. None is not an error.
func (s *Store) FindCitations(ctx context.Context, url, quote string) ([]CitationView, error) {
	q := evidence.NormalizeText(quote)
	tx, err := s.readTx(ctx)
	if err != nil {
		return nil, fmt.Errorf("find citations: %w", err)
	}
	defer tx.Rollback()
	// The quote narrows the rows in SQL; the URL's identity is a rule of evidence, applied here.
	cs, err := loadClaims(ctx, tx, "c.id IN (SELECT claim FROM citations WHERE quote_norm = ?)", q)
	if err != nil {
		return nil, err
	}
	var out []CitationView
	for _, c := range cs {
		for _, ct := range c.Citations {
			if evidence.SameURL(ct.URL, url) && evidence.NormalizeText(ct.Quote) == q {
				out = append(out, ct)
			}
		}
	}
	return out, nil
}

// loadClaims reads the claims that where (SQL over the claims alias c) selects, with their
// citations and open seams, in a few queries.
func loadClaims(ctx context.Context, tx *sql.Tx, where string, args ...any) ([]ClaimView, error) {
	from := " FROM claims c JOIN batches b ON b.id = c.batch WHERE " + where
	var claims []ClaimView
	byID := map[string]int{}
	err := eachRow(ctx, tx, "SELECT c.id, c.batch, c.text, c.notes, c.status, c.strength, c.standing"+from+" ORDER BY b.seq, c.position", args, func(rows *sql.Rows) error {
		var c ClaimView
		var notes string
		if err := rows.Scan(&c.ID, &c.Batch, &c.Text, &notes, &c.Status, &c.Strength, &c.Standing); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(notes), &c.Notes); err != nil {
			return fmt.Errorf("claim %s: notes: %w", c.ID, err)
		}
		c.OpenSeams, c.Decisions, c.Citations = []string{}, []ClaimDecision{}, []CitationView{}
		byID[c.ID] = len(claims)
		claims = append(claims, c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read claims: %w", err)
	}
	if len(claims) == 0 {
		return []ClaimView{}, nil
	}

	citAt := map[string][2]int{}
	err = eachRow(ctx, tx, `SELECT ct.id, ct.claim, ct.url, ct.quote, coalesce(ct.source, ''), ct.notes, ct.status, ct.note, ct.excerpt, `+decidedCols+`
		FROM citations ct JOIN claims c ON c.id = ct.claim JOIN batches b ON b.id = c.batch `+decidedJoin+` WHERE `+where+` ORDER BY b.seq, c.position, ct.position`, args, func(rows *sql.Rows) error {
		ct := CitationView{OpenSeams: []string{}, Verdicts: []VerdictView{}}
		var notes, seam, by string
		if err := rows.Scan(&ct.ID, &ct.Claim, &ct.URL, &ct.Quote, &ct.Source, &notes, &ct.Status, &ct.Note, &ct.Excerpt, &seam, &by); err != nil {
			return err
		}
		ct.Note = shownNote(ct.Note, seam, by)
		if err := json.Unmarshal([]byte(notes), &ct.Notes); err != nil {
			return fmt.Errorf("citation %s: notes: %w", ct.ID, err)
		}
		i := byID[ct.Claim]
		ct.Strength = claims[i].Strength
		citAt[ct.ID] = [2]int{i, len(claims[i].Citations)}
		claims[i].Citations = append(claims[i].Citations, ct)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read citations: %w", err)
	}

	seamQueries := []struct {
		q   string
		add func(owner, seam string)
	}{
		{`SELECT sc.claim, sc.seam FROM seam_claims sc JOIN seams s ON s.id = sc.seam AND s.state = 'open'
			JOIN claims c ON c.id = sc.claim JOIN batches b ON b.id = c.batch WHERE ` + where + ` ORDER BY s.opened_seq`,
			func(owner, seam string) { c := &claims[byID[owner]]; c.OpenSeams = append(c.OpenSeams, seam) }},
		{`SELECT sct.citation, sct.seam FROM seam_citations sct JOIN seams s ON s.id = sct.seam AND s.state = 'open'
			JOIN citations ct ON ct.id = sct.citation JOIN claims c ON c.id = ct.claim JOIN batches b ON b.id = c.batch WHERE ` + where + ` ORDER BY s.opened_seq`,
			func(owner, seam string) {
				at := citAt[owner]
				ct := &claims[at[0]].Citations[at[1]]
				ct.OpenSeams = append(ct.OpenSeams, seam)
			}},
	}
	for _, sq := range seamQueries {
		if err := eachRow(ctx, tx, sq.q, args, scanPair(sq.add)); err != nil {
			return nil, fmt.Errorf("read open seams: %w", err)
		}
	}

	err = eachRow(ctx, tx, `SELECT sc.claim, s.id, s.kind, s.decision, s.standing, s.reason, s.resolved_by, s.resolved_at
		FROM seam_claims sc JOIN seams s ON s.id = sc.seam AND s.state = 'resolved'
		JOIN claims c ON c.id = sc.claim JOIN batches b ON b.id = c.batch WHERE `+where+` ORDER BY s.opened_seq`, args, func(rows *sql.Rows) error {
		var owner string
		var d ClaimDecision
		if err := rows.Scan(&owner, &d.Seam, &d.Kind, &d.Decision, &d.Standing, &d.Reason, &d.ResolvedBy, &d.ResolvedAt); err != nil {
			return err
		}
		c := &claims[byID[owner]]
		c.Decisions = append(c.Decisions, d)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read decisions: %w", err)
	}

	var cits []*CitationView
	for i := range claims {
		for j := range claims[i].Citations {
			cits = append(cits, &claims[i].Citations[j])
		}
	}
	if err := loadCheckDetails(ctx, tx, cits); err != nil {
		return nil, fmt.Errorf("read checks: %w", err)
	}
	return claims, nil
}

// decidedCols and decidedJoin read, beside a citation ct, the seam whose resolution set its
// status, if that is still its latest word: its id and who resolved it (both empty when none).
const (
	decidedCols = "coalesce(ds.id, ''), coalesce(ds.resolved_by, '')"
	decidedJoin = "LEFT JOIN seams ds ON ds.id = ct.decided_by_seam"
)

// shownNote is a citation's note as shown: a person's decision (seam not empty) in the words
// of evidence.DecidedNote around the stored reason, any other note as stored.
func shownNote(note, seam, by string) string {
	if seam == "" {
		return note
	}
	return evidence.DecidedNote(by, seam, note)
}

// BatchCitation is one citation of a batch, as the checker needs it.
type BatchCitation struct {
	Claim     string          `json:"claim"`
	ClaimText string          `json:"claim_text"`
	Citation  string          `json:"citation"`
	URL       string          `json:"url"`
	Quote     string          `json:"quote"`
	Source    string          `json:"source"`
	Status    evidence.Status `json:"status"`
	Note      string          `json:"note"`
}

// BatchCitations returns every citation of a batch, in the order of the research (claims,
// then citations within a claim), including those that cannot be checked (their Note says
// why). It fails, wrapping [ErrNotFound], when the batch does not exist.
func (s *Store) BatchCitations(ctx context.Context, batchID string) ([]BatchCitation, error) {
	tx, err := s.readTx(ctx)
	if err != nil {
		return nil, fmt.Errorf("citations of batch %s: %w", batchID, err)
	}
	defer tx.Rollback()
	var one int
	if err := tx.QueryRowContext(ctx, "SELECT 1 FROM batches WHERE id = ?", batchID).Scan(&one); err != nil {
		return nil, notFound(err, fmt.Sprintf("batch %q", batchID))
	}
	rows, err := tx.QueryContext(ctx, `SELECT c.id, c.text, ct.id, ct.url, ct.quote, coalesce(ct.source, ''), ct.status, ct.note, `+decidedCols+`
		FROM citations ct JOIN claims c ON c.id = ct.claim `+decidedJoin+` WHERE c.batch = ? ORDER BY c.position, ct.position`, batchID)
	if err != nil {
		return nil, fmt.Errorf("citations of batch %s: %w", batchID, err)
	}
	defer rows.Close()
	out := []BatchCitation{}
	for rows.Next() {
		var b BatchCitation
		var seam, by string
		if err := rows.Scan(&b.Claim, &b.ClaimText, &b.Citation, &b.URL, &b.Quote, &b.Source, &b.Status, &b.Note, &seam, &by); err != nil {
			return nil, fmt.Errorf("citations of batch %s: %w", batchID, err)
		}
		b.Note = shownNote(b.Note, seam, by)
		out = append(out, b)
	}
	return out, rows.Err()
}
