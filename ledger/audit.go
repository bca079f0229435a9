package ledger

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
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
	OK       bool      `json:"ok"`
	Events   int64     `json:"events"`
	Head     string    `json:"head"`
	Problems []Problem `json:"problems"`
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

func (p *problemList) report(events int64, head string) Report {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sortAndTrim()
	list := append([]Problem{}, p.list...)
	return Report{OK: len(list) == 0, Events: events, Head: head, Problems: list}
}

// auditBatch is a run of consecutive events handed to the signature workers (and, in Audit,
// to the replay). pubs[i] is the key evs[i] must verify under, or nil when the event cannot
// be verified (the problem has been reported).
type auditBatch struct {
	evs  []Event
	pubs []ed25519.PublicKey
}

// auditBatchSize is the number of events per batch: large enough that channel hand-offs cost
// nothing next to the signature checks, small enough to keep memory bounded.
const auditBatchSize = 256

// chainChecker checks a stream of events in seq order: links, times, actors and which key is
// current, sequentially; hashes and signatures on runtime.NumCPU workers. It holds no more
// than a bounded queue of batches.
type chainChecker struct {
	probs   *problemList
	anchors map[string]ed25519.PublicKey // trusted keys (offline audit), or nil

	next    int64
	prev    string
	lastAt  time.Time
	current string
	pub     ed25519.PublicKey
	events  int64
	head    string

	batch  auditBatch
	jobs   chan auditBatch
	replay chan<- []Event // also receives every batch's events, or nil
	wg     sync.WaitGroup
}

// newChainChecker starts the signature workers. Set replay before the first add to have
// every batch of events sent there too (after the workers have it); closeQueue closes it.
func newChainChecker(probs *problemList, anchors map[string]ed25519.PublicKey) *chainChecker {
	workers := runtime.NumCPU()
	c := &chainChecker{probs: probs, anchors: anchors, next: 1, prev: zeroHash, jobs: make(chan auditBatch, 2*workers)}
	for range workers {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			for b := range c.jobs {
				for i := range b.evs {
					if b.pubs[i] != nil {
						c.verify(&b.evs[i], b.pubs[i])
					}
				}
			}
		}()
	}
	return c
}

// verify re-hashes an event and checks its signature. A payload already in canonical form
// (as Record stores it) is hashed as it is; any other is canonicalized first.
func (c *chainChecker) verify(ev *Event, pub ed25519.PublicKey) {
	var d [32]byte
	if canonicalJSON(ev.Payload) {
		d = sha256.Sum256(ev.canonicalWith(ev.Payload))
	} else {
		var err error
		if d, err = ev.digest(); err != nil {
			c.probs.add(ev.Seq, "", "event %d: it cannot be canonicalized, so its hash cannot be checked: %v", ev.Seq, err)
			return
		}
	}
	var hx [2 * sha256.Size]byte
	hex.Encode(hx[:], d[:])
	if string(hx[:]) != ev.Hash {
		c.probs.add(ev.Seq, "", "event %d: the event was changed after it was signed: its hash does not match its contents", ev.Seq)
		return
	}
	sig, err := base64.StdEncoding.DecodeString(ev.Sig)
	if err != nil || !ed25519.Verify(pub, d[:], sig) {
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
	pub, ok := c.keyOf(&ev)
	if !ok {
		pub = nil
	}
	c.batch.evs = append(c.batch.evs, ev)
	c.batch.pubs = append(c.batch.pubs, pub)
	if len(c.batch.evs) == auditBatchSize {
		c.flush()
	}
}

// flush hands the pending batch to the workers and the replay.
func (c *chainChecker) flush() {
	if len(c.batch.evs) == 0 {
		return
	}
	c.jobs <- c.batch
	if c.replay != nil {
		c.replay <- c.batch.evs
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
		if a, ok := c.anchors[p.KeyID]; !ok || !bytes.Equal(a, pub) {
			c.probs.add(ev.Seq, "", "event %d: it introduces key %s, which is not in the keys file", ev.Seq, p.KeyID)
			return "", nil, false
		}
	}
	return p.KeyID, pub, true
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
	rtx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return Report{}, fmt.Errorf("audit: %w", err)
	}
	defer rtx.Rollback()
	rp, err := newReplay(ctx)
	if err != nil {
		return Report{}, err
	}
	defer rp.close()

	probs := &problemList{}
	c := newChainChecker(probs, nil)
	c.replay = rp.events
	go rp.run(probs)
	err = eachEvent(ctx, rtx, "SELECT seq, v, prev, at, actor, type, key, payload, hash, sig FROM events ORDER BY seq", c.add)
	c.closeQueue()
	defer c.wg.Wait()
	if rerr := <-rp.done; err == nil {
		err = rerr
	}
	if err != nil {
		return Report{}, fmt.Errorf("audit: %w", err)
	}
	// The workers may still be checking the last signatures. Blob and table problems go to
	// a list of their own, appended after them, so that the report lists problems in the
	// same order as if each step had waited for the one before.
	stored := &problemList{}
	if err := checkBlobs(ctx, rtx, stored); err != nil {
		return Report{}, fmt.Errorf("audit: %w", err)
	}
	for _, t := range projectionTables {
		if err := compareTable(ctx, rtx, rp.db, t, stored); err != nil {
			return Report{}, fmt.Errorf("audit: compare table %s: %w", t.name, err)
		}
	}
	c.wg.Wait()
	probs.addAll(stored)
	return probs.report(c.events, c.head), nil
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
	return missing.Err()
}

