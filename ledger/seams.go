package ledger

import (
	"context"
	"database/sql"

	"fmt"
	"strings"

	"evidenceledger/evidence"
)

func init() {
	registerEvent(typeSeamOpened, projectorOf(projectSeamOpened))
	registerEvent(typeSeamResolved, projectorOf(projectSeamResolved))
	registerTable("seams", "id")
	registerTable("seam_claims", "seam, claim")
	registerTable("seam_citations", "seam, citation")
}

// Limits of a seam's free texts, in characters.
const (
	maxSummary  = 2000
	maxReason   = 2000
	maxDecision = 200
)

// SeamRequest is a seam to open. Its shape depends on its kind:
//
//   - contradiction: two or more claims (and optionally citations of those claims), or one
//     claim and one of its citations: the claim against that citation's page;
//   - absence: exactly one claim, no citation;
//   - manual, disagreement: exactly one citation; Claims is empty or holds only that
//     citation's claim (the seam is about both either way).
type SeamRequest struct {
	Kind      evidence.SeamKind `json:"kind"`
	Summary   string            `json:"summary"`
	Claims    []string          `json:"claims"`
	Citations []string          `json:"citations"`
}

// seamOpened is the payload of seam.opened.
type seamOpened struct {
	Seam      string            `json:"seam"`
	Kind      evidence.SeamKind `json:"kind"`
	Summary   string            `json:"summary"`
	Claims    []string          `json:"claims"`
	Citations []string          `json:"citations"`
}

// seamResolved is the payload of seam.resolved. Standing is the standing the decision gives
// every claim of the seam (evidence.DecisionEffect); it is nil in resolutions recorded before
// decisions were fixed, whose decision on a contradiction or an absence is a free text with
// no effect.
type seamResolved struct {
	Seam     string             `json:"seam"`
	Decision string             `json:"decision"`
	Reason   string             `json:"reason"`
	Standing *evidence.Standing `json:"standing,omitempty"`
}

// SeamView is a seam as the read model holds it.
type SeamView struct {
	ID        string             `json:"id"`
	Kind      evidence.SeamKind  `json:"kind"`
	Summary   string             `json:"summary"`
	State     evidence.SeamState `json:"state"`
	Claims    []string           `json:"claims"`
	Citations []string           `json:"citations"`
	OpenedAt  string             `json:"opened_at"`
	OpenedBy  string             `json:"opened_by"`
	// Decision, Reason, ResolvedAt and ResolvedBy are empty while the seam is open.
	Decision string `json:"decision,omitempty"`
	// Standing is what the decision made of the seam's claims (evidence.DecisionEffect); ""
	// while open, for a decision that clears them, and for a resolution recorded before
	// decisions were fixed.
	Standing   evidence.Standing `json:"standing,omitempty"`
	Reason     string            `json:"reason,omitempty"`
	ResolvedAt string            `json:"resolved_at,omitempty"`
	ResolvedBy string            `json:"resolved_by,omitempty"`
}

// checkSeamShape refuses a seam whose kind, summary or lists do not fit together (see
// SeamRequest). It reads nothing: existence is checked against the tables.
func checkSeamShape(p seamOpened) error {
	if !validID("s_", p.Seam) {
		return fmt.Errorf("seam id %q: want s_ and 16 hex characters: %w", p.Seam, ErrInvalid)
	}
	if err := checkField("the summary", p.Summary, true, maxSummary); err != nil {
		return err
	}
	for _, list := range [][]string{p.Claims, p.Citations} {
		seen := map[string]bool{}
		for _, id := range list {
			if seen[id] {
				return fmt.Errorf("%q is named twice; name each claim and citation once: %w", id, ErrInvalid)
			}
			seen[id] = true
		}
	}
	switch p.Kind {
	case evidence.SeamContradiction:
		// Between claims, or between one claim and the page one of its citations cites (the
		// checker's consistency check and model tier open these).
		if len(p.Claims) < 2 && (len(p.Claims) != 1 || len(p.Citations) != 1) {
			return fmt.Errorf("a contradiction is between two or more claims, or between one claim and the page of one of its citations; %d claims and %d citations given: %w", len(p.Claims), len(p.Citations), ErrInvalid)
		}
	case evidence.SeamAbsence:
		if len(p.Claims) != 1 || len(p.Citations) != 0 {
			return fmt.Errorf("an absence is about exactly one claim and no citation; %d claims and %d citations given: %w", len(p.Claims), len(p.Citations), ErrInvalid)
		}
	case evidence.SeamManual, evidence.SeamDisagreement:
		if len(p.Citations) != 1 || len(p.Claims) > 1 {
			return fmt.Errorf("a %s seam is about exactly one citation (and its claim); %d citations and %d claims given: %w", p.Kind, len(p.Citations), len(p.Claims), ErrInvalid)
		}
	default:
		return fmt.Errorf("seam kind %q: want contradiction, disagreement, manual or absence: %w", p.Kind, ErrInvalid)
	}
	return nil
}

