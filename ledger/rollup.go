package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// The rollup tables (citation_rollup, seam_batches, batch_counts) are kept by the triggers of
// migrations/0011_batch_counts.sql: each row is a function of the claims, citations, seams,
// seam links and supports, which the replay rebuilds from the events and the audit compares.
// So the audit holds the rollups to those tables directly: rollupChecks give, for each
// rollup, what it must hold (recomputed from the tables it sums) and what it holds; any row
// in one and not the other is a problem.
var rollupChecks = []struct {
	table, want, have string
}{
	{"citation_rollup",
		"SELECT citation, batch, kind, note, calls, prompt_tokens, completion_tokens, latency_ms FROM citation_facts",
		"SELECT citation, batch, kind, note, calls, prompt_tokens, completion_tokens, latency_ms FROM citation_rollup"},
	{"seam_batches",
		`SELECT sc.seam, c.batch FROM seam_claims sc JOIN claims c ON c.id = sc.claim
		UNION SELECT sx.seam, c.batch FROM seam_citations sx JOIN citations ct ON ct.id = sx.citation JOIN claims c ON c.id = ct.claim`,
		"SELECT seam, batch FROM seam_batches"},
	{"batch_counts", `SELECT * FROM (
		SELECT batch, 'claim_status', status, '', count(*), 0, 0, 0, 0 FROM claims GROUP BY batch, status
		UNION ALL SELECT batch, 'claim_strength', CASE strength WHEN '' THEN 'none' ELSE strength END, '', count(*), 0, 0, 0, 0 FROM claims GROUP BY 1, 3
		UNION ALL SELECT batch, 'tally', kind, note, count(*), sum(calls), sum(prompt_tokens), sum(completion_tokens), sum(latency_ms)
			FROM citation_facts GROUP BY batch, kind, note
		UNION ALL SELECT l.batch, 'open_seams', '', '', count(*), 0, 0, 0, 0 FROM (
			SELECT sc.seam, c.batch FROM seam_claims sc JOIN claims c ON c.id = sc.claim
			UNION SELECT sx.seam, c.batch FROM seam_citations sx JOIN citations ct ON ct.id = sx.citation JOIN claims c ON c.id = ct.claim
		) l JOIN seams s ON s.id = l.seam AND s.state = 'open' GROUP BY l.batch)`,
		"SELECT batch, facet, key, note, n, calls, prompt_tokens, completion_tokens, latency_ms FROM batch_counts"},
}

// rollupTables are the rollup tables with their keys, for the incremental audit, which
// compares the rollup rows the new events touched with those the working copy's triggers
// keep (auditinc.go).
var rollupTables = []projectionTable{
	{name: "citation_rollup", orderBy: "citation"},
	{name: "seam_batches", orderBy: "seam, batch"},
	{name: "batch_counts", orderBy: "batch, facet, key, note"},
}

// maxRollupProblems bounds the rows the audit names per rollup table and direction; the
// report says how many more there were.
const maxRollupProblems = 5

// checkRollups reports every row of a rollup table that the tables it sums do not give, and
// every row they give that it lacks. It reads each table once, by SQL, in tx.
func checkRollups(ctx context.Context, tx *sql.Tx, probs *problemList) error {
	for _, rc := range rollupChecks {
		for _, dir := range []struct{ query, what string }{
			{"SELECT * FROM (" + rc.have + ") EXCEPT SELECT * FROM (" + rc.want + ")", "holds a row the tables it sums do not give"},
			{"SELECT * FROM (" + rc.want + ") EXCEPT SELECT * FROM (" + rc.have + ")", "lacks a row the tables it sums give"},
		} {
			rows, err := tx.QueryContext(ctx, dir.query)
			if err != nil {
				return fmt.Errorf("check %s: %w", rc.table, err)
			}
			cols, err := rows.Columns()
			if err != nil {
				rows.Close()
				return fmt.Errorf("check %s: %w", rc.table, err)
			}
			vals, ptrs := make([]any, len(cols)), make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			n := 0
			for rows.Next() {
				if err := scanValues(rows, vals, ptrs); err != nil {
					rows.Close()
					return fmt.Errorf("check %s: %w", rc.table, err)
				}
				if n++; n <= maxRollupProblems {
					probs.add(0, rc.table, "%s (%s); it is kept by triggers from those tables, so it was written behind the program's back", dir.what, strings.Join(showValues(vals), ", "))
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return fmt.Errorf("check %s: %w", rc.table, err)
			}
			if n > maxRollupProblems {
				probs.add(0, rc.table, "%d more such rows", n-maxRollupProblems)
			}
		}
	}
	return nil
}

// rebuildRollups recomputes every rollup table from the tables it sums, in tx: after a
// trigger that keeps them was restored, the rows written while it was missing or changed are
// put right.
func rebuildRollups(ctx context.Context, tx *sql.Tx) error {
	for _, q := range []string{
		// Deleting the rollups' rows uncounts them through their triggers; what is left is
		// what a changed trigger left wrong.
		"DELETE FROM citation_rollup",
		"DELETE FROM seam_batches",
		"DELETE FROM batch_counts",
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("rebuild the batch counts: %w", err)
		}
	}
	// Inserting into seam_batches and citation_rollup counts them through their triggers; the
	// claims' counts are inserted directly, as no claim row changes.
	for _, q := range []string{
		"INSERT INTO seam_batches " + rollupChecks[1].want,
		"INSERT INTO citation_rollup " + rollupChecks[0].want,
		"INSERT INTO batch_counts (batch, facet, key, note, n) SELECT batch, 'claim_status', status, '', count(*) FROM claims GROUP BY batch, status",
		"INSERT INTO batch_counts (batch, facet, key, note, n) SELECT batch, 'claim_strength', CASE strength WHEN '' THEN 'none' ELSE strength END, '', count(*) FROM claims GROUP BY 1, 3",
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("rebuild the batch counts: %w", err)
		}
	}
	return nil
}