// replay rebuilds the projection tables in an empty temporary database.
type replay struct {
	dir    string
	db     *sql.DB
	events chan []Event
	done   chan error
}

// newReplay makes the temporary database. It is thrown away after the audit, so it is
// written without a journal and without fsync.
func newReplay(ctx context.Context) (*replay, error) {
	dir, err := os.MkdirTemp("", "ledger-audit-")
	if err != nil {
		return nil, fmt.Errorf("audit: make a temporary database: %w", err)
	}
	path := filepath.Join(dir, "replay.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(off)&_pragma=synchronous(off)&_pragma=foreign_keys(1)")
	if err == nil {
		db.SetMaxOpenConns(1)
		err = migrate(ctx, db)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("audit: make a temporary database: %w", err)
	}
	return &replay{dir: dir, db: db, events: make(chan []Event, 4), done: make(chan error, 1)}, nil
}

// run applies every event it receives in one transaction, and reports on done when the
// channel is closed. After an error it drains the channel.
func (r *replay) run(probs *problemList) {
	tx, err := r.db.Begin()
	for evs := range r.events {
		if err != nil {
			continue
		}
		for i := range evs {
			if perr := apply(tx, &evs[i]); perr != nil {
				probs.add(evs[i].Seq, "", "event %d: replaying it into an empty database fails: %v", evs[i].Seq, perr)
			}
		}
	}
	if err == nil {
		err = tx.Commit()
	}
	r.done <- err
}

func (r *replay) close() {
	r.db.Close()
	os.RemoveAll(r.dir)
}

// compareTable walks a projection table in the store and in the replay side by side and
// reports the first row that differs.
func compareTable(ctx context.Context, stored *sql.Tx, rebuilt *sql.DB, t projectionTable, probs *problemList) error {
	q := "SELECT * FROM " + t.name + " ORDER BY " + t.orderBy
	a, err := stored.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := rebuilt.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer b.Close()
	cols, err := a.Columns()
	if err != nil {
		return err
	}
	for row := 1; ; row++ {
		hasA, hasB := a.Next(), b.Next()
		if !hasA && !hasB {
			break
		}
		var va, vb []string
		if hasA {
			if va, err = scanStrings(a, len(cols)); err != nil {
				return err
			}
		}
		if hasB {
			if vb, err = scanStrings(b, len(cols)); err != nil {
				return err
			}
		}
		switch {
		case !hasB:
			probs.add(0, t.name, "table %s: row %s is in the store but not in the table rebuilt from the events: it was added behind the program's back", t.name, describeRow(cols, va))
			return nil
		case !hasA:
			probs.add(0, t.name, "table %s: row %s, rebuilt from the events, is missing from the store", t.name, describeRow(cols, vb))
			return nil
		}
		for i := range cols {
			if va[i] != vb[i] {
				probs.add(0, t.name, "table %s: row %s differs from the table rebuilt from the events: %s is %q in the store but %q when rebuilt", t.name, describeRow(cols[:1], va[:1]), cols[i], va[i], vb[i])
				return nil
			}
		}
	}
	if err := a.Err(); err != nil {
		return err
	}
	return b.Err()
}

// scanStrings scans a row's columns as text, with NULL as "NULL" and a type tag so that 1 and
// "1" differ.
func scanStrings(rows *sql.Rows, n int) ([]string, error) {
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	out := make([]string, n)
	for i, v := range vals {
		switch v := v.(type) {
		case nil:
			out[i] = "NULL"
		case []byte:
			out[i] = "x'" + hex.EncodeToString(v) + "'"
		case string:
			out[i] = v
		default:
			out[i] = fmt.Sprint(v)
		}
	}
	return out, nil
}

func describeRow(cols, vals []string) string {
	parts := make([]string, len(cols))
	for i := range cols {
		parts[i] = cols[i] + "=" + vals[i]
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
