package ledger

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Key file names inside the data directory. A rotation writes the new key to
// keyFileName+".new" before its event commits and renames it over the old one after.
const (
	keyFileName    = "signing.key"
	newKeySuffix   = ".new"
	typeKeyCreated = "key.created"
	typeKeyRotated = "key.rotated"
)

// PublicKey is one signing key of the chain, as `ledger keys` and GET /api/keys print it.
type PublicKey struct {
	ID        string `json:"id"`         // first 16 lowercase hex characters of SHA-256(public key)
	Alg       string `json:"alg"`        // always "Ed25519"
	PublicKey string `json:"public_key"` // standard base64 of the 32-byte public key
	// NoteKey is the key's signed-note verifier key for the ledger's checkpoints,
	// "<origin>+<8 hex>+<base64>" (golang.org/x/mod/sumdb/note); absent before the ledger's
	// first checkpoint and in keys files written before checkpoints existed.
	NoteKey string `json:"note_key,omitempty"`
}

// KeySet is the document `ledger keys` prints: every key the chain has used, oldest first.
type KeySet struct {
	Keys []PublicKey `json:"keys"`
}

// keyPayload is the payload of key.created and key.rotated.
type keyPayload struct {
	KeyID     string `json:"key_id"`
	PublicKey string `json:"public_key"`
}

// KeyID returns the id of an Ed25519 public key: the first 16 lowercase hex characters of the
// SHA-256 of its 32 raw bytes.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

// Keys returns every key the chain has used, oldest first, each with its verifier key for
// the ledger's checkpoints.
func (s *Store) Keys(ctx context.Context) (KeySet, error) {
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return KeySet{}, fmt.Errorf("list keys: %w", err)
	}
	defer tx.Rollback()
	set := KeySet{Keys: []PublicKey{}}
	err = eachRow(ctx, tx, "SELECT id, public_key FROM keys ORDER BY seq", nil, func(rows *sql.Rows) error {
		k := PublicKey{Alg: "Ed25519"}
		if err := rows.Scan(&k.ID, &k.PublicKey); err != nil {
			return err
		}
		set.Keys = append(set.Keys, k)
		return nil
	})
	if err != nil {
		return KeySet{}, fmt.Errorf("list keys: %w", err)
	}
	if len(set.Keys) == 0 {
		return set, nil
	}
	origin, err := chainOrigin(ctx, tx, s.origin)
	if err != nil {
		return KeySet{}, fmt.Errorf("list keys: %w", err)
	}
	for i, k := range set.Keys {
		pub, err := decodePublicKey(k.PublicKey)
		if err != nil {
			return KeySet{}, fmt.Errorf("list keys: key %s: %w", k.ID, err)
		}
		if set.Keys[i].NoteKey, err = NoteKey(origin, pub); err != nil {
			return KeySet{}, fmt.Errorf("list keys: key %s: %w", k.ID, err)
		}
	}
	return set, nil
}

// KeyHistory is a keys document an auditor trusts, read by [ParseKeys]: the chain's keys in
// the order the chain must introduce them (key.created, then each key.rotated).
type KeyHistory struct {
	IDs      []string                     // key ids, oldest first
	Pub      map[string]ed25519.PublicKey // the keys by id
	NoteKeys []string                     // the keys' checkpoint verifier keys, where given
}

