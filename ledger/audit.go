// The audit of the database in one file: the chain checker (links, keys, the recomputed tree,
// the stored checkpoints, the digests the auditor's state pins, and the hash and signature
// workers), the replay into a database of its own, the comparison of its tables with the
// stored ones, and the one function that runs them together for the full and the
// incremental audit (auditinc.go adds what only the incremental one does). They share the
// batches, the problem list and the order in which each step may start; split, the
// hand-offs between the goroutines would be read across files.

package ledger

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/tlog"
)

// Problem is one thing the audit found wrong. Seq names the event (0 when the problem is in a
// table and no event is to blame); Table names the table for problems found there.
type Problem struct {
	Seq     int64  `json:"seq"`
	Table   string `json:"table,omitempty"`
	Problem string `json:"problem"`
}

// Report is the outcome of an audit, as GET /api/audit answers it. Problems are ordered by
// seq, table problems without a seq last; the first one is the first bad event.
type Report struct {
	OK     bool   `json:"ok"`
	Events int64  `json:"events"`
	Head   string `json:"head"`
	// Root is the standard base64 of the RFC 6962 Merkle tree root over all the events, as
	// the audit recomputed it: compare it with a checkpoint of size Events.
	Root     string    `json:"root,omitempty"`
	Problems []Problem `json:"problems"`

	// Kind says which audit of the database ran: "full" (every signature verified, every
	// table rebuilt from all the events and compared) or "incremental" (from the auditor's
	// state: see docs/chain.md, "Incremental audit"). Empty for the offline audit of an
	// export, which has no tables.
	Kind string `json:"kind,omitempty"`
	// From is the size of the tree the incremental audit started from (the last audit's):
	// the signatures of the events after it were verified and the rows they touched
	// recomputed. 0 for a full audit.
	From int64 `json:"from"`
	// LastFull is when the last full audit ran (RFC 3339 UTC): for a full audit, this one;
	// for an incremental one, the last full audit of the state it started from.
	LastFull string `json:"last_full,omitempty"`
	// NotChecked says, for an incremental audit, what it left to the full audit.
	NotChecked string `json:"not_checked,omitempty"`
	// State is the auditor's state file the audit read and wrote, if any; Notes say what
	// happened to it and to its working copy.
	State string   `json:"state,omitempty"`
	Notes []string `json:"notes,omitempty"`
}

// AuditOptions ask more of an audit than that the chain agrees with itself.
type AuditOptions struct {
	// Checkpoint is a signed checkpoint note the auditor kept earlier. It must verify under
	// one of the note keys of Keys, and the audited log must extend it: its first Size events
	// must have the checkpoint's root. A rewritten history, a cut tail or a fork fails.
	Checkpoint []byte
	// Keys is the keys document the auditor trusts (as `ledger keys` prints it), which gives
	// the checkpoint's verifier keys; needed with Checkpoint or Witnesses.
	Keys *KeyHistory
	// Witnesses are cosigner verifier keys (C2SP tlog-cosignature) that must have cosigned
	// Checkpoint, or, without it, the ledger's latest checkpoint (online audit).
	Witnesses []string
	// State is the auditor's state file (docs/chain.md, "Incremental audit"): the audit
	// starts from it, incrementally, and writes it anew when it finds nothing wrong. Keep it
	// where the ledger's server cannot write, never in the data directory. Empty: a full
	// audit that keeps no state.
	State string
	// Full makes the audit full even when State holds a state to start from (or holds one
	// that is refused); the state is written anew.
	Full bool
}

// maxProblems bounds the problems a report keeps (the lowest seqs are kept).
const maxProblems = 1000

// problemList collects problems from concurrent checkers.
type problemList struct {
	mu   sync.Mutex
	list []Problem
}

func (p *problemList) add(seq int64, table, format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.list = append(p.list, Problem{Seq: seq, Table: table, Problem: fmt.Sprintf(format, args...)})
	if len(p.list) >= 2*maxProblems {
		p.sortAndTrim()
	}
}

func (p *problemList) sortAndTrim() {
	rank := func(s int64) int64 {
		if s == 0 {
			return 1 << 62
		}
		return s
	}
	sort.SliceStable(p.list, func(i, j int) bool { return rank(p.list[i].Seq) < rank(p.list[j].Seq) })
	if len(p.list) > maxProblems {
		p.list = p.list[:maxProblems]
	}
}

// addAll appends the problems of q after those of p.
func (p *problemList) addAll(q *problemList) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.list = append(p.list, q.list...)
	if len(p.list) >= 2*maxProblems {
		p.sortAndTrim()
	}
}

func (p *problemList) report(events int64, head, root string) Report {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sortAndTrim()
	list := append([]Problem{}, p.list...)
	return Report{OK: len(list) == 0, Events: events, Head: head, Root: root, Problems: list}
}

// auditBatch is a run of consecutive events handed to the signature workers (and, in Audit,
// to the replay). pubs[i] is the key evs[i] must verify under, or nil when the event cannot
// be verified (the problem has been reported).
//
// In Audit, the worker that takes a batch also decodes its payloads for the replay first
// (decoded, decodeErr) and then closes ready; the replay waits for it.
type auditBatch struct {
	evs  []Event
	pubs []ed25519.PublicKey
	cps  []checkpointJob

	decoded   []any
	decodeErr []error
	ready     chan struct{} // nil when nothing replays
}

// checkpointJob is a stored checkpoint whose signature a worker checks: it must verify under
// pub, the key current after event size.
type checkpointJob struct {
	size int64
	note []byte
	pub  ed25519.PublicKey
}

// auditBatchSize is the number of events per batch: large enough that channel hand-offs cost
// nothing next to the signature checks, small enough to keep memory bounded.
const auditBatchSize = 256

