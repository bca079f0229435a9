package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
	"evidenceledger/fetch/fetchtest"
	"evidenceledger/match"
)

func target(u, quote string) evidence.CheckTarget {
	return evidence.CheckTarget{ClaimID: "c_0000000000000001", ClaimText: "a claim", CitationID: "ct_0000000000000001", URL: u, Quote: quote}
}

func TestCheckScenarios(t *testing.T) {
	srv := newPageServer(t)
	tests := []struct {
		desc         string
		host, path   string
		rawURL       string // used instead of host and path when set
		quote        string
		status       evidence.Status
		verdicts     []evidence.Verdict
		halted       bool
		seam         evidence.SeamKind
		escalated    bool
		excerptHas   string // the excerpt (and note) must hold these words of the page
		tier         string
		wantRequests int // -1: any; otherwise requests that must reach host
	}{
		{
			desc: "quote on the page with NBSP, curly quotes and an em dash: found, page's own words",
			host: "a.test", path: "/report", quote: `The chair said: "We expect growth to continue - slowly."`,
			status: evidence.StatusFound, verdicts: []evidence.Verdict{"supported", "supported"},
			excerptHas: "“We expect growth to continue — slowly.”", tier: "punctuation", wantRequests: -1,
		},
		{
			desc: "exact quote across an NBSP typed as a space: found at the whitespace tier",
			host: "a.test", path: "/report", quote: "the registry counted 4,812 companies",
			status: evidence.StatusFound, verdicts: []evidence.Verdict{"supported", "supported"},
			excerptHas: "counted\u00a04,812", tier: "whitespace", wantRequests: -1,
		},
		{
			desc: "quote only inside a script: not on the page",
			host: "a.test", path: "/report", quote: "4,812 companies hidden in a script",
			status: evidence.StatusNotFound, verdicts: []evidence.Verdict{"not_found", "not_found"}, wantRequests: -1,
		},
		{
			desc: "a number changed by the researcher: not found",
			host: "a.test", path: "/report", quote: "the registry counted 4,900 companies",
			status: evidence.StatusNotFound, verdicts: []evidence.Verdict{"not_found", "not_found"}, wantRequests: -1,
		},
		{
			desc: "fabricated URL, 404: not_found, the cited page does not exist",
			host: "a.test", path: "/made-up-article-2025", quote: "the registry counted 4,812 companies",
			status: evidence.StatusNotFound, verdicts: []evidence.Verdict{"not_found", "not_found"}, wantRequests: -1,
		},
		{
			desc:   "fabricated host that does not resolve: not_found, the cited page does not exist",
			rawURL: "http://fabricated-news.example/2025/story", quote: "the registry counted 4,812 companies",
			status: evidence.StatusNotFound, verdicts: []evidence.Verdict{"not_found", "not_found"}, wantRequests: -1,
		},
		{
			desc: "page drawn by scripts: unreachable, not not_found",
			host: "a.test", path: "/scripts", quote: "You need JavaScript to run this app",
			status: evidence.StatusUnreachable, verdicts: []evidence.Verdict{"unreachable", "unreachable"}, wantRequests: -1,
		},
		{
			desc: "real page, French guillemets with NBSP inside (lemonde-1)",
			host: "news.test", path: "/corpus/lemonde-1.html", quote: `"entre les mailles du filet"`,
			status: evidence.StatusFound, verdicts: []evidence.Verdict{"supported", "supported"},
			excerptHas: "entre les mailles du filet", tier: "punctuation", wantRequests: -1,
		},
		{
			desc: "text differs on alternate requests: split, escalation, disagreement seam",
			host: "flip.test", path: "/flip", quote: "The minister resigned on Tuesday",
			status: evidence.StatusReported, seam: evidence.SeamDisagreement, escalated: true, wantRequests: -1,
		},
		{
			desc: "login-walled host: never fetched, manual seam, no verdicts",
			host: "walled.test", path: "/in/someone", quote: "Head of research at Example Corp",
			status: evidence.StatusReported, verdicts: []evidence.Verdict{}, seam: evidence.SeamManual, wantRequests: 0,
		},
		{
			desc:   "no URL: halts, no request",
			rawURL: "", quote: "the registry counted 4,812 companies", halted: true, wantRequests: -1,
		},
		{
			desc:   "not an http URL: halts",
			rawURL: "ftp://a.test/report", quote: "the registry counted 4,812 companies", halted: true, wantRequests: -1,
		},
		{
			desc: "quote shorter than 12 characters: halts, no request",
			host: "short.test", path: "/report", quote: "4,812 firms", halted: true, wantRequests: 0,
		},
		{
			desc: "a quote of twelve dots: nothing to look for, no request",
			host: "dots.test", path: "/report", quote: "............", halted: true, wantRequests: 0,
		},
		{
			desc: "ellipsis parts too short to look for: no request",
			host: "parts.test", path: "/report", quote: "n 2025 ... 4,812", halted: true, wantRequests: 0,
		},
		{
			desc: "more ellipsis parts than the cap: no request",
			host: "cap.test", path: "/report", quote: strings.Repeat("the registry counted companies … ", 9), halted: true, wantRequests: 0,
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			u := tc.rawURL
			if tc.host != "" {
				u = srv.At(tc.host, tc.path)
			}
			before := srv.Requests(tc.host)
			out, err := NewChecker(fetchtest.Config()).Check(context.Background(), target(u, tc.quote))
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantRequests >= 0 && tc.host != "" {
				if got := srv.Requests(tc.host) - before; got != tc.wantRequests {
					t.Errorf("%d requests reached %s, want %d", got, tc.host, tc.wantRequests)
				}
			}
			if out.Halted != tc.halted {
				t.Fatalf("Halted = %v, want %v (note %q)", out.Halted, tc.halted, out.Note)
			}
			if tc.halted {
				if out.Note != evidence.CitationNote(u, tc.quote) || out.Body != nil || out.Seam != nil {
					t.Errorf("halted outcome = %+v, want only the note %q", out, evidence.CitationNote(u, tc.quote))
				}
				return
			}
			ch := out.Checked
			if ch.Status != tc.status {
				t.Errorf("status = %s, want %s (note %q)", ch.Status, tc.status, ch.Note)
			}
			if tc.verdicts != nil {
				var got []evidence.Verdict
				for _, v := range ch.Verdicts {
					got = append(got, v.Verdict)
				}
				if len(got) != len(tc.verdicts) || (len(got) > 0 && !reflect.DeepEqual(got, tc.verdicts)) {
					t.Errorf("verdicts = %v, want %v", got, tc.verdicts)
				}
			}
			for _, v := range ch.Verdicts {
				if err := v.Validate(); err != nil {
					t.Errorf("a default verifier went off its schema: %v", err)
				}
			}
			if ch.Adjudication.Escalated != tc.escalated {
				t.Errorf("escalated = %v, want %v", ch.Adjudication.Escalated, tc.escalated)
			}
			if !strings.Contains(ch.Adjudication.ResidualRisk, "not") {
				t.Errorf("residual risk %q does not say what the result does not show", ch.Adjudication.ResidualRisk)
			}
			if tc.seam == "" && out.Seam != nil {
				t.Errorf("unexpected %s seam: %s", out.Seam.Kind, out.Seam.Summary)
			}
			if tc.seam != "" {
				if out.Seam == nil || out.Seam.Kind != tc.seam {
					t.Fatalf("seam = %+v, want a %s seam", out.Seam, tc.seam)
				}
				if !reflect.DeepEqual(out.Seam.Citations, []string{"ct_0000000000000001"}) || !strings.Contains(ch.Note, out.Seam.Seam) {
					t.Errorf("seam %+v is not tied to the citation or not named in the note %q", out.Seam, ch.Note)
				}
			}
			if tc.excerptHas != "" {
				if !strings.Contains(ch.Excerpt, tc.excerptHas) || !strings.Contains(ch.Note, tc.excerptHas) {
					t.Errorf("excerpt %q / note %q do not quote the page's own words %q", ch.Excerpt, ch.Note, tc.excerptHas)
				}
				if ch.Tier != tc.tier {
					t.Errorf("tier = %q, want %q", ch.Tier, tc.tier)
				}
			}
			if tc.status == evidence.StatusFound {
				if ch.Document == nil || ch.Document.HTTPStatus != 200 || ch.Document.SHA256 == "" || len(out.Body) == 0 {
					t.Fatalf("found without a stored document: %+v", ch.Document)
				}
				if !strings.Contains(ch.Adjudication.ResidualRisk, "does not show that the claim is true") {
					t.Errorf("residual risk %q", ch.Adjudication.ResidualRisk)
				}
			}
		})
	}
	if n := srv.cookies.Load(); n != 0 {
		t.Errorf("%d requests carried a cookie; verifiers must keep none", n)
	}
}

