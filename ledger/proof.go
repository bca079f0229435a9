package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/tlog"
)

// InclusionProof is an RFC 6962 proof that event Seq (leaf index Seq-1) is in the tree of the
// first Size events, whose root is Root. Hashes are standard base64.
type InclusionProof struct {
	Seq   int64    `json:"seq"`
	Size  int64    `json:"size"`
	Leaf  string   `json:"leaf_hash"`
	Root  string   `json:"root"`
	Proof []string `json:"proof"`
}

// ConsistencyProof is an RFC 6962 proof that the tree of the first To events (root Root)
// extends the tree of the first From events (root FromRoot). Hashes are standard base64.
type ConsistencyProof struct {
	From     int64    `json:"from"`
	To       int64    `json:"to"`
	FromRoot string   `json:"from_root"`
	Root     string   `json:"root"`
	Proof    []string `json:"proof"`
}

// proofTx begins a read transaction and returns the tree size it sees.
func (s *Store) proofTx(ctx context.Context) (*sql.Tx, int64, error) {
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, err
	}
	size, err := treeSize(ctx, tx)
	if err != nil {
		tx.Rollback()
		return nil, 0, err
	}
	return tx, size, nil
}

// InclusionProof proves that event seq is in the tree of the first size events. It reads
// O(log size) stored hashes. seq must be 1 to size and size at most the tree's size;
// otherwise the error wraps [ErrInvalid].
func (s *Store) InclusionProof(ctx context.Context, seq, size int64) (InclusionProof, error) {
	tx, have, err := s.proofTx(ctx)
	if err != nil {
		return InclusionProof{}, fmt.Errorf("inclusion proof: %w", err)
	}
	defer tx.Rollback()
	if seq < 1 || size < seq || size > have {
		return InclusionProof{}, fmt.Errorf("inclusion proof of event %d in the tree of size %d: want 1 <= seq <= size <= %d (the log's size): %w", seq, size, have, ErrInvalid)
	}
	r := newStoredHashes(ctx, tx)
	defer r.close()
	p, err := tlog.ProveRecord(size, seq-1, r)
	if err != nil {
		return InclusionProof{}, fmt.Errorf("inclusion proof: %w", err)
	}
	leaf, err := r.ReadHashes([]int64{tlog.StoredHashIndex(0, seq-1)})
	if err != nil {
		return InclusionProof{}, fmt.Errorf("inclusion proof: %w", err)
	}
	root, err := treeRoot(ctx, tx, size)
	if err != nil {
		return InclusionProof{}, fmt.Errorf("inclusion proof: %w", err)
	}
	return InclusionProof{Seq: seq, Size: size, Leaf: rootB64(leaf[0]), Root: rootB64(root), Proof: b64Hashes(p)}, nil
}

// ConsistencyProof proves that the tree of the first to events extends the tree of the first
// from events. It reads O(log to) stored hashes. from must be 1 to to, and to at most the
// tree's size; otherwise the error wraps [ErrInvalid].
func (s *Store) ConsistencyProof(ctx context.Context, from, to int64) (ConsistencyProof, error) {
	tx, have, err := s.proofTx(ctx)
	if err != nil {
		return ConsistencyProof{}, fmt.Errorf("consistency proof: %w", err)
	}
	defer tx.Rollback()
	if from < 1 || to < from || to > have {
		return ConsistencyProof{}, fmt.Errorf("consistency proof from size %d to size %d: want 1 <= from <= to <= %d (the log's size): %w", from, to, have, ErrInvalid)
	}
	r := newStoredHashes(ctx, tx)
	defer r.close()
	p, err := tlog.ProveTree(to, from, r)
	if err != nil {
		return ConsistencyProof{}, fmt.Errorf("consistency proof: %w", err)
	}
	old, err := treeRoot(ctx, tx, from)
	if err != nil {
		return ConsistencyProof{}, fmt.Errorf("consistency proof: %w", err)
	}
	root, err := treeRoot(ctx, tx, to)
	if err != nil {
		return ConsistencyProof{}, fmt.Errorf("consistency proof: %w", err)
	}
	return ConsistencyProof{From: from, To: to, FromRoot: rootB64(old), Root: rootB64(root), Proof: b64Hashes(p)}, nil
}

func b64Hashes(hs []tlog.Hash) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = rootB64(h)
	}
	return out
}

func hashBytes(hs []tlog.Hash) [][]byte {
	out := make([][]byte, len(hs))
	for i := range hs {
		out[i] = hs[i][:]
	}
	return out
}

// bundleHeader is the first line of a proof bundle (C2SP tlog-proof).
const bundleHeader = "c2sp.org/tlog-proof@v1"

