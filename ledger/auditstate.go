package ledger

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// The auditor's state (docs/chain.md, "Incremental audit") is what an incremental audit
// starts from: the tree the last audit verified and digests that pin what it verified
// beside the tree. It lives where the auditor says (AuditOptions.State), never in the
// ledger's data directory, as three files:
//
//	FILE      the state: one JSON object, an auditRecord, sealed with an HMAC
//	FILE.key  the HMAC key: 32 random bytes in hex, mode 0600, made with the first state
//	FILE.db   the working copy: the projection tables as the events up to the state's size
//	          imply them, which the incremental audit extends with the new events
//
// The HMAC is keyed by a secret of the auditor's own rather than a plain self-hash, because
// anyone who can edit the file can recompute a hash over it; without the key, an edited
// state does not verify and is refused. The working copy holds the record it belongs to,
// sealed the same way, so that a working copy of another state or another ledger is never
// taken for this one.

// stateFormat is the "format" member of every state this program writes.
const stateFormat = "evidence-ledger-audit-state/1"

// auditRecord is the auditor's state: the last audited tree (Size events, Root, the hash of
// event Size), when that audit and the last full one ran, and two digests over what the
// Merkle tree does not cover: Signatures over the signatures of events 1 to Size, and
// Checkpoints over the stored checkpoints of size below Size (sigDigest gives both).
type auditRecord struct {
	Format      string `json:"format"`
	Size        int64  `json:"size"`
	Root        string `json:"root"`
	Head        string `json:"head"`
	AuditedAt   string `json:"audited_at"`
	FullAt      string `json:"full_at"`
	Signatures  string `json:"signatures"`
	Checkpoints string `json:"checkpoints"`
	MAC         string `json:"mac,omitempty"`
}

// pinDigest is a SHA-256 chain: it starts as 32 zero bytes, and each add makes it the
// SHA-256 of itself, the 8-byte big-endian length of the text added, and that text. It pins
// a sequence of texts (event signatures, checkpoint notes) in 32 bytes.
type pinDigest struct {
	sum [32]byte
	buf []byte
}

func (d *pinDigest) add(text string) {
	d.buf = append(d.buf[:0], d.sum[:]...)
	d.buf = binary.BigEndian.AppendUint64(d.buf, uint64(len(text)))
	d.buf = append(d.buf, text...)
	d.sum = sha256.Sum256(d.buf)
}

func (d *pinDigest) hex() string { return hex.EncodeToString(d.sum[:]) }

// auditState is an auditor's state opened for one audit: its files' names, its key, the
// record it holds (nil when there is none yet, or when it was refused), and the lock on its
// key file that keeps a second audit off the same state while this one runs.
type auditState struct {
	path    string
	key     []byte
	lock    *os.File
	rec     *auditRecord
	refused error // why the state on disk was refused, when it was
}

// openAuditState opens the state at path, creating its folder (mode 0700) and its key on
// first use. A state file that is not a sealed record under its key (edited by hand, cut,
// its key missing or replaced) is refused: an error that says to run the full audit, or,
// with full, a note in st.refused and no record, so that the full audit writes a new one.
func openAuditState(path string, full bool) (*auditState, error) {
	if path == "" {
		return nil, fmt.Errorf("no auditor state file given: %w", ErrInvalid)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("auditor state: make its folder: %w", err)
	}
	st := &auditState{path: path}
	data, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("auditor state: %w", err)
	}
	if err := st.openKey(exists && !full); err != nil {
		return nil, err
	}
	if !exists {
		return st, nil
	}
	rec, err := st.unseal(data)
	if err != nil {
		st.refused = fmt.Errorf("the auditor state %s is refused: %v", path, err)
		if !full {
			st.close()
			return nil, fmt.Errorf("%w; an incremental audit cannot start from it: run ledger audit --full, which checks everything and writes a new state", st.refused)
		}
		return st, nil
	}
	st.rec = rec
	return st, nil
}

// keyPath, dbPath name the state's key and working copy.
func (st *auditState) keyPath() string { return st.path + ".key" }
func (st *auditState) dbPath() string  { return st.path + ".db" }

