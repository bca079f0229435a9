-- The chain: one row per event, append-only. The columns hold exactly the members of the
-- exported event (docs/chain.md); payload is its RFC 8785 canonical JSON text.
CREATE TABLE events (
    seq     INTEGER PRIMARY KEY CHECK (seq >= 1),
    v       INTEGER NOT NULL CHECK (v = 1),
    prev    TEXT    NOT NULL CHECK (length(prev) = 64),
    at      TEXT    NOT NULL CHECK (length(at) = 24),
    actor   TEXT    NOT NULL CHECK (actor = 'system' OR actor LIKE 'user:_%'),
    type    TEXT    NOT NULL CHECK (length(type) > 0),
    key     TEXT    NOT NULL CHECK (length(key) = 16),
    payload TEXT    NOT NULL CHECK (json_valid(payload) AND json_type(payload) = 'object'),
    hash    TEXT    NOT NULL UNIQUE CHECK (length(hash) = 64),
    sig     TEXT    NOT NULL CHECK (length(sig) = 88)
) STRICT;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only: UPDATE is refused');
END;

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only: DELETE is refused');
END;

-- Bodies (pages, pasted texts), stored once under their SHA-256; append-only.
CREATE TABLE blobs (
    sha256 TEXT PRIMARY KEY CHECK (length(sha256) = 64),
    data   BLOB NOT NULL
) STRICT;

CREATE TRIGGER blobs_no_update BEFORE UPDATE ON blobs
BEGIN
    SELECT RAISE(ABORT, 'blobs are append-only: UPDATE is refused');
END;

CREATE TRIGGER blobs_no_delete BEFORE DELETE ON blobs
BEGIN
    SELECT RAISE(ABORT, 'blobs are append-only: DELETE is refused');
END;

-- Projection of key.created and key.rotated: every signing key the chain has used.
CREATE TABLE keys (
    id         TEXT    PRIMARY KEY CHECK (length(id) = 16),
    public_key TEXT    NOT NULL UNIQUE CHECK (length(public_key) = 44),
    seq        INTEGER NOT NULL UNIQUE CHECK (seq >= 1),
    at         TEXT    NOT NULL
) STRICT;

-- Projection of user.added.
CREATE TABLE users (
    name TEXT    PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
    role TEXT    NOT NULL CHECK (role IN ('operator', 'auditor')),
    seq  INTEGER NOT NULL CHECK (seq >= 1),
    at   TEXT    NOT NULL
) STRICT;

-- Secrets, not evidence: never projected, never exported. Only hashes are stored.
CREATE TABLE credentials (
    name          TEXT PRIMARY KEY REFERENCES users (name),
    token_hash    TEXT NOT NULL UNIQUE CHECK (length(token_hash) = 64),
    password_hash TEXT
) STRICT;
