package ledger

import (
	"context"
	"fmt"
	"testing"

	"evidenceledger/evidence"
)

// mixedWorkload imports two pastes, decides citations by hand, classifies sources and opens
// and resolves seams of every kind.
func mixedWorkload(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	importPaste(t, s, readPaste(t, "labelled-list.txt"))
	b := importPaste(t, s, readPaste(t, "footnoted-perplexity.md"))
	var checkable []CitationView
	for _, c := range b.Claims {
		for _, ct := range c.Citations {
			if ct.Source != "" {
				checkable = append(checkable, ct)
			}
		}
	}
	if len(checkable) < 3 {
		t.Fatalf("the paste has %d citations with a source; want 3 or more", len(checkable))
	}
	markFound(t, s, checkable[0].ID, evidence.StatusFound)
	markFound(t, s, checkable[1].ID, evidence.StatusFound)
	markFound(t, s, checkable[2].ID, evidence.StatusUnreachable)
	for i, ct := range checkable[:2] {
		class := []evidence.SourceClass{evidence.ClassPrimary, evidence.ClassSemi}[i]
		if _, err := s.ClassifySource(ctx, "user:olga", ct.Source, class, fmt.Sprintf("Publisher %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	contra, err := s.OpenSeam(ctx, "user:olga", SeamRequest{Kind: evidence.SeamContradiction, Summary: "They disagree.", Claims: []string{b.Claims[0].ID, b.Claims[1].ID}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenSeam(ctx, "user:olga", SeamRequest{Kind: evidence.SeamAbsence, Summary: "No primary source.", Claims: []string{b.Claims[len(b.Claims)-1].ID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ResolveSeam(ctx, "user:vera", contra.ID, string(evidence.DecisionContradicted), "The filing says so."); err != nil {
		t.Fatal(err)
	}
}

func TestAuditReplaysIntake(t *testing.T) {
	tamper := []struct {
		desc, sql, table string
	}{
		{"strength typed in", "UPDATE claims SET strength = 'high' WHERE status = 'found_at_source'", "claims"},
		{"claim text changed", "UPDATE claims SET text = text || ' (edited)' WHERE rowid = 1", "claims"},
		{"citation marked found", "UPDATE citations SET status = 'found_at_source' WHERE status = 'reported' AND rowid = (SELECT min(rowid) FROM citations WHERE status = 'reported')", "citations"},
		{"source promoted", "UPDATE sources SET class = 'primary' WHERE class = 'lead' AND rowid = (SELECT min(rowid) FROM sources WHERE class = 'lead')", "sources"},
		{"seam closed behind the program's back", "UPDATE seams SET state = 'resolved', decision = 'x', reason = 'y', resolved_at = 'z', resolved_by = 'system' WHERE state = 'open'", "seams"},
		{"seam link removed", "DELETE FROM seam_claims WHERE rowid = (SELECT min(rowid) FROM seam_claims)", "seam_claims"},
		{"seam citation added", "INSERT INTO seam_citations (seam, citation) SELECT (SELECT id FROM seams LIMIT 1), id FROM citations WHERE id NOT IN (SELECT citation FROM seam_citations) LIMIT 1", "seam_citations"},
		{"contradicted claim cleared", "UPDATE claims SET standing = '' WHERE standing = 'contradicted'", "claims"},
		{"claim contradicted behind the program's back", "UPDATE claims SET standing = 'contradicted' WHERE standing = ''", "claims"},
		{"decision's standing cleared", "UPDATE seams SET standing = '' WHERE standing = 'contradicted'", "seams"},
		{"batch removed", "DELETE FROM citations; DELETE FROM seam_claims; DELETE FROM claims WHERE batch = (SELECT id FROM batches ORDER BY seq DESC LIMIT 1); DELETE FROM batches WHERE seq = (SELECT max(seq) FROM batches)", "batches"},
	}
	for _, tt := range tamper {
		t.Run(tt.desc, func(t *testing.T) {
			s, dir := openTest(t)
			mixedWorkload(t, s)
			mustAuditOK(t, s)
			mustTamperBeCaught(t, s, dir, tt.sql, tt.table)
		})
	}
}
