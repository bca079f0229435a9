package ledger

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/mod/sumdb/tlog"
)

// The Merkle tree (docs/chain.md, "Checkpoints") is an RFC 6962 tree whose leaf i (from 0)
// is the 32 raw bytes of the hash of event i+1, so its leaf hash is SHA-256(0x00 || hash).
// The table tree_hashes keeps the hashes golang.org/x/mod/sumdb/tlog stores for each record
// (StoredHashes, about two per event): from them tlog computes the root of every earlier
// size and the inclusion and consistency proofs, reading O(log n) hashes. The table is a
// projection: appendTree writes it in the transaction of the events, and the audit's replay
// rebuilds it and compares it row by row.

func init() { registerTable("tree_hashes", "idx") }

// queryer is a transaction or a database.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// storedHashes is a tlog.HashReader over the tree_hashes table as q sees it. Hashes written
// in this call (pending) are served from memory first. Its query is prepared once, on first
// use; close releases it.
type storedHashes struct {
	ctx     context.Context
	q       queryer
	pending map[int64]tlog.Hash
	stmt    *sql.Stmt
}

func newStoredHashes(ctx context.Context, q queryer) *storedHashes {
	return &storedHashes{ctx: ctx, q: q, pending: map[int64]tlog.Hash{}}
}

func (r *storedHashes) close() {
	if r.stmt != nil {
		r.stmt.Close()
	}
}

// ReadHashes returns the stored hashes at indexes; a missing one is an error naming it.
func (r *storedHashes) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, idx := range indexes {
		if h, ok := r.pending[idx]; ok {
			out[i] = h
			continue
		}
		if r.stmt == nil {
			var err error
			if r.stmt, err = r.q.PrepareContext(r.ctx, "SELECT hash FROM tree_hashes WHERE idx = ?"); err != nil {
				return nil, fmt.Errorf("read the Merkle tree: %w", err)
			}
		}
		var b []byte
		err := r.stmt.QueryRowContext(r.ctx, idx).Scan(&b)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && len(b) != tlog.HashSize) {
			return nil, fmt.Errorf("the Merkle tree lacks its stored hash %d: %w", idx, ErrNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("read the Merkle tree: %w", err)
		}
		copy(out[i][:], b)
	}
	return out, nil
}

// leafData returns the tree's leaf data for an event: the 32 bytes its hex hash spells.
func leafData(ev *Event) ([]byte, error) {
	b, err := hex.DecodeString(ev.Hash)
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("event %d: its hash %q is not 64 hex characters", ev.Seq, ev.Hash)
	}
	return b, nil
}

// appendTree adds evs to the tree in tx as leaves start, start+1, ...; start must be the
// tree's size. The hashes of the whole run are inserted with multi-row INSERTs. It returns
// the root of the tree it leaves.
func appendTree(ctx context.Context, tx queryer, start int64, evs []Event) (tlog.Hash, error) {
	r := newStoredHashes(ctx, tx)
	defer r.close()
	return r.append(start, evs)
}

// append is appendTree through r, which a caller extending the tree many times in one
// transaction keeps: its one prepared statement is referenced by the transaction until it
// ends, so a reader made per call would keep one per call.
func (r *storedHashes) append(start int64, evs []Event) (tlog.Hash, error) {
	ctx, tx := r.ctx, r.q
	clear(r.pending)
	first := tlog.StoredHashIndex(0, start)
	var hashes []tlog.Hash
	for i := range evs {
		data, err := leafData(&evs[i])
		if err != nil {
			return tlog.Hash{}, err
		}
		n := start + int64(i)
		hs, err := tlog.StoredHashes(n, data, r)
		if err != nil {
			return tlog.Hash{}, fmt.Errorf("event %d: extend the Merkle tree: %w", evs[i].Seq, err)
		}
		idx := tlog.StoredHashIndex(0, n)
		for j, h := range hs {
			r.pending[idx+int64(j)] = h
		}
		hashes = append(hashes, hs...)
	}
	root, err := tlog.TreeHash(start+int64(len(evs)), r)
	if err != nil {
		return tlog.Hash{}, fmt.Errorf("the Merkle tree's root: %w", err)
	}
	for len(hashes) > 0 {
		k := min(len(hashes), treeInsertRows)
		q := "INSERT INTO tree_hashes (idx, hash) VALUES " + strings.Repeat("(?, ?), ", k-1) + "(?, ?)"
		args := make([]any, 0, 2*k)
		for j := range k {
			args = append(args, first+int64(j), hashes[j][:])
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return tlog.Hash{}, fmt.Errorf("store the Merkle tree: %w", err)
		}
		first += int64(k)
		hashes = hashes[k:]
	}
	return root, nil
}

// treeInsertRows is the most rows one INSERT into tree_hashes writes.
const treeInsertRows = 256

// treeSize returns the number of leaves the stored tree has: the records whose hashes are
// all stored.
func treeSize(ctx context.Context, q queryer) (int64, error) {
	var last sql.NullInt64
	if err := q.QueryRowContext(ctx, "SELECT max(idx) FROM tree_hashes").Scan(&last); err != nil {
		return 0, fmt.Errorf("read the Merkle tree: %w", err)
	}
	if !last.Valid {
		return 0, nil
	}
	// Record n's hashes end at StoredHashIndex(0, n+1)-1; find the n whose range ends at last.
	lo, hi := int64(0), last.Int64+1
	for lo < hi {
		mid := (lo + hi) / 2
		if tlog.StoredHashIndex(0, mid+1)-1 <= last.Int64 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// treeRoot returns the root of the tree's first size leaves.
func treeRoot(ctx context.Context, q queryer, size int64) (tlog.Hash, error) {
	r := newStoredHashes(ctx, q)
	defer r.close()
	return tlog.TreeHash(size, r)
}
