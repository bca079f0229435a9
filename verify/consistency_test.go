package verify

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
	"evidenceledger/fetch/fetchtest"
	"evidenceledger/match"
)

// Every quote and context of testdata/consistency/cases.json (the table of evidence's
// TestCompareClaimCorpusSentences) is on its corpus page, so the table is made of real
// sentences.
func TestConsistencyCasesAreOnTheirPages(t *testing.T) {
	var cases []struct {
		Name, Page, Quote, Context string
	}
	if err := json.Unmarshal(readTestdata(t, "consistency/cases.json"), &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		text, err := fetch.ExtractDOM(readCorpusPage(t, c.Page), "text/html")
		if err != nil {
			t.Fatalf("%s: %v", c.Page, err)
		}
		for _, q := range []string{c.Quote, c.Context} {
			if q == "" {
				continue
			}
			if m, err := match.Quote(text.Body, q); err != nil || !m.Found {
				t.Errorf("%s: %q is not on %s (%v)", c.Name, q, c.Page, err)
			}
		}
	}
}

// A found quote whose claim changed the page's figure stays found_at_source (the words are
// there) and opens a contradiction seam quoting both, with no model at all.
func TestCheckConsistencyOpensContradiction(t *testing.T) {
	site := newPageServer(t)
	c := NewChecker(fetchtest.Config())
	check := func(claim, quote string) Outcome {
		out, err := c.Check(context.Background(), evidence.CheckTarget{ClaimID: "c_0000000000000001", ClaimText: claim,
			CitationID: "ct_0000000000000001", URL: site.At("news.test", "/corpus/wapo-1.html"), Quote: quote})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	quote := "accounting for 15 percent of its gross domestic product in 2013"
	out := check("Tourism accounted for 51 percent of Tunisia's GDP in 2013.", quote)
	if out.Checked.Status != evidence.StatusFound {
		t.Fatalf("status %s, want found_at_source: the words are on the page", out.Checked.Status)
	}
	if len(out.Checked.Consistency) != 1 || out.Checked.Consistency[0].Claim != "51 percent" || out.Checked.Consistency[0].Page != "15 percent" {
		t.Fatalf("consistency = %+v", out.Checked.Consistency)
	}
	if out.Seam == nil || out.Seam.Kind != evidence.SeamContradiction {
		t.Fatalf("seam = %+v, want a contradiction", out.Seam)
	}
	for _, want := range []string{"“51 percent”", "“15 percent”", "Tourism is critical to Tunisia’s economy"} {
		if !strings.Contains(out.Seam.Summary, want) {
			t.Errorf("seam summary %q lacks %q", out.Seam.Summary, want)
		}
	}
	if !strings.Contains(out.Checked.Note, "seam "+out.Seam.Seam) {
		t.Errorf("note %q does not name the seam", out.Checked.Note)
	}
	if out := check("Tourism accounted for 15% of Tunisia's GDP in 2013.", quote); out.Seam != nil || len(out.Checked.Consistency) != 0 {
		t.Errorf("a consistent claim opened %+v (%+v)", out.Seam, out.Checked.Consistency)
	}
	// A figure the page does not give opens the seam too, and is named in it.
	out = check("Tourism accounted for 15% of Tunisia's GDP in 2013, with 7 million visitors.", quote)
	if out.Checked.Status != evidence.StatusFound || out.Seam == nil || out.Seam.Kind != evidence.SeamContradiction ||
		len(out.Checked.Consistency) != 1 || out.Checked.Consistency[0].Kind != evidence.MismatchFigure || out.Checked.Consistency[0].Claim != "7 million" ||
		!strings.Contains(out.Seam.Summary, "“7 million”") {
		t.Errorf("a figure not on the page: %+v, seam %+v", out.Checked.Consistency, out.Seam)
	}
}

// The figures of the consistency check are the matcher's whole numbers: a quote that starts
// at a number token of the page is found, and one that starts inside a token (where the
// figure check reads no figure) is not. So a figure the check finds on the page is one the
// matcher would find there, and the other way round.
func TestFigureTokensAreTheMatchersNumbers(t *testing.T) {
	tail := " people were counted on the island"
	for _, page := range []string{
		"près de 5 500" + tail,
		"In 2020 500" + tail,
		"about 5\u00a0500" + tail,
		"exactly 1,000" + tail,
		"roughly 1.5" + tail,
		"a record −25.6" + tail,
		"some 1 1/2" + tail,
		"٣٠٠" + tail,
	} {
		toks := evidence.NumberTokens(page)
		if len(toks) == 0 {
			t.Fatalf("%q: no number token", page)
		}
		for _, tok := range toks {
			if m, err := match.Quote(page, page[tok.Start:]); err != nil || !m.Found {
				t.Errorf("%q: the quote from the token %q on is not found (%v)", page, tok.Text, err)
			}
			// Every rune boundary strictly inside the token starts a quote the matcher refuses.
			for i := range tok.Text {
				if i == 0 {
					continue
				}
				inner := strings.TrimLeft(page[tok.Start+i:], " \u00a0")
				if m, err := match.Quote(page, inner); err == nil && m.Found {
					t.Errorf("%q: the quote %q starts inside the number %q, yet the matcher finds it", page, inner, tok.Text)
				}
			}
		}
	}
}
