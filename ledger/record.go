package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"time"
)

// errAlreadyStarted means a genesis record found the chain already begun (by another process).
var errAlreadyStarted = errors.New("the chain has already begun")

// recordOpts adjust one internal record call.
type recordOpts struct {
	genesis bool                                // record key.created on an empty chain only
	next    *signer                             // the key a key.rotated introduces: it signs the checkpoint
	extra   func(tx *sql.Tx, evs []Event) error // more writes in the same transaction
	// decide, when set, makes the items inside the transaction, from what it reads there.
	decide func(tx *sql.Tx) ([]preparedDraft, error)
}

// prepareDrafts validates and canonicalizes drafts that callers outside the ledger may
// record: each type needs a registered projector and must not be one the ledger reserves.
func prepareDrafts(drafts []Draft) ([]preparedDraft, error) {
	items := make([]preparedDraft, len(drafts))
	for i, d := range drafts {
		et, ok := eventTypes[d.Type]
		if !ok {
			return nil, fmt.Errorf("event type %q has no projector, so it cannot enter the chain; register one in the ledger package: %w", d.Type, ErrInvalid)
		}
		if et.internal {
			return nil, fmt.Errorf("event type %q is recorded by the ledger itself only: %w", d.Type, ErrInvalid)
		}
		p, err := prepareDraft(d)
		if err != nil {
			return nil, err
		}
		items[i] = p
	}
	return items, nil
}

// recordDecided records the drafts that decide returns, calling decide inside the write
// transaction, so that what it reads from the projection tables cannot change before its
// drafts commit.
func (s *Store) recordDecided(ctx context.Context, actor string, decide func(tx *sql.Tx) ([]Draft, error)) ([]Event, error) {
	return s.record(ctx, actor, nil, recordOpts{decide: func(tx *sql.Tx) ([]preparedDraft, error) {
		drafts, err := decide(tx)
		if err != nil {
			return nil, err
		}
		return prepareDrafts(drafts)
	}})
}

// record chains items in one write transaction, retrying when another process holds the
// lock longer than the busy timeout. Every domain operation records through it: it reads
// the chain head, builds each event, canonicalizes it (RFC 8785), hashes and signs it,
// inserts it with its blobs, applies it to the projection tables, adds it to the Merkle
// tree, and, when one is due, ends with a signed checkpoint of the tree (checkpoints are
// batched: batching.go). All commit or none do. A full disk or a read-only database gives
// an error wrapping [ErrDiskFull] or [ErrReadOnly] that says so; nothing is recorded then.
//
// "at" is the clock's time in UTC, rounded down to the millisecond. When the clock reads
// earlier than the chain head's time (it stepped back), the head's time is used, so "at"
// never goes backwards along the chain.
func (s *Store) record(ctx context.Context, actor string, items []preparedDraft, o recordOpts) ([]Event, error) {
	if s.readOnly {
		return nil, fmt.Errorf("record: %w; open it with its signing key to record", ErrReadOnly)
	}
	for attempt := 1; ; attempt++ {
		evs, err := s.recordOnce(ctx, actor, items, o)
		if c := sqliteCode(err); (c == sqliteBusy || c == sqliteLocked) && attempt < 10 && ctx.Err() == nil {
			time.Sleep(time.Duration(attempt) * 10 * time.Millisecond)
			continue
		}
		if err != nil {
			return nil, storageError(err)
		}
		return evs, nil
	}
}

