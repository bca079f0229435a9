package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// StoredPage is a stored page body with what its latest fetch recorded about it.
type StoredPage struct {
	SHA256      string
	Body        []byte
	URL         string
	FinalURL    string
	FetchedAt   string
	ContentType string
	// Truncated: the fetcher stopped at its size limit, so Body is only the beginning.
	Truncated bool
}

// StoredPage returns the page stored under its SHA-256 (lowercase hex) with the latest
// check's record of its fetch. It fails wrapping [ErrInvalid] for a malformed hash and
// [ErrNotFound] when no check stored such a page (a stored paste is not a page).
func (s *Store) StoredPage(ctx context.Context, sha256hex string) (StoredPage, error) {
	if !isHex(sha256hex, 64) {
		return StoredPage{}, fmt.Errorf("stored page %q: want 64 lowercase hex characters: %w", sha256hex, ErrInvalid)
	}
	tx, err := s.readTx(ctx)
	if err != nil {
		return StoredPage{}, fmt.Errorf("stored page %s: %w", sha256hex, err)
	}
	defer tx.Rollback()
	p := StoredPage{SHA256: sha256hex}
	err = tx.QueryRowContext(ctx, `SELECT d.url, d.final_url, d.fetched_at, d.content_type, d.truncated, b.data
		FROM documents d JOIN blobs b ON b.sha256 = d.sha256 WHERE d.sha256 = ? ORDER BY d.check_seq DESC LIMIT 1`, sha256hex).
		Scan(&p.URL, &p.FinalURL, &p.FetchedAt, &p.ContentType, &p.Truncated, &p.Body)
	if errors.Is(err, sql.ErrNoRows) {
		return StoredPage{}, fmt.Errorf("no check stored a page with SHA-256 %s: %w", sha256hex, ErrNotFound)
	}
	if err != nil {
		return StoredPage{}, fmt.Errorf("stored page %s: %w", sha256hex, err)
	}
	return p, nil
}
