package ledger

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"path/filepath"
	"testing"
)

// TestTestdataBundle checks the proof bundle, checkpoint and keys file the fuzz tests start
// from. With -update it first rewrites them from a fresh ledger (11 events, one rotation):
// the bundle of event 6, the latest checkpoint, and the keys with their note keys.
func TestTestdataBundle(t *testing.T) {
	if *update {
		s, _ := buildLedger(t)
		b, err := s.ProofBundle(context.Background(), 6)
		if err != nil {
			t.Fatal(err)
		}
		cp, _ := s.Checkpoint(context.Background())
		_, keys := keysOf(t, s)
		writeFile(t, filepath.Join(testdataDir, "event6.tlog-proof"), b, 0o644)
		writeFile(t, filepath.Join(testdataDir, "checkpoint"), cp.Note, 0o644)
		writeFile(t, filepath.Join(testdataDir, "keys-with-note-keys.json"), keys, 0o644)
	}
	keys, err := ParseKeys(bytes.NewReader(readTestdata(t, "keys-with-note-keys.json")))
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := VerifyBundle(readTestdata(t, "event6.tlog-proof"), keys, nil); err != nil || ev.Seq != 6 {
		t.Fatalf("the test data bundle does not hold: %+v %v", ev, err)
	}
	if cp, err := OpenCheckpoint(readTestdata(t, "checkpoint"), keys.NoteKeys, nil); err != nil || cp.Size != 11 {
		t.Fatalf("the test data checkpoint does not verify: %+v %v", cp, err)
	}
}

// FuzzVerifyBundle: a bundle either verifies, and then the event it returns is the one its
// extra line holds, at seq index+1, with a hash that is its canonical digest; or it is
// refused with ErrInvalid. It never panics.
func FuzzVerifyBundle(f *testing.F) {
	keysDoc := readTestdata(f, "keys-with-note-keys.json")
	keys, err := ParseKeys(bytes.NewReader(keysDoc))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(readTestdata(f, "event6.tlog-proof"))
	f.Add([]byte("c2sp.org/tlog-proof@v1\nextra e30=\nindex 0\n\n"))
	f.Fuzz(func(t *testing.T, bundle []byte) {
		ev, err := VerifyBundle(bundle, keys, nil)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error without ErrInvalid: %v", err)
			}
			return
		}
		d, derr := ev.digest()
		if derr != nil || ev.Hash != hex.EncodeToString(d[:]) || ev.Seq < 1 {
			t.Fatalf("a verified bundle's event does not hash to its hash: %+v", ev)
		}
		if _, err := OpenCheckpoint(bundle[bytes.Index(bundle, []byte("\n\n"))+2:], keys.NoteKeys, nil); err != nil {
			t.Fatalf("a verified bundle's checkpoint does not verify alone: %v", err)
		}
	})
}

// FuzzOpenCheckpoint: a checkpoint that verifies begins with the canonical text of the
// origin, size and root it is read as; anything else is refused with ErrInvalid.
func FuzzOpenCheckpoint(f *testing.F) {
	keys, err := ParseKeys(bytes.NewReader(readTestdata(f, "keys-with-note-keys.json")))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(readTestdata(f, "checkpoint"))
	f.Add([]byte("o\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n— o AAAA\n"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		cp, err := OpenCheckpoint(msg, keys.NoteKeys, nil)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error without ErrInvalid: %v", err)
			}
			return
		}
		if !bytes.HasPrefix(msg, []byte(checkpointText(cp.Origin, cp.Size, cp.Root)+"\n")) {
			t.Fatalf("verified checkpoint %q is not the canonical text of %+v", msg, cp)
		}
	})
}