// chainChecker checks a stream of events in seq order: links, times, actors and which key is
// current, sequentially; hashes and signatures on runtime.NumCPU workers. It holds no more
// than a bounded queue of batches.
type chainChecker struct {
	probs   *problemList
	anchors *KeyHistory // trusted keys (offline audit), or nil
	keysIn  int         // keys the chain has introduced so far

	tree     *compact.Range // the Merkle tree over the events so far
	badLeaf  bool           // an event's hash was not 64 hex characters
	stored   func() (int64, []byte, bool)
	nextCP   int64       // size of the next stored checkpoint, 0 when none is left
	nextNote []byte      // its note
	want     *Checkpoint // the auditor's checkpoint, or nil
	wantSeen bool
	pending  []checkpointJob

	next    int64
	prev    string
	lastAt  time.Time
	current string
	pub     ed25519.PublicKey
	events  int64
	head    string

	// The auditor's state (auditinc.go). Events up to from are re-hashed, but their
	// signatures are not verified again, nor the stored checkpoints of size below from: the
	// digests of pin stand for them. pin, when not nil, is the tree the last audit verified:
	// the log must extend it, and its digests must match what is stored up to it. sigs and
	// cpsBelow are those digests as recomputed so far (cpsBelow over the stored checkpoints
	// of size below the events added); events up to replayFrom are not sent to the replay.
	from       int64
	pin        *auditRecord
	pinRoot    tlog.Hash
	sigs       pinDigest
	cps        pinDigest
	cpsBelow   [32]byte
	replayFrom int64

	batch  auditBatch
	jobs   chan auditBatch
	replay chan<- auditBatch // also receives every batch, or nil
	wg     sync.WaitGroup
}

// newChainChecker starts the signature workers. Set replay before the first add to have
// every batch of events sent there too (after the workers have it); closeQueue closes it.
func newChainChecker(probs *problemList, anchors *KeyHistory) *chainChecker {
	workers := runtime.NumCPU()
	c := &chainChecker{probs: probs, anchors: anchors, next: 1, prev: zeroHash, jobs: make(chan auditBatch, 2*workers),
		tree: rfc6962Range.NewEmptyRange(0)}
	for range workers {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			for b := range c.jobs {
				if b.ready != nil {
					for i := range b.evs {
						if b.evs[i].Seq > c.replayFrom {
							b.decoded[i], b.decodeErr[i] = decodeEvent(&b.evs[i])
						}
					}
					close(b.ready)
				}
				for i := range b.evs {
					switch {
					case b.evs[i].Seq <= c.from:
						c.rehashAudited(&b.evs[i])
					case b.pubs[i] != nil:
						c.verify(&b.evs[i], b.pubs[i])
					}
				}
				for _, j := range b.cps {
					c.verifyCheckpoint(j)
				}
			}
		}()
	}
	return c
}

// rfc6962Range makes compact ranges of RFC 6962 trees over SHA-256.
var rfc6962Range = &compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}

// useStored has the checker compare the stored checkpoints, which next returns in size order
// (ok false after the last), with the tree it recomputes. Call it before the first add.
func (c *chainChecker) useStored(next func() (int64, []byte, bool)) {
	c.stored = next
	c.advanceStored()
}

func (c *chainChecker) advanceStored() {
	c.nextCP = 0
	if size, text, ok := c.stored(); ok {
		c.nextCP, c.nextNote = size, text
	}
}

// root returns the recomputed root of the events added so far.
func (c *chainChecker) root() tlog.Hash {
	var h tlog.Hash
	if c.events == 0 {
		return tlog.Hash(sha256.Sum256(nil))
	}
	r, _ := c.tree.GetRootHash(nil)
	copy(h[:], r)
	return h
}

// addLeaf extends the recomputed tree with ev and checks the checkpoints of this size.
func (c *chainChecker) addLeaf(ev *Event) {
	leaf, err := leafData(ev)
	if err != nil {
		c.badLeaf = true
		leaf = make([]byte, 32)
	}
	c.tree.Append(rfc6962.DefaultHasher.HashLeaf(leaf), nil)
	c.cpsBelow = c.cps.sum
	if c.pin != nil && c.pin.Size == c.events {
		c.checkPin()
	}
	if c.want != nil && c.want.Size == ev.Seq && !c.badLeaf {
		c.wantSeen = true
		if root := c.root(); root != c.want.Root {
			c.probs.add(ev.Seq, "", "the log does not extend the checkpoint you hold: its first %d events have root %s, but your checkpoint of size %d says %s: the history up to event %d was rewritten, or this is a fork", ev.Seq, rootB64(root), c.want.Size, rootB64(c.want.Root), ev.Seq)
		}
	}
	for c.stored != nil && c.nextCP != 0 && c.nextCP <= ev.Seq {
		c.cps.add(string(c.nextNote))
		if c.nextCP < ev.Seq {
			c.probs.add(c.nextCP, "checkpoints", "checkpoint of size %d: it is out of order", c.nextCP)
			c.advanceStored()
			continue
		}
		cp, err := parseCheckpointNote(c.nextNote)
		switch {
		case err != nil:
			c.probs.add(ev.Seq, "checkpoints", "checkpoint of size %d: %v", ev.Seq, err)
		case cp.Size != ev.Seq:
			c.probs.add(ev.Seq, "checkpoints", "checkpoint stored under size %d says size %d", ev.Seq, cp.Size)
		case !c.badLeaf && cp.Root != c.root():
			c.probs.add(ev.Seq, "checkpoints", "checkpoint of size %d: its root %s is not the root %s of the first %d events: the events or the checkpoint were changed after it was signed", ev.Seq, rootB64(cp.Root), rootB64(c.root()), ev.Seq)
		case ev.Seq < c.from:
			// Pinned by the state's checkpoint digest: verified by an earlier audit.
		default:
			c.pending = append(c.pending, checkpointJob{size: ev.Seq, note: c.nextNote, pub: c.pub})
		}
		c.advanceStored()
	}
}

// verifyCheckpoint checks a stored checkpoint's signature under the key current at its size.
func (c *chainChecker) verifyCheckpoint(j checkpointJob) {
	cp, _ := parseCheckpointNote(j.note)
	vkey, err := NoteKey(cp.Origin, j.pub)
	if err == nil {
		_, err = OpenCheckpoint(j.note, []string{vkey}, nil)
	}
	if err != nil {
		c.probs.add(j.size, "checkpoints", "checkpoint of size %d: it is not signed by the key current at that size (%s): %v", j.size, KeyID(j.pub), err)
	}
}