// ProofBundle returns a C2SP tlog-proof for event seq: its "extra" line is the standard
// base64 of the event's exported JSON line (docs/chain.md), its index is seq-1, and its
// inclusion proof is against the latest checkpoint, which ends the bundle with the
// witnesses' cosignatures. Whoever holds the bundle and the ledger's keys can check the one
// event offline ([VerifyBundle]). An unknown seq wraps [ErrNotFound].
func (s *Store) ProofBundle(ctx context.Context, seq int64) ([]byte, error) {
	s.awaitCheckpoint(ctx)
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("proof bundle: %w", err)
	}
	defer tx.Rollback()
	var ev *Event
	err = eachEvent(ctx, tx, "SELECT seq, v, prev, at, actor, type, key, payload, hash, sig FROM events WHERE seq = ?", func(e Event) { ev = &e }, seq)
	if err != nil {
		return nil, fmt.Errorf("proof bundle: %w", err)
	}
	if ev == nil {
		return nil, fmt.Errorf("proof bundle: event %d: %w", seq, ErrNotFound)
	}
	cp, err := latestCheckpoint(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("proof bundle: %w", err)
	}
	if cp.Size < seq {
		return nil, fmt.Errorf("proof bundle: event %d is not yet covered by a checkpoint; the server signs one within a second of a write (a ledger no server holds: open it for writing once): %w", seq, ErrNotFound)
	}
	r := newStoredHashes(ctx, tx)
	defer r.close()
	p, err := tlog.ProveRecord(cp.Size, seq-1, r)
	if err != nil {
		return nil, fmt.Errorf("proof bundle: %w", err)
	}
	// The event's line exactly as Export writes it (HTML characters unescaped).
	var lb bytes.Buffer
	enc := json.NewEncoder(&lb)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ev); err != nil {
		return nil, fmt.Errorf("proof bundle: %w", err)
	}
	line := bytes.TrimSuffix(lb.Bytes(), []byte("\n"))
	var b bytes.Buffer
	b.WriteString(bundleHeader + "\n")
	b.WriteString("extra " + base64.StdEncoding.EncodeToString(line) + "\n")
	b.WriteString("index " + strconv.FormatInt(seq-1, 10) + "\n")
	for _, h := range p {
		b.WriteString(rootB64(h) + "\n")
	}
	b.WriteString("\n")
	b.Write(cp.Note)
	return b.Bytes(), nil
}

// ClaimBundleSeq returns the event a claim's proof bundle proves: the latest check of any
// of its citations, or, for a claim never checked, the batch.imported event that brought it.
// An unknown claim wraps [ErrNotFound].
func (s *Store) ClaimBundleSeq(ctx context.Context, claim string) (int64, error) {
	var seq sql.NullInt64
	err := s.rdb.QueryRowContext(ctx, `SELECT coalesce((SELECT max(last_check) FROM citations WHERE claim = c.id), b.seq)
		FROM claims c JOIN batches b ON b.id = c.batch WHERE c.id = ?`, claim).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !seq.Valid) {
		return 0, fmt.Errorf("claim %q: %w", claim, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("claim %s: %w", claim, err)
	}
	return seq.Int64, nil
}

// VerifyBundle checks a proof bundle offline, with nothing but the keys document the holder
// trusts (and, if given, witnesses whose cosignatures are required): the checkpoint verifies
// under one of the keys' note keys; the event is well formed (the strict rules of the export
// audit), its hash is the SHA-256 of its canonical form and its signature verifies under its
// key, which must be in keys; and the inclusion proof leads from the event's hash at index
// seq-1 to the checkpoint's root (checked with the transparency-dev verifier). It returns
// the event. The error says what failed and wraps [ErrInvalid].
func VerifyBundle(bundle []byte, keys *KeyHistory, witnesses []string) (Event, error) {
	bad := func(format string, args ...any) (Event, error) {
		return Event{}, fmt.Errorf("proof bundle: "+format+": %w", append(args, ErrInvalid)...)
	}
	head, note, ok := bytes.Cut(bundle, []byte("\n\n"))
	if !ok {
		return bad("no blank line before the checkpoint")
	}
	lines := strings.Split(string(head), "\n")
	if len(lines) < 3 || lines[0] != bundleHeader {
		return bad("it does not begin with %q, an extra line and an index line", bundleHeader)
	}
	extra, ok1 := strings.CutPrefix(lines[1], "extra ")
	idx, ok2 := strings.CutPrefix(lines[2], "index ")
	if !ok1 || !ok2 {
		return bad("want the lines \"extra <base64 event>\" and \"index <N>\" after the first")
	}
	line, err := base64.StdEncoding.Strict().DecodeString(extra)
	if err != nil {
		return bad("its extra line is not standard base64")
	}
	index, err := strconv.ParseInt(idx, 10, 64)
	if err != nil || index < 0 || strconv.FormatInt(index, 10) != idx {
		return bad("its index %q is not a whole number", idx)
	}
	var path [][]byte
	for _, l := range lines[3:] {
		h, err := base64.StdEncoding.Strict().DecodeString(l)
		if err != nil || len(h) != 32 {
			return bad("proof line %q is not the base64 of 32 bytes", l)
		}
		path = append(path, h)
	}
	if keys == nil {
		return bad("no keys to check it with")
	}
	cp, err := OpenCheckpoint(note, keys.NoteKeys, witnesses)
	if err != nil {
		return bad("its checkpoint: %v", err)
	}
	ev, err := ParseEvent(line)
	if err != nil {
		return bad("its event: %v", err)
	}
	if ev.Seq != index+1 {
		return bad("its event has seq %d, but its index is %d (want seq - 1)", ev.Seq, index)
	}
	pub, ok := keys.Pub[ev.Key]
	if !ok {
		return bad("its event is signed with key %s, which is not in the keys file", ev.Key)
	}
	probs := &problemList{}
	(&chainChecker{probs: probs}).verify(&ev, pub)
	if len(probs.list) > 0 {
		return bad("%s", probs.list[0].Problem)
	}
	leaf, err := leafData(&ev)
	if err != nil {
		return bad("%v", err)
	}
	if err := proof.VerifyInclusion(rfc6962.DefaultHasher, uint64(index), uint64(cp.Size), rfc6962.DefaultHasher.HashLeaf(leaf), path, cp.Root[:]); err != nil {
		return bad("its inclusion proof does not lead to the checkpoint's root: %v", err)
	}
	return ev, nil
}
