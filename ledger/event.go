package ledger

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
)

// FormatVersion is the chain format version every event carries in "v".
const FormatVersion = 1

// zeroHash is the prev of event 1.
var zeroHash = strings.Repeat("0", 64)

// timeLayout is the form of "at": RFC 3339 UTC with exactly three fractional digits.
const timeLayout = "2006-01-02T15:04:05.000Z"

// Event is one link of the chain, with its members in the exported order (docs/chain.md).
type Event struct {
	V       int             `json:"v"`
	Seq     int64           `json:"seq"`
	Prev    string          `json:"prev"`
	At      string          `json:"at"`
	Actor   string          `json:"actor"`
	Type    string          `json:"type"`
	Key     string          `json:"key"`
	Payload json.RawMessage `json:"payload"`
	Hash    string          `json:"hash"`
	Sig     string          `json:"sig"`
}

// Draft is an event to be recorded: its type and payload. Payload must marshal to a JSON
// object with no floating-point numbers and no member named "blobs". Blobs are stored
// content-addressed in the same transaction; the store lists their SHA-256 (lowercase hex), in
// order, under the reserved payload member "blobs". A nil blob is the empty body: it is
// stored, and listed under the SHA-256 of empty input.
type Draft struct {
	Type    string
	Payload any
	Blobs   [][]byte
}

// canonical returns the RFC 8785 canonical JSON of the event without hash and sig. The
// payload is canonicalized with jsoncanonicalizer.Transform; the envelope around it is
// written directly in JCS form (members in their fixed sorted order).
func (e *Event) canonical() ([]byte, error) {
	p, err := jsoncanonicalizer.Transform(e.Payload)
	if err != nil {
		return nil, err
	}
	return e.canonicalWith(p), nil
}

// canonicalWith writes the canonical form around a payload that is already canonical.
func (e *Event) canonicalWith(payload []byte) []byte {
	b := make([]byte, 0, 220+len(payload))
	b = append(b, `{"actor":`...)
	b = appendJCSString(b, e.Actor)
	b = append(b, `,"at":`...)
	b = appendJCSString(b, e.At)
	b = append(b, `,"key":`...)
	b = appendJCSString(b, e.Key)
	b = append(b, `,"payload":`...)
	b = append(b, payload...)
	b = append(b, `,"prev":`...)
	b = appendJCSString(b, e.Prev)
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = append(b, `,"type":`...)
	b = appendJCSString(b, e.Type)
	b = append(b, `,"v":`...)
	b = strconv.AppendInt(b, int64(e.V), 10)
	return append(b, '}')
}

// appendJCSString appends s as an RFC 8785 string: '"' and '\' escaped, the five control
// characters with short escapes as such, other controls as \u00xx, everything else as UTF-8
// (invalid UTF-8 as U+FFFD, as encoding/json does).
func appendJCSString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch r {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\b':
			b = append(b, '\\', 'b')
		case '\t':
			b = append(b, '\\', 't')
		case '\n':
			b = append(b, '\\', 'n')
		case '\f':
			b = append(b, '\\', 'f')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			if r < 0x20 {
				b = append(b, '\\', 'u', '0', '0', "0123456789abcdef"[r>>4], "0123456789abcdef"[r&0xf])
			} else {
				b = utf8.AppendRune(b, r)
			}
		}
	}
	return append(b, '"')
}

// digest returns the SHA-256 of the event's canonical form.
func (e *Event) digest() ([32]byte, error) {
	c, err := e.canonical()
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(c), nil
}

// hashFor sets Key to g's id and Hash to the digest of the canonical form, and returns the
// digest. The payload must already be canonical (prepareDraft made it so).
func (e *Event) hashFor(g signer) [32]byte {
	e.Key = g.id
	d := sha256.Sum256(e.canonicalWith(e.Payload))
	e.Hash = hex.EncodeToString(d[:])
	return d
}

// sign sets Sig: g's signature over the digest d that hashFor returned.
func (e *Event) sign(g signer, d [32]byte) {
	e.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(g.priv, d[:]))
}

