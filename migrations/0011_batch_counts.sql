-- A batch's counts, kept current by triggers, so that the batch page and its progress poll
-- read a few rows however large the batch is (docs/scale.md, "Pages at the scale of a
-- year"). Nothing here is typed in or projected by Go code: every row is a function of the
-- claims, citations, seams, seam links and supports, kept by the triggers below in the
-- transaction that changes them. The audit recomputes all three tables from those tables
-- and compares (ledger/rollup.go), and compares these triggers and the view with the
-- migrations' (a changed one is restored, and the tables rebuilt, when the ledger is next
-- opened for writing).

-- What one citation counts for: its batch, the kind the check summary counts it as (and the
-- note it is counted under), and the model totals of its latest check. The one definition of
-- those kinds: ledger.BatchTallies reads them from here. A kind names one status (found:
-- found_at_source; not_found and unreachable: themselves; the others: reported), so the
-- citations' counts by status are sums of these.
CREATE VIEW citation_facts AS
SELECT ct.id AS citation, c.batch AS batch,
    CASE
        WHEN ct.status = 'found_at_source' THEN 'found'
        WHEN ct.status IN ('not_found', 'unreachable') THEN ct.status
        WHEN ct.last_check IS NULL AND ct.note != '' THEN 'not_checkable'
        WHEN ct.last_check IS NOT NULL OR EXISTS (SELECT 1 FROM seam_citations sc JOIN seams s ON s.id = sc.seam AND s.state = 'open' WHERE sc.citation = ct.id) THEN 'waiting'
        ELSE 'unchecked' END AS kind,
    CASE WHEN ct.status IN ('not_found', 'unreachable') THEN ct.note ELSE '' END AS note,
    coalesce(s.calls, 0) AS calls, coalesce(s.prompt_tokens, 0) AS prompt_tokens,
    coalesce(s.completion_tokens, 0) AS completion_tokens, coalesce(s.latency_ms, 0) AS latency_ms
FROM citations ct JOIN claims c ON c.id = ct.claim LEFT JOIN supports s ON s.check_seq = ct.last_check;

-- citation_facts, stored: one row per citation, replaced whenever what it depends on changes.
CREATE TABLE citation_rollup (
    citation          TEXT    PRIMARY KEY REFERENCES citations (id),
    batch             TEXT    NOT NULL,
    kind              TEXT    NOT NULL,
    note              TEXT    NOT NULL,
    calls             INTEGER NOT NULL,
    prompt_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_ms        INTEGER NOT NULL
) STRICT;

