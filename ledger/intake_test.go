package ledger

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evidenceledger/evidence"
)

// pastesDir holds the research pastes the tests import.
const pastesDir = "../testdata/pastes"

// readPaste reads a paste of testdata/pastes, failing the test when it is missing.
func readPaste(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(pastesDir, name))
	if err != nil {
		t.Fatalf("read paste: %v", err)
	}
	return b
}

// importPaste parses a paste and imports it as actor user:olga.
func importPaste(t testing.TB, s *Store, paste []byte) Batch {
	t.Helper()
	r, err := evidence.ParseResearch(string(paste))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	b, err := s.ImportResearch(context.Background(), "user:olga", paste, r)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return b
}

// chainState is the event count and head, to show that a refusal changed nothing.
func chainState(t testing.TB, s *Store) (int64, string) {
	t.Helper()
	rep, err := s.Audit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK {
		t.Fatalf("audit: %+v", rep.Problems)
	}
	return rep.Events, rep.Head
}

// research builds research from claims given as text and (url, quote) pairs.
func research(claims ...evidence.Claim) evidence.Research { return evidence.Research{Claims: claims} }

func claim(text string, urlQuotes ...string) evidence.Claim {
	c := evidence.Claim{Text: text, Status: evidence.StatusReported}
	for i := 0; i+1 < len(urlQuotes); i += 2 {
		c.Citations = append(c.Citations, evidence.Citation{URL: urlQuotes[i], Quote: urlQuotes[i+1], Status: evidence.StatusReported})
	}
	return c
}

func TestImportResearchStoresPasteClaimsAndSources(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	paste := readPaste(t, "labelled-list.txt")
	parsed, err := evidence.ParseResearch(string(paste))
	if err != nil {
		t.Fatal(err)
	}
	b := importPaste(t, s, paste)

	if !validID("b_", b.ID) || b.Format != FormatText || b.Actor != "user:olga" || len(b.Claims) != len(parsed.Claims) {
		t.Fatalf("batch %+v; want a b_ id, text format, user:olga, %d claims", b, len(parsed.Claims))
	}
	stored, err := s.Blob(ctx, b.Paste)
	if err != nil || string(stored) != string(paste) {
		t.Fatalf("the stored paste differs from what was pasted (%v)", err)
	}
	cits := 0
	for i, c := range b.Claims {
		want := parsed.Claims[i]
		if c.Text != want.Text || c.Status != evidence.StatusReported || c.Strength != evidence.StrengthNone || len(c.Citations) != len(want.Citations) {
			t.Errorf("claim %d: %+v; want %q, reported, no strength, %d citations", i, c, want.Text, len(want.Citations))
		}
		hasURL := false
		for j, ct := range c.Citations {
			cits++
			wc := want.Citations[j]
			if ct.URL != wc.URL || ct.Quote != wc.Quote || ct.Status != evidence.StatusReported || ct.Note != evidence.CitationNote(wc.URL, wc.Quote) || !validID("ct_", ct.ID) {
				t.Errorf("claim %d citation %d: %+v; want %+v", i, j, ct, wc)
			}
			if id, err := evidence.SourceID(wc.URL); err == nil && ct.Source != id {
				t.Errorf("citation %s: source %q; want %q", ct.ID, ct.Source, id)
			}
			hasURL = hasURL || wc.URL != ""
		}
		if gotNote := len(c.Notes) == 1 && c.Notes[0] == evidence.NoteNoSource; gotNote == hasURL {
			t.Errorf("claim %d %q: notes %q with a URL: %v", i, c.Text, c.Notes, hasURL)
		}
	}
	if b.Counts.Claims != len(parsed.Claims) || b.Counts.Citations != cits || b.Counts.ClaimsByStatus[evidence.StatusReported] != len(parsed.Claims) || b.Counts.ClaimsByStrength["none"] != len(parsed.Claims) {
		t.Errorf("counts %+v", b.Counts)
	}
	srcs, err := s.Sources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range srcs {
		if src.Class != evidence.ClassLead || src.ClassifiedBy != "" || src.Citations == 0 {
			t.Errorf("new source %+v: want an unclassified lead that is cited", src)
		}
	}
	if len(srcs) == 0 {
		t.Fatal("no source was created")
	}
	bl, err := s.Batches(ctx)
	if err != nil || len(bl) != 1 || bl[0].ID != b.ID || bl[0].Claims != nil || bl[0].Counts.Claims != b.Counts.Claims {
		t.Fatalf("batches %+v %v", bl, err)
	}
	bc, err := s.BatchCitations(ctx, b.ID)
	if err != nil || len(bc) != cits || bc[0].Claim != b.Claims[0].ID || bc[0].ClaimText != b.Claims[0].Text {
		t.Fatalf("batch citations %+v %v", bc, err)
	}
	if _, err := s.BatchCitations(ctx, "b_0000000000000000"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("citations of an unknown batch: %v", err)
	}
}

