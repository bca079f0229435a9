package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

var updateReports = flag.Bool("update", false, "rewrite testdata/web/report/* from the report writer")

// goldenHandOff is a report of every kind of claim, with words that Markdown and HTML would
// read as markup.
func goldenHandOff() ledger.HandOff {
	risk := "The quoted words were in the visible text of the page when it was fetched. That does not show that the claim is true."
	return ledger.HandOff{
		Batch: ledger.HandOffBatch{ID: "b_00000000000000a1", ImportedAt: "2026-11-30T10:00:00.000Z", ImportedBy: "user:olga", Claims: 6, Citations: 9},
		Usable: []ledger.HandOffClaim{{
			ID: "c_00000000000000c1", Text: "Acme was founded in 1999 [by *two* engineers](https://evil.example) <script>alert(1)</script>.", Status: evidence.StatusFound,
			Strength: evidence.StrengthMedium, OpenSeams: []string{}, Decisions: []ledger.ClaimDecision{},
			Citations: []ledger.HandOffCitation{
				{ID: "ct_0000000000000001", URL: "https://acme.example/about", Quote: "founded in 1999", Status: evidence.StatusFound, Note: "found as written",
					Excerpt: "Acme was founded in 1999 by two engineers in a garage & a shed.", FinalURL: "https://www.acme.example/about/", FetchedAt: "2026-11-30T10:01:00.000Z",
					SHA256: strings.Repeat("ab", 32), ResidualRisk: risk},
				{ID: "ct_0000000000000002", URL: "https://down.example/acme", Quote: "incorporated on 3 May 1999", Status: evidence.StatusUnreachable, Note: "the server answered 503"},
				{ID: "ct_0000000000000005", URL: "https://registry.example/acme-annual-report.pdf", Quote: "incorporated in 1999", Status: evidence.StatusFound,
					Note: "found on p. 12 of the PDF: “The company was incorporated in 1999 in Leeds.”", Excerpt: "The company was incorporated in 1999 in Leeds.", Page: 12,
					FinalURL: "https://registry.example/acme-annual-report.pdf", FetchedAt: "2026-11-30T10:01:03.000Z", SHA256: strings.Repeat("12", 32), ResidualRisk: risk},
			},
		}},
		Withheld: []ledger.HandOffClaim{
			{ID: "c_00000000000000c2", Text: "Acme has 400 staff.", Status: evidence.StatusFound, Strength: evidence.StrengthLow, Withheld: evidence.WithheldSeam,
				OpenSeams: []string{"s_00000000000000e1"}, Decisions: []ledger.ClaimDecision{}, Citations: []ledger.HandOffCitation{{ID: "ct_0000000000000003", URL: "https://news.example/acme", Quote: "400 people work there",
					Status: evidence.StatusFound, Note: "found after folding case", Excerpt: "400 People work there", FetchedAt: "2026-11-30T10:01:01.000Z", SHA256: strings.Repeat("cd", 32), ResidualRisk: risk}}},
			{ID: "c_00000000000000c3", Text: "Acme was founded in 2004.", Status: evidence.StatusNotFound, Withheld: evidence.WithheldNotFound, OpenSeams: []string{}, Decisions: []ledger.ClaimDecision{},
				Citations: []ledger.HandOffCitation{{ID: "ct_0000000000000004", URL: "https://acme.example/`history`", Quote: "founded in 2004 by two engineers", Status: evidence.StatusNotFound,
					Note: "the quote is not on the page", FetchedAt: "2026-11-30T10:01:02.000Z", SHA256: strings.Repeat("ef", 32), ResidualRisk: risk}}},
			{ID: "c_00000000000000c4", Text: "Acme # won | an award.", Status: evidence.StatusUnreachable, Withheld: evidence.WithheldUnreachable, OpenSeams: []string{}, Decisions: []ledger.ClaimDecision{},
				Citations: []ledger.HandOffCitation{{ID: "ct_0000000000000005", URL: "https://slow.example/", Quote: "won the award", Status: evidence.StatusUnreachable, Note: "the page took longer than 20s"}}},
			{ID: "c_00000000000000c6", Text: "Acme counted 500 whales.", Status: evidence.StatusFound, Strength: evidence.StrengthLow, Withheld: evidence.WithheldContradicted,
				Standing: evidence.StandingContradicted, OpenSeams: []string{}, Decisions: []ledger.ClaimDecision{{Seam: "s_00000000000000e2", Kind: evidence.SeamContradiction,
					Decision: "contradicted", Standing: evidence.StandingContradicted, Reason: "The page counts *300* animals, not 500.", ResolvedBy: "user:vera", ResolvedAt: "2026-11-30T10:01:30.000Z"}},
				Citations: []ledger.HandOffCitation{{ID: "ct_0000000000000007", URL: "https://whales.example/survey", Quote: "300 individual animals were counted", Status: evidence.StatusFound,
					Note:    "found as written; but the claim says “500” where neither the quote nor the page's words around it give that figure (the quote gives “300”) (seam s_00000000000000e2)",
					Excerpt: "In the survey, 300 individual animals were counted.", FetchedAt: "2026-11-30T10:01:04.000Z", SHA256: strings.Repeat("34", 32), ResidualRisk: risk}}},
			{ID: "c_00000000000000c5", Text: "Acme is loved\nby everyone.", Status: evidence.StatusReported, Withheld: evidence.WithheldUnchecked, OpenSeams: []string{}, Decisions: []ledger.ClaimDecision{},
				Citations: []ledger.HandOffCitation{{ID: "ct_0000000000000006", Status: evidence.StatusReported, Note: evidence.NoteNoSource}}},
		},
		WithheldBy: map[evidence.Withheld]int{evidence.WithheldContradicted: 1, evidence.WithheldUnsettled: 0, evidence.WithheldSeam: 1, evidence.WithheldCitationNotFound: 0, evidence.WithheldNotFound: 1, evidence.WithheldUnreachable: 1, evidence.WithheldUnchecked: 1},
		At:         ledger.ChainPoint{Seq: 42, Hash: strings.Repeat("0f", 32), EventAt: "2026-11-30T10:02:00.000Z"},
	}
}

