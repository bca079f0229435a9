package ledger

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"

	"evidenceledger/evidence"
)

// TestWritesAreOneTransaction: ImportResearch returns the batch as recorded; eight people
// resolving one seam at once give one resolution and seven conflicts; opening a seam on a
// claim and classifying a source each answer what they recorded; the chain holds.
func TestWritesAreOneTransaction(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	b := importPaste(t, s, []byte(pasteOf(0, 3)))
	again, err := s.Batch(ctx, b.ID)
	if err != nil || !reflect.DeepEqual(b, again) {
		t.Fatalf("ImportResearch answered %+v; the ledger holds %+v (%v)", b, again, err)
	}
	sm, err := s.OpenSeam(ctx, "user:olga", SeamRequest{Kind: evidence.SeamAbsence, Summary: "No filing found.", Claims: []string{b.Claims[0].ID}})
	if err != nil || sm.State != evidence.SeamOpen || !reflect.DeepEqual(sm.Claims, []string{b.Claims[0].ID}) {
		t.Fatalf("open seam: %+v %v", sm, err)
	}
	if _, err := s.OpenSeam(ctx, "user:olga", SeamRequest{Kind: evidence.SeamAbsence, Summary: "x", Claims: []string{"c_0000000000000000"}}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a seam on a claim that does not exist: %v", err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = s.ResolveSeam(ctx, "user:olga", sm.ID, string(evidence.DecisionNotEstablished), "I searched the register.")
		})
	}
	wg.Wait()
	ok, conflicts := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, ErrConflict):
			conflicts++
		default:
			t.Fatal(err)
		}
	}
	if ok != 1 || conflicts != 7 {
		t.Fatalf("8 concurrent resolutions: %d succeeded, %d conflicts; want 1 and 7", ok, conflicts)
	}
	src := b.Claims[0].Citations[0].Source
	v, err := s.ClassifySource(ctx, "user:olga", src, evidence.ClassPrimary, "Host Zero")
	if err != nil || v.ID != src || v.Class != evidence.ClassPrimary || v.Publisher != "Host Zero" {
		t.Fatalf("classify: %+v %v", v, err)
	}
	if _, err := s.ClassifySource(ctx, "user:olga", "nowhere.example", evidence.ClassPrimary, ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("classify a source no citation names: %v", err)
	}
	mustAuditOK(t, s)
}
