package ledger

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
)

var update = flag.Bool("update", false, "rewrite testdata/ledger/export.jsonl and keys.json from a fresh ledger")

const testdataDir = "../testdata/ledger"

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdataDir, name))
	if err != nil {
		t.Fatalf("read test data (run go test -run TestTestdataExport -update to make it): %v", err)
	}
	return b
}

// TestTestdataExport checks the export the fuzz tests start from. With -update it first
// rewrites it from a fresh ledger (11 events, one key rotation).
func TestTestdataExport(t *testing.T) {
	if *update {
		s, _ := buildLedger(t)
		var export, keys bytes.Buffer
		if err := s.Export(context.Background(), &export); err != nil {
			t.Fatal(err)
		}
		set, _ := s.Keys(context.Background())
		writeJSON(t, &keys, set)
		writeFile(t, filepath.Join(testdataDir, "export.jsonl"), export.Bytes(), 0o644)
		writeFile(t, filepath.Join(testdataDir, "keys.json"), keys.Bytes(), 0o644)
	}
	rep, err := AuditExport(context.Background(), bytes.NewReader(readTestdata(t, "export.jsonl")), bytes.NewReader(readTestdata(t, "keys.json")))
	if err != nil || !rep.OK || rep.Events != 11 {
		t.Fatalf("the test data export does not hold: %+v, %v", rep, err)
	}
}

// FuzzAuditExport feeds exports and keys files to the offline audit: it must never panic, and
// fail with an error only for an unreadable keys file.
func FuzzAuditExport(f *testing.F) {
	export, keys := readTestdata(f, "export.jsonl"), readTestdata(f, "keys.json")
	f.Add(export, keys)
	lines := bytes.SplitAfter(export, []byte("\n"))
	f.Add(bytes.Join(lines[:3], nil), keys)
	f.Add(append(append([]byte{}, lines[1]...), lines[0]...), keys)
	f.Add(bytes.Replace(export, []byte(`"actor":"`), []byte(`"actor": "`), 1), keys) // same events, other bytes
	f.Add(bytes.Replace(export, []byte(`"type":"`), []byte(`"type":"x`), 1), keys)   // a forged line
	f.Add([]byte("{}\n\n{\"v\":1}"), []byte(`{"keys":[]}`))
	var original []Event
	for line := range bytes.Lines(export) {
		ev, err := ParseEvent(line)
		if err != nil {
			f.Fatalf("testdata/export.jsonl: %v", err)
		}
		original = append(original, ev)
	}
	if rep, err := AuditExport(context.Background(), bytes.NewReader(export), bytes.NewReader(keys)); err != nil || !rep.OK || rep.Events != int64(len(original)) {
		f.Fatalf("the unchanged export does not audit: %+v, %v", rep, err)
	}
	f.Fuzz(func(t *testing.T, export, keys []byte) {
		_, kerr := ParseKeys(bytes.NewReader(keys))
		rep, err := AuditExport(context.Background(), bytes.NewReader(export), bytes.NewReader(keys))
		if (err != nil) != (kerr != nil) {
			t.Fatalf("audit error %v, keys error %v", err, kerr)
		}
		if err == nil && rep.OK && rep.Events == 0 {
			t.Fatal("an empty export passed")
		}
		if err == nil && rep.OK {
			samePrefix(t, original, export, rep.Events)
		}
	})
}

// samePrefix fails unless export holds, line by line, the first n events of original,
// each with the original's seq, hash and signature. These are the only changes the format
// allows an export that still audits: a cut tail (a prefix of a chain is a chain; a kept
// checkpoint is what catches it) and a line written differently that parses to the same
// event (the hash covers the canonical form, not the bytes). Anything else an audit passed
// would be a forged record.
func samePrefix(t *testing.T, original []Event, export []byte, n int64) {
	t.Helper()
	var got []Event
	for line := range bytes.Lines(export) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		ev, err := ParseEvent(line)
		if err != nil {
			t.Fatalf("the audit passed an export with an unreadable line %q: %v", line, err)
		}
		got = append(got, ev)
	}
	if int64(len(got)) != n || n > int64(len(original)) {
		t.Fatalf("the audit passed %d events; the export holds %d lines, the original %d events", n, len(got), len(original))
	}
	for i, ev := range got {
		o := original[i]
		if ev.Seq != o.Seq || ev.Hash != o.Hash || ev.Sig != o.Sig {
			t.Fatalf("the audit passed event %d (seq %d, hash %s) where the original has seq %d, hash %s", i, ev.Seq, ev.Hash, o.Seq, o.Hash)
		}
	}
}

