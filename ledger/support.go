package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"evidenceledger/evidence"
)

func init() {
	registerTable("supports", "check_seq")
	registerTable("support_judgements", "check_seq, ordinal")
	registerTable("model_calls", "check_seq, ordinal")
}

// supportColumns checks what citation.checked holds beyond the quote check and returns the
// columns the check's row and its citation's row keep of it: the consistency findings as a
// JSON array and the support verdict ("" without one).
func supportColumns(ch evidence.Checked) (consistency string, verdict evidence.Verdict, err error) {
	if ch.Support != nil {
		if err := checkSupport(ch.Support); err != nil {
			return "", "", err
		}
		verdict = ch.Support.Verdict
	}
	cons := ch.Consistency
	if cons == nil {
		cons = []evidence.Mismatch{}
	}
	cj, err := json.Marshal(cons)
	if err != nil {
		return "", "", err
	}
	return string(cj), verdict, nil
}

// projectSupport projects the model tier's judgement of a check, when it judged
// (migrations/0005_support.sql): its row, its judgements and its calls. The consistency
// findings and the verdict are in the check's and the citation's rows (supportColumns).
func projectSupport(tx *sql.Tx, seq int64, ch evidence.Checked) error {
	s := ch.Support
	if s == nil {
		return nil
	}
	adj, err := json.Marshal(s.Adjudication)
	if err != nil {
		return err
	}
	var prompt, completion, latency int
	for _, c := range s.Calls {
		prompt, completion, latency = prompt+c.PromptTokens, completion+c.CompletionTokens, latency+c.LatencyMS
	}
	if _, err := tx.Exec(`INSERT INTO supports (check_seq, verdict, decided_by, escalated, skipped, adjudication, residual_risk, calls, prompt_tokens, completion_tokens, latency_ms)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		seq, s.Verdict, s.DecidedBy, s.Escalated, s.Skipped, string(adj), s.ResidualRisk, len(s.Calls), prompt, completion, latency); err != nil {
		return fmt.Errorf("support of the check of citation %s: %w", ch.Citation, err)
	}
	for i, j := range s.Judgements {
		ev := j.Evidence
		if ev == nil {
			ev = []string{}
		}
		ej, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO support_judgements (check_seq, ordinal, verifier, model, verdict, accuracy_estimate, reasoning, evidence, document, problem)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, seq, i, j.Verifier, j.Model, j.Verdict, j.AccuracyEstimate, j.Reasoning, string(ej), j.Document, j.Problem); err != nil {
			return fmt.Errorf("judgement %d of the check of citation %s: %w", i+1, ch.Citation, err)
		}
	}
	for i, c := range s.Calls {
		if _, err := tx.Exec(`INSERT INTO model_calls (check_seq, ordinal, tier, role, model, prompt_tokens, completion_tokens, latency_ms, attempts, outcome)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, seq, i, c.Tier, c.Role, c.Model, c.PromptTokens, c.CompletionTokens, c.LatencyMS, c.Attempts, c.Outcome); err != nil {
			return fmt.Errorf("model call %d of the check of citation %s: %w", i+1, ch.Citation, err)
		}
	}
	return nil
}

// checkSupport refuses a support judgement that does not fit: a decided verdict that is
// not supported, contradicted or not_found, a decision without its decider or the other
// way round, a call of an unknown tier or with negative figures, or no residual risk.
// Judgements are kept as given: an off-schema one is part of the record, with its problem.
func checkSupport(s *evidence.Support) error {
	switch {
	case s.Verdict != "" && !evidence.SupportVerdictValid(s.Verdict):
		return fmt.Errorf("support verdict %q: want supported, contradicted, not_found or none: %w", s.Verdict, ErrInvalid)
	case (s.Verdict == "") != (s.DecidedBy == ""):
		return fmt.Errorf("support verdict %q decided by %q: a decision names who decided, and only a decision does: %w", s.Verdict, s.DecidedBy, ErrInvalid)
	case s.DecidedBy != "" && s.DecidedBy != evidence.SupportByCode && s.DecidedBy != evidence.SupportByAdjudicator:
		return fmt.Errorf("support decided by %q: want code or adjudicator: %w", s.DecidedBy, ErrInvalid)
	case s.ResidualRisk == "":
		return fmt.Errorf("the support judgement has no residual-risk statement: %w", ErrInvalid)
	}
	for i, c := range s.Calls {
		if c.Tier != evidence.TierVerifier && c.Tier != evidence.TierAdjudicator || c.PromptTokens < 0 || c.CompletionTokens < 0 || c.LatencyMS < 0 || c.Attempts < 0 {
			return fmt.Errorf("model call %d: tier %q, tokens %d+%d, latency %d ms, attempts %d: %w", i+1, c.Tier, c.PromptTokens, c.CompletionTokens, c.LatencyMS, c.Attempts, ErrInvalid)
		}
	}
	for i, j := range s.Judgements {
		if j.Document != "" && !isHex(j.Document, 64) {
			return fmt.Errorf("judgement %d: document %q: want 64 lowercase hex characters: %w", i+1, j.Document, ErrInvalid)
		}
	}
	return nil
}

// SupportView is the model tier's judgement of a citation's latest check.
type SupportView struct {
	// Verdict is supported, contradicted, not_found, or "" when nothing was decided.
	Verdict    evidence.Verdict            `json:"verdict"`
	DecidedBy  string                      `json:"decided_by"`
	Escalated  bool                        `json:"escalated"`
	Skipped    string                      `json:"skipped"`
	Judgements []evidence.SupportJudgement `json:"judgements"`
	// Adjudication is the adjudicator's answer; null when it was not asked.
	Adjudication *evidence.SupportAdjudication `json:"adjudication"`
	Calls        []evidence.ModelCall          `json:"calls"`
	Totals       ModelTotals                   `json:"totals"`
	ResidualRisk string                        `json:"residual_risk"`
}

