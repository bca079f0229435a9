// Package ledger is the evidence ledger's store: an append-only chain of signed events in
// SQLite, and the projection tables built from it. It is the only package that writes SQL.
//
// # Opening
//
// [Open] opens (or creates) a data directory: ledger.db (SQLite in WAL mode) and
// signing.key, the Ed25519 key. The directory is mode 0700; the key, the database and its
// -wal and -shm files are mode 0600, since the database holds token and password hashes. A
// new ledger's first event is key.created; [Store.RotateKey] introduces a new key through a
// key.rotated event signed by the old one, and [Store.Keys] lists them.
//
// # Recording
//
// Every state change is an [Event], recorded by one of the domain operations below, each in
// one transaction: it reads the chain head, builds each event, canonicalizes it (RFC 8785),
// hashes it (SHA-256),
// signs the digest (Ed25519), stores its blobs (page bodies, pastes) content-addressed, and
// applies it to the projection tables through the projector registered for its type. The
// domain operations, each one event (or two):
// [Store.ImportResearch] (batch.imported), [Store.RecordCheck] (citation.checked, and the
// seam a split opens), [Store.OpenSeam] and [Store.ResolveSeam], [Store.ClassifySource], and
// [Store.AddUser].
//
// # Reading
//
// [Store.Claims], [Store.Claim], [Store.FindClaims], [Store.FindCitations] and
// [Store.FindClaimsQuoting] return claims with their citations, strength, open seams and
// latest check (document, verdicts, adjudication); [Store.Batches], [Store.Batch],
// [Store.BatchCitations] and [Store.CitationsToCheck] serve the checker; [Store.Seams],
// [Store.Sources], [Store.Blob] and [Store.Events] the rest. [Store.Authenticate] maps an API
// token to its [User].
//
// # Auditing
//
// Tables other than the events, the blobs and the credentials are projections. [Store.Audit]
// recomputes every hash, link and signature, re-hashes every blob, replays every event into
// an empty database and compares each projection table with the stored one; its [Report]
// names the first bad seq and what is wrong. [Store.AuditWith] with [AuditOptions].State
// audits incrementally from the auditor's state: the whole chain re-hashed against the tree
// the last audit verified, the new events' signatures verified and the rows they touched
// compared (auditinc.go). [Store.Export] writes the events as JSON lines;
// [AuditExport] checks such an export against a keys document ([ParseKeys]) without a
// database. The chain format is documented for auditors in docs/chain.md.
//
// Errors wrap [ErrInvalid], [ErrNotFound], [ErrConflict] or [ErrUnauthenticated] when the
// cause is the caller's input or state; test them with errors.Is.
package ledger

import (
	"context"
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

	// Origin is the first line of the ledger's checkpoints (C2SP tlog-checkpoint), and the
	// name of their note keys: one word without spaces or '+', like example.com/ledger.
	// Default: the origin of the ledger's latest checkpoint, or for a ledger without one
	// "evidence-ledger/" and its first key's id. Open refuses an Origin that differs from
	// the one the ledger's checkpoints already have.
	Origin string

	// MaxPages, when above 0, caps the database at that many pages (SQLite's
	// max_page_count; a page is 4 KiB): a write past it fails as on a full disk, with
	// [ErrDiskFull], and records nothing.
	MaxPages int

	// noTree records without the Merkle tree and checkpoints, as the ledger did before
	// them: the benchmarks' baseline for what checkpoints cost.
	noTree bool
	// batchClock is the clock of checkpoint batching (batching.go); nil: the real one.
	batchClock batchClock
}

// Store is an open ledger. It is safe for concurrent use by many goroutines, and several
// processes may open the same data directory at once.
type Store struct {
	dir      string
	path     string
	now      func() time.Time
	origin   string  // configured checkpoint origin, or "" for the default
	readOnly bool    // opened by OpenReadOnly: no key, no writes
	noTree   bool    // see Options.noTree
	wdb      *sql.DB // writes: BEGIN IMMEDIATE, one connection
	rdb      *sql.DB // reads: deferred transactions, WAL snapshots

	mu     sync.Mutex // guards signer and note
	signer signer
	note   noteSigner // the checkpoint signer, once the chain's origin is fixed

	// Checkpoint batching (batching.go).
	flushMu sync.Mutex // one flush at a time
	cpMu    sync.Mutex // guards the fields below
	head    int64      // the largest tree size this Store committed
	cpSize  int64      // the largest checkpoint this Store knows of
	cpAt    time.Time  // when this Store last signed one; zero: the next write signs
	cpTimer interface{ Stop() bool }
	clock   batchClock // see Options.batchClock
	closed  bool
	// covered is closed, and replaced, each time cpSize grows (awaitCheckpoint waits on it).
	covered  chan struct{}
	awaiting int // readers in awaitCheckpoint now (the tests wait for one to be there)
}

// signer is the signing key in use.
type signer struct {
	id   string
	priv ed25519.PrivateKey
}

// Close closes the database. Events recorded before Close are durable.
//
// It first signs a checkpoint of the events this Store recorded that none covers yet
// (checkpoints are batched: batching.go); the error says when that failed, and the ledger
// gets the checkpoint the next time it is opened for writing.
func (s *Store) Close() error {
	if s.readOnly {
		return s.rdb.Close()
	}
	flush := s.flushCheckpoint(context.Background())
	s.cpMu.Lock()
	s.closed = true
	if s.cpTimer != nil {
		s.cpTimer.Stop()
	}
	s.cpMu.Unlock()
	// A flush the timer began is over once flushMu is free.
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	return errors.Join(flush, s.wdb.Close(), s.rdb.Close())
}