func TestImportResearchFormats(t *testing.T) {
	s, _ := openTest(t)
	for _, tt := range []struct {
		desc, paste, format string
	}{
		{"labelled text", "Claim: Acme was founded in 1999.\nSource: https://acme.example/about\nQuote: Acme was founded in 1999", FormatText},
		{"JSON object", `{"claims":[{"text":"Acme was founded in 1999.","citations":[{"url":"https://acme.example/","quote":"founded in 1999 by"}]}]}`, FormatJSON},
		{"JSON array with leading space", ` [{"claim":"Acme was founded in 1999.","url":"https://acme.example/"}]`, FormatJSON},
		{"numbered reference that looks like an array", "[1] Acme was founded in 1999, says https://acme.example/ \"Acme was founded in 1999\"", FormatText},
	} {
		t.Run(tt.desc, func(t *testing.T) {
			b := importPaste(t, s, []byte(tt.paste))
			if b.Format != tt.format {
				t.Fatalf("format %q; want %q", b.Format, tt.format)
			}
		})
	}
}

func TestImportResearchRefusalsRecordNothing(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	ok := research(claim("Acme was founded in 1999.", "https://acme.example/", "Acme was founded in 1999"))
	tests := []struct {
		desc  string
		actor string
		paste []byte
		r     evidence.Research
		is    []error
	}{
		{"empty paste", "system", []byte(" \n"), ok, []error{ErrInvalid}},
		{"over the size limit", "system", []byte(strings.Repeat("a", evidence.MaxPasteBytes+1)), ok, []error{ErrInvalid}},
		{"invalid UTF-8", "system", []byte("Acme \xff\xfe was founded"), ok, []error{ErrInvalid, evidence.ErrNotText}},
		{"NUL byte", "system", []byte("Acme\x00was founded"), ok, []error{ErrInvalid, evidence.ErrNotText}},
		{"escape sequence", "system", []byte("Acme \x1b[31m was founded"), ok, []error{ErrInvalid, evidence.ErrNotText}},
		{"no claim", "system", []byte("hello"), research(), []error{ErrInvalid, evidence.ErrNothingUsable}},
		{"claim with blank text", "system", []byte("x"), research(claim("  ", "https://a.example/", "a quote of some length")), []error{ErrInvalid}},
		{"control character in a quote", "system", []byte("x"), research(claim("Acme was founded.", "https://a.example/", "a quote\x07 with a bell")), []error{ErrInvalid, evidence.ErrNotText}},
		{"bad actor", "root", []byte("x"), ok, []error{ErrInvalid}},
	}
	n0, h0 := chainState(t, s)
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			_, err := s.ImportResearch(ctx, tt.actor, tt.paste, tt.r)
			for _, want := range tt.is {
				if !errors.Is(err, want) {
					t.Fatalf("error %v; want one matching %v", err, want)
				}
			}
			if n, h := chainState(t, s); n != n0 || h != h0 {
				t.Fatalf("the chain changed: %d %s -> %d %s", n0, h0, n, h)
			}
		})
	}
}

// findCitation returns the id of the citation of claims with this URL.
func findCitation(t testing.TB, claims []ClaimView, url string) (claimID, citationID string) {
	t.Helper()
	for _, c := range claims {
		for _, ct := range c.Citations {
			if ct.URL == url {
				return c.ID, ct.ID
			}
		}
	}
	t.Fatalf("no citation with URL %s", url)
	return "", ""
}