// seamClaims checks that every claim and citation of a seam exists, that its citations belong
// to its claims, and returns the claims the seam is about (for a one-citation seam, the
// citation's claim).
func seamClaims(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, p seamOpened) ([]string, error) {
	claims := append([]string{}, p.Claims...)
	var one int
	for _, id := range p.Claims {
		if err := q.QueryRowContext(ctx, "SELECT 1 FROM claims WHERE id = ?", id).Scan(&one); err != nil {
			return nil, notFound(err, fmt.Sprintf("claim %q", id))
		}
	}
	for _, id := range p.Citations {
		var claim string
		if err := q.QueryRowContext(ctx, "SELECT claim FROM citations WHERE id = ?", id).Scan(&claim); err != nil {
			return nil, notFound(err, fmt.Sprintf("citation %q", id))
		}
		switch {
		case p.Kind == evidence.SeamManual || p.Kind == evidence.SeamDisagreement:
			if len(claims) == 1 && claims[0] != claim {
				return nil, fmt.Errorf("citation %s belongs to claim %s, not %s: %w", id, claim, claims[0], ErrInvalid)
			}
			claims = []string{claim}
		case !contains(claims, claim):
			return nil, fmt.Errorf("citation %s belongs to claim %s, which the seam does not name: %w", id, claim, ErrInvalid)
		}
	}
	return claims, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// OpenSeam opens a seam (one seam.opened event recorded by actor) and returns it. Errors
// wrap [ErrInvalid] for a request that does not fit its kind (see [SeamRequest]) or an empty
// or overlong summary, and [ErrNotFound] for a claim or citation that does not exist. Nothing
// is recorded then.
func (s *Store) OpenSeam(ctx context.Context, actor string, req SeamRequest) (SeamView, error) {
	p := seamOpened{Seam: newID("s_"), Kind: req.Kind, Summary: strings.TrimSpace(req.Summary), Claims: nonNil(req.Claims), Citations: nonNil(req.Citations)}
	if err := checkActor(actor); err != nil {
		return SeamView{}, fmt.Errorf("open seam: %w", err)
	}
	if err := checkSeamShape(p); err != nil {
		return SeamView{}, fmt.Errorf("open seam: %w", err)
	}
	// One transaction: the claims and citations are checked, the seam recorded and read
	// back, with nothing in between.
	var v SeamView
	_, err := s.record(ctx, actor, nil, recordOpts{
		decide: func(tx *sql.Tx) ([]preparedDraft, error) {
			p := p
			claims, err := seamClaims(ctx, tx, p)
			if err != nil {
				return nil, err
			}
			p.Claims = claims
			return prepareDrafts([]Draft{{Type: typeSeamOpened, Payload: p}})
		},
		extra: func(tx *sql.Tx, _ []Event) error {
			var err error
			v, err = readSeam(ctx, tx, p.Seam)
			return err
		},
	})
	if err != nil {
		return SeamView{}, fmt.Errorf("open seam: %w", err)
	}
	return v, nil
}

// readSeam reads one seam in tx.
func readSeam(ctx context.Context, tx *sql.Tx, id string) (SeamView, error) {
	vs, err := loadSeams(ctx, tx, "s.id = ?", id)
	if err != nil {
		return SeamView{}, err
	}
	if len(vs) == 0 {
		return SeamView{}, fmt.Errorf("seam %q does not exist; check the id: %w", id, ErrNotFound)
	}
	return vs[0], nil
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// projectSeamOpened creates the seam (open) and links its claims and citations.
func projectSeamOpened(tx *sql.Tx, ev *Event, p *seamOpened) error {
	if err := checkSeamShape(*p); err != nil {
		return err
	}
	claims, err := seamClaims(context.Background(), tx, *p)
	if err != nil {
		return err
	}
	if _, err := tx.Exec("INSERT INTO seams (id, kind, summary, state, opened_seq, opened_at, opened_by) VALUES (?, ?, ?, 'open', ?, ?, ?)",
		p.Seam, p.Kind, p.Summary, ev.Seq, ev.At, ev.Actor); err != nil {
		return fmt.Errorf("seam %s: %w", p.Seam, err)
	}
	for _, c := range claims {
		if _, err := tx.Exec("INSERT INTO seam_claims (seam, claim) VALUES (?, ?)", p.Seam, c); err != nil {
			return fmt.Errorf("seam %s, claim %s: %w", p.Seam, c, err)
		}
	}
	for _, c := range p.Citations {
		if _, err := tx.Exec("INSERT INTO seam_citations (seam, citation) VALUES (?, ?)", p.Seam, c); err != nil {
			return fmt.Errorf("seam %s, citation %s: %w", p.Seam, c, err)
		}
	}
	return nil
}

// checkDecision refuses a resolution whose decision, standing or reason does not fit the
// seam's kind, and returns the decision's effect. A resolution recorded before decisions were
// fixed (no standing) is read as it was then: on a manual or disagreement seam the decision
// is the citation's status, on the other kinds a free text with no effect.
func checkDecision(kind evidence.SeamKind, p seamResolved) (evidence.Effect, error) {
	if err := checkField("the reason", p.Reason, true, maxReason); err != nil {
		return evidence.Effect{}, err
	}
	eff, err := evidence.DecisionEffect(kind, evidence.Decision(p.Decision))
	switch {
	case err == nil && p.Standing != nil && *p.Standing != eff.Claim:
		return evidence.Effect{}, fmt.Errorf("the resolution gives its claims the standing %q, but the decision %s on a %s seam gives %q: %w", *p.Standing, p.Decision, kind, eff.Claim, ErrInvalid)
	case err == nil:
		return eff, nil
	case p.Standing == nil && kind != evidence.SeamManual && kind != evidence.SeamDisagreement:
		return evidence.Effect{}, checkField("the decision", p.Decision, true, maxDecision)
	}
	return evidence.Effect{}, fmt.Errorf("%w: %w", err, ErrInvalid)
}

// ResolveSeam resolves an open seam (one seam.resolved event recorded by actor) and returns
// it. The decision is one of evidence.Decisions(kind), and its effect is
// evidence.DecisionEffect's, applied by the projector in the same transaction as the event:
// for a manual or disagreement seam the decision is the citation's new status
// (found_at_source, not_found or unreachable), applied to it with who decided and why; for a
// contradiction or an absence it gives every claim of the seam a standing (contradicted,
// unsettled or none), recorded in the event. Every claim of the seam is then recomputed
// (status, strength, standing). The reason is required.
//
// Errors wrap [ErrNotFound] when there is no such seam, [ErrConflict] when it is already
// resolved (a resolved seam stays resolved), and [ErrInvalid] (and evidence.ErrDecision) for
// a decision that is not one of its kind's, or an empty reason. Nothing is recorded then.
func (s *Store) ResolveSeam(ctx context.Context, actor, id, decision, reason string) (SeamView, error) {
	p := seamResolved{Seam: id, Decision: strings.TrimSpace(decision), Reason: strings.TrimSpace(reason)}
	if err := checkActor(actor); err != nil {
		return SeamView{}, fmt.Errorf("resolve seam %s: %w", id, err)
	}
	// One transaction: the seam's state is read where the resolution is recorded, so two
	// people resolving it at once cannot both succeed.
	var v SeamView
	_, err := s.record(ctx, actor, nil, recordOpts{
		decide: func(tx *sql.Tx) ([]preparedDraft, error) {
			var kind, state string
			if err := tx.QueryRowContext(ctx, "SELECT kind, state FROM seams WHERE id = ?", id).Scan(&kind, &state); err != nil {
				return nil, notFound(err, fmt.Sprintf("seam %q", id))
			}
			if state != string(evidence.SeamOpen) {
				return nil, fmt.Errorf("it is already resolved, and a resolved seam stays resolved; open a new seam to raise the question again: %w", ErrConflict)
			}
			eff, err := evidence.DecisionEffect(evidence.SeamKind(kind), evidence.Decision(p.Decision))
			if err != nil {
				return nil, fmt.Errorf("%w: %w", err, ErrInvalid)
			}
			p := p
			p.Standing = &eff.Claim
			if _, err := checkDecision(evidence.SeamKind(kind), p); err != nil {
				return nil, err
			}
			return prepareDrafts([]Draft{{Type: typeSeamResolved, Payload: p}})
		},
		extra: func(tx *sql.Tx, _ []Event) error {
			var err error
			v, err = readSeam(ctx, tx, id)
			return err
		},
	})
	if err != nil {
		return SeamView{}, fmt.Errorf("resolve seam %s: %w", id, err)
	}
	return v, nil
}

// projectSeamResolved closes the seam, applies the decision's effect
// (evidence.DecisionEffect) and recomputes every claim of the seam: for a seam about one
// citation the decision is the citation's status; for the other kinds the seam's standing is
// recorded and each claim's standing follows (recomputeClaim).
func projectSeamResolved(tx *sql.Tx, ev *Event, p *seamResolved) error {
	var kind, state string
	if err := tx.QueryRow("SELECT kind, state FROM seams WHERE id = ?", p.Seam).Scan(&kind, &state); err != nil {
		return notFound(err, fmt.Sprintf("seam %q", p.Seam))
	}
	if state != string(evidence.SeamOpen) {
		return fmt.Errorf("seam %s is already resolved: %w", p.Seam, ErrConflict)
	}
	eff, err := checkDecision(evidence.SeamKind(kind), *p)
	if err != nil {
		return err
	}
	if _, err := tx.Exec("UPDATE seams SET state = 'resolved', decision = ?, reason = ?, resolved_at = ?, resolved_by = ?, standing = ? WHERE id = ?",
		p.Decision, p.Reason, ev.At, ev.Actor, eff.Claim, p.Seam); err != nil {
		return fmt.Errorf("seam %s: %w", p.Seam, err)
	}
	if eff.Citation != "" {
		var citation string
		err := tx.QueryRow("SELECT ct.id FROM seam_citations sc JOIN citations ct ON ct.id = sc.citation WHERE sc.seam = ?", p.Seam).Scan(&citation)
		if err != nil {
			return fmt.Errorf("seam %s: its citation: %w", p.Seam, err)
		}
		// The row holds data: the person's reason and the seam; the words around them are
		// made where the note is shown (evidence.DecidedNote).
		if _, err := tx.Exec("UPDATE citations SET status = ?, note = ?, decided_by_seam = ? WHERE id = ?", eff.Citation, p.Reason, p.Seam, citation); err != nil {
			return fmt.Errorf("citation %s: %w", citation, err)
		}
		if eff.Citation == evidence.StatusFound {
			if err := acceptSupportEvidence(tx, citation); err != nil {
				return err
			}
		}
	}
	rows, err := tx.Query("SELECT claim FROM seam_claims WHERE seam = ? ORDER BY claim", p.Seam)
	if err != nil {
		return fmt.Errorf("seam %s: its claims: %w", p.Seam, err)
	}
	var claims []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			rows.Close()
			return fmt.Errorf("seam %s: its claims: %w", p.Seam, err)
		}
		claims = append(claims, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("seam %s: its claims: %w", p.Seam, err)
	}
	for _, c := range claims {
		if err := recomputeClaim(tx, c); err != nil {
			return err
		}
	}
	return nil
}

// Seams returns the seams in a state (evidence.SeamOpen or evidence.SeamResolved; "" for
// all), oldest first. Errors wrap [ErrInvalid] for another state.
func (s *Store) Seams(ctx context.Context, state evidence.SeamState) ([]SeamView, error) {
	p, err := s.SeamsPage(ctx, state, Page{})
	return p.Seams, err
}

// Seam returns one seam. It fails, wrapping [ErrNotFound], when there is no seam with that id.
func (s *Store) Seam(ctx context.Context, id string) (SeamView, error) {
	return readOne(ctx, s, "seam", id, "s.id = ?", loadSeams)
}

func loadSeams(ctx context.Context, tx *sql.Tx, where string, args ...any) ([]SeamView, error) {
	out := []SeamView{}
	byID := map[string]int{}
	err := eachRow(ctx, tx, `SELECT s.id, s.kind, s.summary, s.state, s.opened_at, s.opened_by,
		coalesce(s.decision, ''), coalesce(s.reason, ''), coalesce(s.resolved_at, ''), coalesce(s.resolved_by, ''), s.standing
		FROM seams s WHERE `+where+` ORDER BY s.opened_seq`, args, func(rows *sql.Rows) error {
		v := SeamView{Claims: []string{}, Citations: []string{}}
		if err := rows.Scan(&v.ID, &v.Kind, &v.Summary, &v.State, &v.OpenedAt, &v.OpenedBy, &v.Decision, &v.Reason, &v.ResolvedAt, &v.ResolvedBy, &v.Standing); err != nil {
			return err
		}
		byID[v.ID] = len(out)
		out = append(out, v)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read seams: %w", err)
	}
	links := []struct {
		q   string
		add func(v *SeamView, id string)
	}{
		{"SELECT x.seam, x.claim FROM seam_claims x JOIN seams s ON s.id = x.seam JOIN claims c ON c.id = x.claim JOIN batches b ON b.id = c.batch WHERE " + where + " ORDER BY b.seq, c.position",
			func(v *SeamView, id string) { v.Claims = append(v.Claims, id) }},
		{"SELECT x.seam, x.citation FROM seam_citations x JOIN seams s ON s.id = x.seam JOIN citations ct ON ct.id = x.citation JOIN claims c ON c.id = ct.claim JOIN batches b ON b.id = c.batch WHERE " + where + " ORDER BY b.seq, c.position, ct.position",
			func(v *SeamView, id string) { v.Citations = append(v.Citations, id) }},
	}
	for _, l := range links {
		err := eachRow(ctx, tx, l.q, args, scanPair(func(seam, id string) {
			if i, ok := byID[seam]; ok {
				l.add(&out[i], id)
			}
		}))
		if err != nil {
			return nil, fmt.Errorf("read seams: %w", err)
		}
	}
	return out, nil
}
