package ledger

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// algCosignatureV1 is the signed-note key type of C2SP tlog-cosignature (cosignature/v1).
const algCosignatureV1 = 0x04

// cosignatureVerifier checks a witness's cosignature/v1 signature of a checkpoint: the
// signature is an 8-byte big-endian UNIX time and an Ed25519 signature over
// "cosignature/v1\ntime <T>\n" followed by the checkpoint text.
type cosignatureVerifier struct {
	name string
	hash uint32
	pub  ed25519.PublicKey
}

func (v cosignatureVerifier) Name() string    { return v.name }
func (v cosignatureVerifier) KeyHash() uint32 { return v.hash }

func (v cosignatureVerifier) Verify(msg, sig []byte) bool {
	if len(sig) != 8+ed25519.SignatureSize {
		return false
	}
	t := binary.BigEndian.Uint64(sig)
	m := append([]byte("cosignature/v1\ntime "+strconv.FormatUint(t, 10)+"\n"), msg...)
	return ed25519.Verify(v.pub, m, sig[8:])
}

// newCosignatureVerifier parses a witness's verifier key, "name+hash+base64(0x04 || 32-byte
// Ed25519 key)" (C2SP signed-note, key type cosignature/v1). The error wraps [ErrInvalid].
func newCosignatureVerifier(vkey string) (note.Verifier, error) {
	bad := func(why string) error {
		return fmt.Errorf("witness key %q: %s; want name+hash+base64 of a cosignature/v1 (type 0x04) Ed25519 key: %w", vkey, why, ErrInvalid)
	}
	name, rest, ok1 := strings.Cut(vkey, "+")
	hash16, key64, ok2 := strings.Cut(rest, "+")
	if !ok1 || !ok2 || name == "" || len(hash16) != 8 {
		return nil, bad("it is not three parts joined by '+'")
	}
	hash, err := strconv.ParseUint(hash16, 16, 32)
	if err != nil {
		return nil, bad("its hash is not 8 hex digits")
	}
	key, err := base64.StdEncoding.Strict().DecodeString(key64)
	if err != nil || len(key) != 1+ed25519.PublicKeySize || key[0] != algCosignatureV1 {
		return nil, bad("its key is not type 0x04 and 32 bytes")
	}
	h := sha256.New()
	h.Write([]byte(name + "\n"))
	h.Write(key)
	if uint32(hash) != binary.BigEndian.Uint32(h.Sum(nil)) {
		return nil, bad("its hash does not match its name and key")
	}
	return cosignatureVerifier{name: name, hash: uint32(hash), pub: ed25519.PublicKey(key[1:])}, nil
}

// WitnessRequest returns the body of a C2SP tlog-witness add-checkpoint request for the
// latest checkpoint (signed first when the batched checkpoints lag the head), for a witness
// that knows the tree of size oldSize (0 for a witness that knows none): "old N", the
// consistency proof from N to the checkpoint's size, a blank line and the checkpoint with
// the ledger's signature. It returns the checkpoint's size too. oldSize beyond the
// checkpoint wraps [ErrInvalid].
func (s *Store) WitnessRequest(ctx context.Context, oldSize int64) ([]byte, int64, error) {
	s.coverHead(ctx)
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("witness request: %w", err)
	}
	defer tx.Rollback()
	var size int64
	var text string
	if err := tx.QueryRowContext(ctx, "SELECT size, note FROM checkpoints ORDER BY size DESC LIMIT 1").Scan(&size, &text); err != nil {
		return nil, 0, fmt.Errorf("witness request: no checkpoint: %w", err)
	}
	if oldSize < 0 || oldSize > size {
		return nil, 0, fmt.Errorf("witness request: the witness knows size %d, but the latest checkpoint has size %d: %w", oldSize, size, ErrInvalid)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "old %d\n", oldSize)
	if oldSize > 0 && oldSize < size {
		r := newStoredHashes(ctx, tx)
		p, err := tlog.ProveTree(size, oldSize, r)
		r.close()
		if err != nil {
			return nil, 0, fmt.Errorf("witness request: %w", err)
		}
		for _, h := range p {
			b.WriteString(rootB64(h) + "\n")
		}
	}
	b.WriteString("\n")
	b.WriteString(text)
	return b.Bytes(), size, nil
}

// AddCosignature keeps a witness's answer to an add-checkpoint request for the checkpoint
// of size: the cosignature line(s) it returned must include a valid cosignature/v1 by
// witnessKey (its verifier key) over that checkpoint. The line is stored with the checkpoint
// (append-only) and served after the ledger's signature from then on; a witness that
// cosigns the same checkpoint again keeps its first line. The error wraps [ErrInvalid] when
// the answer holds no such cosignature.
func (s *Store) AddCosignature(ctx context.Context, size int64, witnessKey string, answer []byte) error {
	if s.readOnly {
		return fmt.Errorf("add cosignature: %w", ErrReadOnly)
	}
	v, err := newCosignatureVerifier(witnessKey)
	if err != nil {
		return err
	}
	var text string
	if err := s.rdb.QueryRowContext(ctx, "SELECT note FROM checkpoints WHERE size = ?", size).Scan(&text); err != nil {
		return fmt.Errorf("add cosignature: checkpoint %d: %w", size, err)
	}
	body, _, _ := strings.Cut(text, "\n\n")
	body += "\n"
	for _, line := range strings.Split(strings.TrimSpace(string(answer)), "\n") {
		// Each answer line is a note signature line; check it as the signature of a note.
		if _, err := note.Open([]byte(body+"\n"+line+"\n"), note.VerifierList(v)); err != nil {
			continue
		}
		_, err := s.wdb.ExecContext(ctx, "INSERT INTO cosignatures (size, witness, line) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", size, v.Name(), line)
		if err != nil {
			return fmt.Errorf("add cosignature: %w", err)
		}
		return nil
	}
	return fmt.Errorf("add cosignature: the witness's answer holds no valid cosignature by %s of checkpoint %d: %w", v.Name(), size, ErrInvalid)
}