// openKey reads the state's key, or makes one (mode 0600) when there is none and mustExist
// is false, and locks it.
func (st *auditState) openKey(mustExist bool) error {
	kp := st.keyPath()
	f, err := os.OpenFile(kp, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		if mustExist {
			return fmt.Errorf("the auditor state %s is refused: its key %s is missing, so the state cannot be checked; an incremental audit cannot start from it: run ledger audit --full, which checks everything and writes a new state", st.path, kp)
		}
		f, err = os.OpenFile(kp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			key := make([]byte, 32)
			rand.Read(key)
			if _, err = f.WriteString(hex.EncodeToString(key) + "\n"); err == nil {
				err = f.Sync()
			}
			if err != nil {
				f.Close()
				os.Remove(kp)
			}
		}
	}
	if err != nil {
		return fmt.Errorf("auditor state: its key %s: %w", kp, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return fmt.Errorf("auditor state %s: another audit is using it now; run one audit at a time per state", st.path)
	}
	st.lock = f
	fi, err := f.Stat()
	if err == nil && fi.Mode().Perm()&0o077 != 0 {
		err = fmt.Errorf("it may be read by others than its owner (mode %04o): chmod 600 %s", fi.Mode().Perm(), kp)
	}
	var text []byte
	if err == nil {
		text, err = io.ReadAll(io.NewSectionReader(f, 0, 200))
	}
	if err == nil {
		st.key, err = hex.DecodeString(strings.TrimSpace(string(text)))
		if err == nil && len(st.key) != 32 {
			err = errors.New("it does not hold 32 bytes in hex")
		}
	}
	if err != nil {
		st.close()
		return fmt.Errorf("auditor state %s: its key %s: %v", st.path, kp, err)
	}
	return nil
}

// close releases the lock.
func (st *auditState) close() {
	if st.lock != nil {
		st.lock.Close()
		st.lock = nil
	}
}

// mac is the HMAC-SHA256, under the state's key, of the record's JSON without its mac.
func (st *auditState) mac(rec auditRecord) []byte {
	rec.MAC = ""
	body, _ := json.Marshal(rec)
	m := hmac.New(sha256.New, st.key)
	m.Write(body)
	return m.Sum(nil)
}

// seal returns the record's JSON with its mac, as the state file and the working copy hold it.
func (st *auditState) seal(rec auditRecord) []byte {
	rec.MAC = hex.EncodeToString(st.mac(rec))
	b, _ := json.MarshalIndent(rec, "", "  ")
	return append(b, '\n')
}

// unseal reads a sealed record and checks its mac and its members.
func (st *auditState) unseal(data []byte) (*auditRecord, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var rec auditRecord
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("it is not a state this program wrote: %v", err)
	}
	if dec.More() {
		return nil, errors.New("it holds more than one record")
	}
	got, err := hex.DecodeString(rec.MAC)
	if err != nil || !hmac.Equal(got, st.mac(rec)) {
		return nil, fmt.Errorf("its seal does not verify under its key %s: it was edited by hand, or it and its key are not a pair", st.keyPath())
	}
	if rec.Format != stateFormat {
		return nil, fmt.Errorf("its format is %q; this program reads %q", rec.Format, stateFormat)
	}
	if _, err := parseRoot(rec.Root); err != nil || rec.Size < 0 {
		return nil, fmt.Errorf("its tree (size %d, root %q) cannot be read", rec.Size, rec.Root)
	}
	return &rec, nil
}

// write replaces the state file with rec, sealed: written to a file of the audit's own
// beside it, synced, renamed over it, and the folder synced, so that the state is the old
// one or the new one whenever the process stops.
func (st *auditState) write(rec auditRecord) error {
	dir := filepath.Dir(st.path)
	tmp, err := createAuditFile(dir, ".state")
	if err != nil {
		return fmt.Errorf("write the auditor state: %w", err)
	}
	_, err = tmp.f.Write(st.seal(rec))
	if err == nil {
		err = tmp.f.Sync()
	}
	if err == nil {
		err = os.Rename(tmp.path, st.path)
	}
	if err != nil {
		tmp.remove()
		return fmt.Errorf("write the auditor state %s: %w", st.path, err)
	}
	tmp.release()
	return syncDir(dir)
}
