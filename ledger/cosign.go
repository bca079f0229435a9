package ledger

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
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
