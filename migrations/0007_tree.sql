-- The Merkle tree over the events and its signed checkpoints (docs/chain.md, "Checkpoints").

-- Projection of every event: the stored hashes of an RFC 6962 Merkle tree whose leaves are
-- the events' 32-byte hashes in seq order, laid out as golang.org/x/mod/sumdb/tlog stores
-- them (StoredHashIndex): about two hashes per event, enough for the root of every earlier
-- size and for inclusion and consistency proofs in O(log n) reads. Rebuilt by the audit.
CREATE TABLE tree_hashes (
    idx  INTEGER PRIMARY KEY CHECK (idx >= 0),
    hash BLOB    NOT NULL CHECK (length(hash) = 32)
) STRICT;

-- Signed checkpoints: one per write transaction, covering every event it committed. note is
-- the whole C2SP tlog-checkpoint signed note (origin, size, root, signature line). Not a
-- projection (a replay has no key); the audit checks each one against the tree and the key
-- current at its size. Append-only.
CREATE TABLE checkpoints (
    size INTEGER PRIMARY KEY CHECK (size >= 1),
    root BLOB    NOT NULL CHECK (length(root) = 32),
    note TEXT    NOT NULL CHECK (length(note) > 0)
) STRICT;

CREATE TRIGGER checkpoints_no_update BEFORE UPDATE ON checkpoints
BEGIN
    SELECT RAISE(ABORT, 'checkpoints are append-only: UPDATE is refused');
END;

CREATE TRIGGER checkpoints_no_delete BEFORE DELETE ON checkpoints
BEGIN
    SELECT RAISE(ABORT, 'checkpoints are append-only: DELETE is refused');
END;

-- Witnesses' cosignatures of checkpoints (C2SP tlog-cosignature): the signature line a
-- witness returned, by witness name. Append-only.
CREATE TABLE cosignatures (
    size    INTEGER NOT NULL REFERENCES checkpoints (size),
    witness TEXT    NOT NULL CHECK (length(witness) > 0),
    line    TEXT    NOT NULL CHECK (line GLOB '— *'),
    PRIMARY KEY (size, witness)
) STRICT;

CREATE TRIGGER cosignatures_no_update BEFORE UPDATE ON cosignatures
BEGIN
    SELECT RAISE(ABORT, 'cosignatures are append-only: UPDATE is refused');
END;

CREATE TRIGGER cosignatures_no_delete BEFORE DELETE ON cosignatures
BEGIN
    SELECT RAISE(ABORT, 'cosignatures are append-only: DELETE is refused');
END;
