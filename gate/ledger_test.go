package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"evidenceledger/evidence"
	"evidenceledger/fetch/fetchtest"
	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// gateWorld is a ledger whose claims got their statuses through real checks of loopback
// pages, and the URLs and ids the tests refer to.
type gateWorld struct {
	store  *ledger.Store
	url    func(host, path string) string
	claims map[string]string // short name -> claim id
}

// newGateWorld imports research, classifies two sources, checks the batch against a loopback
// site, and resolves one manual seam:
//
//	founded  found at acme.test (semi) and registry.test (primary): high
//	staff    found at acme.test only: low
//	moved    the quote is not on its page: not_found
//	chair    the page changes between fetches: the verifiers split, disagreement seam open
//	hiring   a login-walled host: manual seam open
//	board    a login-walled host whose manual seam a person resolved as found: low
//	auditor  no citation: no source of record
//	mixed    one citation found at acme.test, one whose quote is not on its page: not_found
func newGateWorld(t *testing.T) gateWorld {
	t.Helper()
	var flips atomic.Int32
	pages := map[string]string{
		"/about":    `<p>Acme was founded in 1999 in Leeds by two engineers. Acme employs 40 people.</p>`,
		"/registry": `<p>Acme Ltd, incorporated on 3 May 1999, registered office Leeds.</p>`,
		"/history":  `<p>Acme has always been based in Leeds.</p>`,
		"/team":     `<p>Acme's founders, Ann Lee and Raj Patel, met at Leeds University.</p>`,
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", http.NotFound)
	// /slow answers only when the test ends: a check of it is always still going on.
	slow := make(chan struct{})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-slow:
			fmt.Fprint(w, "<p>Acme slowly opened a shop in Bath.</p>")
		}
	})
	mux.HandleFunc("/flip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if flips.Add(1)%2 == 1 {
			fmt.Fprint(w, `<p>The chair of Acme is Ann Lee, elected in 2020.</p>`)
			return
		}
		fmt.Fprint(w, `<p>The board has not elected a chair.</p>`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><html><body>"+body+"</body></html>")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(slow) }) // before Close, which waits for the held request
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	u := func(host, path string) string { return fmt.Sprintf("http://%s:%d%s", host, port, path) }

	ctx := context.Background()
	st, err := ledger.Open(ctx, t.TempDir(), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	type cit struct {
		URL   string `json:"url"`
		Quote string `json:"quote"`
	}
	type claim struct {
		Text      string `json:"text"`
		Citations []cit  `json:"citations"`
	}
	research := []claim{
		{"Acme was founded in 1999.", []cit{{u("acme.test", "/about"), "Acme was founded in 1999 in Leeds"}, {u("registry.test", "/registry"), "incorporated on 3 May 1999"}}},
		{"Acme employs 40 people.", []cit{{u("acme.test", "/about"), "Acme employs 40 people"}}},
		{"Acme moved to York in 2010.", []cit{{u("acme.test", "/history"), "Acme moved its offices to York in 2010"}}},
		{"The chair of Acme is Ann Lee.", []cit{{u("acme.test", "/flip"), "The chair of Acme is Ann Lee"}}},
		{"Acme is hiring engineers.", []cit{{u("walled.test", "/jobs"), "We are hiring engineers in Leeds"}}},
		{"Acme has a board of five.", []cit{{u("walled.test", "/board"), "Our board of five directors"}}},
		{"Acme has no auditor on file.", []cit{}},
		{"Acme was founded by two engineers.", []cit{{u("acme.test", "/about"), "founded in 1999 in Leeds by two engineers"}, {u("acme.test", "/history"), "Acme was founded by two engineers in York"}}},
	}
	names := []string{"founded", "staff", "moved", "chair", "hiring", "board", "auditor", "mixed"}
	body, _ := json.Marshal(map[string]any{"claims": research})
	_, res, err := evidence.ReadRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.ImportResearch(ctx, "user:olga", body, res)
	if err != nil {
		t.Fatal(err)
	}
	w := gateWorld{store: st, url: u, claims: map[string]string{}}
	for i, c := range b.Claims {
		w.claims[names[i]] = c.ID
	}
	for src, class := range map[string]evidence.SourceClass{"registry.test": evidence.ClassPrimary, "acme.test": evidence.ClassSemi} {
		if _, err := st.ClassifySource(ctx, "user:olga", src, class, src+" publisher"); err != nil {
			t.Fatal(err)
		}
	}
	checker := verify.NewChecker(fetchtest.Config())
	if _, err := verify.RunBatch(ctx, st, checker, "system", b.ID, false, 4, nil); err != nil {
		t.Fatal(err)
	}
	board, err := st.Claim(ctx, w.claims["board"])
	if err != nil || len(board.OpenSeams) != 1 {
		t.Fatalf("board claim after the check: %+v %v", board, err)
	}
	if _, err := st.ResolveSeam(ctx, "user:olga", board.OpenSeams[0], string(evidence.StatusFound), "opened the page by hand; the quote is there"); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		status   evidence.Status
		strength evidence.Strength
		seams    int
	}{
		"founded": {evidence.StatusFound, evidence.StrengthHigh, 0},
		"staff":   {evidence.StatusFound, evidence.StrengthLow, 0},
		"moved":   {evidence.StatusNotFound, "", 0},
		"chair":   {evidence.StatusReported, "", 1},
		"hiring":  {evidence.StatusReported, "", 1},
		"board":   {evidence.StatusFound, evidence.StrengthLow, 0},
		"auditor": {evidence.StatusReported, "", 0},
		"mixed":   {evidence.StatusFound, evidence.StrengthLow, 0},
	}
	for name, wt := range want {
		c, err := st.Claim(ctx, w.claims[name])
		if err != nil || c.Status != wt.status || c.Strength != wt.strength || len(c.OpenSeams) != wt.seams {
			t.Fatalf("claim %s after the checks: %+v %v; want %+v", name, c, err, wt)
		}
	}
	return w
}

