package web

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"evidenceledger/ledger"

	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"
)

func decodeHashes(t *testing.T, ss []string) [][]byte {
	t.Helper()
	out := make([][]byte, len(ss))
	for i, s := range ss {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// TestCheckpointAndProofRoutes: /checkpoint is public and verifies under the key /api/keys
// gives; the proofs verify with the transparency-dev verifier against its root.
func TestCheckpointAndProofRoutes(t *testing.T) {
	f := newFixture(t)
	code, body, h := f.do(t, "GET", "/checkpoint", "")
	if code != http.StatusOK || h.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("GET /checkpoint: %d %s %v", code, body, h)
	}
	set, err := f.store.Keys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	v, err := note.NewVerifier(set.Keys[0].NoteKey)
	if err != nil {
		t.Fatal(err)
	}
	n, err := note.Open(body, note.VerifierList(v))
	if err != nil {
		t.Fatalf("the served checkpoint does not verify: %v\n%s", err, body)
	}
	lines := strings.Split(n.Text, "\n")
	if lines[1] != "3" {
		t.Fatalf("checkpoint size %q, want 3", lines[1])
	}
	root, _ := base64.StdEncoding.DecodeString(lines[2])

	code, body, _ = f.do(t, "GET", "/api/proof/inclusion?seq=2", "Bearer "+f.auditor)
	var ip ledger.InclusionProof
	if code != http.StatusOK || json.Unmarshal(body, &ip) != nil || ip.Size != 3 {
		t.Fatalf("inclusion: %d %s", code, body)
	}
	leaf, _ := base64.StdEncoding.DecodeString(ip.Leaf)
	if err := proof.VerifyInclusion(rfc6962.DefaultHasher, 1, 3, leaf, decodeHashes(t, ip.Proof), root); err != nil {
		t.Fatalf("inclusion proof does not verify against the checkpoint: %v", err)
	}
	code, body, _ = f.do(t, "GET", "/api/proof/consistency?from=1&to=3", "Bearer "+f.auditor)
	var cp ledger.ConsistencyProof
	if code != http.StatusOK || json.Unmarshal(body, &cp) != nil {
		t.Fatalf("consistency: %d %s", code, body)
	}
	old, _ := base64.StdEncoding.DecodeString(cp.FromRoot)
	if err := proof.VerifyConsistency(rfc6962.DefaultHasher, 1, 3, decodeHashes(t, cp.Proof), old, root); err != nil {
		t.Fatalf("consistency proof does not verify: %v", err)
	}
	for _, c := range []struct {
		path, auth string
		status     int
		words      string
	}{
		{"/api/proof/inclusion?seq=2", "", http.StatusUnauthorized, "Bearer"},
		{"/api/proof/inclusion?size=3", "Bearer " + f.auditor, http.StatusBadRequest, "give seq"},
		{"/api/proof/inclusion?seq=4&size=3", "Bearer " + f.auditor, http.StatusBadRequest, "seq <= size"},
		{"/api/proof/inclusion?seq=x", "Bearer " + f.auditor, http.StatusBadRequest, "whole number"},
		{"/api/proof/consistency?from=0&to=3", "Bearer " + f.auditor, http.StatusBadRequest, "1 <= from"},
		{"/api/proof/consistency?from=1&to=9", "Bearer " + f.auditor, http.StatusBadRequest, "to <= 3"},
		{"/api/proof/consistency", "Bearer " + f.auditor, http.StatusBadRequest, "give from"},
	} {
		code, body, _ := f.do(t, "GET", c.path, c.auth)
		if code != c.status || !strings.Contains(string(body), c.words) {
			t.Errorf("GET %s: %d %s; want %d with %q", c.path, code, body, c.status, c.words)
		}
	}
	if code, _, h := f.do(t, "POST", "/checkpoint", ""); code != http.StatusMethodNotAllowed || !strings.Contains(h.Get("Allow"), "GET") {
		t.Errorf("POST /checkpoint: %d, Allow %q", code, h.Get("Allow"))
	}
}
