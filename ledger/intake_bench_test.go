package ledger

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"evidenceledger/evidence"
)

// paste2000 is research with 2,000 labelled claims, each with a URL on one of 50 hosts and a
// quote.
func paste2000() string {
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "Claim %d: Company %d filed its annual report for fiscal year %d.\nSource: https://host%d.example/filings/%d\nQuote: \"Company %d filed its annual report on time\"\n\n", i+1, i, 2000+i%25, i%50, i, i)
	}
	return b.String()
}

// BenchmarkImport2000Claims parses and imports a paste of 2,000 claims: one batch.imported
// event, one transaction.
func BenchmarkImport2000Claims(b *testing.B) {
	s, _ := openTest(b)
	ctx := context.Background()
	paste := paste2000()
	before, _ := s.Events(ctx, 0, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := evidence.ParseResearch(paste)
		if err != nil {
			b.Fatal(err)
		}
		bt, err := s.ImportResearch(ctx, "system", []byte(paste+strings.Repeat(" ", i)), r)
		if err != nil {
			b.Fatal(err)
		}
		if len(bt.Claims) != 2000 {
			b.Fatalf("%d claims", len(bt.Claims))
		}
	}
	b.StopTimer()
	after, _ := s.Events(ctx, 0, 1000)
	if len(after)-len(before) != b.N {
		b.Fatalf("%d imports made %d events; want one each", b.N, len(after)-len(before))
	}
}

// TestImport2000ClaimsIsOneEvent checks the benchmark's shape at test time: one event for a
// paste of 2,000 claims, and an audit that replays it.
func TestImport2000ClaimsIsOneEvent(t *testing.T) {
	s, _ := openTest(t)
	n0, _ := chainState(t, s)
	b := importPaste(t, s, []byte(paste2000()))
	if len(b.Claims) != 2000 || b.Counts.Citations != 2000 {
		t.Fatalf("%d claims, %d citations", len(b.Claims), b.Counts.Citations)
	}
	if n, _ := chainState(t, s); n != n0+1 {
		t.Fatalf("%d events for one import; want 1", n-n0)
	}
}
