-- The model tier's support judgement and the code-only consistency check (docs/models.md).
-- Every table and column here is a projection of citation.checked, keyed by the event's seq:
-- re-checking appends rows, it never rewrites them. A check made with the tier off has no
-- supports row and support ''.

-- What CompareClaim found wrong between the claim and the found quote (a JSON array of
-- {kind, claim, page}), and the support verdict of the check ('' when the tier was off,
-- skipped or split).
ALTER TABLE checks ADD COLUMN consistency TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(consistency) AND json_type(consistency) = 'array');
ALTER TABLE checks ADD COLUMN support TEXT NOT NULL DEFAULT '' CHECK (support IN ('', 'supported', 'contradicted', 'not_found'));

-- The support verdict of the citation's latest check.
ALTER TABLE citations ADD COLUMN support TEXT NOT NULL DEFAULT '' CHECK (support IN ('', 'supported', 'contradicted', 'not_found'));

-- One row per check made with the tier on.
CREATE TABLE supports (
    check_seq         INTEGER PRIMARY KEY REFERENCES checks (seq),
    verdict           TEXT    NOT NULL CHECK (verdict IN ('', 'supported', 'contradicted', 'not_found')),
    decided_by        TEXT    NOT NULL CHECK (decided_by IN ('', 'code', 'adjudicator')),
    escalated         INTEGER NOT NULL CHECK (escalated IN (0, 1)),
    skipped           TEXT    NOT NULL,
    adjudication      TEXT    NOT NULL CHECK (json_valid(adjudication)),
    residual_risk     TEXT    NOT NULL CHECK (length(residual_risk) > 0),
    calls             INTEGER NOT NULL CHECK (calls >= 0),
    prompt_tokens     INTEGER NOT NULL CHECK (prompt_tokens >= 0),
    completion_tokens INTEGER NOT NULL CHECK (completion_tokens >= 0),
    latency_ms        INTEGER NOT NULL CHECK (latency_ms >= 0),
    CHECK ((verdict = '') = (decided_by = ''))
) STRICT;

-- Every model verifier's answer, in the order they ran. An answer off its schema is kept as
-- given (verdict and estimate unconstrained) with its problem.
CREATE TABLE support_judgements (
    check_seq         INTEGER NOT NULL REFERENCES supports (check_seq),
    ordinal           INTEGER NOT NULL CHECK (ordinal >= 0),
    verifier          TEXT    NOT NULL,
    model             TEXT    NOT NULL,
    verdict           TEXT    NOT NULL,
    accuracy_estimate INTEGER NOT NULL,
    reasoning         TEXT    NOT NULL,
    evidence          TEXT    NOT NULL CHECK (json_valid(evidence) AND json_type(evidence) = 'array'),
    document          TEXT    NOT NULL CHECK (document = '' OR length(document) = 64),
    problem           TEXT    NOT NULL,
    PRIMARY KEY (check_seq, ordinal)
) STRICT;

-- Every model call of a check: tier, model, tokens as the server reported them, latency.
CREATE TABLE model_calls (
    check_seq         INTEGER NOT NULL REFERENCES supports (check_seq),
    ordinal           INTEGER NOT NULL CHECK (ordinal >= 0),
    tier              TEXT    NOT NULL CHECK (tier IN ('verifier', 'adjudicator')),
    role              TEXT    NOT NULL,
    model             TEXT    NOT NULL,
    prompt_tokens     INTEGER NOT NULL CHECK (prompt_tokens >= 0),
    completion_tokens INTEGER NOT NULL CHECK (completion_tokens >= 0),
    latency_ms        INTEGER NOT NULL CHECK (latency_ms >= 0),
    attempts          INTEGER NOT NULL CHECK (attempts >= 0),
    outcome           TEXT    NOT NULL,
    PRIMARY KEY (check_seq, ordinal)
) STRICT;