func TestSplitRecordsEveryVerdictAndBothDocuments(t *testing.T) {
	srv := newPageServer(t)
	out, err := NewChecker(fetchtest.Config()).Check(context.Background(), target(srv.At("flip.test", "/flip"), "The minister resigned on Tuesday"))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Checked.Verdicts) != 3 {
		t.Fatalf("%d verdicts, want 3 (two and the escalation)", len(out.Checked.Verdicts))
	}
	docs := map[string]bool{}
	names := map[string]bool{}
	for _, v := range out.Checked.Verdicts {
		docs[v.Document] = true
		names[v.Verifier] = true
		if !strings.Contains(out.Seam.Summary, v.Verifier+": "+string(v.Verdict)) {
			t.Errorf("seam summary %q does not show verdict %s: %s", out.Seam.Summary, v.Verifier, v.Verdict)
		}
	}
	if len(docs) != 2 {
		t.Errorf("verdicts name %d distinct documents, want 2 (the page served two texts)", len(docs))
	}
	if len(names) != 3 {
		t.Errorf("verifier names %v, want three distinct", names)
	}
	if out.Checked.Adjudication.Decision != "" || out.Checked.Status != evidence.StatusReported {
		t.Errorf("a split decided %q / status %s; it must leave the decision to a person", out.Checked.Adjudication.Decision, out.Checked.Status)
	}
	if out.Checked.Document == nil || out.Checked.Document.SHA256 != out.Checked.Verdicts[0].Document {
		t.Errorf("stored document %+v, want the first verifier's page", out.Checked.Document)
	}
	if got := srv.flips.Load(); got != 3 {
		t.Errorf("the page was fetched %d times, want 3 (each verifier fetches afresh)", got)
	}
}