// markFound sets a citation's status the way a person does: a manual seam, resolved.
func markFound(t testing.TB, s *Store, citation string, status evidence.Status) {
	t.Helper()
	ctx := context.Background()
	seam, err := s.OpenSeam(ctx, "user:olga", SeamRequest{Kind: evidence.SeamManual, Summary: "Open the page by hand.", Citations: []string{citation}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ResolveSeam(ctx, "user:olga", seam.ID, string(status), "I opened the page and read it."); err != nil {
		t.Fatal(err)
	}
}

func TestClassificationRecomputesStrength(t *testing.T) {
	type class struct {
		source    string
		class     evidence.SourceClass
		publisher string
	}
	tests := []struct {
		desc     string
		urls     []string // citations of one claim, every one found
		notFound []string // further citations, resolved not_found
		classes  []class
		want     evidence.Strength
	}{
		{"unclassified sources are leads", []string{"https://a.example/1", "https://b.example/2"}, nil, nil, evidence.StrengthLow},
		{"a single primary source", []string{"https://sec.gov/x"}, nil, []class{{"sec.gov", evidence.ClassPrimary, ""}}, evidence.StrengthMedium},
		{"primary corroborated by an independent semi", []string{"https://sec.gov/x", "https://nasdaq.com/y"}, nil,
			[]class{{"sec.gov", evidence.ClassPrimary, "SEC"}, {"nasdaq.com", evidence.ClassSemi, "Nasdaq"}}, evidence.StrengthHigh},
		{"primary and semi of the same publisher are not independent", []string{"https://sec.gov/x", "https://investor.gov/y"}, nil,
			[]class{{"sec.gov", evidence.ClassPrimary, "SEC"}, {"investor.gov", evidence.ClassSemi, "sec"}}, evidence.StrengthMedium},
		{"a lead never corroborates", []string{"https://sec.gov/x", "https://news.example/y"}, nil,
			[]class{{"sec.gov", evidence.ClassPrimary, ""}}, evidence.StrengthMedium},
		{"two independent semi sources", []string{"https://a.example/1", "https://b.example/2"}, nil,
			[]class{{"a.example", evidence.ClassSemi, "A"}, {"b.example", evidence.ClassSemi, "B"}}, evidence.StrengthMedium},
		{"a primary that was not found does not count", []string{"https://b.example/2"}, []string{"https://sec.gov/x"},
			[]class{{"sec.gov", evidence.ClassPrimary, ""}, {"b.example", evidence.ClassSemi, ""}}, evidence.StrengthLow},
		{"reclassified down to lead", []string{"https://sec.gov/x"}, nil,
			[]class{{"sec.gov", evidence.ClassPrimary, ""}, {"sec.gov", evidence.ClassLead, ""}}, evidence.StrengthLow},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			s, _ := openTest(t)
			ctx := context.Background()
			var args []string
			for _, u := range append(append([]string{}, tt.urls...), tt.notFound...) {
				args = append(args, u, "the words that are on the page")
			}
			b, err := s.ImportResearch(ctx, "system", []byte("pasted"), research(claim("The fact.", args...)))
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range tt.urls {
				_, ct := findCitation(t, b.Claims, u)
				markFound(t, s, ct, evidence.StatusFound)
			}
			for _, u := range tt.notFound {
				_, ct := findCitation(t, b.Claims, u)
				markFound(t, s, ct, evidence.StatusNotFound)
			}
			c, err := s.Claim(ctx, b.Claims[0].ID)
			if err != nil || c.Strength != evidence.StrengthLow || c.Status != evidence.StatusFound {
				t.Fatalf("before classification: %+v %v; want found and low", c, err)
			}
			for _, cl := range tt.classes {
				if _, err := s.ClassifySource(ctx, "user:olga", cl.source, cl.class, cl.publisher); err != nil {
					t.Fatal(err)
				}
			}
			c, err = s.Claim(ctx, b.Claims[0].ID)
			if err != nil || c.Strength != tt.want {
				t.Fatalf("strength %q (%v); want %q", c.Strength, err, tt.want)
			}
			for _, ct := range c.Citations {
				if ct.Strength != tt.want {
					t.Errorf("citation %s carries strength %q; want its claim's %q", ct.ID, ct.Strength, tt.want)
				}
			}
			mustAuditOK(t, s)
		})
	}
}