// rehash recomputes an event's hash and reports it when it does not match; ok is false then.
// A payload already in canonical form (as Record stores it) is hashed as it is; any other is
// canonicalized first.
func (c *chainChecker) rehash(ev *Event) (d [32]byte, ok bool) {
	if canonicalJSON(ev.Payload) {
		d = sha256.Sum256(ev.canonicalWith(ev.Payload))
	} else {
		var err error
		if d, err = ev.digest(); err != nil {
			c.probs.add(ev.Seq, "", "event %d: it cannot be canonicalized, so its hash cannot be checked: %v", ev.Seq, err)
			return d, false
		}
	}
	var hx [2 * sha256.Size]byte
	hex.Encode(hx[:], d[:])
	if string(hx[:]) != ev.Hash {
		c.probs.add(ev.Seq, "", "event %d: the event was changed after it was signed: its hash does not match its contents", ev.Seq)
		return d, false
	}
	return d, true
}

// rehashAudited re-hashes an event an earlier audit checked: its payload as stored, which
// that audit found canonical if the hash is still the same (the tree pins it); only when it
// is not is the event checked as rehash checks any.
func (c *chainChecker) rehashAudited(ev *Event) {
	d := sha256.Sum256(ev.canonicalWith(ev.Payload))
	var hx [2 * sha256.Size]byte
	hex.Encode(hx[:], d[:])
	if string(hx[:]) != ev.Hash {
		c.rehash(ev)
	}
}

// verify re-hashes an event and checks its signature.
func (c *chainChecker) verify(ev *Event, pub ed25519.PublicKey) {
	d, ok := c.rehash(ev)
	if !ok {
		return
	}
	sig, err := decodeSig(ev.Sig)
	if err != nil {
		c.probs.add(ev.Seq, "", "event %d: %v", ev.Seq, err)
		return
	}
	if !ed25519.Verify(pub, d[:], sig) {
		c.probs.add(ev.Seq, "", "event %d: its signature does not verify under key %s, the key current at this point of the chain", ev.Seq, ev.Key)
	}
}

// add checks ev's place in the chain and queues its hash and signature check.
func (c *chainChecker) add(ev Event) {
	c.events++
	c.head = ev.Hash
	gap := false
	switch {
	case ev.Seq > c.next:
		c.probs.add(c.next, "", "event %d is missing: the chain jumps from event %d to event %d", c.next, c.next-1, ev.Seq)
		gap = true
	case ev.Seq < c.next:
		c.probs.add(ev.Seq, "", "event %d is out of order: it comes after event %d", ev.Seq, c.next-1)
		gap = true
	}
	c.next = ev.Seq + 1
	if ev.Prev != c.prev && !gap {
		c.probs.add(ev.Seq, "", "event %d: its prev link does not match the hash of event %d: an event was removed, reordered or replaced", ev.Seq, ev.Seq-1)
	}
	c.prev = ev.Hash
	if ev.V != FormatVersion {
		c.probs.add(ev.Seq, "", "event %d: format version %d, but this audit checks version %d", ev.Seq, ev.V, FormatVersion)
	}
	// An event before from is the one an earlier audit checked when its hash is (the worker
	// re-hashes it, and the tree pins its hash): its time and actor are not read again,
	// except the time of the event just before the new ones, which they must not precede.
	if ev.Seq >= c.from {
		if t, err := parseAt(ev.At); err != nil {
			c.probs.add(ev.Seq, "", "event %d: %v", ev.Seq, err)
		} else if t.Before(c.lastAt) {
			c.probs.add(ev.Seq, "", "event %d: its time %s is earlier than the time of the event before it", ev.Seq, ev.At)
		} else {
			c.lastAt = t
		}
		if err := checkActor(ev.Actor); err != nil {
			c.probs.add(ev.Seq, "", "event %d: %v", ev.Seq, err)
		}
	}
	pub, ok := c.keyOf(&ev)
	if !ok {
		pub = nil
	}
	c.sigs.add(ev.Sig)
	c.addLeaf(&ev)
	c.batch.evs = append(c.batch.evs, ev)
	c.batch.pubs = append(c.batch.pubs, pub)
	c.batch.cps = append(c.batch.cps, c.pending...)
	c.pending = c.pending[:0]
	if len(c.batch.evs) == auditBatchSize {
		c.flush()
	}
}

// flush hands the pending batch to the workers and, when it holds an event after
// replayFrom, to the replay.
func (c *chainChecker) flush() {
	if len(c.batch.evs) == 0 {
		return
	}
	replay := false
	for i := range c.batch.evs {
		replay = replay || (c.replay != nil && c.batch.evs[i].Seq > c.replayFrom)
	}
	if replay {
		n := len(c.batch.evs)
		c.batch.decoded, c.batch.decodeErr, c.batch.ready = make([]any, n), make([]error, n), make(chan struct{})
	}
	c.jobs <- c.batch
	if replay {
		c.replay <- c.batch
	}
	c.batch = auditBatch{evs: make([]Event, 0, auditBatchSize), pubs: make([]ed25519.PublicKey, 0, auditBatchSize)}
}

// keyOf returns the key ev must verify under and follows key.created and key.rotated. ok is
// false when the event cannot be verified (a problem has been reported).
func (c *chainChecker) keyOf(ev *Event) (ed25519.PublicKey, bool) {
	if c.current == "" {
		if ev.Type != typeKeyCreated {
			c.probs.add(ev.Seq, "", "event %d: the chain must begin with a key.created event that names its first key, but this is %q", ev.Seq, ev.Type)
			return nil, false
		}
		id, pub, ok := c.namedKey(ev)
		if !ok {
			return nil, false
		}
		if ev.Key != id {
			c.probs.add(ev.Seq, "", "event %d: the first key must sign its own key.created event, but it is signed with key %s", ev.Seq, ev.Key)
			return nil, false
		}
		c.current, c.pub = id, pub
		return pub, true
	}
	if ev.Key != c.current {
		c.probs.add(ev.Seq, "", "event %d: signed with key %s, but the key current at this point of the chain is %s", ev.Seq, ev.Key, c.current)
		return nil, false
	}
	pub := c.pub
	switch ev.Type {
	case typeKeyCreated:
		c.probs.add(ev.Seq, "", "event %d: a second key.created event; later keys must enter through key.rotated, signed by the key before them", ev.Seq)
	case typeKeyRotated:
		if id, next, ok := c.namedKey(ev); ok {
			c.current, c.pub = id, next
		}
	}
	return pub, true
}

