package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"evidenceledger/evidence"
)

// HandOff is what a batch may hand on and what it may not, read in one snapshot together
// with the chain head it was read at (docs/report.md).
type HandOff struct {
	Batch HandOffBatch `json:"batch"`
	// Usable are the claims evidence.HandOn lets through, in the order of the research.
	Usable []HandOffClaim `json:"usable"`
	// Withheld are all the others, each with its reason, in the order of the research:
	// nothing of the batch is left out.
	Withheld []HandOffClaim `json:"withheld"`
	// WithheldBy counts the withheld claims by reason, every reason of
	// evidence.WithheldReasons present (0 when none).
	WithheldBy map[evidence.Withheld]int `json:"withheld_by"`
	// At is the point of the chain the report was read at.
	At ChainPoint `json:"at"`
}

// HandOffBatch names the batch a report is about.
type HandOffBatch struct {
	ID         string `json:"id"`
	ImportedAt string `json:"imported_at"`
	ImportedBy string `json:"imported_by"`
	Claims     int    `json:"claims"`
	Citations  int    `json:"citations"`
}

// HandOffClaim is one claim of a report.
type HandOffClaim struct {
	ID     string          `json:"id"`
	Text   string          `json:"text"`
	Status evidence.Status `json:"status"`
	// Strength is "" when no citation was found.
	Strength evidence.Strength `json:"strength"`
	// Withheld is why the claim may not be handed on; "" for a usable claim.
	Withheld evidence.Withheld `json:"withheld"`
	// Standing is what people's decisions made of the claim ("" clear, "unsettled",
	// "contradicted"); Decisions are those decisions, oldest first.
	Standing  evidence.Standing `json:"standing"`
	Decisions []ClaimDecision   `json:"decisions"`
	// OpenSeams are the open seams on the claim and its citations, oldest first.
	OpenSeams []string          `json:"open_seams"`
	Citations []HandOffCitation `json:"citations"`
}

// HandOffCitation is one citation of a report's claim, with the page stored by its latest
// check (empty Document members when it was never fetched).
type HandOffCitation struct {
	ID     string          `json:"id"`
	URL    string          `json:"url"`
	Quote  string          `json:"quote"`
	Status evidence.Status `json:"status"`
	Note   string          `json:"note"`
	// Excerpt is the page's own words around a found quote; Page, for a quote found in a
	// PDF, the page of the document they are on (0 otherwise).
	Excerpt      string `json:"excerpt"`
	Page         int    `json:"page,omitempty"`
	FinalURL     string `json:"final_url"`
	FetchedAt    string `json:"fetched_at"`
	SHA256       string `json:"sha256"`
	ResidualRisk string `json:"residual_risk"`
}

// ChainPoint is a point of the chain: the last event's seq, hash and time. Checkpoint is
// the signed checkpoint (C2SP tlog-checkpoint note, with any witness cosignatures) whose
// tree size is Seq, "" for a ledger that has none yet: chainPoint is the one place that
// fills it.
type ChainPoint struct {
	Seq        int64  `json:"seq"`
	Hash       string `json:"hash"`
	EventAt    string `json:"event_at"`
	Checkpoint string `json:"checkpoint"`
}

// HandOff reads the hand-off report of a batch. It fails, wrapping [ErrNotFound], when the
// batch does not exist.
func (s *Store) HandOff(ctx context.Context, batchID string) (HandOff, error) {
	s.awaitCheckpoint(ctx)
	tx, err := s.readTx(ctx)
	if err != nil {
		return HandOff{}, fmt.Errorf("report of batch %s: %w", batchID, err)
	}
	defer tx.Rollback()
	bs, err := loadBatches(ctx, tx, "b.id = ?", batchID)
	if err != nil {
		return HandOff{}, err
	}
	if len(bs) == 0 {
		return HandOff{}, fmt.Errorf("batch %q does not exist; check the id: %w", batchID, ErrNotFound)
	}
	b := bs[0]
	claims, err := loadClaims(ctx, tx, "c.batch = ?", batchID)
	if err != nil {
		return HandOff{}, err
	}
	r := HandOff{
		Batch:      HandOffBatch{ID: b.ID, ImportedAt: b.At, ImportedBy: b.Actor, Claims: b.Counts.Claims, Citations: b.Counts.Citations},
		Usable:     []HandOffClaim{},
		Withheld:   []HandOffClaim{},
		WithheldBy: map[evidence.Withheld]int{},
	}
	for _, w := range evidence.WithheldReasons {
		r.WithheldBy[w] = 0
	}
	for _, c := range claims {
		rc := HandOffClaim{ID: c.ID, Text: c.Text, Status: c.Status, Strength: c.Strength, Standing: c.Standing, Decisions: c.Decisions, OpenSeams: append([]string{}, c.OpenSeams...), Citations: []HandOffCitation{}}
		for _, ct := range c.Citations {
			rc.OpenSeams = append(rc.OpenSeams, ct.OpenSeams...)
			rct := HandOffCitation{ID: ct.ID, URL: ct.URL, Quote: ct.Quote, Status: ct.Status, Note: ct.Note, Excerpt: ct.Excerpt, Page: ct.ExcerptPage}
			if d := ct.Document; d != nil {
				rct.FinalURL, rct.FetchedAt, rct.SHA256 = d.FinalURL, d.FetchedAt, d.SHA256
			}
			if a := ct.Adjudication; a != nil {
				rct.ResidualRisk = a.ResidualRisk
			}
			rc.Citations = append(rc.Citations, rct)
		}
		rc.Withheld = c.Withheld()
		if rc.Withheld == evidence.HandOnOK {
			r.Usable = append(r.Usable, rc)
			continue
		}
		r.WithheldBy[rc.Withheld]++
		r.Withheld = append(r.Withheld, rc)
	}
	if r.At, err = chainPoint(ctx, tx); err != nil {
		return HandOff{}, fmt.Errorf("report of batch %s: %w", batchID, err)
	}
	return r, nil
}

// chainPoint reads the chain head in tx and the signed checkpoint that covers it.
func chainPoint(ctx context.Context, tx *sql.Tx) (ChainPoint, error) {
	var p ChainPoint
	err := tx.QueryRowContext(ctx, "SELECT seq, hash, at FROM events ORDER BY seq DESC LIMIT 1").Scan(&p.Seq, &p.Hash, &p.EventAt)
	if errors.Is(err, sql.ErrNoRows) {
		return ChainPoint{}, errors.New("the chain is empty")
	}
	if err != nil {
		return ChainPoint{}, fmt.Errorf("read the chain head: %w", err)
	}
	// The callers flush the batched checkpoints first, so on a writable Store the latest
	// one covers the head; a read-only copy whose tail no checkpoint covers yet (and a ledger
	// from before checkpoints) gives the head alone.
	cp, err := latestCheckpoint(ctx, tx)
	switch {
	case errors.Is(err, ErrNotFound):
	case err != nil:
		return ChainPoint{}, err
	case cp.Size == p.Seq:
		p.Checkpoint = string(cp.Note)
	}
	return p, nil
}