func TestClassifySourceRefusals(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	importPaste(t, s, []byte("Claim: Acme was founded in 1999.\nSource: https://acme.example/about\nQuote: Acme was founded in 1999"))
	tests := []struct {
		desc, id  string
		class     evidence.SourceClass
		publisher string
		is        error
	}{
		{"unknown source", "nowhere.example", evidence.ClassPrimary, "", ErrNotFound},
		{"unknown class", "acme.example", "gold", "", ErrInvalid},
		{"empty class", "acme.example", "", "", ErrInvalid},
		{"publisher too long", "acme.example", evidence.ClassSemi, strings.Repeat("p", maxPublisher+1), ErrInvalid},
		{"publisher with a NUL", "acme.example", evidence.ClassSemi, "Acme\x00", ErrInvalid},
	}
	n0, h0 := chainState(t, s)
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			if _, err := s.ClassifySource(ctx, "user:olga", tt.id, tt.class, tt.publisher); !errors.Is(err, tt.is) {
				t.Fatalf("error %v; want %v", err, tt.is)
			}
			if n, h := chainState(t, s); n != n0 || h != h0 {
				t.Fatal("the chain changed")
			}
		})
	}
	v, err := s.ClassifySource(ctx, "user:olga", "acme.example", evidence.ClassSemi, " Acme Inc ")
	if err != nil || v.Class != evidence.ClassSemi || v.Publisher != "Acme Inc" || v.ClassifiedBy != "user:olga" || v.ClassifiedAt == "" {
		t.Fatalf("classify: %+v %v", v, err)
	}
	v, err = s.ClassifySource(ctx, "user:olga", "acme.example", evidence.ClassPrimary, "")
	if err != nil || v.Publisher != "Acme Inc" {
		t.Fatalf("an empty publisher must keep the known one: %+v %v", v, err)
	}
}