// offSchema is another verifier, as a plug-in might be: it answers without reasoning and
// with an estimate out of range.
type offSchema struct{ verdict evidence.Verdict }

func (o offSchema) Verify(context.Context, evidence.CheckTarget) Report {
	return Report{Result: evidence.VerifierResult{Verifier: "plugin", Verdict: o.verdict, AccuracyEstimate: 150}}
}

func TestOffSchemaVerdictEscalatesAndNeverPasses(t *testing.T) {
	srv := newPageServer(t)
	cfg := fetchtest.Config()
	tests := []struct {
		desc       string
		quote      string
		injected   evidence.Verdict
		wantStatus evidence.Status
		wantDec    evidence.Verdict
	}{
		{"off-schema 'supported' for a quote that is not there", "the registry counted 9,999 companies", evidence.VerdictSupported, evidence.StatusNotFound, evidence.VerdictNotFound},
		{"unknown verdict word", "the registry counted 9,999 companies", "probably", evidence.StatusNotFound, evidence.VerdictNotFound},
		{"off-schema 'supported' agreeing with the page: the two valid verdicts decide", "the registry counted 4,812 companies", evidence.VerdictSupported, evidence.StatusFound, evidence.VerdictSupported},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			c := &Checker{
				first:  NewDOMVerifier(cfg),
				second: offSchema{tc.injected},
				third:  func() Verifier { return newQuoteVerifier(NameThird, cfg, readDOM) },
			}
			out, err := c.Check(context.Background(), target(srv.At("a.test", "/report"), tc.quote))
			if err != nil {
				t.Fatal(err)
			}
			a := out.Checked.Adjudication
			if !a.Escalated || a.Agree || len(out.Checked.Verdicts) != 3 {
				t.Fatalf("adjudication %+v with %d verdicts: an off-schema verdict must escalate", a, len(out.Checked.Verdicts))
			}
			if a.Decision != tc.wantDec || out.Checked.Status != tc.wantStatus {
				t.Errorf("decision %q status %s, want %q %s", a.Decision, out.Checked.Status, tc.wantDec, tc.wantStatus)
			}
			if p := out.Checked.Verdicts[1].Problem; !strings.Contains(p, "accuracy_estimate 150") || !strings.Contains(p, "reasoning is empty") {
				t.Errorf("problem %q does not say what is off schema", p)
			}
		})
	}
}

