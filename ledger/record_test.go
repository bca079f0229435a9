package ledger

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// recordDrafts records drafts as events, in order, in one transaction ([Store.record]), as
// the domain operations do: the tests use it to put any registered event type in the chain.
//
// actor is "system" or "user:<name>". Every draft's type must have a registered projector
// (an unknown type never enters the chain); types the ledger reserves for itself (key.*,
// user.added) are refused: use [Store.RotateKey] and [Store.AddUser]. Errors wrap
// [ErrInvalid] for refused input.
func (s *Store) recordDrafts(ctx context.Context, actor string, drafts ...Draft) ([]Event, error) {
	if err := checkActor(actor); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	if len(drafts) == 0 {
		return nil, fmt.Errorf("record: no events given: %w", ErrInvalid)
	}
	items, err := prepareDrafts(drafts)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	return s.record(ctx, actor, items, recordOpts{})
}

func TestRecordBuildsChain(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	evs, err := s.recordDrafts(ctx, "user:alice", noteDrafts(3)...)
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.Events(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 4 || all[0].Type != typeKeyCreated {
		t.Fatalf("want key.created and 3 notes, got %d events starting %q", len(all), all[0].Type)
	}
	keys, err := s.Keys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pubBytes, _ := base64.StdEncoding.DecodeString(keys.Keys[0].PublicKey)
	pub := ed25519.PublicKey(pubBytes)
	for i, ev := range all {
		if ev.Seq != int64(i+1) {
			t.Errorf("event %d has seq %d", i+1, ev.Seq)
		}
		wantPrev := zeroHash
		if i > 0 {
			wantPrev = all[i-1].Hash
		}
		if ev.Prev != wantPrev {
			t.Errorf("event %d: prev %s, want %s", ev.Seq, ev.Prev, wantPrev)
		}
		c, err := ev.canonical()
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(c)
		if hex.EncodeToString(sum[:]) != ev.Hash {
			t.Errorf("event %d: hash does not match canonical bytes", ev.Seq)
		}
		sig, _ := base64.StdEncoding.DecodeString(ev.Sig)
		if !ed25519.Verify(pub, sum[:], sig) {
			t.Errorf("event %d: signature does not verify", ev.Seq)
		}
	}
	if evs[2].Hash != all[3].Hash {
		t.Errorf("Record returned %s, stored %s", evs[2].Hash, all[3].Hash)
	}
	if got := string(all[1].Payload); got != `{"n":0,"text":"note <&> é "}` {
		t.Errorf("payload not canonical: %s", got)
	}
	mustAuditOK(t, s)
}

func TestRecordRefuses(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	type weird struct{ F float64 }
	tests := []struct {
		desc   string
		actor  string
		drafts []Draft
		want   string
	}{
		{"actor without user: prefix", "alice", noteDrafts(1), "actor"},
		{"empty user name", "user:", noteDrafts(1), "actor"},
		{"user name with a space", "user:a b", noteDrafts(1), "actor"},
		{"no drafts", "system", nil, "no events"},
		{"unknown event type", "system", []Draft{{Type: "claim.invented", Payload: map[string]int{}}}, "no projector"},
		{"reserved key type", "system", []Draft{{Type: typeKeyRotated, Payload: map[string]int{}}}, "ledger itself"},
		{"reserved user type", "system", []Draft{{Type: typeUserAdded, Payload: User{"x", "operator"}}}, "ledger itself"},
		{"payload is an array", "system", []Draft{{Type: "note.added", Payload: []int{1}}}, "JSON object"},
		{"payload is null", "system", []Draft{{Type: "note.added", Payload: nil}}, "JSON object"},
		{"float in payload", "system", []Draft{{Type: "note.added", Payload: map[string]any{"x": 0.5}}}, "0.5"},
		{"float in nested struct", "system", []Draft{{Type: "note.added", Payload: map[string]any{"a": []any{weird{1e21}}}}}, "1e+21"},
		{"integer beyond 2^53", "system", []Draft{{Type: "note.added", Payload: map[string]any{"x": int64(1) << 60}}}, "2^53"},
		{"reserved blobs member", "system", []Draft{{Type: "note.added", Payload: map[string]any{"blobs": []string{}}}}, "reserved"},
		{"unmarshalable payload", "system", []Draft{{Type: "note.added", Payload: map[string]any{"c": make(chan int)}}}, "marshal"},
		{"second draft bad, first good", "system", append(noteDrafts(1), Draft{Type: "note.added", Payload: 3}), "JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			_, err := s.recordDrafts(ctx, tt.actor, tt.drafts...)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want ErrInvalid mentioning %q", err, tt.want)
			}
		})
	}
	evs, _ := s.Events(ctx, 0, 100)
	if len(evs) != 1 {
		t.Fatalf("refused records left %d events, want only key.created", len(evs))
	}
}