// ModelTotals sums model calls: how many, their tokens and their latency.
type ModelTotals struct {
	Calls            int `json:"calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	LatencyMS        int `json:"latency_ms"`
}

// supportQueries are the queries of loadCheckDetails that fill Support of each citation
// from its latest check (latest: that query's (id, last_check) rows; bySeq: its citations by
// check seq). The supports row comes first: the judgements and calls append to it.
func supportQueries(latest string, bySeq map[int64]*CitationView) []detailQuery {
	return []detailQuery{
		{`SELECT l.last_check, s.verdict, s.decided_by, s.escalated, s.skipped, s.adjudication, s.residual_risk,
		s.calls, s.prompt_tokens, s.completion_tokens, s.latency_ms FROM (` + latest + `) l JOIN supports s ON s.check_seq = l.last_check`,
			func(rows *sql.Rows) error {
				var seq int64
				var adj string
				v := SupportView{Judgements: []evidence.SupportJudgement{}, Calls: []evidence.ModelCall{}}
				if err := rows.Scan(&seq, &v.Verdict, &v.DecidedBy, &v.Escalated, &v.Skipped, &adj, &v.ResidualRisk,
					&v.Totals.Calls, &v.Totals.PromptTokens, &v.Totals.CompletionTokens, &v.Totals.LatencyMS); err != nil {
					return err
				}
				if err := json.Unmarshal([]byte(adj), &v.Adjudication); err != nil {
					return err
				}
				bySeq[seq].Support = &v
				return nil
			}},
		{`SELECT l.last_check, j.verifier, j.model, j.verdict, j.accuracy_estimate, j.reasoning, j.evidence, j.document, j.problem
		FROM (` + latest + `) l JOIN support_judgements j ON j.check_seq = l.last_check ORDER BY j.check_seq, j.ordinal`,
			func(rows *sql.Rows) error {
				var seq int64
				var j evidence.SupportJudgement
				var ev string
				if err := rows.Scan(&seq, &j.Verifier, &j.Model, &j.Verdict, &j.AccuracyEstimate, &j.Reasoning, &ev, &j.Document, &j.Problem); err != nil {
					return err
				}
				if err := json.Unmarshal([]byte(ev), &j.Evidence); err != nil {
					return err
				}
				s := bySeq[seq].Support
				s.Judgements = append(s.Judgements, j)
				return nil
			}},
		{`SELECT l.last_check, c.tier, c.role, c.model, c.prompt_tokens, c.completion_tokens, c.latency_ms, c.attempts, c.outcome
		FROM (` + latest + `) l JOIN model_calls c ON c.check_seq = l.last_check ORDER BY c.check_seq, c.ordinal`,
			func(rows *sql.Rows) error {
				var seq int64
				var c evidence.ModelCall
				if err := rows.Scan(&seq, &c.Tier, &c.Role, &c.Model, &c.PromptTokens, &c.CompletionTokens, &c.LatencyMS, &c.Attempts, &c.Outcome); err != nil {
					return err
				}
				s := bySeq[seq].Support
				s.Calls = append(s.Calls, c)
				return nil
			}},
	}
}

// loadModelTotals sums the model calls of the latest checks of a batch's citations, from
// the batch's tally rows of batch_counts (migrations/0011_batch_counts.sql): a few rows
// however large the batch.
func loadModelTotals(ctx context.Context, tx *sql.Tx, batch string) (ModelTotals, error) {
	var t ModelTotals
	err := tx.QueryRowContext(ctx, `SELECT coalesce(sum(calls), 0), coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0), coalesce(sum(latency_ms), 0)
		FROM batch_counts WHERE batch = ? AND facet = 'tally'`, batch).
		Scan(&t.Calls, &t.PromptTokens, &t.CompletionTokens, &t.LatencyMS)
	if err != nil {
		return ModelTotals{}, fmt.Errorf("model totals of batch %s: %w", batch, err)
	}
	return t, nil
}

// acceptSupportEvidence makes the page's own sentences the citation's excerpt when a person
// resolves as found_at_source a citation whose quote was not found but whose latest check
// the model tier judged supported: the sentences the supporting judgements cited (found on
// the stored page by the checker), each once, joined by " … ". A citation with an excerpt
// already (its quote was found) keeps it.
func acceptSupportEvidence(tx *sql.Tx, citation string) error {
	rows, err := tx.Query(`SELECT j.evidence FROM citations ct
		JOIN supports s ON s.check_seq = ct.last_check AND s.verdict = 'supported'
		JOIN support_judgements j ON j.check_seq = s.check_seq AND j.verdict = 'supported' AND j.problem = ''
		WHERE ct.id = ? AND ct.excerpt = '' ORDER BY j.ordinal`, citation)
	if err != nil {
		return fmt.Errorf("the supporting sentences of citation %s: %w", citation, err)
	}
	defer rows.Close()
	var sentences []string
	seen := map[string]bool{}
	for rows.Next() {
		var raw string
		var ev []string
		if err := rows.Scan(&raw); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(raw), &ev); err != nil {
			return err
		}
		for _, e := range ev {
			if !seen[e] {
				seen[e] = true
				sentences = append(sentences, e)
			}
		}
	}
	if err := rows.Err(); err != nil || len(sentences) == 0 {
		return err
	}
	if _, err := tx.Exec("UPDATE citations SET excerpt = ? WHERE id = ?", strings.Join(sentences, " … "), citation); err != nil {
		return fmt.Errorf("citation %s: %w", citation, err)
	}
	return nil
}