func TestAdjudicate(t *testing.T) {
	ok := func(v evidence.Verdict) evidence.VerifierResult {
		return evidence.VerifierResult{Verifier: "v", Verdict: v, AccuracyEstimate: 90, Reasoning: "because"}
	}
	bad := evidence.VerifierResult{Verifier: "bad", Verdict: evidence.VerdictSupported, AccuracyEstimate: 0, Reasoning: "x"}
	tests := []struct {
		desc     string
		in       []evidence.VerifierResult
		agree    bool
		escalate bool
		split    bool
		decision evidence.Verdict
	}{
		{"two supported agree", []evidence.VerifierResult{ok("supported"), ok("supported")}, true, false, false, "supported"},
		{"two unreachable agree", []evidence.VerifierResult{ok("unreachable"), ok("unreachable")}, true, false, false, "unreachable"},
		{"supported against not_found escalates", []evidence.VerifierResult{ok("supported"), ok("not_found")}, false, true, false, ""},
		{"off-schema pair escalates even when the words agree", []evidence.VerifierResult{ok("supported"), bad}, false, true, false, ""},
		{"two off-schema escalate", []evidence.VerifierResult{bad, bad}, false, true, false, ""},
		{"one verdict alone never decides", []evidence.VerifierResult{ok("supported")}, false, true, false, ""},
		{"after escalation two against one is a split", []evidence.VerifierResult{ok("supported"), ok("not_found"), ok("supported")}, false, false, true, ""},
		{"after escalation all valid agree, off-schema ignored", []evidence.VerifierResult{ok("not_found"), bad, ok("not_found")}, false, false, false, "not_found"},
		{"after escalation only one valid: split", []evidence.VerifierResult{ok("supported"), bad, bad}, false, false, true, ""},
		{"three different verdicts: split", []evidence.VerifierResult{ok("supported"), ok("not_found"), ok("unreachable")}, false, false, true, ""},
	}
	tg := target("https://example.org/a", "some quote here")
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			r := Adjudicate(tg, tc.in)
			if r.Agree != tc.agree || r.Escalate != tc.escalate || r.Split != tc.split || r.Decision != tc.decision {
				t.Errorf("ruling %+v, want agree=%v escalate=%v split=%v decision=%q", r, tc.agree, tc.escalate, tc.split, tc.decision)
			}
			if !strings.Contains(r.ResidualRisk, "https://example.org/a") {
				t.Errorf("residual risk %q does not name the URL", r.ResidualRisk)
			}
		})
	}
}

// TestAdjudicatorCannotFetch proves that nothing the adjudicator receives could fetch: its
// inputs are plain data all the way down (no functions, channels, interfaces or pointers),
// and no method of any input type takes a context or names a fetching action.
func TestAdjudicatorCannotFetch(t *testing.T) {
	fn := reflect.TypeOf(Adjudicate)
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(ty reflect.Type, path string) {
		if seen[ty] {
			return
		}
		seen[ty] = true
		for i := range ty.NumMethod() {
			m := ty.Method(i)
			for _, word := range []string{"Fetch", "Get", "Do", "Open", "Dial", "Read", "Verify"} {
				if strings.HasPrefix(m.Name, word) {
					t.Errorf("%s (%s) has method %s", path, ty, m.Name)
				}
			}
			for j := range m.Type.NumIn() {
				if in := m.Type.In(j); in.Kind() == reflect.Interface || in.Kind() == reflect.Func {
					t.Errorf("%s (%s) method %s takes %s", path, ty, m.Name, in)
				}
			}
		}
		switch ty.Kind() {
		case reflect.String, reflect.Bool, reflect.Int, reflect.Int64:
		case reflect.Slice:
			walk(ty.Elem(), path+"[]")
		case reflect.Struct:
			for i := range ty.NumField() {
				walk(ty.Field(i).Type, path+"."+ty.Field(i).Name)
			}
		default:
			t.Errorf("%s is a %s (%s): the adjudicator's inputs must be plain data", path, ty.Kind(), ty)
		}
	}
	if fn.NumIn() != 2 {
		t.Fatalf("Adjudicate takes %d inputs; this test walks each of them", fn.NumIn())
	}
	for i := range fn.NumIn() {
		walk(fn.In(i), fmt.Sprintf("input %d", i))
	}
}