func TestRecordBlobs(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	body := []byte("<html><body>the words</body></html>")
	evs, err := s.recordDrafts(ctx, "system",
		Draft{Type: "note.added", Payload: map[string]string{"url": "https://example.org/"}, Blobs: [][]byte{body, []byte("")}},
		Draft{Type: "note.added", Payload: struct{}{}, Blobs: [][]byte{body}})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	name := hex.EncodeToString(sum[:])
	empty := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	if want := `{"blobs":["` + name + `","` + empty + `"],"url":"https://example.org/"}`; string(evs[0].Payload) != want {
		t.Errorf("payload %s, want %s", evs[0].Payload, want)
	}
	got, err := s.Blob(ctx, name)
	if err != nil || string(got) != string(body) {
		t.Fatalf("Blob: %q, %v", got, err)
	}
	if _, err := s.Blob(ctx, strings.Repeat("ab", 32)); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing blob: %v, want ErrNotFound", err)
	}
	if _, err := s.Blob(ctx, "ABC"); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad name: %v, want ErrInvalid", err)
	}
	mustAuditOK(t, s)
}

// A nil blob is the empty body: it is stored under the empty-input hash, so the audit finds
// it, and recording it again (as nil or as an empty slice) stores nothing twice.
func TestRecordNilBlob(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	const empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	tests := []struct {
		desc  string
		blobs [][]byte
	}{
		{"a nil blob alone", [][]byte{nil}},
		{"a nil blob again, already stored", [][]byte{nil}},
		{"an empty slice after the nil one", [][]byte{{}}},
		{"nil and empty in one draft", [][]byte{nil, {}}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			evs, err := s.recordDrafts(ctx, "system", Draft{Type: "note.added", Payload: struct{}{}, Blobs: tt.blobs})
			if err != nil {
				t.Fatalf("Record: %v", err)
			}
			want := `{"blobs":["` + strings.TrimSuffix(strings.Repeat(empty+`","`, len(tt.blobs)), `","`) + `"]}`
			if string(evs[0].Payload) != want {
				t.Errorf("payload %s, want %s", evs[0].Payload, want)
			}
			got, err := s.Blob(ctx, empty)
			if err != nil || len(got) != 0 {
				t.Fatalf("Blob(empty) = %q, %v; want the stored empty body", got, err)
			}
			mustAuditOK(t, s)
		})
	}
}

func TestClockSteppingBackNeverReversesTime(t *testing.T) {
	dir := t.TempDir()
	times := []time.Time{
		time.Date(2026, 11, 30, 10, 0, 0, 123456789, time.FixedZone("CET", 3600)),
		time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC), // an hour and more back
		time.Date(2026, 11, 30, 12, 0, 0, 5_000_000, time.UTC),
	}
	i := 0
	now := func() time.Time { t := times[min(i, len(times)-1)]; return t }
	s, err := Open(context.Background(), dir, Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ats []string
	for range times {
		evs, err := s.recordDrafts(context.Background(), "system", noteDrafts(1)...)
		if err != nil {
			t.Fatal(err)
		}
		ats = append(ats, evs[0].At)
		i++
	}
	want := []string{"2026-11-30T09:00:00.123Z", "2026-11-30T09:00:00.123Z", "2026-11-30T12:00:00.005Z"}
	for k := range want {
		if ats[k] != want[k] {
			t.Errorf("event %d at %s, want %s", k, ats[k], want[k])
		}
	}
	mustAuditOK(t, s)
}

func TestAppendOnlyTriggers(t *testing.T) {
	s, dir := openTest(t)
	if _, err := s.recordDrafts(context.Background(), "system", Draft{Type: "note.added", Payload: struct{}{}, Blobs: [][]byte{[]byte("b")}}); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, dir)
	for _, q := range []string{
		"UPDATE events SET actor = 'user:mallory' WHERE seq = 2",
		"DELETE FROM events WHERE seq = 2",
		"UPDATE blobs SET data = x'00'",
		"DELETE FROM blobs",
	} {
		if _, err := db.Exec(q); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: got %v, want append-only refusal", q, err)
		}
	}
}
