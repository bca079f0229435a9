-- Sign-in sessions: secrets, not evidence. Never projected, never exported, never in the
-- chain. Only the SHA-256 of a session id is stored; the id itself lives in the browser's
-- cookie. A row is deleted when its user signs out; expired rows are purged at sign-in.
CREATE TABLE sessions (
    id_hash TEXT PRIMARY KEY CHECK (length(id_hash) = 64),
    name    TEXT NOT NULL REFERENCES users (name),
    created TEXT NOT NULL,
    expires TEXT NOT NULL
) STRICT;

CREATE INDEX sessions_expires ON sessions (expires);