func TestSeams(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "system", []byte("pasted"), research(
		claim("Acme was founded in 1999.", "https://acme.example/about", "Acme was founded in 1999"),
		claim("Acme was founded in 2004.", "https://news.example/acme", "founded in 2004 by two engineers"),
		claim("Acme has no auditor on file."),
	))
	if err != nil {
		t.Fatal(err)
	}
	c1, c2, c3 := b.Claims[0], b.Claims[1], b.Claims[2]
	ct1 := c1.Citations[0].ID
	bad := []struct {
		desc string
		req  SeamRequest
		is   error
	}{
		{"contradiction with one claim", SeamRequest{Kind: evidence.SeamContradiction, Summary: "x", Claims: []string{c1.ID}}, ErrInvalid},
		{"contradiction naming a claim twice", SeamRequest{Kind: evidence.SeamContradiction, Summary: "x", Claims: []string{c1.ID, c1.ID}}, ErrInvalid},
		{"contradiction with an unknown claim", SeamRequest{Kind: evidence.SeamContradiction, Summary: "x", Claims: []string{c1.ID, "c_0000000000000000"}}, ErrNotFound},
		{"contradiction citing another claim's citation", SeamRequest{Kind: evidence.SeamContradiction, Summary: "x", Claims: []string{c2.ID, c3.ID}, Citations: []string{ct1}}, ErrInvalid},
		{"absence with two claims", SeamRequest{Kind: evidence.SeamAbsence, Summary: "x", Claims: []string{c1.ID, c2.ID}}, ErrInvalid},
		{"manual without a citation", SeamRequest{Kind: evidence.SeamManual, Summary: "x", Claims: []string{c1.ID}}, ErrInvalid},
		{"manual naming the wrong claim", SeamRequest{Kind: evidence.SeamManual, Summary: "x", Claims: []string{c2.ID}, Citations: []string{ct1}}, ErrInvalid},
		{"manual with an unknown citation", SeamRequest{Kind: evidence.SeamManual, Summary: "x", Citations: []string{"ct_0000000000000000"}}, ErrNotFound},
		{"empty summary", SeamRequest{Kind: evidence.SeamAbsence, Summary: " ", Claims: []string{c3.ID}}, ErrInvalid},
		{"unknown kind", SeamRequest{Kind: "doubt", Summary: "x", Claims: []string{c3.ID}}, ErrInvalid},
	}
	n0, h0 := chainState(t, s)
	for _, tt := range bad {
		t.Run(tt.desc, func(t *testing.T) {
			if _, err := s.OpenSeam(ctx, "user:olga", tt.req); !errors.Is(err, tt.is) {
				t.Fatalf("error %v; want %v", err, tt.is)
			}
		})
	}
	if n, h := chainState(t, s); n != n0 || h != h0 {
		t.Fatal("refused seams changed the chain")
	}

	contra, err := s.OpenSeam(ctx, "user:olga", SeamRequest{Kind: evidence.SeamContradiction, Summary: "Two founding years.", Claims: []string{c1.ID, c2.ID}})
	if err != nil || contra.State != evidence.SeamOpen || len(contra.Claims) != 2 || contra.OpenedBy != "user:olga" {
		t.Fatalf("contradiction: %+v %v", contra, err)
	}
	absence, err := s.OpenSeam(ctx, "user:olga", SeamRequest{Kind: evidence.SeamAbsence, Summary: "No primary source names an auditor.", Claims: []string{c3.ID}})
	if err != nil {
		t.Fatal(err)
	}
	manual, err := s.OpenSeam(ctx, "user:olga", SeamRequest{Kind: evidence.SeamManual, Summary: "Login wall.", Citations: []string{ct1}})
	if err != nil || len(manual.Claims) != 1 || manual.Claims[0] != c1.ID {
		t.Fatalf("manual seam must name its citation's claim: %+v %v", manual, err)
	}
	got, _ := s.Claim(ctx, c1.ID)
	if len(got.OpenSeams) != 2 || len(got.Citations[0].OpenSeams) != 1 || got.Citations[0].OpenSeams[0] != manual.ID {
		t.Fatalf("open seams of claim %+v", got)
	}
	if open, _ := s.Seams(ctx, evidence.SeamOpen); len(open) != 3 {
		t.Fatalf("open seams: %+v", open)
	}
	bt, _ := s.Batch(ctx, b.ID)
	if bt.Counts.OpenSeams != 3 {
		t.Fatalf("batch counts %+v", bt.Counts)
	}

	badResolve := []struct {
		desc, id, decision, reason string
		is                         error
	}{
		{"unknown seam", "s_0000000000000000", "x", "y", ErrNotFound},
		{"manual decided by free text", manual.ID, "looks fine", "I read it.", ErrInvalid},
		{"manual decided reported", manual.ID, "reported", "I read it.", ErrInvalid},
		{"no reason", contra.ID, "stands", " ", ErrInvalid},
		{"contradiction decided by free text", contra.ID, "1999 is right", "The registry says 1999.", ErrInvalid},
		{"contradiction decided by a citation status", contra.ID, "found_at_source", "The registry says 1999.", ErrInvalid},
		{"manual decided by a contradiction's decision", manual.ID, "contradicted", "I read it.", ErrInvalid},
		{"decision too long", contra.ID, strings.Repeat("d", maxDecision+1), "because", ErrInvalid},
	}
	n0, h0 = chainState(t, s)
	for _, tt := range badResolve {
		t.Run(tt.desc, func(t *testing.T) {
			if _, err := s.ResolveSeam(ctx, "user:olga", tt.id, tt.decision, tt.reason); !errors.Is(err, tt.is) {
				t.Fatalf("error %v; want %v", err, tt.is)
			}
		})
	}
	if n, h := chainState(t, s); n != n0 || h != h0 {
		t.Fatal("refused resolutions changed the chain")
	}

	r, err := s.ResolveSeam(ctx, "user:vera", manual.ID, "found_at_source", "Read it after signing in.")
	if err != nil || r.State != evidence.SeamResolved || r.Decision != "found_at_source" || r.ResolvedBy != "user:vera" || r.ResolvedAt == "" {
		t.Fatalf("resolve: %+v %v", r, err)
	}
	got, _ = s.Claim(ctx, c1.ID)
	if got.Status != evidence.StatusFound || got.Strength != evidence.StrengthLow || got.Citations[0].Status != evidence.StatusFound ||
		!strings.Contains(got.Citations[0].Note, "user:vera") || len(got.Citations[0].OpenSeams) != 0 {
		t.Fatalf("after the decision: %+v", got)
	}
	if _, err := s.ResolveSeam(ctx, "user:olga", manual.ID, "not_found", "changed my mind"); !errors.Is(err, ErrConflict) {
		t.Fatalf("second resolve: %v; want ErrConflict", err)
	}
	if _, err := s.ResolveSeam(ctx, "user:olga", contra.ID, "stands", "The registry says 1999."); err != nil {
		t.Fatal(err)
	}
	resolved, _ := s.Seams(ctx, evidence.SeamResolved)
	open, _ := s.Seams(ctx, evidence.SeamOpen)
	if len(resolved) != 2 || len(open) != 1 || open[0].ID != absence.ID {
		t.Fatalf("resolved %+v open %+v", resolved, open)
	}
	if _, err := s.Seams(ctx, "closed"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("unknown state: %v", err)
	}
	if _, err := s.Seam(ctx, "s_0000000000000000"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown seam: %v", err)
	}
	mustAuditOK(t, s)
}