// namedKey reads the key a key.created or key.rotated event introduces and checks it
// against its id and, offline, against the keys file.
func (c *chainChecker) namedKey(ev *Event) (string, ed25519.PublicKey, bool) {
	var p keyPayload
	if err := json.Unmarshal(ev.Payload, &p); err != nil {
		c.probs.add(ev.Seq, "", "event %d: its %s payload cannot be read: %v", ev.Seq, ev.Type, err)
		return "", nil, false
	}
	pub, err := decodePublicKey(p.PublicKey)
	if err != nil || KeyID(pub) != p.KeyID {
		c.probs.add(ev.Seq, "", "event %d: the key it introduces is malformed or does not match its id %q", ev.Seq, p.KeyID)
		return "", nil, false
	}
	if c.anchors != nil {
		k := c.keysIn
		switch {
		case k >= len(c.anchors.IDs):
			c.probs.add(ev.Seq, "", "event %d: it introduces key %s, which is not in the keys file (its %d key(s) were all introduced before)", ev.Seq, p.KeyID, len(c.anchors.IDs))
			return "", nil, false
		case c.anchors.IDs[k] != p.KeyID || !bytes.Equal(c.anchors.Pub[p.KeyID], pub):
			if _, known := c.anchors.Pub[p.KeyID]; known {
				c.probs.add(ev.Seq, "", "event %d: it introduces key %s, but the keys file lists %s as key %d: the keys file is a history, and the chain introduces its keys in another order", ev.Seq, p.KeyID, c.anchors.IDs[k], k+1)
			} else {
				c.probs.add(ev.Seq, "", "event %d: it introduces key %s, which is not in the keys file (key %d there is %s)", ev.Seq, p.KeyID, k+1, c.anchors.IDs[k])
			}
			return "", nil, false
		}
	}
	c.keysIn++
	return p.KeyID, pub, true
}

// end reports what can only be known after the last event: keys of the keys file the chain
// never introduced, the auditor's checkpoint beyond the end, stored checkpoints beyond it.
func (c *chainChecker) end() {
	if c.anchors != nil && c.keysIn < len(c.anchors.IDs) && c.events > 0 {
		c.probs.add(c.next, "", "the keys file lists %d keys, but the chain introduces only %d: key %s never entered it; a key.rotated event is missing (the history was rewritten) or the keys file belongs to another ledger", len(c.anchors.IDs), c.keysIn, c.anchors.IDs[c.keysIn])
	}
	if c.want != nil && !c.wantSeen && c.want.Size > c.events {
		c.probs.add(c.next, "", "the log has only %d event(s), but the checkpoint you hold covers %d: its tail was cut, or it was rewritten shorter", c.events, c.want.Size)
	}
	if c.badLeaf && c.want != nil {
		c.probs.add(0, "", "the tree cannot be recomputed, because an event's hash is not 64 hex characters, so the checkpoint you hold cannot be checked")
	}
	if c.pin != nil && c.events < c.pin.Size {
		c.probs.add(c.next, "", "the log has only %d event(s), but your last audit (at %s) verified %d: its tail was cut, or it was rewritten shorter", c.events, c.pin.AuditedAt, c.pin.Size)
	}
	if c.badLeaf && c.pin != nil {
		c.probs.add(0, "", "the tree cannot be recomputed, because an event's hash is not 64 hex characters, so the tree your last audit verified cannot be checked")
	}
	for c.stored != nil && c.nextCP != 0 {
		c.probs.add(c.nextCP, "checkpoints", "checkpoint of size %d: it covers more events than the log has (%d): events were removed after it was signed", c.nextCP, c.events)
		c.advanceStored()
	}
}

// checkPin compares the tree and the digests recomputed over the first pin.Size events with
// the ones the last audit recorded. Call it when that many events have been added.
func (c *chainChecker) checkPin() {
	p := c.pin
	if root := c.root(); !c.badLeaf && root != c.pinRoot {
		c.probs.add(c.events, "", "the log does not extend the tree your last audit verified (at %s): its first %d events have root %s, but that audit recorded %s: the history up to event %d was rewritten, this is a fork, or the state belongs to another ledger", p.AuditedAt, p.Size, rootB64(root), p.Root, p.Size)
	}
	if c.sigs.hex() != p.Signatures {
		c.probs.add(0, "events", "the signatures of events 1 to %d are not the ones your last audit verified (at %s): a signature was rewritten since; ledger audit --full verifies each one and names it", p.Size, p.AuditedAt)
	}
	if hex.EncodeToString(c.cpsBelow[:]) != p.Checkpoints {
		c.probs.add(0, "checkpoints", "the stored checkpoints of size below %d are not the ones your last audit verified (at %s): one was changed, added or removed since; ledger audit --full checks each one", p.Size, p.AuditedAt)
	}
}

// closeQueue hands on the last batch and closes the workers' queue and the replay channel.
// Call it once, when the last event has been added.
func (c *chainChecker) closeQueue() {
	c.flush()
	close(c.jobs)
	if c.replay != nil {
		close(c.replay)
	}
}

// finish closes the queue and waits for the queued checks.
func (c *chainChecker) finish() {
	c.end()
	c.closeQueue()
	c.wg.Wait()
}

// Audit checks the whole ledger: it recomputes every event's hash and prev link, verifies
// every signature under the key current at its seq (on every core), re-hashes every blob,
// checks that every blob an event names is stored, replays all events into an empty
// temporary database and compares every projection table with the stored one, row by row.
// It streams: memory does not grow with the number of events. The replay, the blob check
// and the table comparison run while the signatures are being checked.
//
// Findings are in the report; the error is for an audit that could not run (the database
// cannot be read, no temporary file can be made).
func (s *Store) Audit(ctx context.Context) (Report, error) {
	return s.AuditWith(ctx, AuditOptions{})
}

