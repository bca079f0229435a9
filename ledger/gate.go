package ledger

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"evidenceledger/evidence"
)

// FindClaimsQuoting returns every claim with a citation whose quote equals quote once both are
// normalized ([evidence.NormalizeText]), whatever the citation's URL, oldest first, each with all its
// citations, strength and open seams. It reads in one snapshot. An empty quote selects
// nothing; none is not an error. The memory-write gate compares the URLs itself.
func (s *Store) FindClaimsQuoting(ctx context.Context, quote string) ([]ClaimView, error) {
	q := evidence.NormalizeText(quote)
	if q == "" {
		return []ClaimView{}, nil
	}
	tx, err := s.readTx(ctx)
	if err != nil {
		return nil, fmt.Errorf("find claims quoting: %w", err)
	}
	defer tx.Rollback()
	return loadClaims(ctx, tx, "c.id IN (SELECT claim FROM citations WHERE quote_norm = ?)", q)
}

// MaxNearClaims bounds how many claims [Store.FindClaimsNear] returns.
const MaxNearClaims = 20

// FindClaimsNear returns up to limit (at most MaxNearClaims) claims whose normalized text,
// or the normalized quote of one of whose citations, holds one of the three longest words
// of text (words of four letters or more), oldest first, each with all its citations,
// strength and open seams. The memory-write gate offers the nearest verified one as what may
// be written instead of a sentence it blocks; it ranks them itself. A text without such a
// word selects nothing. It scans the claims and citations (no index serves it), so the gate
// asks it only for a bounded number of blocked sentences.
func (s *Store) FindClaimsNear(ctx context.Context, text string, limit int) ([]ClaimView, error) {
	limit = min(max(limit, 0), MaxNearClaims)
	var ws []string
	for _, word := range evidence.Words(evidence.NormalizeText(text)) {
		if w := word.Text; utf8.RuneCountInString(w) >= 4 && !slices.Contains(ws, w) {
			ws = append(ws, w)
		}
	}
	slices.SortStableFunc(ws, func(a, b string) int { return utf8.RuneCountInString(b) - utf8.RuneCountInString(a) })
	ws = ws[:min(len(ws), 3)]
	if len(ws) == 0 || limit == 0 {
		return []ClaimView{}, nil
	}
	var likeClaims, likeQuotes []string
	var args []any
	for _, w := range ws {
		likeClaims = append(likeClaims, `norm LIKE ? ESCAPE '\'`)
		args = append(args, "%"+likeEscape(w)+"%")
	}
	args = append(args, limit)
	for _, w := range ws {
		likeQuotes = append(likeQuotes, `quote_norm LIKE ? ESCAPE '\'`)
		args = append(args, "%"+likeEscape(w)+"%")
	}
	args = append(args, limit)
	tx, err := s.readTx(ctx)
	if err != nil {
		return nil, fmt.Errorf("find claims near: %w", err)
	}
	defer tx.Rollback()
	where := "c.id IN (SELECT id FROM (SELECT id FROM claims WHERE " + strings.Join(likeClaims, " OR ") + " LIMIT ?)" +
		" UNION SELECT claim FROM (SELECT claim FROM citations WHERE " + strings.Join(likeQuotes, " OR ") + " LIMIT ?))"
	return loadClaims(ctx, tx, where, args...)
}

// likeEscape escapes the wildcards of a LIKE pattern with a backslash.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
