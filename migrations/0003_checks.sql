-- Verification (docs/events.md, docs/verification.md): one row per check of a citation, the
-- page it stored and every verifier's answer. Every table here is a projection of
-- citation.checked, keyed by the event's seq: re-checking appends rows, it never rewrites
-- them.

-- Projection of citation.checked: one row per check.
CREATE TABLE checks (
    seq           INTEGER PRIMARY KEY CHECK (seq >= 1),
    citation      TEXT    NOT NULL REFERENCES citations (id),
    claim         TEXT    NOT NULL REFERENCES claims (id),
    at            TEXT    NOT NULL,
    actor         TEXT    NOT NULL,
    status        TEXT    NOT NULL CHECK (status IN ('reported', 'found_at_source', 'not_found', 'unreachable')),
    note          TEXT    NOT NULL,
    excerpt       TEXT    NOT NULL,
    tier          TEXT    NOT NULL,
    agree         INTEGER NOT NULL CHECK (agree IN (0, 1)),
    escalated     INTEGER NOT NULL CHECK (escalated IN (0, 1)),
    decision      TEXT    NOT NULL CHECK (decision IN ('', 'supported', 'contradicted', 'not_found', 'unreachable')),
    residual_risk TEXT    NOT NULL CHECK (length(residual_risk) > 0)
) STRICT;

CREATE INDEX checks_citation ON checks (citation, seq);

-- The page a check stored. The body is in blobs under sha256; the same body fetched twice
-- is stored once but described by each check that fetched it.
CREATE TABLE documents (
    check_seq    INTEGER PRIMARY KEY REFERENCES checks (seq),
    sha256       TEXT    NOT NULL CHECK (length(sha256) = 64),
    url          TEXT    NOT NULL,
    final_url    TEXT    NOT NULL,
    fetched_at   TEXT    NOT NULL,
    http_status  INTEGER NOT NULL,
    content_type TEXT    NOT NULL,
    truncated    INTEGER NOT NULL CHECK (truncated IN (0, 1)),
    ip           TEXT    NOT NULL,
    hops         TEXT    NOT NULL CHECK (json_valid(hops) AND json_type(hops) = 'array')
) STRICT;

CREATE INDEX documents_sha256 ON documents (sha256);

-- Every verifier's answer in a check, in the order the verifiers ran. An answer off its
-- schema is kept as given (so verdict and estimate are not constrained) with its problem.
CREATE TABLE verdicts (
    check_seq         INTEGER NOT NULL REFERENCES checks (seq),
    ordinal           INTEGER NOT NULL CHECK (ordinal >= 0),
    verifier          TEXT    NOT NULL,
    verdict           TEXT    NOT NULL,
    accuracy_estimate INTEGER NOT NULL,
    reasoning         TEXT    NOT NULL,
    document          TEXT    NOT NULL CHECK (document = '' OR length(document) = 64),
    problem           TEXT    NOT NULL,
    PRIMARY KEY (check_seq, ordinal)
) STRICT;

-- The latest check of each citation (NULL until it is checked).
ALTER TABLE citations ADD COLUMN last_check INTEGER REFERENCES checks (seq);
