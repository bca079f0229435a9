package ledger

import (
	"context"
	"fmt"

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
