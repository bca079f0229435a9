// Package ledger is the evidence ledger's store: an append-only chain of signed events in
// SQLite, and the projection tables built from it.
//
// Every state change is an [Event]. [Store.Record] appends events in one transaction: it reads
// the chain head, builds each event, canonicalizes it (RFC 8785), hashes it (SHA-256), signs
// the digest (Ed25519), inserts it and applies it to the projection tables through the
// projector registered for its type. Tables other than the events, the blobs and the
// credentials are projections: [Store.Audit] rebuilds them from the events alone and compares.
//
// The chain format is documented for auditors in docs/chain.md; [AuditExport] checks an
// export without a database.
//
// A data directory holds ledger.db and signing.key (mode 0600). The key is created with the
// database and enters the chain as the first event (key.created); [Store.RotateKey] introduces
// a new one through a key.rotated event signed by the old one.
package ledger

import (
	"crypto/ed25519"
	"database/sql"
	"errors"
	"sync"
	"time"
)

// Errors that callers map to answers (for example HTTP statuses). Errors returned by this
// package wrap one of these when the cause is the caller's input or state, so test them with
// errors.Is.
var (
	// ErrInvalid means the input was refused: a bad actor, event type, payload or name.
	ErrInvalid = errors.New("invalid input")
	// ErrNotFound means the thing asked for does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict means the change collides with the current state (for example a user
	// name already taken).
	ErrConflict = errors.New("conflict")
	// ErrUnauthenticated means a token was missing or matched no user.
	ErrUnauthenticated = errors.New("unauthenticated")
)

// Options configure a [Store]. The zero value is ready to use.
type Options struct {
	// Now is the clock used for the events' "at" member. Default time.Now.
	Now func() time.Time

	// maxPageCount caps the database size in pages (tests simulate a full disk with it).
	maxPageCount int
}

// Store is an open ledger. It is safe for concurrent use by many goroutines, and several
// processes may open the same data directory at once.
type Store struct {
	dir  string
	path string
	now  func() time.Time
	wdb  *sql.DB // writes: BEGIN IMMEDIATE, one connection
	rdb  *sql.DB // reads: deferred transactions, WAL snapshots

	mu     sync.Mutex // guards signer
	signer signer
}

// signer is the signing key in use.
type signer struct {
	id   string
	priv ed25519.PrivateKey
}

// Close closes the database. Events recorded before Close are durable.
func (s *Store) Close() error {
	return errors.Join(s.wdb.Close(), s.rdb.Close())
}