// AuditWith is [Store.Audit] that also holds the log to what opts give: a checkpoint the
// auditor kept (the log must extend it, which a consistency proof from the stored tree
// confirms), and witnesses whose cosignatures are required. It also checks every stored
// checkpoint against the recomputed tree and the key current at its size, that the
// append-only triggers are in place, and that every stored blob is named by an event.
//
// With opts.State, the audit starts from the auditor's state and is incremental (see
// auditinc.go and docs/chain.md, "Incremental audit"), or full when there is no state yet
// or opts.Full asks; a full or incremental audit that finds nothing wrong writes the state
// anew. Without it the audit is full and keeps no state.
//
// Every audit first removes the files that killed audits left in its folders (the
// temporary folder, and the state's): see auditfiles.go.
//
// A checkpoint that does not verify under opts.Keys, and a state that is refused (edited
// by hand, its key missing) unless opts.Full, are errors, not findings: the audit cannot
// hold the log to them.
func (s *Store) AuditWith(ctx context.Context, opts AuditOptions) (Report, error) {
	want, err := opts.checkpoint()
	if err != nil {
		return Report{}, fmt.Errorf("audit: %w", err)
	}
	if opts.State != "" {
		return s.auditWithState(ctx, opts, want)
	}
	removeStaleAuditFiles(os.TempDir())
	rp, err := newReplay(ctx, os.TempDir())
	if err != nil {
		return Report{}, err
	}
	defer rp.close()
	rep, _, err := s.audit(ctx, opts, want, auditPlan{rp: rp, start: s.now()})
	return rep, err
}

// auditPlan says how an audit starts: the replay it feeds (an empty database, or the
// working copy as of rp.from events), the tree the last audit verified (pin, or nil), and
// whether the audit is incremental from it.
type auditPlan struct {
	rp          *replay
	pin         *auditRecord
	incremental bool
	start       time.Time
}

// audit runs one audit of the database as plan says. Beside the report it returns the
// record of what it verified (size, root, head, digests; without times or seal), from
// which the caller writes the auditor's state when the report is OK.
func (s *Store) audit(ctx context.Context, opts AuditOptions, want *Checkpoint, plan auditPlan) (Report, *auditRecord, error) {
	rp := plan.rp
	rtx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return Report{}, nil, fmt.Errorf("audit: %w", err)
	}
	defer rtx.Rollback()

	probs := &problemList{}
	c := newChainChecker(probs, nil)
	c.want = want
	// The replay receives the events it lacks from the checker, in order with the others
	// (a full audit; a working copy rebuilt or behind), or, when the working copy holds
	// every event up to the last audit (feedNew), from a query of its own for the new events:
	// then the replay, which costs the most per event, runs while the main pass re-hashes
	// the old ones, rather than after it. Both read in rtx: one snapshot.
	feedNew := plan.incremental && rp.from == plan.pin.Size
	if !feedNew {
		c.replay = rp.events
		c.replayFrom = rp.from
	}
	if plan.pin != nil {
		c.pin = plan.pin
		if c.pinRoot, err = parseRoot(plan.pin.Root); err != nil {
			return Report{}, nil, fmt.Errorf("audit: the state's root: %w", err)
		}
		if plan.incremental {
			c.from = plan.pin.Size
		}
	}
	cps, err := rtx.QueryContext(ctx, "SELECT size, note FROM checkpoints ORDER BY size")
	if err != nil {
		return Report{}, nil, fmt.Errorf("audit: read checkpoints: %w", err)
	}
	defer cps.Close()
	var cpErr error
	c.useStored(func() (int64, []byte, bool) {
		if cpErr != nil || !cps.Next() {
			return 0, nil, false
		}
		var size int64
		var text string
		if cpErr = cps.Scan(&size, &text); cpErr != nil {
			return 0, nil, false
		}
		return size, []byte(text), true
	})
	go rp.run(ctx, probs)
	// What the store holds beside the events is checked into lists of its own, appended
	// after the workers' problems in a fixed order (blobs and triggers, tables, then the
	// checkpoints' consistency), so that the report lists problems in the same order as if
	// each step had waited for the one before. The full audit checks the blobs after the
	// main pass, while the replay catches up, and compares the tables once the replay is
	// done. The incremental one checks the new events' blobs, and compares the rows they
	// touched as soon as the replay has applied them, beside the main pass.
	stored, tables, after := &problemList{}, &problemList{}, &problemList{}
	fed, blobs, compared := make(chan error, 1), make(chan error, 1), make(chan error, 1)
	if feedNew {
		go func() { fed <- feedReplay(ctx, rtx, rp.from, rp.events) }()
	} else {
		fed <- nil
	}
	if plan.incremental {
		go func() { blobs <- checkNewBlobs(ctx, rtx, plan.pin.Size, stored) }()
		go func() {
			err := <-rp.done
			if err == nil {
				err = compareTouched(ctx, rtx, rp.tx, tables)
			}
			compared <- err
		}()
	}
	err = eachEvent(ctx, rtx, "SELECT seq, v, prev, at, actor, type, key, payload, hash, sig FROM events ORDER BY seq", c.add)
	c.end()
	c.closeQueue()
	defer c.wg.Wait()
	if err == nil && !plan.incremental {
		err = checkBlobs(ctx, rtx, stored)
	}
	waits := []chan error{fed, rp.done}
	if plan.incremental {
		waits = []chan error{fed, blobs, compared}
	}
	for _, ch := range waits {
		if werr := <-ch; err == nil {
			err = werr
		}
	}
	if err == nil {
		err = cpErr
	}
	if err == nil {
		err = cps.Err()
	}
	if err != nil {
		return Report{}, nil, fmt.Errorf("audit: %w", err)
	}
	// The workers may still be checking the last signatures. The working copy's connection
	// is its open transaction's (incremental); the replay's database is free (full).
	var fresh interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	} = rp.db
	if rp.tx != nil {
		fresh = rp.tx
	}
	if err := checkTriggers(ctx, rtx, fresh, stored); err != nil {
		return Report{}, nil, fmt.Errorf("audit: %w", err)
	}
	if !plan.incremental {
		for _, t := range projectionTables {
			if err := compareTable(ctx, rtx, rp.db, t, tables); err != nil {
				return Report{}, nil, fmt.Errorf("audit: compare table %s: %w", t.name, err)
			}
		}
		if err := checkRollups(ctx, rtx, tables); err != nil {
			return Report{}, nil, fmt.Errorf("audit: %w", err)
		}
	}
	root := c.root()
	if want != nil && want.Size <= c.events {
		checkConsistency(ctx, rtx, want.Size, want.Root, "your checkpoint", c.events, root, after)
	}
	if p := plan.pin; p != nil && p.Size <= c.events && !c.badLeaf {
		checkConsistency(ctx, rtx, p.Size, c.pinRoot, "the tree your last audit verified", c.events, root, after)
	}
	if len(opts.Witnesses) > 0 && want == nil {
		if err := checkLatestCosigned(ctx, rtx, opts, after); err != nil {
			return Report{}, nil, fmt.Errorf("audit: %w", err)
		}
	}
	c.wg.Wait()
	probs.addAll(stored)
	probs.addAll(tables)
	probs.addAll(after)
	rep := probs.report(c.events, c.head, rootB64(root))
	rep.Kind, rep.LastFull = "full", formatAt(plan.start)
	if plan.incremental {
		rep.Kind, rep.From, rep.LastFull = "incremental", plan.pin.Size, plan.pin.FullAt
		rep.NotChecked = fmt.Sprintf("rows that no event after size %d touched, and blobs that no event after it names, are checked only by ledger audit --full; the last full audit was at %s", plan.pin.Size, plan.pin.FullAt)
	}
	rec := &auditRecord{Size: c.events, Root: rootB64(root), Head: c.head, Signatures: c.sigs.hex(), Checkpoints: hex.EncodeToString(c.cpsBelow[:])}
	return rep, rec, nil
}