// FuzzParseEvent: a parsed event re-encodes to a line that parses to the same event.
func FuzzParseEvent(f *testing.F) {
	for _, line := range bytes.Split(readTestdata(f, "export.jsonl"), []byte("\n")) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		ev, err := ParseEvent(line)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			return
		}
		again, err := json.Marshal(ev)
		if err != nil {
			return // a payload that is not valid JSON inside a valid line cannot occur
		}
		ev2, err := ParseEvent(again)
		if err != nil || ev2.Hash != ev.Hash || ev2.Seq != ev.Seq || ev2.Sig != ev.Sig {
			t.Fatalf("round trip: %v\n%s", err, again)
		}
	})
}

// FuzzCheckPayload compares checkPayload with a slow reference: an object whose numbers,
// decoded one by one, are all integers within ±(2^53-1).
func FuzzCheckPayload(f *testing.F) {
	entries, err := os.ReadDir(filepath.Join(testdataDir, "payloads"))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		f.Add(readTestdata(f, filepath.Join("payloads", e.Name())))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got := checkPayload(raw) == nil
		if want := referencePayloadOK(raw); got != want {
			t.Fatalf("checkPayload accepts=%v, reference accepts=%v for %q", got, want, raw)
		}
	})
}

func referencePayloadOK(raw []byte) bool {
	if !json.Valid(raw) || !strings.HasPrefix(strings.TrimLeft(string(raw), " \t\r\n"), "{") {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return true
		}
		if n, ok := tok.(json.Number); ok {
			i, err := strconv.ParseInt(string(n), 10, 64)
			if err != nil || i > maxSafeInteger || i < -maxSafeInteger {
				return false
			}
		}
	}
}

func TestPayloadTestdata(t *testing.T) {
	tests := []struct {
		file string
		ok   bool
	}{
		{"ok-nested.json", true},
		{"number-in-string.json", true},
		{"minus-zero.json", true},
		{"float.json", false},
		{"exponent.json", false},
		{"too-big.json", false},
		{"array.json", false},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			err := checkPayload(readTestdata(t, filepath.Join("payloads", tt.file)))
			if (err == nil) != tt.ok {
				t.Fatalf("checkPayload: %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

// FuzzCanonicalEnvelope checks the directly written envelope against canonicalizing the whole
// event with jsoncanonicalizer.Transform, for any member values.
func FuzzCanonicalEnvelope(f *testing.F) {
	for _, line := range bytes.Split(bytes.TrimSpace(readTestdata(f, "export.jsonl")), []byte("\n")) {
		ev, err := ParseEvent(line)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(ev.Actor, ev.At, ev.Key, ev.Prev, ev.Type, ev.Seq, []byte(ev.Payload))
	}
	f.Add("user:\"q\"\\\x01\x1f\u2028\xff", "\t\n\r\b\f", "é😀", "", "</script>", int64(-1), []byte(`{"a":[1,{"b":null}]}`))
	f.Fuzz(func(t *testing.T, actor, at, key, prev, typ string, seq int64, payload []byte) {
		ev := Event{V: 1, Seq: seq, Prev: prev, At: at, Actor: actor, Type: typ, Key: key, Payload: payload}
		got, err := ev.canonical()
		if err != nil {
			return
		}
		whole, err := json.Marshal(struct {
			V       int             `json:"v"`
			Seq     int64           `json:"seq"`
			Prev    string          `json:"prev"`
			At      string          `json:"at"`
			Actor   string          `json:"actor"`
			Type    string          `json:"type"`
			Key     string          `json:"key"`
			Payload json.RawMessage `json:"payload"`
		}{ev.V, ev.Seq, ev.Prev, ev.At, ev.Actor, ev.Type, ev.Key, ev.Payload})
		if err != nil {
			return
		}
		want, err := jsoncanonicalizer.Transform(whole)
		if err != nil {
			return
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("envelope differs:\n got %q\nwant %q", got, want)
		}
	})
}