func TestReportGolden(t *testing.T) {
	for _, format := range ReportFormats {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteReport(&buf, goldenHandOff(), format); err != nil {
				t.Fatal(err)
			}
			if format == ReportHTML {
				// The inlined style sheet is the pages' own; the golden file holds a
				// placeholder, so that a change of style is not a change of the report.
				css := "<style>" + appCSS + "</style>"
				if !bytes.Contains(buf.Bytes(), []byte(css)) {
					t.Fatal("the HTML report does not inline the pages' style sheet")
				}
				buf = *bytes.NewBuffer(bytes.Replace(buf.Bytes(), []byte(css), []byte("<style>/* static/app.css */</style>"), 1))
			}
			path := filepath.Join("..", "testdata", "web", "report", "report."+format)
			if *updateReports {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./web -run TestReportGolden -update writes it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("the %s report differs from %s (rerun with -update and read the diff):\n%s", format, path, buf.String())
			}
		})
	}
	var buf bytes.Buffer
	if err := WriteReport(&buf, goldenHandOff(), "pdf"); !errors.Is(err, ledger.ErrInvalid) || buf.Len() != 0 || !strings.Contains(err.Error(), "md, html, json") {
		t.Fatalf("an unknown format: %v, %d bytes written", err, buf.Len())
	}
}