// checkpoint verifies the auditor's checkpoint, if any, under the trusted keys and witnesses.
func (o AuditOptions) checkpoint() (*Checkpoint, error) {
	if o.Checkpoint == nil {
		return nil, nil
	}
	if o.Keys == nil {
		return nil, fmt.Errorf("a checkpoint is checked with the keys file you trust (--keys): %w", ErrInvalid)
	}
	cp, err := OpenCheckpoint(o.Checkpoint, o.Keys.NoteKeys, o.Witnesses)
	if err != nil {
		return nil, fmt.Errorf("your checkpoint: %w", err)
	}
	return &cp, nil
}

// checkConsistency proves from the stored tree that the log of size to (root) extends the
// tree of size from (fromRoot) that the auditor holds (what names it), and checks the proof
// with the transparency-dev verifier.
func checkConsistency(ctx context.Context, q queryer, from int64, fromRoot tlog.Hash, what string, to int64, root tlog.Hash, probs *problemList) {
	r := newStoredHashes(ctx, q)
	defer r.close()
	p, err := tlog.ProveTree(to, from, r)
	if err == nil {
		err = proof.VerifyConsistency(rfc6962.DefaultHasher, uint64(from), uint64(to), hashBytes(p), fromRoot[:], root[:])
	}
	if err != nil {
		probs.add(from, "tree_hashes", "no consistency proof from %s of size %d to the log of size %d verifies: %v", what, from, to, err)
	}
}

// checkLatestCosigned requires the witnesses' cosignatures on the latest stored checkpoint.
func checkLatestCosigned(ctx context.Context, tx *sql.Tx, opts AuditOptions, probs *problemList) error {
	cp, err := latestCheckpoint(ctx, tx)
	if err != nil {
		return err
	}
	keys := []string{}
	if opts.Keys != nil {
		keys = opts.Keys.NoteKeys
	} else {
		rows, err := tx.QueryContext(ctx, "SELECT public_key FROM keys ORDER BY seq")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var b64 string
			if err := rows.Scan(&b64); err != nil {
				return err
			}
			if pub, err := decodePublicKey(b64); err == nil {
				if k, err := NoteKey(cp.Origin, pub); err == nil {
					keys = append(keys, k)
				}
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
	}
	if _, err := OpenCheckpoint(cp.Note, keys, opts.Witnesses); err != nil {
		probs.add(cp.Size, "cosignatures", "the latest checkpoint (size %d): %v", cp.Size, err)
	}
	return nil
}

// checkTriggers reports every append-only trigger of the migrations that the store lacks or
// holds in another form (the replay's database, migrated by this program, has them all).
func checkTriggers(ctx context.Context, stored *sql.Tx, fresh interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, probs *problemList) error {
	want, err := schemaTriggers(ctx, fresh)
	if err != nil {
		return err
	}
	have, err := schemaTriggers(ctx, stored)
	if err != nil {
		return err
	}
	for _, name := range triggerDiff(want, have) {
		what := "was dropped"
		if _, ok := have[name]; ok {
			what = "was changed"
		}
		probs.add(0, "triggers", "trigger or view %s of the migrations %s behind the program's back; the table it keeps append-only, or the counts it keeps, could be wrong meanwhile (opening the ledger for writing restores it and rebuilds the counts)", name, what)
	}
	return nil
}

// eachEvent streams the events a query selects (the ten columns in export order).
func eachEvent(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, fn func(Event), args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var ev Event
		var payload string
		if err := rows.Scan(&ev.Seq, &ev.V, &ev.Prev, &ev.At, &ev.Actor, &ev.Type, &ev.Key, &payload, &ev.Hash, &ev.Sig); err != nil {
			return err
		}
		ev.Payload = json.RawMessage(payload)
		fn(ev)
	}
	return rows.Err()
}