// ParseKeys reads a keys document ({"keys":[...]}, as `ledger keys` prints it) and returns
// the keys in order. It fails with an error wrapping [ErrInvalid] when the document is not
// that shape, a key is not a 32-byte Ed25519 key in standard base64, an id does not match its
// key, a key is listed twice, or a note key is not the Ed25519 note key of its key.
func ParseKeys(r io.Reader) (*KeyHistory, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var set KeySet
	if err := dec.Decode(&set); err != nil {
		return nil, fmt.Errorf("read keys file: it is not a {\"keys\":[...]} document as `ledger keys` prints: %v: %w", err, ErrInvalid)
	}
	h := &KeyHistory{Pub: make(map[string]ed25519.PublicKey, len(set.Keys))}
	for i, k := range set.Keys {
		pub, err := decodePublicKey(k.PublicKey)
		if err != nil {
			return nil, fmt.Errorf("read keys file: key %d: %w", i+1, err)
		}
		if k.Alg != "Ed25519" {
			return nil, fmt.Errorf("read keys file: key %d: alg is %q, want \"Ed25519\": %w", i+1, k.Alg, ErrInvalid)
		}
		if id := KeyID(pub); id != k.ID {
			return nil, fmt.Errorf("read keys file: key %d: id %q does not match its public key (which has id %s): %w", i+1, k.ID, id, ErrInvalid)
		}
		if _, dup := h.Pub[k.ID]; dup {
			return nil, fmt.Errorf("read keys file: key %d: key %s is listed twice: %w", i+1, k.ID, ErrInvalid)
		}
		if k.NoteKey != "" {
			name, _, _ := strings.Cut(k.NoteKey, "+")
			if want, err := NoteKey(name, pub); err != nil || want != k.NoteKey {
				return nil, fmt.Errorf("read keys file: key %d: note_key %q is not the checkpoint key of public key %s: %w", i+1, k.NoteKey, k.PublicKey, ErrInvalid)
			}
			h.NoteKeys = append(h.NoteKeys, k.NoteKey)
		}
		h.IDs = append(h.IDs, k.ID)
		h.Pub[k.ID] = pub
	}
	return h, nil
}

// decodePublicKey decodes the standard base64 of a 32-byte Ed25519 public key.
func decodePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != ed25519.PublicKeySize || base64.StdEncoding.EncodeToString(b) != s {
		return nil, fmt.Errorf("public key %q is not the standard base64 of 32 bytes: %w", s, ErrInvalid)
	}
	return ed25519.PublicKey(b), nil
}

// newSigner makes a fresh random signing key.
func newSigner() (signer, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return signer{}, fmt.Errorf("generate signing key: %w", err)
	}
	return signer{id: KeyID(priv.Public().(ed25519.PublicKey)), priv: priv}, nil
}

func (g signer) publicB64() string {
	return base64.StdEncoding.EncodeToString(g.priv.Public().(ed25519.PublicKey))
}

// readKeyFile reads a key file: the standard base64 of the 32-byte Ed25519 seed and a newline.
// It refuses a file that others than its owner may read or write.
func readKeyFile(path string) (signer, error) {
	st, err := os.Stat(path)
	if err != nil {
		return signer{}, err
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return signer{}, fmt.Errorf("signing key %s has mode %04o, so others may read it; run `chmod 600 %s` and try again: %w", path, perm, path, ErrInvalid)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return signer{}, fmt.Errorf("read signing key: %w", err)
	}
	seed, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return signer{}, fmt.Errorf("signing key %s is damaged (not the base64 of a 32-byte Ed25519 seed); restore it from your backup: %w", path, ErrInvalid)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	return signer{id: KeyID(priv.Public().(ed25519.PublicKey)), priv: priv}, nil
}

