package ledger

import (
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestRootMatchesAPythonRFC6962 has scripts/rfc6962_root.py, an RFC 6962 tree written in
// Python from docs/chain.md alone, compute the root of an export for every size, and
// compares it with the ledger's checkpoint roots and the audit's.
func TestRootMatchesAPythonRFC6962(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("this test runs scripts/rfc6962_root.py with python3, which is not on PATH (Debian package python3): %v", err)
	}
	s, _ := buildLedger(t)
	export := exportOf(t, s)
	for size := int64(1); size <= 11; size++ {
		cmd := exec.Command(py, "../scripts/rfc6962_root.py", strconv.FormatInt(size, 10))
		cmd.Stdin = bytes.NewReader(export)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("rfc6962_root.py: %v\n%s", err, out)
		}
		p, err := s.InclusionProof(t.Context(), 1, size)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(out)); got != p.Root {
			t.Fatalf("size %d: Python root %s, the ledger's %s", size, got, p.Root)
		}
	}
	cp, _ := s.Checkpoint(t.Context())
	if rootB64(cp.Root) != mustAuditOK(t, s).Root {
		t.Fatal("the checkpoint's root is not the audit's")
	}
}