var (
	actorName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	typeName  = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$`)
)

// validName reports whether name may be a user name: 1 to 64 of letters, digits, '.', '_'
// and '-', starting with a letter or digit.
func validName(name string) bool { return actorName.MatchString(name) }

// checkActor accepts "system" and "user:<name>".
func checkActor(actor string) error {
	if actor == "system" {
		return nil
	}
	if name, ok := strings.CutPrefix(actor, "user:"); ok && validName(name) {
		return nil
	}
	return fmt.Errorf("actor %q: want \"system\" or \"user:<name>\" (name of letters, digits, '.', '_', '-'): %w", actor, ErrInvalid)
}

// parseAt parses an "at" value, which must have the exact form of timeLayout.
func parseAt(at string) (time.Time, error) {
	t, err := time.Parse(timeLayout, at)
	if err != nil || t.Format(timeLayout) != at {
		return time.Time{}, fmt.Errorf("time %q is not RFC 3339 UTC with milliseconds (like 2026-11-30T10:00:00.123Z)", at)
	}
	return t, nil
}

// preparedDraft is a draft whose payload is checked and canonical, ready to be chained.
type preparedDraft struct {
	typ     string
	payload []byte
	blobs   [][]byte
	hashes  []string
}

// prepareDraft checks a draft's payload and canonicalizes it, with the blob hashes added.
func prepareDraft(d Draft) (preparedDraft, error) {
	if !typeName.MatchString(d.Type) {
		return preparedDraft{}, fmt.Errorf("event type %q: want lowercase words joined by dots, like \"claim.added\": %w", d.Type, ErrInvalid)
	}
	raw, err := json.Marshal(d.Payload)
	if err != nil {
		return preparedDraft{}, fmt.Errorf("event %s: payload does not marshal to JSON: %v: %w", d.Type, err, ErrInvalid)
	}
	if err := checkPayload(raw); err != nil {
		return preparedDraft{}, fmt.Errorf("event %s: %w", d.Type, err)
	}
	p := preparedDraft{typ: d.Type, blobs: d.Blobs}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return preparedDraft{}, fmt.Errorf("event %s: payload: %v: %w", d.Type, err, ErrInvalid)
	}
	if _, ok := members["blobs"]; ok {
		return preparedDraft{}, fmt.Errorf("event %s: payload member \"blobs\" is reserved: pass the bodies in Draft.Blobs: %w", d.Type, ErrInvalid)
	}
	if len(d.Blobs) > 0 {
		for _, b := range d.Blobs {
			sum := sha256.Sum256(b)
			p.hashes = append(p.hashes, hex.EncodeToString(sum[:]))
		}
		members["blobs"], _ = json.Marshal(p.hashes)
		raw, _ = json.Marshal(members)
	}
	if p.payload, err = jsoncanonicalizer.Transform(raw); err != nil {
		return preparedDraft{}, fmt.Errorf("event %s: canonicalize payload: %v: %w", d.Type, err, ErrInvalid)
	}
	return p, nil
}

// maxSafeInteger is the largest integer every RFC 8785 implementation writes exactly.
const maxSafeInteger = 1<<53 - 1

// checkPayload accepts valid JSON whose value is an object and whose numbers are all
// integers of magnitude at most 2^53-1, so that every RFC 8785 implementation gives the same
// bytes. The error says which number was refused and wraps ErrInvalid.
func checkPayload(raw []byte) error {
	if !json.Valid(raw) {
		return fmt.Errorf("payload is not valid JSON: %w", ErrInvalid)
	}
	trimmed := bytes.TrimLeft(raw, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return fmt.Errorf("payload must be a JSON object: %w", ErrInvalid)
	}
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			for i++; raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
		case c == '-' || (c >= '0' && c <= '9'):
			j := i
			for j < len(raw) && strings.IndexByte("+-0123456789.eE", raw[j]) >= 0 {
				j++
			}
			num := string(raw[i:j])
			if strings.ContainsAny(num, ".eE") {
				return fmt.Errorf("payload holds the number %s: only integers are allowed (floating-point numbers do not canonicalize the same everywhere); send it as a string or an integer: %w", num, ErrInvalid)
			}
			if n, err := strconv.ParseInt(num, 10, 64); err != nil || n > maxSafeInteger || n < -maxSafeInteger {
				return fmt.Errorf("payload holds the integer %s, beyond ±(2^53-1); send it as a string: %w", num, ErrInvalid)
			}
			i = j - 1
		}
	}
	return nil
}
