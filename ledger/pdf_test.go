package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"testing"

	"evidenceledger/evidence"
)

// pdfCheck is a citation.checked payload for a quote found on page 2 of a 3-page PDF.
func pdfCheck(claim, citation, url string) (evidence.Checked, []byte) {
	body := []byte("%PDF-1.7\n(stands for a PDF's bytes)\n%%EOF\n")
	sum := sha256.Sum256(body)
	h := hex.EncodeToString(sum[:])
	return evidence.Checked{
		Citation: citation, Claim: claim, Status: evidence.StatusFound, Page: 2,
		Note: "found on p. 2 of the PDF: “5.62 metres, the third highest since records began”", Excerpt: "5.62 metres, the third highest since records began", Tier: "exact",
		Document: &evidence.Document{SHA256: h, URL: url, FinalURL: url, FetchedAt: "2026-11-30T10:00:00.123Z",
			HTTPStatus: 200, ContentType: "application/pdf", IP: "93.184.215.14", Hops: []evidence.Hop{{URL: url, Status: 200, IP: "93.184.215.14"}},
			Pages: 3, Extractors: []string{"pdfium (go-pdfium v1.21.4)", "ledongthuc-pdf (v0)"}},
		Verdicts: []evidence.CheckVerdict{
			{VerifierResult: evidence.VerifierResult{Verifier: "dom", Verdict: evidence.VerdictSupported, AccuracyEstimate: 98, Reasoning: "found on p. 2"}, Document: h},
			{VerifierResult: evidence.VerifierResult{Verifier: "tokens", Verdict: evidence.VerdictSupported, AccuracyEstimate: 98, Reasoning: "found on p. 2"}, Document: h},
		},
		Adjudication: evidence.Adjudication{Agree: true, Decision: evidence.VerdictSupported, ResidualRisk: "The words were in the PDF; nothing more."},
	}, body
}

// TestPDFCheckRecorded: a PDF's page count and engines, and the page of a found quote, are
// projected from the event, read back on the claim, and rebuilt by the audit's replay; a
// change to them behind the program's back is caught.
func TestPDFCheckRecorded(t *testing.T) {
	tamper := []struct{ desc, sql, table string }{
		{"page count changed", "UPDATE documents SET pages = 4 WHERE pages = 3", "documents"},
		{"engines changed", `UPDATE documents SET extractors = '["pdfium"]' WHERE pages = 3`, "documents"},
		{"page of the quote changed", "UPDATE checks SET page = 1 WHERE page = 2", "checks"},
	}
	for _, tt := range tamper {
		t.Run(tt.desc, func(t *testing.T) {
			s, dir := openTest(t)
			ctx := context.Background()
			b, err := s.ImportResearch(ctx, "system", []byte("p"), research(
				claim("One.", "https://a.example/report.pdf", "the third highest since records began", "https://a.example/page", "quote of enough length")))
			if err != nil {
				t.Fatal(err)
			}
			c := b.Claims[0]
			ch, body := pdfCheck(c.ID, c.Citations[0].ID, c.Citations[0].URL)
			if err := s.RecordCheck(ctx, "system", ch, body, nil, nil, nil); err != nil {
				t.Fatal(err)
			}
			web, wbody := foundCheck(c.ID, c.Citations[1].ID, c.Citations[1].URL)
			if err := s.RecordCheck(ctx, "system", web, wbody, nil, nil, nil); err != nil {
				t.Fatal(err)
			}
			got, err := s.Claim(ctx, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			pdf, page := got.Citations[0], got.Citations[1]
			if pdf.ExcerptPage != 2 || pdf.Document == nil || pdf.Document.Pages != 3 || !slices.Equal(pdf.Document.Extractors, ch.Document.Extractors) {
				t.Fatalf("PDF citation read back as page %d, document %+v", pdf.ExcerptPage, pdf.Document)
			}
			if page.ExcerptPage != 0 || page.Document.Pages != 0 || page.Document.Extractors != nil {
				t.Fatalf("web citation read back as page %d, document %+v", page.ExcerptPage, page.Document)
			}
			rep, err := s.HandOff(ctx, b.ID)
			if err != nil || len(rep.Usable) != 1 || rep.Usable[0].Citations[0].Page != 2 || rep.Usable[0].Citations[1].Page != 0 {
				t.Fatalf("hand-off report %+v, %v: want the PDF citation on page 2, the web page's without a page", rep.Usable, err)
			}
			mustAuditOK(t, s)
			mustTamperBeCaught(t, s, dir, tt.sql, tt.table)
		})
	}
}
