package ledger

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Export writes every event as one JSON object per line, members in the order of
// docs/chain.md, oldest first. The events written are a consistent snapshot.
func (s *Store) Export(ctx context.Context, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	var werr error
	err := eachEvent(ctx, s.rdb, "SELECT seq, v, prev, at, actor, type, key, payload, hash, sig FROM events ORDER BY seq", func(ev Event) {
		if werr == nil {
			werr = enc.Encode(ev)
		}
	})
	if err == nil {
		err = werr
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// Events returns up to limit events with seq greater than after, oldest first. limit must be
// 1 to [MaxEventsPage] and after at least 0; otherwise the error wraps [ErrInvalid].
func (s *Store) Events(ctx context.Context, after int64, limit int) ([]Event, error) {
	if limit < 1 || limit > MaxEventsPage {
		return nil, fmt.Errorf("events: limit %d: want 1 to %d: %w", limit, MaxEventsPage, ErrInvalid)
	}
	if after < 0 {
		return nil, fmt.Errorf("events: after %d: want 0 or more: %w", after, ErrInvalid)
	}
	evs := []Event{}
	err := eachEvent(ctx, s.rdb, "SELECT seq, v, prev, at, actor, type, key, payload, hash, sig FROM events WHERE seq > ? ORDER BY seq LIMIT ?", func(ev Event) {
		evs = append(evs, ev)
	}, after, limit)
	if err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	return evs, nil
}

// eventMembers are the members every exported event has, exactly.
var eventMembers = []string{"v", "seq", "prev", "at", "actor", "type", "key", "payload", "hash", "sig"}

// ParseEvent reads one exported event: a JSON object with exactly the members of
// docs/chain.md, payload an object, and nothing that another RFC 8785 implementation could
// hash differently (see checkStrictJSON: no duplicate member names, no invalid UTF-8 or lone
// surrogates, integers only, within ±(2^53-1)); hash and key in lowercase hex, sig in
// canonical base64. It does not check the hash or signature; the error wraps [ErrInvalid]
// and says what is wrong.
func ParseEvent(line []byte) (Event, error) {
	if err := checkStrictJSON(line); err != nil {
		return Event{}, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil {
		return Event{}, fmt.Errorf("not a JSON object: %v: %w", err, ErrInvalid)
	}
	for _, m := range eventMembers {
		if _, ok := members[m]; !ok {
			return Event{}, fmt.Errorf("member %q is missing: %w", m, ErrInvalid)
		}
	}
	if len(members) != len(eventMembers) {
		return Event{}, fmt.Errorf("it has members beyond %v: %w", eventMembers, ErrInvalid)
	}
	var ev Event
	if err := json.Unmarshal(line, &ev); err != nil {
		return Event{}, fmt.Errorf("a member has the wrong type: %v: %w", err, ErrInvalid)
	}
	if p := bytes.TrimSpace(ev.Payload); len(p) == 0 || p[0] != '{' {
		return Event{}, fmt.Errorf("payload is not a JSON object: %w", ErrInvalid)
	}
	if !isHex(ev.Hash, 64) {
		return Event{}, fmt.Errorf("hash %q is not 64 lowercase hex characters: %w", ev.Hash, ErrInvalid)
	}
	if !isHex(ev.Key, 16) {
		return Event{}, fmt.Errorf("key %q is not 16 lowercase hex characters: %w", ev.Key, ErrInvalid)
	}
	if _, err := decodeSig(ev.Sig); err != nil {
		return Event{}, err
	}
	return ev, nil
}

// AuditExport checks an export (JSON lines, as [Store.Export] writes) against a keys document
// (as `ledger keys` prints) without any database: every hash, prev link, time order and
// signature, under the key current at each seq as the chain's key.created and key.rotated
// events name it; every key the chain introduces must be in the keys document.
//
// Findings are in the report (an unreadable line is a problem at the seq expected there);
// the error is for an audit that could not run: an unreadable keys document or a read error.
func AuditExport(ctx context.Context, export, keys io.Reader) (Report, error) {
	anchors, err := ParseKeys(keys)
	if err != nil {
		return Report{}, fmt.Errorf("audit export: %w", err)
	}
	return AuditExportWith(ctx, export, AuditOptions{Keys: anchors})
}

// AuditExportWith is [AuditExport] with the keys already read into opts.Keys (required), and
// with the auditor's checkpoint, if opts gives one: the export's first Size events must have
// its root (a rewritten history, a cut tail or a fork fails, naming the size). The key
// history is checked too: the chain's key.created and key.rotated events must introduce
// exactly the keys of opts.Keys, in its order.
func AuditExportWith(ctx context.Context, export io.Reader, opts AuditOptions) (Report, error) {
	if opts.Keys == nil {
		return Report{}, fmt.Errorf("audit export: the keys file you trust is needed: %w", ErrInvalid)
	}
	want, err := opts.checkpoint()
	if err != nil {
		return Report{}, fmt.Errorf("audit export: %w", err)
	}
	probs := &problemList{}
	c := newChainChecker(probs, opts.Keys)
	c.want = want
	br := bufio.NewReaderSize(export, 1<<16)
	for line := 1; ; line++ {
		if err := ctx.Err(); err != nil {
			c.finish()
			return Report{}, fmt.Errorf("audit export: %w", err)
		}
		b, rerr := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			if ev, perr := ParseEvent(b); perr != nil {
				probs.add(c.next, "", "line %d (where event %d should be): %v", line, c.next, perr)
			} else {
				c.add(ev)
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			c.finish()
			return Report{}, fmt.Errorf("audit export: read line %d: %w", line, rerr)
		}
	}
	c.finish()
	if c.events == 0 {
		probs.add(0, "", "the export holds no events; a ledger's export begins with its key.created event")
	}
	return probs.report(c.events, c.head, rootB64(c.root())), nil
}