func TestGateDecisions(t *testing.T) {
	w := newGateWorld(t)
	l := StoreLedger(w.store)
	about := w.url("acme.test", "/about")
	tests := []struct {
		desc  string
		text  string
		min   evidence.Strength
		allow bool
		// want is in the reasons of the first blocked claim, or the ids matched when allowed.
		want string
	}{
		{"the exact text of a found claim", "Acme was founded in 1999.", "", true, w.claims["founded"]},
		{"spacing, compatibility forms and the case of the first letter do not matter", "  acme was   founded in １９９９", "", true, w.claims["founded"]},
		{"a word in capitals is not the verified word", "ACME was founded in 1999.", "", false, "word for word"},
		{"a memory file of found claims under a heading", "# What we know about Acme\n\n- Acme was founded in 1999.\n- Acme employs 40 people.\n", "", true, w.claims["staff"]},
		{"the quote's own words as the claim, with the same URL (host case, fragment) and quote",
			"Acme was founded in Leeds in 1999 (" + strings.Replace(about, "acme.test", "ACME.test", 1) + "#top): “Acme was founded in 1999 in Leeds”.", "", true, w.claims["founded"]},
		{"a found URL and quote under a claim whose number differs",
			"Acme was founded in 2005 ([about](" + about + ")): “Acme was founded in 1999 in Leeds”.", "", false, "words the ledger claim and its found quotes do not hold: 2005"},
		{"a found URL and quote under a claim with an unverified clause appended",
			"Acme was founded in 1999 in Leeds and later bankrupt ([about](" + about + ")): “Acme was founded in 1999 in Leeds”.", "", false, "later, bankrupt"},
		{"a found URL and quote under a negated claim",
			"Acme was not founded in 1999 ([about](" + about + ")): “Acme was founded in 1999 in Leeds”.", "", false, "do not hold: not"},
		{"a found text with a zero-width character inside a word is not the found text",
			"Acme was found\u200bed in 1999.", "", false, evidence.NoteNoSource},
		{"a found text followed by an unverified clause in the same sentence",
			"Acme was founded in 1999, and it was sold in 2021.", "", false, evidence.NoteNoSource},
		{"the found text with a URL the ledger did not find it at",
			"Acme was founded in 1999 (" + w.url("news.test", "/acme") + ").", "", false, "which this claim has not found at its source"},
		{"the found text citing its own URL with another quote",
			"Claim: Acme was founded in 1999.\nSource: " + about + "\nQuote: “Acme was founded in 1999 in York”", "", false, "with the quote"},
		{"a quote that is not on its page", "Acme moved to York in 2010.", "", false, "it is not_found, not found_at_source"},
		{"a split verdict is blocked while its seam is open", "The chair of Acme is Ann Lee.", "", false, "open seam s_"},
		{"a login-walled citation waits for a person", "Acme is hiring engineers.", "", false, "open seam s_"},
		{"a manual seam resolved as found allows", "Acme has a board of five.", "", true, w.claims["board"]},
		{"a claim in the ledger with no source", "Acme has no auditor on file.", "", false, "it is reported"},
		{"a found citation beside a fabricated one is a fabrication", "Acme was founded by two engineers.", "", false, "is not_found: the quote is not on that page, or the page does not exist"},
		{"factual prose with no URL", "Acme was sold in 2021.", "", false, evidence.NoteNoSource},
		{"a title-like line is a claim too", "Acme was sold in 2021", "", false, evidence.NoteNoSource},
		{"a fact behind a Note: label is a claim too", "Note: Acme was sold in 2021.", "", false, evidence.NoteNoSource},
		{"a bold line is a claim too", "**Acme was sold in 2021**", "", false, evidence.NoteNoSource},
		{"a cited claim the ledger never saw", "Acme was sold in 2021 (" + w.url("news.test", "/sale") + "): “Acme was sold to Beta”.", "", false, "not in the ledger"},
		{"one unverified claim blocks the whole text", "Acme was founded in 1999. Acme was sold in 2021.", "", false, evidence.NoteNoSource},
		{"min strength high: high passes", "Acme was founded in 1999.", evidence.StrengthHigh, true, w.claims["founded"]},
		{"min strength medium: low is blocked", "Acme employs 40 people.", evidence.StrengthMedium, false, "its strength is low, below the minimum medium"},
		{"min strength low: low passes", "Acme employs 40 people.", evidence.StrengthLow, true, w.claims["staff"]},
		{"an empty text states nothing", "", "", true, ""},
		{"headings, questions and code state nothing", "# Notes\n\nIs Acme still in Leeds?\n\n```sh\ngo test ./...\n```\n", "", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			d, err := Evaluate(context.Background(), l, tt.text, Options{Min: tt.min})
			if err != nil {
				t.Fatal(err)
			}
			if d.Allow != tt.allow || d.ResidualRisk == "" {
				t.Fatalf("allow %v; want %v: %+v", d.Allow, tt.allow, d)
			}
			if tt.want == "" {
				if len(d.Claims) != 0 || d.Note != NoteNoClaims {
					t.Fatalf("want no claims and the note: %+v", d)
				}
				return
			}
			var got string
			for _, c := range d.Claims {
				if tt.allow {
					got += strings.Join(c.Matched, " ") + " "
				} else if !c.Allow {
					got = strings.Join(c.Reasons, "; ")
					break
				}
			}
			if !strings.Contains(got, tt.want) {
				t.Fatalf("got %q; want %q in it\n%+v", got, tt.want, d)
			}
		})
	}
}

