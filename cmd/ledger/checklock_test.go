package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"evidenceledger/ledger"
)

// TestCheckRefusedWhileAnotherJobChecks: while a server job holds a batch's check lock,
// `ledger check` of that batch checks nothing, says which job runs and exits 1; once the
// lock is released it checks.
func TestCheckRefusedWhileAnotherJobChecks(t *testing.T) {
	data := t.TempDir()
	paste := filepath.Join(t.TempDir(), "paste.md")
	if err := os.WriteFile(paste, []byte("Claim: Acme was founded in 1990.\nQuote: Acme was founded in 1990 by two engineers\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := ledgerCmd(t, data, "import", paste)
	if r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	batch := strings.SplitN(r.stdout, "\n", 2)[0]
	ctx := context.Background()
	s, err := ledger.Open(ctx, data, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.LockCheck(ctx, batch, "j_server", "ledger serve, pid 1 on host", time.Minute); err != nil {
		t.Fatal(err)
	}
	r = ledgerCmd(t, data, "check", "--batch", batch)
	if r.code != 1 || !strings.Contains(r.stderr, "is being checked already, by job j_server (ledger serve, pid 1 on host") || strings.Contains(r.stdout, "CITATION") {
		t.Fatalf("check while a server job holds the lock: %+v", r)
	}
	if err := s.UnlockCheck(ctx, batch, "j_server"); err != nil {
		t.Fatal(err)
	}
	if r = ledgerCmd(t, data, "check", "--batch", batch); r.code != 0 {
		t.Fatalf("check after the release: %+v", r)
	}
}