// writeKeyFile writes g to path with mode 0600 and syncs it and its directory. With excl it
// fails (fs.ErrExist) if path exists; the file then appears complete or not at all, so a
// concurrent reader never sees it half written.
func writeKeyFile(path string, g signer, excl bool) error {
	target := path
	if excl {
		target = path + ".tmp-" + hex.EncodeToString(g.priv.Public().(ed25519.PublicKey)[:8])
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = io.WriteString(f, base64.StdEncoding.EncodeToString(g.priv.Seed())+"\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && excl {
		err = os.Link(target, path)
		os.Remove(target)
	}
	if err != nil {
		return fmt.Errorf("write signing key %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// chainKey returns the id of the chain's current key, or "" for an empty chain.
func chainKey(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (string, error) {
	var id string
	err := q.QueryRowContext(ctx, "SELECT id FROM keys ORDER BY seq DESC LIMIT 1").Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// loadKey loads the signing key at Open. On an empty chain it creates the key file (unless
// one is there) and records key.created; otherwise the key file must hold the chain's current
// key. A rotation interrupted after its event committed is completed here.
func (s *Store) loadKey(ctx context.Context) error {
	path := filepath.Join(s.dir, keyFileName)
	current, err := chainKey(ctx, s.rdb)
	if err != nil {
		return fmt.Errorf("open ledger: read current key: %w", err)
	}
	if current == "" {
		return s.createFirstKey(ctx, path)
	}
	g, err := readKeyFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("open ledger: signing key %s is missing, but the ledger already has events signed with key %s; restore the key file from your backup (a new key would not continue the chain): %w", path, current, err)
	}
	if err != nil {
		return fmt.Errorf("open ledger: %w", err)
	}
	if g.id != current {
		if pending, perr := readKeyFile(path + newKeySuffix); perr == nil && pending.id == current {
			if err := os.Rename(path+newKeySuffix, path); err != nil {
				return fmt.Errorf("open ledger: finish key rotation: %w", err)
			}
			if err := syncDir(s.dir); err != nil {
				return fmt.Errorf("open ledger: finish key rotation: %w", err)
			}
			g = pending
		} else {
			return fmt.Errorf("open ledger: signing key %s has id %s, but the chain's current key is %s; restore the right key file from your backup: %w", path, g.id, current, ErrInvalid)
		}
	}
	s.signer = g
	return nil
}

// createFirstKey makes (or reuses) the key file of a new ledger and records key.created.
func (s *Store) createFirstKey(ctx context.Context, path string) error {
	g, err := readKeyFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if g, err = newSigner(); err != nil {
			return err
		}
		if err = writeKeyFile(path, g, true); errors.Is(err, fs.ErrExist) {
			// Another process created it first; use that one.
			g, err = readKeyFile(path)
		}
	}
	if err != nil {
		return fmt.Errorf("open ledger: %w", err)
	}
	s.signer = g
	item, err := prepareDraft(Draft{Type: typeKeyCreated, Payload: keyPayload{KeyID: g.id, PublicKey: g.publicB64()}})
	if err != nil {
		return err
	}
	_, err = s.record(ctx, "system", []preparedDraft{item}, recordOpts{genesis: true})
	if err != nil && !errors.Is(err, errAlreadyStarted) {
		return fmt.Errorf("open ledger: record the first key: %w", err)
	}
	return nil
}

// RotateKey makes a new signing key and introduces it through a key.rotated event signed by
// the current key; later events are signed with the new key. The old private key is
// overwritten and never used again. It returns the new key's id.
//
// The new key is written to signing.key.new before the event commits and renamed over
// signing.key after; if the process stops in between, the next Open completes the rename.
func (s *Store) RotateKey(ctx context.Context) (string, error) {
	g, err := newSigner()
	if err != nil {
		return "", err
	}
	path := filepath.Join(s.dir, keyFileName)
	if err := writeKeyFile(path+newKeySuffix, g, false); err != nil {
		return "", fmt.Errorf("rotate key: %w", err)
	}
	item, err := prepareDraft(Draft{Type: typeKeyRotated, Payload: keyPayload{KeyID: g.id, PublicKey: g.publicB64()}})
	if err != nil {
		return "", err
	}
	if _, err := s.record(ctx, "system", []preparedDraft{item}, recordOpts{next: &g}); err != nil {
		os.Remove(path + newKeySuffix)
		return "", fmt.Errorf("rotate key: %w", err)
	}
	if err := os.Rename(path+newKeySuffix, path); err != nil {
		return "", fmt.Errorf("rotate key: the new key is in the chain but %s could not be renamed to %s; rename it by hand: %w", path+newKeySuffix, path, err)
	}
	if err := syncDir(s.dir); err != nil {
		return "", fmt.Errorf("rotate key: %w", err)
	}
	s.mu.Lock()
	s.signer = g
	s.mu.Unlock()
	return g.id, nil
}
