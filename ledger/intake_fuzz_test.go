package ledger

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"evidenceledger/evidence"
)

// FuzzDraftBatch feeds pastes through the parser into the batch drafting: whatever the paste,
// drafting never panics, refuses only with ErrInvalid, and an accepted paste is valid UTF-8
// text whose every claim and citation got an id.
func FuzzDraftBatch(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join(pastesDir, "*"))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seed pastes in %s: %v", pastesDir, err)
	}
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("Claim: x\x00y"))
	f.Add([]byte("\xff"))
	f.Fuzz(func(t *testing.T, paste []byte) {
		r, err := evidence.ParseResearch(string(paste))
		if err != nil {
			return
		}
		p, err := draftBatch(paste, r)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("refusal %v does not wrap ErrInvalid", err)
			}
			return
		}
		if !utf8.Valid(paste) || evidence.CheckText(paste) != nil || len(p.Claims) != len(r.Claims) {
			t.Fatalf("accepted a paste that is not text, or lost claims")
		}
		for _, c := range p.Claims {
			if !validID("c_", c.ID) || c.Text == "" {
				t.Fatalf("claim %+v", c)
			}
			for _, ct := range c.Citations {
				if !validID("ct_", ct.ID) || (ct.Source != "" && !evidence.IsHTTP(ct.URL)) {
					t.Fatalf("citation %+v", ct)
				}
			}
		}
	})
}