// TestSeamResolvedTwiceInTheChainIsRefused records a second seam.resolved directly, as a
// racing writer would after its check: the projector refuses it and nothing is recorded.
func TestSeamResolvedTwiceInTheChainIsRefused(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "system", []byte("p"), research(claim("Acme has no auditor on file.")))
	if err != nil {
		t.Fatal(err)
	}
	seam, err := s.OpenSeam(ctx, "system", SeamRequest{Kind: evidence.SeamAbsence, Summary: "No auditor.", Claims: []string{b.Claims[0].ID}})
	if err != nil {
		t.Fatal(err)
	}
	d := Draft{Type: typeSeamResolved, Payload: seamResolved{Seam: seam.ID, Decision: "accepted", Reason: "ok"}}
	if _, err := s.recordDrafts(ctx, "system", d); err != nil {
		t.Fatal(err)
	}
	n0, h0 := chainState(t, s)
	if _, err := s.recordDrafts(ctx, "system", d); !errors.Is(err, ErrConflict) {
		t.Fatalf("second seam.resolved: %v; want ErrConflict", err)
	}
	if n, h := chainState(t, s); n != n0 || h != h0 {
		t.Fatal("the chain changed")
	}
}

func TestFindClaimsAndCitations(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "system", []byte("p"), research(
		claim("Acme  was founded in 1999.", "https://acme.example/about", "Acme was founded in １９９９"),
		claim("Something else entirely.", "https://acme.example/about", "another quote of enough length"),
	))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		desc, text string
		want       int
	}{
		{"exact", "Acme  was founded in 1999.", 1},
		{"case and spaces folded", "acme was\tFOUNDED in 1999.", 1},
		{"different punctuation is a different text", "Acme was founded in 1999", 0},
		{"unknown", "Nothing like it.", 0},
	}
	for _, tt := range tests {
		t.Run("claims: "+tt.desc, func(t *testing.T) {
			got, err := s.FindClaims(ctx, tt.text)
			if err != nil || len(got) != tt.want {
				t.Fatalf("%d claims (%v); want %d", len(got), err, tt.want)
			}
			if tt.want == 1 && got[0].ID != b.Claims[0].ID {
				t.Fatalf("found %s; want %s", got[0].ID, b.Claims[0].ID)
			}
		})
	}
	cits := []struct {
		desc, url, quote string
		want             int
	}{
		{"compatibility digits folded", "https://acme.example/about", "acme was founded in 1999", 1},
		{"URL with spaces around", " https://acme.example/about ", "Acme was founded in １９９９", 1},
		{"same URL, other quote", "https://acme.example/about", "another quote of enough length", 1},
		{"other URL", "https://acme.example/", "Acme was founded in 1999", 0},
		{"same page, spelled otherwise (evidence.SameURL)", sameURLVariant, "Acme was founded in 1999", 1},
	}
	for _, tt := range cits {
		t.Run("citations: "+tt.desc, func(t *testing.T) {
			got, err := s.FindCitations(ctx, tt.url, tt.quote)
			if err != nil || len(got) != tt.want {
				t.Fatalf("%d citations (%v); want %d", len(got), err, tt.want)
			}
		})
	}
}

// sameURLVariant is https://acme.example/about spelled as evidence.NormalizeURL makes equal:
// scheme and host in capitals, the default port, a fragment. FindCitations and the
// memory-write gate (gate's TestCitedBySameURL) both find it.
const sameURLVariant = "HTTPS://Acme.Example:443/about#history"