// TestReportEscapes: the words of claims and pages never become markup in a report.
func TestReportEscapes(t *testing.T) {
	var md, html bytes.Buffer
	if err := WriteReport(&md, goldenHandOff(), ReportMarkdown); err != nil {
		t.Fatal(err)
	}
	if err := WriteReport(&html, goldenHandOff(), ReportHTML); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), `\[by \*two\* engineers\](https\://evil.example) \<script\>`) {
		t.Errorf("the Markdown report does not escape a claim's link and HTML:\n%s", md.String())
	}
	for _, bad := range []string{"[by *two*", "<script>", "Acme # won | an", "loved\nby"} {
		if strings.Contains(md.String(), bad) {
			t.Errorf("the Markdown report holds %q unescaped", bad)
		}
	}
	if strings.Contains(html.String(), "<script>") || !strings.Contains(html.String(), "&lt;script&gt;") {
		t.Error("the HTML report does not escape a claim's markup")
	}
	tests := []struct{ in, want string }{
		{"a*b*", `a\*b\*`},
		{"[x](y)", `\[x\](y)`},
		{"<b>&amp;", `\<b\>\&amp;`},
		{"a\r\nb\nc", "a b c"},
		{`back\slash`, `back\\slash`},
		{"see http://evil.example/", `see http\://evil.example/`},
		{"WWW.evil.example or a@b.example", `WWW\.evil.example or a\@b.example`},
	}
	for _, tt := range tests {
		if got := mdEscape(tt.in); got != tt.want {
			t.Errorf("mdEscape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := mdCode("a`b"); got != "`` a`b ``" {
		t.Errorf("mdCode with a backtick: %q", got)
	}
}

// TestReportRoutes checks a real batch at loopback pages and reads its report from the API in
// every format: the found claim is usable, every other claim is withheld with its reason,
// and the report ends with the chain head the audit reports.
func TestReportRoutes(t *testing.T) {
	f, at, _ := checkFixture(t)
	ctx := context.Background()
	quote := "the registry counted 4,812 companies"
	b, err := f.store.ImportResearch(ctx, "user:olga", []byte("report paste"), evidence.Research{Claims: []evidence.Claim{
		{Text: "The registry counted 4,812 companies.", Citations: []evidence.Citation{{URL: at("a.test", "/report"), Quote: quote}}},
		{Text: "The registry counted 5,000 companies.", Citations: []evidence.Citation{{URL: at("a.test", "/report"), Quote: "the registry counted 5,000 companies"}}},
		{Text: "Found, but disputed.", Citations: []evidence.Citation{{URL: at("b.test", "/report"), Quote: quote}}},
		{Text: "Found beside a missing quote.", Citations: []evidence.Citation{{URL: at("c.test", "/report"), Quote: quote}, {URL: at("c.test", "/report"), Quote: "a sentence that is not there"}}},
		{Text: "Nobody cites this."},
	}})
	if err != nil {
		t.Fatal(err)
	}
	status, body := f.send(t, "POST", "/api/batches/"+b.ID+"/check", f.operator, "", nil)
	job := decode[map[string]string](t, body)["job"]
	if status != 202 {
		t.Fatalf("check: %d %s", status, body)
	}
	if status, body = f.waitJob(t, job, f.auditor); !strings.Contains(string(body), `"state":"done"`) {
		t.Fatalf("job: %d %s", status, body)
	}
	if _, err := f.store.OpenSeam(ctx, "user:olga", ledger.SeamRequest{Kind: evidence.SeamAbsence, Summary: "no primary source says so", Claims: []string{b.Claims[2].ID}}); err != nil {
		t.Fatal(err)
	}
	n, head := f.head(t)

	status, body = f.send(t, "GET", "/api/batches/"+b.ID+"/report", f.auditor, "", nil)
	if status != 200 {
		t.Fatalf("report: %d %s", status, body)
	}
	rep := decode[ledger.HandOff](t, body)
	if len(rep.Usable) != 1 || rep.Usable[0].ID != b.Claims[0].ID || rep.Usable[0].Strength != evidence.StrengthLow {
		t.Fatalf("usable: %+v", rep.Usable)
	}
	u := rep.Usable[0].Citations[0]
	if u.Excerpt == "" || !strings.Contains(u.Excerpt, "4,812") || len(u.SHA256) != 64 || u.FetchedAt == "" || u.ResidualRisk == "" || u.FinalURL == "" {
		t.Fatalf("the usable citation lacks what a reader needs: %+v", u)
	}
	want := map[string]evidence.Withheld{b.Claims[1].ID: evidence.WithheldNotFound, b.Claims[2].ID: evidence.WithheldSeam,
		b.Claims[3].ID: evidence.WithheldCitationNotFound, b.Claims[4].ID: evidence.WithheldUnchecked}
	if len(rep.Withheld) != len(want) {
		t.Fatalf("withheld: %+v", rep.Withheld)
	}
	for _, c := range rep.Withheld {
		if want[c.ID] != c.Withheld {
			t.Errorf("claim %s withheld as %q, want %q", c.ID, c.Withheld, want[c.ID])
		}
	}
	if rep.WithheldBy[evidence.WithheldNotFound] != 1 || rep.WithheldBy[evidence.WithheldUnreachable] != 0 || len(rep.WithheldBy) != len(evidence.WithheldReasons) {
		t.Errorf("withheld_by: %v", rep.WithheldBy)
	}
	if rep.At.Seq != n || rep.At.Hash != head {
		t.Errorf("report made at %d %s; the audit says %d %s", rep.At.Seq, rep.At.Hash, n, head)
	}
	// The report ends with the signed checkpoint of its head, which an auditor verifies with
	// the ledger's published note key.
	keys, err := f.store.Keys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var noteKeys []string
	for _, k := range keys.Keys {
		noteKeys = append(noteKeys, k.NoteKey)
	}
	if cp, err := ledger.OpenCheckpoint([]byte(rep.At.Checkpoint), noteKeys, nil); err != nil || cp.Size != n {
		t.Errorf("the report's checkpoint %q: size %d, %v; want a checkpoint of size %d signed by the ledger", rep.At.Checkpoint, cp.Size, err, n)
	}
	if !strings.Contains(string(body), `"meaning": "A claim is listed as usable only when`) {
		t.Errorf("the JSON report does not say what it means: %s", body)
	}

	for _, tt := range []struct{ format, ctype, words string }{
		{"md", "text/markdown; charset=utf-8", "## May be used (1)"},
		{"html", "text/html; charset=utf-8", `<strong id="report-summary">1 may be used; 4 may not.</strong>`},
		{"json", "application/json; charset=utf-8", `"usable": [`},
	} {
		_, resp, hdr := f.do(t, "GET", "/api/batches/"+b.ID+"/report?format="+tt.format, "Bearer "+f.auditor)
		if hdr.Get("Content-Type") != tt.ctype || !strings.Contains(string(resp), tt.words) || !strings.Contains(string(resp), head) {
			t.Errorf("%s report: %s, lacks %q or the head:\n%s", tt.format, hdr.Get("Content-Type"), tt.words, resp)
		}
		if csp := hdr.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'none'; style-src 'sha256-") {
			t.Errorf("%s report: CSP %q", tt.format, csp)
		}
	}
	var js map[string]json.RawMessage
	_, resp, _ := f.do(t, "GET", "/api/batches/"+b.ID+"/report?format=json", "Bearer "+f.auditor)
	if err := json.Unmarshal(resp, &js); err != nil || js["at"] == nil {
		t.Errorf("json report: %v %s", err, resp)
	}
	validReport(t, compiledReportSchema(t), resp)

	for _, tt := range []struct {
		desc, path, token string
		status            int
		words             string
	}{
		{"unknown format", "/api/batches/" + b.ID + "/report?format=pdf", f.auditor, 400, "want md, html, json"},
		{"unknown batch", "/api/batches/b_0000000000000000/report", f.auditor, 404, "does not exist"},
		{"no token", "/api/batches/" + b.ID + "/report", "", 401, "Bearer"},
	} {
		t.Run(tt.desc, func(t *testing.T) {
			status, body := f.send(t, "GET", tt.path, tt.token, "", nil)
			if status != tt.status || !strings.Contains(string(body), tt.words) {
				t.Fatalf("%d %s; want %d saying %q", status, body, tt.status, tt.words)
			}
		})
	}
}

