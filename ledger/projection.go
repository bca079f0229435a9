package ledger

import (
	"database/sql"
	"fmt"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// A projector applies one event to the projection tables, in two steps: decode reads the
// event's payload and depends on nothing else, so the audit runs it on its signature
// workers, ahead of the replay; apply writes the tables. Together they depend on nothing
// but the event and the projection tables as they stand (no clock, no randomness, no other
// tables), so that replaying the chain into an empty database rebuilds them exactly.
type projector struct {
	decode func(ev *Event) (any, error)
	apply  func(tx *sql.Tx, ev *Event, payload any) error
}

// projectorOf makes the projector of an event type whose payload decodes into a T (with
// decodePayload) and which apply writes to the tables.
func projectorOf[T any](apply func(tx *sql.Tx, ev *Event, p *T) error) projector {
	return projector{
		decode: func(ev *Event) (any, error) {
			p := new(T)
			if err := decodePayload(ev, p); err != nil {
				return nil, err
			}
			return p, nil
		},
		apply: func(tx *sql.Tx, ev *Event, payload any) error { return apply(tx, ev, payload.(*T)) },
	}
}

// eventType is a registered event type.
type eventType struct {
	project  projector
	internal bool // recorded by the ledger itself only, never from a caller's Draft
}

// eventTypes maps each event type to its projector. An event type without one cannot be
// recorded: unknown types never enter the chain.
var eventTypes = map[string]eventType{}

// projectionTable is a table the audit rebuilds and compares, row by row in orderBy order
// (which must be a unique ordering).
type projectionTable struct {
	name    string
	orderBy string
}

// projectionTables lists every projection table, in registration order.
var projectionTables []projectionTable

// registerEvent registers the projector of an event type the store records. Call it from
// an init function; a new event type is one registerEvent call plus, if it needs a new
// table, one migration and one registerTable call.
func registerEvent(typ string, p projector) { register(typ, p, false) }

// registerInternalEvent registers an event type that only the ledger itself records.
func registerInternalEvent(typ string, p projector) { register(typ, p, true) }

func register(typ string, p projector, internal bool) {
	if !typeName.MatchString(typ) {
		panic(fmt.Sprintf("ledger: event type %q is not lowercase words joined by dots", typ))
	}
	if _, dup := eventTypes[typ]; dup {
		panic(fmt.Sprintf("ledger: event type %q registered twice", typ))
	}
	eventTypes[typ] = eventType{project: p, internal: internal}
}

// registerTable registers a projection table for the audit's comparison.
func registerTable(name, orderBy string) {
	for _, t := range projectionTables {
		if t.name == name {
			panic(fmt.Sprintf("ledger: projection table %q registered twice", name))
		}
	}
	projectionTables = append(projectionTables, projectionTable{name: name, orderBy: orderBy})
}

// decodePayload decodes ev's payload into v for a projector, with the semantics of
// encoding/json (go-json-experiment/json/v1 implements them over the v2 decoder, which
// reads a check's payload about 2.5 times faster: decoding was a sixth of the audit's
// replay). Recording and the replay both project through it, so they read every payload alike.
func decodePayload(ev *Event, v any) error { return jsonv1.Unmarshal(ev.Payload, v) }

// apply runs the projector of ev's type: it decodes the payload and applies it.
func apply(tx *sql.Tx, ev *Event) error {
	payload, err := decodeEvent(ev)
	if err != nil {
		return err
	}
	return applyDecoded(tx, ev, payload)
}

// decodeEvent runs the decode step of ev's projector. It reads nothing but ev.
func decodeEvent(ev *Event) (any, error) {
	et, ok := eventTypes[ev.Type]
	if !ok {
		return nil, fmt.Errorf("event %d: type %q has no projector", ev.Seq, ev.Type)
	}
	payload, err := et.project.decode(ev)
	if err != nil {
		return nil, fmt.Errorf("event %d (%s): project: %w", ev.Seq, ev.Type, err)
	}
	return payload, nil
}

// applyDecoded runs the apply step of ev's projector on the payload decodeEvent gave.
func applyDecoded(tx *sql.Tx, ev *Event, payload any) error {
	if err := eventTypes[ev.Type].project.apply(tx, ev, payload); err != nil {
		return fmt.Errorf("event %d (%s): project: %w", ev.Seq, ev.Type, err)
	}
	return nil
}

func init() {
	registerInternalEvent(typeKeyCreated, projectorOf(projectKey))
	registerInternalEvent(typeKeyRotated, projectorOf(projectKey))
	registerTable("keys", "seq")
}

// projectKey records the key a key.created or key.rotated event names.
func projectKey(tx *sql.Tx, ev *Event, p *keyPayload) error {
	_, err := tx.Exec("INSERT INTO keys (id, public_key, seq, at) VALUES (?, ?, ?, ?)", p.KeyID, p.PublicKey, ev.Seq, ev.At)
	return err
}