func TestClaimsFilter(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	b1, _ := s.ImportResearch(ctx, "system", []byte("p1"), research(claim("One fact.", "https://a.example/", "quote of enough length"), claim("Two facts.")))
	b2, _ := s.ImportResearch(ctx, "system", []byte("p2"), research(claim("Three facts.", "https://b.example/", "quote of enough length")))
	markFound(t, s, b2.Claims[0].Citations[0].ID, evidence.StatusFound)
	tests := []struct {
		desc string
		f    ClaimFilter
		want []string
	}{
		{"all, oldest batch first", ClaimFilter{}, []string{b1.Claims[0].ID, b1.Claims[1].ID, b2.Claims[0].ID}},
		{"one batch", ClaimFilter{Batch: b1.ID}, []string{b1.Claims[0].ID, b1.Claims[1].ID}},
		{"found", ClaimFilter{Status: evidence.StatusFound}, []string{b2.Claims[0].ID}},
		{"strength low", ClaimFilter{Strength: "low"}, []string{b2.Claims[0].ID}},
		{"no strength in batch 1", ClaimFilter{Batch: b1.ID, Strength: "none"}, []string{b1.Claims[0].ID, b1.Claims[1].ID}},
		{"unknown batch", ClaimFilter{Batch: "b_0000000000000000"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			got, err := s.Claims(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, c := range got {
				ids = append(ids, c.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("%v; want %v", ids, tt.want)
			}
		})
	}
	for _, f := range []ClaimFilter{{Status: "maybe"}, {Strength: "strong"}} {
		if _, err := s.Claims(ctx, f); !errors.Is(err, ErrInvalid) {
			t.Errorf("filter %+v: %v; want ErrInvalid", f, err)
		}
	}
	if _, err := s.Claim(ctx, "c_0000000000000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown claim: %v", err)
	}
	if _, err := s.Batch(ctx, "b_0000000000000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown batch: %v", err)
	}
}

// TestClaimsCarryTheirChecks reads checks recorded through RecordCheck back through a list
// read of several claims: each citation carries its own latest check, unchecked ones none,
// and a read that cannot load the checks fails instead of showing citations without them.
func TestClaimsCarryTheirChecks(t *testing.T) {
	s, dir := openTest(t)
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "system", []byte("p"), research(
		claim("One fact.", "https://a.example/", "quote of enough length", "https://b.example/", "quote of enough length"),
		claim("Another fact.", "https://c.example/", "quote of enough length")))
	if err != nil {
		t.Fatal(err)
	}
	claimB, citB := findCitation(t, b.Claims, "https://b.example/")
	claimC, citC := findCitation(t, b.Claims, "https://c.example/")
	found, body := foundCheck(claimB, citB, "https://b.example/")
	if err := s.RecordCheck(ctx, "system", found, body, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	split, seam := splitCheck(claimC, citC)
	if err := s.RecordCheck(ctx, "system", split, nil, nil, nil, seam); err != nil {
		t.Fatal(err)
	}
	claims, err := s.Claims(ctx, ClaimFilter{Batch: b.ID})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		desc     string
		url      string
		document bool
		verdicts []string
		decision evidence.Verdict
	}{
		{"an unchecked citation beside a checked one", "https://a.example/", false, nil, ""},
		{"a found citation of the first claim", "https://b.example/", true, []string{"dom", "tokens"}, evidence.VerdictSupported},
		{"a split citation of the second claim", "https://c.example/", false, []string{"dom", "tokens", "third"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			var got *CitationView
			for i := range claims {
				for j := range claims[i].Citations {
					if claims[i].Citations[j].URL == tt.url {
						got = &claims[i].Citations[j]
					}
				}
			}
			if got == nil {
				t.Fatalf("no citation with URL %s in the list", tt.url)
			}
			if (got.Document != nil) != tt.document {
				t.Errorf("document %+v, want one: %t", got.Document, tt.document)
			}
			var verifiers []string
			for _, v := range got.Verdicts {
				verifiers = append(verifiers, v.Verifier)
			}
			if strings.Join(verifiers, ",") != strings.Join(tt.verdicts, ",") {
				t.Errorf("verdicts of %v, want %v", verifiers, tt.verdicts)
			}
			switch {
			case tt.verdicts == nil && got.Adjudication != nil:
				t.Errorf("an unchecked citation carries an adjudication: %+v", got.Adjudication)
			case tt.verdicts != nil && (got.Adjudication == nil || got.Adjudication.Decision != tt.decision || got.Adjudication.ResidualRisk == ""):
				t.Errorf("adjudication %+v, want decision %q with a residual risk", got.Adjudication, tt.decision)
			}
		})
	}

	mustExec(t, rawDB(t, dir), "DROP TABLE verdicts")
	if _, err := s.Claim(ctx, claimB); err == nil || !strings.Contains(err.Error(), "read checks") {
		t.Fatalf("a read whose checks cannot be loaded: %v; want an error about reading checks", err)
	}
}
