package ledger

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// Checkpoints (docs/chain.md, "Checkpoints"): every write transaction ends with a signed
// checkpoint of the tree it leaves, in the C2SP tlog-checkpoint format as a signed note
// (golang.org/x/mod/sumdb/note). The note is signed with the key current after the last
// event it covers (for a key.rotated event, the key it introduces), as an Ed25519 note key
// named by the origin; `ledger keys` prints each key's
// verifier key ("note_key"). A note text is at least three lines and never 32 bytes, so a
// note signature can never be taken for an event signature (made over a 32-byte digest), nor
// the other way round.

// defaultOriginPrefix starts the default origin: the prefix and the ledger's first key id.
const defaultOriginPrefix = "evidence-ledger/"

// Checkpoint is one signed checkpoint: the tree of the first Size events has root Root.
// Note is the signed note as served, with the witnesses' cosignature lines after the
// ledger's own signature.
type Checkpoint struct {
	Origin string
	Size   int64
	Root   tlog.Hash
	Note   []byte
}

// NoteKey returns the signed-note verifier key ("name+hash+base64") of a ledger key for the
// checkpoints of origin.
func NoteKey(origin string, pub ed25519.PublicKey) (string, error) {
	return note.NewEd25519VerifierKey(origin, pub)
}

// noteSigner signs checkpoints with a ledger key.
type noteSigner struct {
	note.Verifier
	priv ed25519.PrivateKey
}

func (s noteSigner) Sign(msg []byte) ([]byte, error) { return ed25519.Sign(s.priv, msg), nil }

func newNoteSigner(origin string, g signer) (noteSigner, error) {
	vkey, err := NoteKey(origin, g.priv.Public().(ed25519.PublicKey))
	if err != nil {
		return noteSigner{}, fmt.Errorf("checkpoint origin %q: %v: %w", origin, err, ErrInvalid)
	}
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return noteSigner{}, fmt.Errorf("checkpoint origin %q: %v: %w", origin, err, ErrInvalid)
	}
	return noteSigner{Verifier: v, priv: g.priv}, nil
}

// checkOrigin accepts an origin that can name a note key: one line of printable characters
// without spaces or '+', at most 255 bytes.
func checkOrigin(origin string) error {
	if origin == "" || len(origin) > 255 || strings.ContainsAny(origin, "+ \t\r\n") || !strings.HasPrefix(strings.TrimSpace(origin), origin) {
		return fmt.Errorf("checkpoint origin %q: want one word of at most 255 bytes, no spaces or '+', like example.com/ledger: %w", origin, ErrInvalid)
	}
	if _, err := NoteKey(origin, make(ed25519.PublicKey, ed25519.PublicKeySize)); err != nil {
		return fmt.Errorf("checkpoint origin %q: %v: %w", origin, err, ErrInvalid)
	}
	return nil
}

// chainOrigin returns the origin of the chain's checkpoints: the one of its latest checkpoint,
// or, before the first one, the configured origin or else the default made from the first
// key's id. A configured origin that differs from the checkpoints' is refused: auditors'
// verifier keys name it.
func chainOrigin(ctx context.Context, q queryer, configured string) (string, error) {
	var text string
	err := q.QueryRowContext(ctx, "SELECT note FROM checkpoints ORDER BY size DESC LIMIT 1").Scan(&text)
	switch {
	case err == nil:
		origin, _, _ := strings.Cut(text, "\n")
		if configured != "" && configured != origin {
			return "", fmt.Errorf("the ledger's checkpoints have origin %q, not %q; an origin never changes, because the verifier keys auditors hold name it: %w", origin, configured, ErrInvalid)
		}
		return origin, nil
	case !errors.Is(err, sql.ErrNoRows):
		return "", fmt.Errorf("read checkpoints: %w", err)
	}
	if configured != "" {
		return configured, nil
	}
	var first string
	err = q.QueryRowContext(ctx, "SELECT id FROM keys ORDER BY seq LIMIT 1").Scan(&first)
	if err != nil {
		return "", fmt.Errorf("read the first key: %w", err)
	}
	return defaultOriginPrefix + first, nil
}

// checkpointText is the body of a C2SP checkpoint.
func checkpointText(origin string, size int64, root tlog.Hash) string {
	return torchwood.Checkpoint{Origin: origin, Tree: tlog.Tree{N: size, Hash: root}}.String()
}

// writeCheckpoint signs a checkpoint of the tree's first size leaves, whose root is root,
// with g and stores it.
func (s *Store) writeCheckpoint(ctx context.Context, tx *sql.Tx, g signer, size int64, root tlog.Hash) error {
	ns, err := s.noteSignerFor(ctx, tx, g)
	if err != nil {
		return err
	}
	origin := ns.Name()
	msg, err := note.Sign(&note.Note{Text: checkpointText(origin, size, root)}, ns)
	if err != nil {
		return fmt.Errorf("checkpoint %d: sign: %w", size, err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO checkpoints (size, root, note) VALUES (?, ?, ?)", size, root[:], string(msg)); err != nil {
		return fmt.Errorf("checkpoint %d: store: %w", size, err)
	}
	return nil
}

// noteSignerFor returns the note signer of g for the chain's origin. Once the chain has a
// checkpoint its origin is fixed, so the signer is kept for the next transactions.
func (s *Store) noteSignerFor(ctx context.Context, tx *sql.Tx, g signer) (noteSigner, error) {
	s.mu.Lock()
	cached := s.note
	s.mu.Unlock()
	if cached.priv != nil && cached.priv.Equal(g.priv) {
		return cached, nil
	}
	origin, err := chainOrigin(ctx, tx, s.origin)
	if err != nil {
		return noteSigner{}, err
	}
	ns, err := newNoteSigner(origin, g)
	if err != nil {
		return noteSigner{}, err
	}
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM checkpoints LIMIT 1)").Scan(&n); err == nil && n == 1 {
		s.mu.Lock()
		s.note = ns
		s.mu.Unlock()
	}
	return ns, nil
}