// TestVerifiersIndependentByConstruction checks that a Checker's verifiers have their own
// fetchers and extractors, that every escalation gets a new fetcher, and that on the wire
// the two open their own connections.
func TestVerifiersIndependentByConstruction(t *testing.T) {
	c := NewChecker(fetchtest.Config())
	first, second := c.first.(*QuoteVerifier), c.second.(*QuoteVerifier)
	third1, third2 := c.third().(*QuoteVerifier), c.third().(*QuoteVerifier)
	fetchers := map[*fetch.Fetcher]string{}
	for _, v := range []*QuoteVerifier{first, second, third1, third2} {
		if other, dup := fetchers[v.fetcher]; dup {
			t.Errorf("verifiers %s and %s share a fetcher", other, v.name)
		}
		fetchers[v.fetcher] = v.name
	}
	if reflect.ValueOf(first.read.html).Pointer() == reflect.ValueOf(second.read.html).Pointer() || reflect.ValueOf(first.read.pdf).Pointer() == reflect.ValueOf(second.read.pdf).Pointer() {
		t.Error("the two verifiers read text with the same extractor")
	}
	srv := newPageServer(t)
	if _, err := c.Check(context.Background(), target(srv.At("a.test", "/report"), "the registry counted 4,812 companies")); err != nil {
		t.Fatal(err)
	}
	if n := srv.newConns.Load(); n < 2 {
		t.Errorf("%d connections for two verifiers; each must dial its own", n)
	}
	srv.mu.Lock()
	robots := srv.hits["a.test /robots.txt"]
	srv.mu.Unlock()
	if robots != 2 {
		t.Errorf("robots.txt was read %d times, want 2 (no shared cache)", robots)
	}
}

func TestTruncatedPage(t *testing.T) {
	srv := newPageServer(t)
	cfg := fetchtest.Config()
	cfg.MaxBytes = 200
	tests := []struct {
		desc    string
		quote   string
		verdict evidence.Verdict
	}{
		{"quote in the part that was read: supported, lower estimate", "the registry counted 4,812 companies", evidence.VerdictSupported},
		{"quote beyond the cut: unreachable, not not_found", "We expect growth to continue", evidence.VerdictUnreachable},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			r := NewDOMVerifier(cfg).Verify(context.Background(), target(srv.At("a.test", "/report"), tc.quote))
			if r.Result.Verdict != tc.verdict {
				t.Fatalf("verdict %s (%s), want %s", r.Result.Verdict, r.Result.Reasoning, tc.verdict)
			}
			if !strings.Contains(r.Result.Reasoning, "cut off") {
				t.Errorf("reasoning %q does not say the page was cut off", r.Result.Reasoning)
			}
			if tc.verdict == evidence.VerdictSupported && r.Result.AccuracyEstimate >= tierEstimate[match.TierWhitespace] {
				t.Errorf("estimate %d for a cut page is not below a complete page's", r.Result.AccuracyEstimate)
			}
		})
	}
}

func TestCheckInterrupted(t *testing.T) {
	srv := newPageServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewChecker(fetchtest.Config()).Check(ctx, target(srv.At("a.test", "/report"), "the registry counted 4,812 companies"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want one wrapping context.Canceled", err)
	}
}

// FuzzAdjudicate feeds verdict lists, as another verifier might send them, to the
// adjudicator and checks its laws: an off-schema verdict never decides, a decision is the
// verdict of every valid verdict, a split or an escalation never decides, and every ruling
// carries a residual-risk statement. Seeds: testdata/verdicts/seeds.jsonl.
func FuzzAdjudicate(f *testing.F) {
	for line := range strings.Lines(string(readTestdata(f, "verdicts/seeds.jsonl"))) {
		f.Add([]byte(strings.TrimSpace(line)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var in []evidence.VerifierResult
		if json.Unmarshal(data, &in) != nil {
			return
		}
		r := Adjudicate(target("https://example.org/", "a quote to look for"), in)
		if r.ResidualRisk == "" {
			t.Fatal("ruling without a residual-risk statement")
		}
		if len(r.Problems) != len(in) {
			t.Fatalf("%d problems for %d verdicts", len(r.Problems), len(in))
		}
		if r.Decision == "" {
			return
		}
		if r.Escalate || r.Split {
			t.Fatalf("ruling %+v decides and escalates or splits", r)
		}
		valid := 0
		for i, v := range in {
			if v.Validate() != nil {
				if r.Problems[i] == "" {
					t.Fatalf("verdict %d is off its schema but has no problem", i)
				}
				continue
			}
			valid++
			if v.Verdict != r.Decision {
				t.Fatalf("decision %q although valid verdict %d is %q", r.Decision, i, v.Verdict)
			}
		}
		if valid < 2 {
			t.Fatalf("decision %q rests on %d valid verdicts", r.Decision, valid)
		}
	})
}
