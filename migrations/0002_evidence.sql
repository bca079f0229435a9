-- Research intake (docs/events.md, docs/intake.md): batches, their claims and citations, the
-- sources behind the citations, and the seams. Every table here is a projection: written only
-- by the projectors of batch.imported, source.classified, seam.opened, seam.resolved and
-- citation.checked, and rebuilt from the events by the audit.

-- Projection of batch.imported: one row per imported paste.
CREATE TABLE batches (
    id     TEXT    PRIMARY KEY CHECK (id GLOB 'b_[0-9a-f]*' AND length(id) = 18),
    format TEXT    NOT NULL CHECK (format IN ('text', 'json')),
    paste  TEXT    NOT NULL CHECK (length(paste) = 64),
    seq    INTEGER NOT NULL UNIQUE CHECK (seq >= 1),
    at     TEXT    NOT NULL,
    actor  TEXT    NOT NULL
) STRICT;

-- The publishers behind citation URLs, by registrable domain. A source enters as a lead when a
-- batch first cites it; source.classified sets its class and publisher.
CREATE TABLE sources (
    id            TEXT    PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 253),
    class         TEXT    NOT NULL CHECK (class IN ('primary', 'semi', 'lead')),
    publisher     TEXT    NOT NULL DEFAULT '',
    first_seq     INTEGER NOT NULL CHECK (first_seq >= 1),
    classified_by TEXT,
    classified_at TEXT,
    CHECK ((classified_by IS NULL) = (classified_at IS NULL))
) STRICT;

-- Claims: status and strength are computed from the citations (recomputeClaim), never typed in.
CREATE TABLE claims (
    id       TEXT    PRIMARY KEY CHECK (id GLOB 'c_[0-9a-f]*' AND length(id) = 18),
    batch    TEXT    NOT NULL REFERENCES batches (id),
    position INTEGER NOT NULL CHECK (position >= 0),
    text     TEXT    NOT NULL CHECK (length(text) > 0),
    norm     TEXT    NOT NULL,
    notes    TEXT    NOT NULL CHECK (json_valid(notes) AND json_type(notes) = 'array'),
    status   TEXT    NOT NULL CHECK (status IN ('reported', 'found_at_source', 'not_found', 'unreachable')),
    strength TEXT    NOT NULL CHECK (strength IN ('', 'low', 'medium', 'high')),
    CHECK (strength = '' OR status = 'found_at_source'),
    UNIQUE (batch, position)
) STRICT;

CREATE INDEX claims_norm ON claims (norm);

-- Citations: URL and quote as the research gave them. status, note and excerpt change with
-- citation.checked and with the resolution of a seam about the citation.
CREATE TABLE citations (
    id         TEXT    PRIMARY KEY CHECK (id GLOB 'ct_[0-9a-f]*' AND length(id) = 19),
    claim      TEXT    NOT NULL REFERENCES claims (id),
    position   INTEGER NOT NULL CHECK (position >= 0),
    url        TEXT    NOT NULL,
    quote      TEXT    NOT NULL,
    quote_norm TEXT    NOT NULL,
    source     TEXT    REFERENCES sources (id),
    notes      TEXT    NOT NULL CHECK (json_valid(notes) AND json_type(notes) = 'array'),
    status     TEXT    NOT NULL CHECK (status IN ('reported', 'found_at_source', 'not_found', 'unreachable')),
    note       TEXT    NOT NULL,
    excerpt    TEXT    NOT NULL,
    UNIQUE (claim, position)
) STRICT;

CREATE INDEX citations_url ON citations (url, quote_norm);
CREATE INDEX citations_source ON citations (source, status);

-- Seams: open questions for a person. A resolved seam stays resolved.
CREATE TABLE seams (
    id          TEXT    PRIMARY KEY CHECK (id GLOB 's_[0-9a-f]*' AND length(id) = 18),
    kind        TEXT    NOT NULL CHECK (kind IN ('contradiction', 'disagreement', 'manual', 'absence')),
    summary     TEXT    NOT NULL CHECK (length(summary) > 0),
    state       TEXT    NOT NULL CHECK (state IN ('open', 'resolved')),
    opened_seq  INTEGER NOT NULL UNIQUE CHECK (opened_seq >= 1),
    opened_at   TEXT    NOT NULL,
    opened_by   TEXT    NOT NULL,
    decision    TEXT,
    reason      TEXT,
    resolved_at TEXT,
    resolved_by TEXT,
    CHECK ((state = 'open') = (decision IS NULL)),
    CHECK ((decision IS NULL) = (reason IS NULL) AND (reason IS NULL) = (resolved_at IS NULL) AND (resolved_at IS NULL) = (resolved_by IS NULL))
) STRICT;

CREATE INDEX seams_state ON seams (state, opened_seq);

-- The claims and citations a seam is about.
CREATE TABLE seam_claims (
    seam  TEXT NOT NULL REFERENCES seams (id),
    claim TEXT NOT NULL REFERENCES claims (id),
    PRIMARY KEY (seam, claim)
) STRICT;

CREATE INDEX seam_claims_claim ON seam_claims (claim);

CREATE TABLE seam_citations (
    seam     TEXT NOT NULL REFERENCES seams (id),
    citation TEXT NOT NULL REFERENCES citations (id),
    PRIMARY KEY (seam, citation)
) STRICT;

CREATE INDEX seam_citations_citation ON seam_citations (citation);
