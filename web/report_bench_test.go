package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// BenchmarkReport500 reads and writes the hand-off report of a checked batch of 500 claims
// (two thirds found, one third not found), each format, against the floor of reading the
// same batch for its page (Store.Batch), in the same run.
func BenchmarkReport500(b *testing.B) {
	ctx := context.Background()
	st, err := ledger.Open(ctx, b.TempDir(), ledger.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var claims []evidence.Claim
	for i := range 500 {
		claims = append(claims, evidence.Claim{Text: fmt.Sprintf("Fact number %d holds for case %d.", i, i), Citations: []evidence.Citation{
			{URL: fmt.Sprintf("https://site%d.example/page-%d", i%20, i), Quote: fmt.Sprintf("fact number %d holds for case %d", i, i)}}})
	}
	batch, err := st.ImportResearch(ctx, "user:olga", []byte("bench"), evidence.Research{Claims: claims})
	if err != nil {
		b.Fatal(err)
	}
	for i, c := range batch.Claims {
		ct := c.Citations[0]
		body := []byte(fmt.Sprintf("<p>%s In short, %s.</p>", strings.Repeat("Words of the page around the quote. ", 40), ct.Quote))
		sum := sha256.Sum256(body)
		sha := hex.EncodeToString(sum[:])
		status, verdict, excerpt, note := evidence.StatusFound, evidence.VerdictSupported, "In short, "+ct.Quote+".", "found on the page"
		if i%3 == 2 {
			status, verdict, excerpt, note = evidence.StatusNotFound, evidence.VerdictNotFound, "", "the quote is not on the page at "+ct.URL
		}
		v := func(name string) evidence.CheckVerdict {
			return evidence.CheckVerdict{VerifierResult: evidence.VerifierResult{Verifier: name, Verdict: verdict, AccuracyEstimate: 95, Reasoning: note}, Document: sha}
		}
		ch := evidence.Checked{Citation: ct.ID, Claim: c.ID, Status: status, Note: note, Excerpt: excerpt, Tier: "exact",
			Document: &evidence.Document{SHA256: sha, URL: ct.URL, FinalURL: ct.URL, FetchedAt: "2026-11-30T10:00:00.000Z", HTTPStatus: 200, ContentType: "text/html", IP: "93.184.215.14",
				Hops: []evidence.Hop{{URL: ct.URL, Status: 200, IP: "93.184.215.14"}}},
			Verdicts:     []evidence.CheckVerdict{v("dom"), v("tokens")},
			Adjudication: evidence.Adjudication{Agree: true, Decision: verdict, ResidualRisk: "The words were on the page when it was fetched; nothing more."}}
		if err := st.RecordCheck(ctx, "system", ch, body, nil, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("floor-batch-read", func(b *testing.B) {
		for b.Loop() {
			if _, err := st.Batch(ctx, batch.ID); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, format := range ReportFormats {
		b.Run("report-"+format, func(b *testing.B) {
			for b.Loop() {
				h, err := st.HandOff(ctx, batch.ID)
				if err != nil {
					b.Fatal(err)
				}
				if err := WriteReport(io.Discard, h, format); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
