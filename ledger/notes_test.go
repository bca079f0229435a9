package ledger

import (
	"context"
	"testing"

	"evidenceledger/evidence"
)

// TestDecidedNoteIsDataInTheRow: a person's decision on a citation stores their reason and
// the seam, not a sentence; the note shown is made from them. A ledger written when the
// projector stored the sentence is brought to that form by its migration, after which its
// replay and its stored rows agree.
func TestDecidedNoteIsDataInTheRow(t *testing.T) {
	s, dir := openTest(t)
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "system", []byte("p"), research(claim("One.", "https://a.example/1", "the registry counted 4,812 companies")))
	if err != nil {
		t.Fatal(err)
	}
	ct := b.Claims[0].Citations[0]
	seam, err := s.OpenSeam(ctx, "user:olga", SeamRequest{Kind: evidence.SeamManual, Summary: "Open the page by hand.", Citations: []string{ct.ID}})
	if err != nil {
		t.Fatal(err)
	}
	const reason = "I opened the page: it says so."
	if _, err := s.ResolveSeam(ctx, "user:olga", seam.ID, string(evidence.StatusFound), reason); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, dir)
	var stored string
	if err := db.QueryRow("SELECT note FROM citations WHERE id = ?", ct.ID).Scan(&stored); err != nil || stored != reason {
		t.Fatalf("stored note %q, %v; want the reason alone", stored, err)
	}
	shown := evidence.DecidedNote("user:olga", seam.ID, reason)
	v, err := s.Claim(ctx, b.Claims[0].ID)
	if err != nil || v.Citations[0].Note != shown {
		t.Fatalf("shown note %q, %v; want %q", v.Citations[0].Note, err, shown)
	}
	bcs, err := s.BatchCitations(ctx, b.ID)
	if err != nil || bcs[0].Note != shown {
		t.Fatalf("batch citation note %+v, %v; want %q", bcs, err, shown)
	}
	mustAuditOK(t, s)

	// As a ledger written before the row held data: the sentence stored, the schema one
	// migration older.
	mustExec(t, db, "UPDATE citations SET note = '"+shown+"' WHERE id = '"+ct.ID+"'")
	if rep, err := s.Audit(ctx); err != nil || rep.OK {
		t.Fatalf("the sentence in the row against today's replay: %+v, %v; want a difference", rep, err)
	}
	s.Close()
	mustExec(t, db, "PRAGMA user_version = 12")
	s2, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if err := db.QueryRow("SELECT note FROM citations WHERE id = ?", ct.ID).Scan(&stored); err != nil || stored != reason {
		t.Fatalf("migrated note %q, %v; want the reason alone", stored, err)
	}
	mustAuditOK(t, s2)
}