-- The batches each seam is about (through its claims or its citations' claims).
CREATE TABLE seam_batches (
    seam  TEXT NOT NULL REFERENCES seams (id),
    batch TEXT NOT NULL REFERENCES batches (id),
    PRIMARY KEY (seam, batch)
) STRICT, WITHOUT ROWID;

-- The counts: per batch, facet and key (and note, for the tally of citations not found or
-- unreachable), the number of claims or citations, or of open seams; a tally row also sums
-- the model totals of its citations' latest checks. A count that falls to zero is deleted,
-- so a batch holds one row per count it shows.
CREATE TABLE batch_counts (
    batch             TEXT    NOT NULL REFERENCES batches (id),
    facet             TEXT    NOT NULL CHECK (facet IN ('claim_status', 'claim_strength', 'tally', 'open_seams')),
    key               TEXT    NOT NULL,
    note              TEXT    NOT NULL,
    n                 INTEGER NOT NULL,
    calls             INTEGER NOT NULL DEFAULT 0,
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    latency_ms        INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (batch, facet, key, note)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER rollup_count_zero AFTER UPDATE OF n ON batch_counts WHEN NEW.n = 0
BEGIN
    DELETE FROM batch_counts WHERE batch = NEW.batch AND facet = NEW.facet AND key = NEW.key AND note = NEW.note;
END;

-- Claims count by status and strength directly.
CREATE TRIGGER rollup_claim_insert AFTER INSERT ON claims
BEGIN
    INSERT INTO batch_counts (batch, facet, key, note, n) VALUES (NEW.batch, 'claim_status', NEW.status, '', 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO batch_counts (batch, facet, key, note, n) VALUES (NEW.batch, 'claim_strength', CASE NEW.strength WHEN '' THEN 'none' ELSE NEW.strength END, '', 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER rollup_claim_delete AFTER DELETE ON claims
BEGIN
    INSERT INTO batch_counts (batch, facet, key, note, n) VALUES (OLD.batch, 'claim_status', OLD.status, '', -1)
        ON CONFLICT DO UPDATE SET n = n - 1;
    INSERT INTO batch_counts (batch, facet, key, note, n) VALUES (OLD.batch, 'claim_strength', CASE OLD.strength WHEN '' THEN 'none' ELSE OLD.strength END, '', -1)
        ON CONFLICT DO UPDATE SET n = n - 1;
END;

CREATE TRIGGER rollup_claim_update AFTER UPDATE OF batch, status, strength ON claims
    WHEN OLD.batch IS NOT NEW.batch OR OLD.status IS NOT NEW.status OR OLD.strength IS NOT NEW.strength
BEGIN
    INSERT INTO batch_counts (batch, facet, key, note, n) VALUES (OLD.batch, 'claim_status', OLD.status, '', -1)
        ON CONFLICT DO UPDATE SET n = n - 1;
    INSERT INTO batch_counts (batch, facet, key, note, n) VALUES (OLD.batch, 'claim_strength', CASE OLD.strength WHEN '' THEN 'none' ELSE OLD.strength END, '', -1)
        ON CONFLICT DO UPDATE SET n = n - 1;
    INSERT INTO batch_counts (batch, facet, key, note, n) VALUES (NEW.batch, 'claim_status', NEW.status, '', 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO batch_counts (batch, facet, key, note, n) VALUES (NEW.batch, 'claim_strength', CASE NEW.strength WHEN '' THEN 'none' ELSE NEW.strength END, '', 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- A citation's stored facts count for its batch while they are stored.
CREATE TRIGGER rollup_citation_counted AFTER INSERT ON citation_rollup
BEGIN
    INSERT INTO batch_counts VALUES (NEW.batch, 'tally', NEW.kind, NEW.note, 1, NEW.calls, NEW.prompt_tokens, NEW.completion_tokens, NEW.latency_ms)
        ON CONFLICT DO UPDATE SET n = n + 1, calls = calls + excluded.calls, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
            completion_tokens = completion_tokens + excluded.completion_tokens, latency_ms = latency_ms + excluded.latency_ms;
END;

CREATE TRIGGER rollup_citation_uncounted AFTER DELETE ON citation_rollup
BEGIN
    INSERT INTO batch_counts VALUES (OLD.batch, 'tally', OLD.kind, OLD.note, -1, -OLD.calls, -OLD.prompt_tokens, -OLD.completion_tokens, -OLD.latency_ms)
        ON CONFLICT DO UPDATE SET n = n - 1, calls = calls + excluded.calls, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
            completion_tokens = completion_tokens + excluded.completion_tokens, latency_ms = latency_ms + excluded.latency_ms;
END;

-- Whatever a citation's facts depend on changes: the columns of its row they read, its seam
-- links, the state of a seam it is linked to, the supports of a check. Each refreshes the
-- citations concerned; an UPDATE that leaves those columns as they were does nothing (the
-- checker's projector rewrites every claim of a checked citation, most often unchanged).
CREATE TRIGGER rollup_citation_insert AFTER INSERT ON citations
BEGIN
    INSERT INTO citation_rollup SELECT * FROM citation_facts WHERE citation = NEW.id;
END;

CREATE TRIGGER rollup_citation_update AFTER UPDATE OF id, claim, status, note, last_check ON citations
    WHEN OLD.id IS NOT NEW.id OR OLD.claim IS NOT NEW.claim OR OLD.status IS NOT NEW.status OR OLD.note IS NOT NEW.note OR OLD.last_check IS NOT NEW.last_check
BEGIN
    DELETE FROM citation_rollup WHERE citation IN (OLD.id, NEW.id);
    INSERT INTO citation_rollup SELECT * FROM citation_facts WHERE citation = NEW.id;
END;

CREATE TRIGGER rollup_citation_delete AFTER DELETE ON citations
BEGIN
    DELETE FROM citation_rollup WHERE citation = OLD.id;
END;

CREATE TRIGGER rollup_seam_citation_insert AFTER INSERT ON seam_citations
BEGIN
    INSERT OR IGNORE INTO seam_batches SELECT NEW.seam, c.batch FROM citations ct JOIN claims c ON c.id = ct.claim WHERE ct.id = NEW.citation;
    DELETE FROM citation_rollup WHERE citation = NEW.citation;
    INSERT INTO citation_rollup SELECT * FROM citation_facts WHERE citation = NEW.citation;
END;

CREATE TRIGGER rollup_seam_citation_delete AFTER DELETE ON seam_citations
BEGIN
    DELETE FROM seam_batches WHERE seam = OLD.seam AND batch = (SELECT c.batch FROM citations ct JOIN claims c ON c.id = ct.claim WHERE ct.id = OLD.citation)
        AND NOT EXISTS (SELECT 1 FROM seam_claims sc JOIN claims c ON c.id = sc.claim WHERE sc.seam = OLD.seam AND c.batch = seam_batches.batch)
        AND NOT EXISTS (SELECT 1 FROM seam_citations sx JOIN citations ct ON ct.id = sx.citation JOIN claims c ON c.id = ct.claim WHERE sx.seam = OLD.seam AND c.batch = seam_batches.batch);
    DELETE FROM citation_rollup WHERE citation = OLD.citation;
    INSERT INTO citation_rollup SELECT * FROM citation_facts WHERE citation = OLD.citation;
END;

CREATE TRIGGER rollup_seam_claim_insert AFTER INSERT ON seam_claims
BEGIN
    INSERT OR IGNORE INTO seam_batches SELECT NEW.seam, batch FROM claims WHERE id = NEW.claim;
END;

CREATE TRIGGER rollup_seam_claim_delete AFTER DELETE ON seam_claims
BEGIN
    DELETE FROM seam_batches WHERE seam = OLD.seam AND batch = (SELECT batch FROM claims WHERE id = OLD.claim)
        AND NOT EXISTS (SELECT 1 FROM seam_claims sc JOIN claims c ON c.id = sc.claim WHERE sc.seam = OLD.seam AND c.batch = seam_batches.batch)
        AND NOT EXISTS (SELECT 1 FROM seam_citations sx JOIN citations ct ON ct.id = sx.citation JOIN claims c ON c.id = ct.claim WHERE sx.seam = OLD.seam AND c.batch = seam_batches.batch);
END;

CREATE TRIGGER rollup_seam_state AFTER UPDATE OF state ON seams WHEN (OLD.state = 'open') != (NEW.state = 'open')
BEGIN
    INSERT INTO batch_counts (batch, facet, key, note, n) SELECT batch, 'open_seams', '', '', CASE NEW.state WHEN 'open' THEN 1 ELSE -1 END FROM seam_batches WHERE seam = NEW.id
        ON CONFLICT DO UPDATE SET n = n + excluded.n;
    DELETE FROM citation_rollup WHERE citation IN (SELECT citation FROM seam_citations WHERE seam = NEW.id);
    INSERT INTO citation_rollup SELECT * FROM citation_facts WHERE citation IN (SELECT citation FROM seam_citations WHERE seam = NEW.id);
END;

CREATE TRIGGER rollup_seam_batch_insert AFTER INSERT ON seam_batches
BEGIN
    INSERT INTO batch_counts (batch, facet, key, note, n) SELECT NEW.batch, 'open_seams', '', '', 1 FROM seams WHERE id = NEW.seam AND state = 'open'
        ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER rollup_seam_batch_delete AFTER DELETE ON seam_batches
BEGIN
    INSERT INTO batch_counts (batch, facet, key, note, n) SELECT OLD.batch, 'open_seams', '', '', -1 FROM seams WHERE id = OLD.seam AND state = 'open'
        ON CONFLICT DO UPDATE SET n = n - 1;
END;

CREATE TRIGGER rollup_support_insert AFTER INSERT ON supports
BEGIN
    DELETE FROM citation_rollup WHERE citation IN (SELECT citation FROM checks WHERE seq = NEW.check_seq);
    INSERT INTO citation_rollup SELECT * FROM citation_facts WHERE citation IN (SELECT citation FROM checks WHERE seq = NEW.check_seq);
END;

CREATE TRIGGER rollup_support_update AFTER UPDATE OF check_seq, calls, prompt_tokens, completion_tokens, latency_ms ON supports
BEGIN
    DELETE FROM citation_rollup WHERE citation IN (SELECT citation FROM checks WHERE seq IN (OLD.check_seq, NEW.check_seq));
    INSERT INTO citation_rollup SELECT * FROM citation_facts WHERE citation IN (SELECT citation FROM checks WHERE seq IN (OLD.check_seq, NEW.check_seq));
END;

CREATE TRIGGER rollup_support_delete AFTER DELETE ON supports
BEGIN
    DELETE FROM citation_rollup WHERE citation IN (SELECT citation FROM checks WHERE seq = OLD.check_seq);
    INSERT INTO citation_rollup SELECT * FROM citation_facts WHERE citation IN (SELECT citation FROM checks WHERE seq = OLD.check_seq);
END;

-- A ledger written before this file: the same rules, applied once.
INSERT INTO seam_batches SELECT sc.seam, c.batch FROM seam_claims sc JOIN claims c ON c.id = sc.claim
    UNION SELECT sx.seam, c.batch FROM seam_citations sx JOIN citations ct ON ct.id = sx.citation JOIN claims c ON c.id = ct.claim;
INSERT INTO citation_rollup SELECT * FROM citation_facts;
INSERT INTO batch_counts (batch, facet, key, note, n) SELECT batch, 'claim_status', status, '', count(*) FROM claims GROUP BY batch, status;
INSERT INTO batch_counts (batch, facet, key, note, n) SELECT batch, 'claim_strength', CASE strength WHEN '' THEN 'none' ELSE strength END, '', count(*) FROM claims GROUP BY 1, 3;
