-- Batch check locks: which job checks which batch now, across every process that opens the
-- ledger (servers and `ledger check`). Not evidence: never projected, never exported, never
-- in the chain. A row is a lease: its holder renews it while the job runs and deletes it when
-- the job ends; a row whose lease ran out belongs to a process that crashed or was killed,
-- and the next check of the batch takes it over.
CREATE TABLE check_locks (
    batch   TEXT PRIMARY KEY REFERENCES batches (id),
    job     TEXT NOT NULL CHECK (length(job) > 0),
    holder  TEXT NOT NULL,
    started TEXT NOT NULL,
    expires TEXT NOT NULL
) STRICT;

-- The seam whose resolution set the citation's status, while that is the citation's latest
-- word: set when a person resolves a manual or disagreement seam about the citation, cleared
-- by the next check recorded for it. A re-check reads the person's decision from here.
ALTER TABLE citations ADD COLUMN decided_by_seam TEXT REFERENCES seams (id);

-- Ledgers written before this column kept that fact in the note the resolution wrote; the
-- same rule, applied once, gives the column its value.
UPDATE citations SET decided_by_seam = (
    SELECT s.id FROM seams s JOIN seam_citations sc ON sc.seam = s.id
    WHERE sc.citation = citations.id AND s.state = 'resolved' AND s.kind IN ('manual', 'disagreement')
      AND citations.status = s.decision
      AND citations.note = 'decided by ' || s.resolved_by || ' (seam ' || s.id || '): ' || s.reason
    ORDER BY s.opened_seq DESC LIMIT 1);