// Checkpoint returns the latest signed checkpoint with the cosignatures witnesses returned
// for it. It fails with an error wrapping [ErrNotFound] when the ledger has none.
func (s *Store) Checkpoint(ctx context.Context) (Checkpoint, error) {
	s.awaitCheckpoint(ctx)
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint: %w", err)
	}
	defer tx.Rollback()
	return latestCheckpoint(ctx, tx)
}

func latestCheckpoint(ctx context.Context, q *sql.Tx) (Checkpoint, error) {
	var size int64
	var text string
	err := q.QueryRowContext(ctx, "SELECT size, note FROM checkpoints ORDER BY size DESC LIMIT 1").Scan(&size, &text)
	if errors.Is(err, sql.ErrNoRows) {
		return Checkpoint{}, fmt.Errorf("checkpoint: the ledger has none yet; open it once with write access: %w", ErrNotFound)
	}
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint: %w", err)
	}
	cp, err := parseCheckpointNote([]byte(text))
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint %d: %w", size, err)
	}
	var lines []string
	err = eachRow(ctx, q, "SELECT line FROM cosignatures WHERE size = ? ORDER BY witness", []any{size}, func(rows *sql.Rows) error {
		var l string
		if err := rows.Scan(&l); err != nil {
			return err
		}
		lines = append(lines, l)
		return nil
	})
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint %d: read cosignatures: %w", size, err)
	}
	for _, l := range lines {
		cp.Note = append(cp.Note, l+"\n"...)
	}
	return cp, nil
}

// parseCheckpointNote reads a signed checkpoint note without verifying any signature: its
// origin, size and root. The error wraps [ErrInvalid].
func parseCheckpointNote(msg []byte) (Checkpoint, error) {
	text, _, ok := bytes.Cut(msg, []byte("\n\n"))
	if !ok {
		return Checkpoint{}, fmt.Errorf("not a signed note: no blank line before the signatures: %w", ErrInvalid)
	}
	c, err := torchwood.ParseCheckpoint(string(text) + "\n")
	if err != nil {
		return Checkpoint{}, fmt.Errorf("not a C2SP checkpoint (origin, size and base64 root, one a line): %v: %w", err, ErrInvalid)
	}
	return Checkpoint{Origin: c.Origin, Size: c.N, Root: c.Hash, Note: append([]byte(nil), msg...)}, nil
}

// OpenCheckpoint verifies a signed checkpoint note with the verifier keys given
// ("name+hash+base64", as `ledger keys` prints them under note_key) and returns it. At least
// one of the keys must have signed it. witnesses are cosigner verifier keys (C2SP
// tlog-cosignature, as a witness publishes them): each must have cosigned it. The error says
// what is wrong and wraps [ErrInvalid].
func OpenCheckpoint(msg []byte, noteKeys []string, witnesses []string) (Checkpoint, error) {
	var vs []note.Verifier
	for _, k := range noteKeys {
		v, err := note.NewVerifier(k)
		if err != nil {
			return Checkpoint{}, fmt.Errorf("verifier key %q: %v: %w", k, err, ErrInvalid)
		}
		vs = append(vs, v)
	}
	var ws []note.Verifier
	for _, k := range witnesses {
		v, err := newCosignatureVerifier(k)
		if err != nil {
			return Checkpoint{}, err
		}
		ws = append(ws, v)
	}
	n, err := note.Open(msg, note.VerifierList(append(append([]note.Verifier{}, vs...), ws...)...))
	if err != nil {
		return Checkpoint{}, fmt.Errorf("the checkpoint does not verify under the keys given: %v: %w", err, ErrInvalid)
	}
	signed := map[string]bool{}
	for _, sg := range n.Sigs {
		signed[sg.Name+"+"+strconv.FormatUint(uint64(sg.Hash), 16)] = true
	}
	ledgerSigned := false
	for _, v := range vs {
		ledgerSigned = ledgerSigned || signed[v.Name()+"+"+strconv.FormatUint(uint64(v.KeyHash()), 16)]
	}
	if !ledgerSigned {
		return Checkpoint{}, fmt.Errorf("the checkpoint is not signed by any of the ledger's keys given: %w", ErrInvalid)
	}
	for i, w := range ws {
		if !signed[w.Name()+"+"+strconv.FormatUint(uint64(w.KeyHash()), 16)] {
			return Checkpoint{}, fmt.Errorf("the checkpoint carries no valid cosignature by witness %s (%s): %w", w.Name(), witnesses[i], ErrInvalid)
		}
	}
	cp, err := parseCheckpointNote(msg)
	if err != nil {
		return Checkpoint{}, err
	}
	for _, v := range vs {
		if v.Name() != cp.Origin {
			continue
		}
		return cp, nil
	}
	return Checkpoint{}, fmt.Errorf("the checkpoint's origin %q is not the name of the ledger key that signed it: %w", cp.Origin, ErrInvalid)
}

// rootB64 is the standard base64 of a hash.
func rootB64(h tlog.Hash) string { return base64.StdEncoding.EncodeToString(h[:]) }

// parseRoot reads a hash that rootB64 wrote.
func parseRoot(s string) (tlog.Hash, error) {
	var h tlog.Hash
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) != len(h) {
		return h, fmt.Errorf("%q is not the standard base64 of 32 bytes: %w", s, ErrInvalid)
	}
	copy(h[:], b)
	return h, nil
}