func (s *Store) recordOnce(ctx context.Context, actor string, items []preparedDraft, o recordOpts) ([]Event, error) {
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("record: begin: %w", err)
	}
	defer tx.Rollback()

	var seq int64
	prev, lastAt := zeroHash, ""
	err = tx.QueryRowContext(ctx, "SELECT seq, hash, at FROM events ORDER BY seq DESC LIMIT 1").Scan(&seq, &prev, &lastAt)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("record: read chain head: %w", err)
	}
	var g signer
	if o.genesis {
		if seq != 0 {
			return nil, errAlreadyStarted
		}
		s.mu.Lock()
		g = s.signer
		s.mu.Unlock()
	} else {
		current, err := chainKey(ctx, tx)
		if err != nil {
			return nil, fmt.Errorf("record: read current key: %w", err)
		}
		if g, err = s.keyFor(current); err != nil {
			return nil, fmt.Errorf("record: %w", err)
		}
	}

	if o.decide != nil {
		// decide's errors are about the caller's request: they go back as they are.
		if items, err = o.decide(tx); err != nil {
			return nil, err
		}
	}

	now := s.now().UTC().Truncate(time.Millisecond)
	if lastAt != "" {
		if head, err := parseAt(lastAt); err == nil && now.Before(head) {
			now = head
		}
	}
	at := now.Format(timeLayout)

	insEvent, err := tx.PrepareContext(ctx, "INSERT INTO events (seq, v, prev, at, actor, type, key, payload, hash, sig) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	defer insEvent.Close()
	// Hashes chain, so they are computed in order; the signatures are independent of each
	// other and are made on every core.
	evs := make([]Event, len(items))
	digests := make([][32]byte, len(items))
	for i, it := range items {
		seq++
		evs[i] = Event{V: FormatVersion, Seq: seq, Prev: prev, At: at, Actor: actor, Type: it.typ, Payload: it.payload}
		digests[i] = evs[i].hashFor(g)
		prev = evs[i].Hash
	}
	signAll(g, evs, digests)
	for i, it := range items {
		ev := &evs[i]
		if _, err := insEvent.ExecContext(ctx, ev.Seq, ev.V, ev.Prev, ev.At, ev.Actor, ev.Type, ev.Key, string(ev.Payload), ev.Hash, ev.Sig); err != nil {
			return nil, fmt.Errorf("record: insert event %d: %w", ev.Seq, err)
		}
		for j, b := range it.blobs {
			if b == nil {
				// database/sql binds a nil slice as NULL; a nil blob is the empty body.
				b = []byte{}
			}
			// Only a body already stored is skipped; any other failure is reported.
			if _, err := tx.ExecContext(ctx, "INSERT INTO blobs (sha256, data) VALUES (?, ?) ON CONFLICT (sha256) DO NOTHING", it.hashes[j], b); err != nil {
				return nil, fmt.Errorf("record: store blob %s: %w", it.hashes[j], err)
			}
		}
		if err := apply(tx, ev); err != nil {
			return nil, fmt.Errorf("record: %w", err)
		}
	}
	signed := false
	if !s.noTree {
		root, err := appendTree(ctx, tx, evs[0].Seq-1, evs)
		if err != nil {
			return nil, fmt.Errorf("record: %w", err)
		}
		// The checkpoint is signed by the key current after its last event. The chain's
		// first transaction and a key rotation always end with one; the others when one is
		// due (batching.go).
		cg := g
		if o.next != nil {
			cg = *o.next
		}
		if signed = o.genesis || o.next != nil || s.checkpointDue(seq); signed {
			if err := s.writeCheckpoint(ctx, tx, cg, seq, root); err != nil {
				return nil, fmt.Errorf("record: %w", err)
			}
		}
	}
	if o.extra != nil {
		if err := o.extra(tx, evs); err != nil {
			return nil, err
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("record: commit: %w", err)
	}
	if !s.noTree {
		s.committed(seq, signed)
	}
	return evs, nil
}

// signAll signs evs[i] over digests[i], spreading the work over every core when there is
// more than one event to sign.
func signAll(g signer, evs []Event, digests [][32]byte) {
	workers := min(runtime.NumCPU(), len(evs))
	if workers <= 1 {
		for i := range evs {
			evs[i].sign(g, digests[i])
		}
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(evs); i += workers {
				evs[i].sign(g, digests[i])
			}
		})
	}
	wg.Wait()
}

// keyFor returns the signer for the chain's current key id, reloading the key file when
// another process (or a rotation in progress) changed it.
func (s *Store) keyFor(current string) (signer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.signer.id == current {
		return s.signer, nil
	}
	path := filepath.Join(s.dir, keyFileName)
	for _, p := range []string{path, path + newKeySuffix} {
		if g, err := readKeyFile(p); err == nil && g.id == current {
			s.signer = g
			return g, nil
		}
	}
	return signer{}, fmt.Errorf("the chain's current key is %s, but %s holds key %s; restore the right key file: %w", current, path, s.signer.id, ErrInvalid)
}

// Blob returns the body stored under its SHA-256 (lowercase hex). It fails with an error
// wrapping [ErrNotFound] when none is stored, and [ErrInvalid] for a malformed hash.
func (s *Store) Blob(ctx context.Context, sha256hex string) ([]byte, error) {
	if !isHex(sha256hex, 64) {
		return nil, fmt.Errorf("blob %q: want 64 lowercase hex characters: %w", sha256hex, ErrInvalid)
	}
	var data []byte
	err := s.rdb.QueryRowContext(ctx, "SELECT data FROM blobs WHERE sha256 = ?", sha256hex).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("blob %s: %w", sha256hex, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", sha256hex, err)
	}
	return data, nil
}

// isHex reports whether s is n lowercase hex characters.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