func TestGateFailsClosed(t *testing.T) {
	w := newGateWorld(t)
	w.store.Close()
	d, err := Evaluate(context.Background(), StoreLedger(w.store), "Acme was founded in 1999.", Options{})
	if err == nil || d.Allow || len(d.Claims) != 1 || !strings.Contains(d.Claims[0].Reasons[0], "could not be read") {
		t.Fatalf("a closed ledger: %+v %v; want a block and an error", d, err)
	}
}

// TestGateCheckOnTheSpot: with a Check, a cited claim the ledger does not hold is imported
// as a batch of its own, checked at its loopback page, recorded, and gated on the result.
func TestGateCheckOnTheSpot(t *testing.T) {
	w := newGateWorld(t)
	ctx := context.Background()
	l := StoreLedger(w.store)
	about := w.url("acme.test", "/about")
	check := func(timeout time.Duration) Options {
		return Options{Check: &Check{Store: StoreImporter(w.store), Checker: verify.NewChecker(fetchtest.Config()),
			Actor: "user:gate", Timeout: timeout}}
	}
	found := "# Acme\n\n- Use tabs.\n- Acme's founders met at Leeds University ([team](" + w.url("acme.test", "/team") + ")): “Acme's founders, Ann Lee and Raj Patel, met at Leeds University”.\n"
	d, err := Evaluate(ctx, l, found, Options{})
	if err != nil || d.Allow || !strings.Contains(strings.Join(d.Claims[0].Reasons, " "), "not in the ledger") ||
		!strings.Contains(strings.Join(d.Claims[0].Next, " "), "ledger gate --check") {
		t.Fatalf("without a check: %+v %v; want blocked, not in the ledger, and told to run --check", d, err)
	}
	if len(d.NotGated) != 2 || d.NotGated[0].Kind != evidence.KindInstruction || d.NotGated[1].Kind != evidence.KindHeading {
		t.Fatalf("not gated: %+v; want the heading and the instruction", d.NotGated)
	}
	before, _ := w.store.Batches(ctx)
	d, err = Evaluate(ctx, l, found, check(time.Hour))
	if err != nil || !d.Allow || d.Claims[0].Checked == "" || len(d.Claims[0].Matched) != 1 {
		t.Fatalf("checked on the spot: %+v %v; want allowed", d, err)
	}
	b, err := w.store.Batch(ctx, d.Claims[0].Checked)
	if err != nil || len(b.Claims) != 1 || b.Claims[0].Status != evidence.StatusFound {
		t.Fatalf("the batch of the check: %+v %v", b, err)
	}
	events, _ := w.store.Events(ctx, 0, 1000)
	last := events[len(events)-1]
	if last.Type != "citation.checked" || last.Actor != "user:gate" {
		t.Fatalf("the last event is %s by %s; want citation.checked by user:gate", last.Type, last.Actor)
	}
	if rep, err := w.store.Audit(ctx); err != nil || !rep.OK {
		t.Fatalf("audit after the check: %+v %v", rep, err)
	}
	// Asked again, it is in the ledger: no new batch.
	if d, err := Evaluate(ctx, l, found, check(time.Hour)); err != nil || !d.Allow || d.Claims[0].Checked != "" {
		t.Fatalf("asked again: %+v %v", d, err)
	}

	absent := "Acme opened a shop in Paris ([about](" + about + ")): “Acme opened a shop in Paris”."
	d, err = Evaluate(ctx, l, absent, check(time.Hour))
	if err != nil || d.Allow || d.Claims[0].Checked == "" || !strings.Contains(strings.Join(d.Claims[0].Reasons, " "), "it is not_found") {
		t.Fatalf("a quote absent from its page: %+v %v; want blocked as not_found", d, err)
	}

	slow := "Acme opened a shop in Bath ([shop](" + w.url("acme.test", "/slow") + ")): “Acme slowly opened a shop in Bath”."
	// The page never answers while the gate waits, so the gate answering at all shows the
	// check was cut at its timeout.
	d, err = Evaluate(ctx, l, slow, check(300*time.Millisecond))
	if err != nil || d.Allow || !strings.HasPrefix(d.Claims[0].Reasons[0], "still checking: the check of batch b_") ||
		!strings.Contains(strings.Join(d.Claims[0].Next, " "), "ledger check --batch "+d.Claims[0].Checked) {
		t.Fatalf("a slow page: %+v %v; want blocked as still checking", d, err)
	}

	// A claim with no URL is never checked against anything: no batch is made for it.
	d, err = Evaluate(ctx, l, "Acme was sold in 2021.", check(time.Hour))
	if err != nil || d.Allow || d.Claims[0].Checked != "" || !strings.HasPrefix(d.Claims[0].Reasons[0], evidence.NoteNoSource) {
		t.Fatalf("no source: %+v %v", d, err)
	}
	after, _ := w.store.Batches(ctx)
	if len(after) != len(before)+3 {
		t.Fatalf("%d batches after the checks; want %d (found, absent, slow)", len(after), len(before)+3)
	}
}

