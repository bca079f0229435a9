-- Batch check runs that began and have not ended: written when a server's check job starts,
-- deleted when it ends by itself (done, failed or cancelled); left behind when its process
-- stopped it (SIGTERM past the shutdown grace, kill -9, a crash), so that the next server
-- resumes it. since is the chain's head when the run began: a citation whose latest check is
-- later was checked by this run, and a resumed run does not check it again. Like check_locks,
-- not evidence: never projected, never exported, never in the chain, not audited.
CREATE TABLE check_runs (
    batch   TEXT    PRIMARY KEY REFERENCES batches (id),
    job     TEXT    NOT NULL CHECK (length(job) > 0),
    actor   TEXT    NOT NULL CHECK (length(actor) > 0),
    recheck INTEGER NOT NULL CHECK (recheck IN (0, 1)),
    since   INTEGER NOT NULL CHECK (since >= 1),
    started TEXT    NOT NULL
) STRICT;