// checkBlobs re-hashes every blob and checks that every blob an event names is stored.
func checkBlobs(ctx context.Context, rtx *sql.Tx, probs *problemList) error {
	rows, err := rtx.QueryContext(ctx, "SELECT sha256, data FROM blobs ORDER BY sha256")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var data []byte
		if err := rows.Scan(&name, &data); err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) == name {
			continue
		}
		var seq sql.NullInt64
		if err := rtx.QueryRowContext(ctx, "SELECT min(e.seq) FROM events e, json_each(e.payload, '$.blobs') j WHERE json_valid(e.payload) AND j.value = ?", name).Scan(&seq); err != nil {
			return err
		}
		probs.add(seq.Int64, "blobs", "blob %s (named by event %d): its contents do not match its SHA-256: the body was changed after it was stored", name, seq.Int64)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	// A payload can name blobs only if it spells "blobs" or holds an escape: the other
	// payloads are not parsed at all.
	missing, err := rtx.QueryContext(ctx, `SELECT e.seq, j.value FROM events e, json_each(e.payload, '$.blobs') j
		WHERE (instr(e.payload, 'blobs') > 0 OR instr(e.payload, '\') > 0) AND json_valid(e.payload)
		AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.sha256 = j.value) ORDER BY e.seq`)
	if err != nil {
		return err
	}
	defer missing.Close()
	for missing.Next() {
		var seq int64
		var name string
		if err := missing.Scan(&seq, &name); err != nil {
			return err
		}
		probs.add(seq, "blobs", "event %d: it names blob %s, which is not stored", seq, name)
	}
	if err := missing.Err(); err != nil {
		return err
	}
	// A blob no event names was added behind the program's back (Record stores a body only
	// with the event that names it).
	return eachRow(ctx, rtx, `SELECT sha256 FROM blobs WHERE sha256 NOT IN (SELECT j.value FROM events e, json_each(e.payload, '$.blobs') j
		WHERE (instr(e.payload, 'blobs') > 0 OR instr(e.payload, '\') > 0) AND json_valid(e.payload)) ORDER BY sha256`, nil, func(rows *sql.Rows) error {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		probs.add(0, "blobs", "blob %s is stored, but no event names it: it was added behind the program's back", name)
		return nil
	})
}

// replay rebuilds the projection tables from the events: in an empty database of the
// audit's own (a full audit), or in the auditor's working copy, which holds them as of
// the events up to from and is extended with the later ones (an incremental audit).
type replay struct {
	file   *auditFile // the database's file while it is the audit's own; nil for a working copy opened in place
	db     *sql.DB    // one connection
	events chan auditBatch
	done   chan error

	// from is the number of events db holds already: the events up to it are skipped.
	from int64
	// track, when set, has run record the key of every row that the events after
	// touchFrom write, delete or change (startTracking), for compareTouched.
	track     bool
	touchFrom int64
	// keep has run leave its transaction open in tx, for the caller to compare and then
	// commit or roll back; without it, run commits.
	keep bool
	tx   *sql.Tx
}

// feedReplay sends the events after from, decoded, to the replay in batches, and closes
// its channel.
func feedReplay(ctx context.Context, q queryer, from int64, to chan<- auditBatch) error {
	defer close(to)
	var b auditBatch
	send := func() {
		b.ready = make(chan struct{})
		close(b.ready)
		to <- b
		b = auditBatch{}
	}
	err := eachEvent(ctx, q, "SELECT seq, v, prev, at, actor, type, key, payload, hash, sig FROM events WHERE seq > ? ORDER BY seq", func(ev Event) {
		p, err := decodeEvent(&ev)
		b.evs, b.decoded, b.decodeErr = append(b.evs, ev), append(b.decoded, p), append(b.decodeErr, err)
		if len(b.evs) == auditBatchSize {
			send()
		}
	}, from)
	if len(b.evs) > 0 {
		send()
	}
	return err
}

// replayPragmas are those of an audit's own database: it is thrown away after the audit
// (or made durable before it is kept, keepAs), so it is written without a journal and
// without fsync.
const replayPragmas = "_pragma=journal_mode(off)&_pragma=synchronous(off)&_pragma=foreign_keys(1)&_pragma=locking_mode(exclusive)&_pragma=cache_size(-65536)&_pragma=temp_store(memory)"

// newReplay makes an empty database of the audit's own, ledger-audit-*.db in dir, locked
// while the audit runs (auditfiles.go), and gives it the ledger's schema.
func newReplay(ctx context.Context, dir string) (*replay, error) {
	f, err := createAuditFile(dir, ".db")
	if err != nil {
		return nil, fmt.Errorf("audit: make a temporary database: %w", err)
	}
	db, err := sql.Open(cachedDriverName, "file:"+f.path+"?"+replayPragmas)
	if err == nil {
		db.SetMaxOpenConns(1)
		err = migrate(ctx, db)
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		f.remove()
		return nil, fmt.Errorf("audit: make a temporary database: %w", err)
	}
	return &replay{file: f, db: db, events: make(chan auditBatch, 4), done: make(chan error, 1)}, nil
}

// run applies every event after from it receives in one transaction, and reports on done
// when the channel is closed. After an error it drains the channel.
func (r *replay) run(ctx context.Context, probs *problemList) {
	tx, err := r.db.Begin()
	leaves := r.from // events in the rebuilt tree: a leaf for each event, in the order given
	tree := newStoredHashes(ctx, tx)
	defer tree.close()
	tracking := false
	for b := range r.events {
		<-b.ready
		if err != nil {
			continue
		}
		evs := b.evs
		for len(evs) > 0 && evs[0].Seq <= r.from {
			evs = evs[1:]
		}
		for i := range evs {
			if r.track && !tracking && evs[i].Seq > r.touchFrom {
				if err = startTracking(ctx, tx); err != nil {
					break
				}
				tracking = true
			}
			j := i + len(b.evs) - len(evs)
			perr := b.decodeErr[j]
			if perr == nil {
				perr = applyDecoded(tx, &evs[i], b.decoded[j])
			}
			if perr != nil {
				probs.add(evs[i].Seq, "", "event %d: replaying it into an empty database fails: %v", evs[i].Seq, perr)
			}
		}
		if err != nil || len(evs) == 0 {
			continue
		}
		_, terr := tree.append(leaves, evs)
		leaves += int64(len(evs))
		if terr != nil {
			probs.add(evs[0].Seq, "tree_hashes", "the Merkle tree cannot be rebuilt from event %d on: %v", evs[0].Seq, terr)
			err = terr
		}
	}
	switch {
	case err == nil && r.keep:
		r.tx = tx
	case err == nil:
		err = tx.Commit()
	case tx != nil:
		tx.Rollback()
	}
	r.done <- err
}

// close rolls back what run left open, closes the database and removes it when it is the
// audit's own.
func (r *replay) close() {
	if r.tx != nil {
		r.tx.Rollback()
		r.tx = nil
	}
	r.db.Close()
	if r.file != nil {
		r.file.remove()
		r.file = nil
	}
}