// TestGateNextSteps: a blocked claim says what to do next, in words an agent can act on.
func TestGateNextSteps(t *testing.T) {
	w := newGateWorld(t)
	l := StoreLedger(w.store)
	for text, want := range map[string]string{
		"The chair of Acme is Ann Lee.":                        "ask a person to resolve seam s_",
		"Acme moved to York in 2010.":                          "do not write it: a cited quote is not on its page",
		"Acme was founded by two engineers.":                   "do not write it: a cited quote is not on its page",
		"Acme has no auditor on file.":                         "cite the page it comes from",
		"Acme was sold in 2021.":                               "cite the page it comes from",
		"Acme employs 40 people.":                              "cite a primary source for it (the gate requires strength medium)",
		"Acme was sold (" + w.url("news.test", "/sale") + ").": "add an exact quote of at least 12 characters",
		"Acme was sold (" + w.url("news.test", "/sale") + "): “Acme was sold to Beta in 2021”.":                          "run `ledger gate --check`",
		"Acme was founded in 2005 ([about](" + w.url("acme.test", "/about") + ")): “Acme was founded in 1999 in Leeds”.": "write the claim in the words of its verified quote",
	} {
		d, err := Evaluate(context.Background(), l, text, Options{Min: evidence.StrengthMedium})
		if err != nil || d.Allow || len(d.Claims) != 1 || !strings.Contains(strings.Join(d.Claims[0].Next, " | "), want) {
			t.Errorf("%q: %+v %v; want a next step with %q", text, d.Claims, err, want)
		}
	}
}