// TestReportPage: the report inside the pages, for an auditor too, and its downloads.
func TestReportPage(t *testing.T) {
	f := newPageFixture(t, "")
	op := f.browser(t)
	op.signIn("olga", opPassword)
	id := commitPaste(t, op, "Claim: The registry counted 4,812 companies.\nSource: https://registry.example/r\nQuote: the registry counted 4,812 companies\n")
	au := f.browser(t)
	au.signIn("arno", auPassword)
	p := au.get("/batches/" + id + "/report")
	for _, want := range []string{`<strong id="report-summary">0 may be used; 1 may not.</strong>`, "1 not checked at its source.", `href="/batches/` + id + `/report?format=md"`, "<nav>"} {
		if p.status != 200 || !strings.Contains(p.body, want) {
			t.Errorf("report page lacks %q: %d", want, p.status)
		}
	}
	if p := au.get("/batches/" + id); !strings.Contains(p.body, `id="report-link" href="/batches/`+id+`/report"`) {
		t.Error("the batch page does not link its report")
	}
	for _, tt := range []struct{ format, ctype, words string }{
		{"md", "text/markdown; charset=utf-8", "# Hand-off report: batch " + id},
		{"html", "text/html; charset=utf-8", "<!doctype html>"},
		{"json", "application/json; charset=utf-8", `"withheld": [`},
	} {
		p := au.get("/batches/" + id + "/report?format=" + tt.format)
		if p.status != 200 || p.header.Get("Content-Type") != tt.ctype || !strings.Contains(p.body, tt.words) || !strings.HasPrefix(p.header.Get("Content-Security-Policy"), "default-src 'none'; style-src 'sha256-") {
			t.Errorf("download %s: %d %s %v", tt.format, p.status, p.header.Get("Content-Type"), p.header)
		}
	}
	if p := au.get("/batches/" + id + "/report?format=pdf"); p.status != 400 || !strings.Contains(p.body, "want md, html, json") {
		t.Errorf("unknown format: %d", p.status)
	}
	if p := au.get("/batches/b_0000000000000000/report"); p.status != 404 {
		t.Errorf("unknown batch: %d", p.status)
	}
	if p := f.browser(t).get("/batches/" + id + "/report"); p.status == 200 {
		t.Error("the report is shown to someone not signed in")
	}
}
