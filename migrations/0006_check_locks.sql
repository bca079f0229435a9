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