// keepAs makes the audit's own database the working copy at path: it gives it a journal
// (so that later audits extend it safely), closes it, syncs it to disk and renames it over
// path. After keepAs, r is closed.
func (r *replay) keepAs(ctx context.Context, path string) error {
	if r.file == nil {
		return r.db.Close()
	}
	_, err := r.db.ExecContext(ctx, "PRAGMA journal_mode=DELETE")
	if cerr := r.db.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = r.file.f.Sync()
	}
	if err == nil {
		err = os.Rename(r.file.path, path)
	}
	if err == nil {
		err = syncDir(filepath.Dir(path))
	}
	if err != nil {
		r.file.remove()
		r.file = nil
		return fmt.Errorf("keep the audit's working copy as %s: %w", path, err)
	}
	err = r.file.release()
	r.file = nil
	return err
}

// compareTable walks a projection table in the store and in the replay side by side and
// reports the first row that differs. The rebuilt side is read on a goroutine of its own, a
// bounded number of rows ahead (rowStream), so that the two sides are read on two cores.
func compareTable(ctx context.Context, stored *sql.Tx, rebuilt *sql.DB, t projectionTable, probs *problemList) error {
	q := "SELECT * FROM " + t.name + " ORDER BY " + t.orderBy
	a, err := stored.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := streamRows(ctx, rebuilt, q)
	if err != nil {
		return err
	}
	defer b.close()
	cols, err := a.Columns()
	if err != nil {
		return err
	}
	va, pa := make([]any, len(cols)), make([]any, len(cols))
	for i := range cols {
		pa[i] = &va[i]
	}
	for {
		hasA := a.Next()
		vb, err := b.next()
		if err != nil {
			return err
		}
		hasB := vb != nil
		if !hasA && !hasB {
			break
		}
		if hasA {
			if err = scanValues(a, va, pa); err != nil {
				return err
			}
		}
		switch {
		case !hasB:
			probs.add(0, t.name, "table %s: row %s is in the store but not in the table rebuilt from the events: it was added behind the program's back", t.name, describeRow(cols, showValues(va)))
			return nil
		case !hasA:
			probs.add(0, t.name, "table %s: row %s, rebuilt from the events, is missing from the store", t.name, describeRow(cols, showValues(vb)))
			return nil
		case len(vb) != len(cols):
			return fmt.Errorf("table %s has %d columns in the store but %d when rebuilt", t.name, len(cols), len(vb))
		}
		for i := range cols {
			if !sameValue(va[i], vb[i]) {
				probs.add(0, t.name, "table %s: row %s differs from the table rebuilt from the events: %s is %s in the store but %s when rebuilt", t.name, describeRow(cols[:1], showValues(va[:1])), cols[i], showValue(va[i]), showValue(vb[i]))
				return nil
			}
		}
	}
	return a.Err()
}

// rowStream reads the rows of a query on a goroutine of its own, at most
// rowStreamChunks*rowStreamChunk rows ahead of its reader.
type rowStream struct {
	chunks chan rowChunk
	stop   chan struct{}
	done   chan struct{}
	cur    [][]any
	err    error
}

type rowChunk struct {
	rows [][]any
	err  error
}

const (
	rowStreamChunk  = 256
	rowStreamChunks = 4
)

// streamRows runs query on db and starts reading its rows; close stops it.
func streamRows(ctx context.Context, db *sql.DB, query string) (*rowStream, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	cols, err := rows.Columns()
	if err != nil {
		rows.Close()
		return nil, err
	}
	st := &rowStream{chunks: make(chan rowChunk, rowStreamChunks), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(st.done)
		defer close(st.chunks)
		defer rows.Close()
		send := func(c rowChunk) bool {
			select {
			case st.chunks <- c:
				return true
			case <-st.stop:
				return false
			}
		}
		chunk := make([][]any, 0, rowStreamChunk)
		ptrs := make([]any, len(cols))
		for rows.Next() {
			vals := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				send(rowChunk{err: err})
				return
			}
			if chunk = append(chunk, vals); len(chunk) == rowStreamChunk {
				if !send(rowChunk{rows: chunk}) {
					return
				}
				chunk = make([][]any, 0, rowStreamChunk)
			}
		}
		if len(chunk) > 0 && !send(rowChunk{rows: chunk}) {
			return
		}
		if err := rows.Err(); err != nil {
			send(rowChunk{err: err})
		}
	}()
	return st, nil
}

// next returns the next row, or nil after the last.
func (st *rowStream) next() ([]any, error) {
	for len(st.cur) == 0 {
		if st.err != nil {
			return nil, st.err
		}
		c, ok := <-st.chunks
		if !ok {
			return nil, nil
		}
		st.cur, st.err = c.rows, c.err
	}
	row := st.cur[0]
	st.cur = st.cur[1:]
	return row, nil
}

// close stops the reading goroutine and waits for it to release its rows.
func (st *rowStream) close() {
	close(st.stop)
	<-st.done
}

// scanValues scans a row into vals (through ptrs, pointers to its elements), keeping each
// value's SQLite type: nil, int64, float64, string or []byte.
func scanValues(rows *sql.Rows, vals, ptrs []any) error {
	clear(vals)
	return rows.Scan(ptrs...)
}

// sameValue compares two scanned values type-exactly: NULL and 'NULL', 1 and '1' differ.
func sameValue(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case []byte:
		bb, ok := b.([]byte)
		return ok && bytes.Equal(a, bb)
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case int64:
		bi, ok := b.(int64)
		return ok && a == bi
	case float64:
		bf, ok := b.(float64)
		return ok && a == bf
	}
	return fmt.Sprintf("%T %v", a, a) == fmt.Sprintf("%T %v", b, b)
}

// showValue writes a scanned value as a person reads it, its type kept: NULL, text quoted,
// blobs as x'..', numbers as digits.
func showValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return "x'" + hex.EncodeToString(v) + "'"
	case string:
		return strconv.Quote(v)
	}
	return fmt.Sprint(v)
}

func showValues(vals []any) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = showValue(v)
	}
	return out
}

func describeRow(cols, vals []string) string {
	parts := make([]string, len(cols))
	for i := range cols {
		parts[i] = cols[i] + "=" + vals[i]
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
