package verify_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
	"evidenceledger/ledger"
	"evidenceledger/match"
	"evidenceledger/verify"
)

// corpusSite serves corpus pages at /<name> on every *.test host and logs every request by
// host and path.
type corpusSite struct {
	*httptest.Server
	mu  sync.Mutex
	log map[string]int // "host path" -> requests
}

func newCorpusSite(t testing.TB, pages ...string) *corpusSite {
	t.Helper()
	bodies := map[string][]byte{}
	for _, p := range pages {
		bodies["/"+p] = verify.ReadCorpusPage(t, p)
	}
	s := &corpusSite{log: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.log[strings.Split(r.Host, ":")[0]+" "+r.URL.Path]++
		s.mu.Unlock()
		body, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *corpusSite) url(host, page string) string {
	u, _ := url.Parse(s.URL)
	return "http://" + host + ":" + u.Port() + "/" + page
}

// requests returns the requests logged for host and path, and resets the log.
func (s *corpusSite) take() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.log
	s.log = map[string]int{}
	return out
}

// pageQuotes returns found quotes of a corpus page (sentences both extractors hold, so both
// verifiers agree) and absent ones (the same sentences with a word changed, on neither).
func pageQuotes(t testing.TB, page string, found, absent int) (in, out []string) {
	t.Helper()
	body := verify.ReadCorpusPage(t, page)
	var texts []*match.PageText
	for _, x := range []verify.Extractor{fetch.ExtractDOM, fetch.ExtractTokens} {
		text, err := x(body, "text/html")
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, match.NewPageText(text.Body))
	}
	onBoth := func(q string, want bool) bool {
		for _, pt := range texts {
			m, err := pt.Match(q)
			if err != nil || m.Found != want {
				return false
			}
		}
		return true
	}
	for s := range strings.SplitSeq(texts[0].Text(), ". ") {
		words := strings.Fields(s)
		if len(words) < 10 || len(words) > 40 {
			continue
		}
		q := strings.Join(words[1:9], " ")
		if len(in) < found && onBoth(q, true) && !contains(in, q) {
			in = append(in, q)
			continue
		}
		words[4] = "zebras"
		if q := strings.Join(words[1:9], " "); len(out) < absent && onBoth(q, false) {
			out = append(out, q)
		}
	}
	if len(in) < found || len(out) < absent {
		t.Fatalf("%s: %d found and %d absent quotes, want %d and %d", page, len(in), len(out), found, absent)
	}
	return in, out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestOneCapturePerPagePerVerifierPerRun: a batch cites each of two real pages 25 times (15
// quotes on the page, 10 not), plus a page that does not exist and a host that does not.
// Checked once, then checked again (every citation), on one long-lived job runner, as
// ledger serve has it, and then once more as a new batch: every citation gets the right
// status every time, and the server log shows, for each run, one request per page per
// verifier (two) and nothing else but robots.txt, which is cached per origin.
func TestOneCapturePerPagePerVerifierPerRun(t *testing.T) {
	pages := []string{"bbc-1.html", "lwn-1.html"}
	site := newCorpusSite(t, pages...)
	type cite struct {
		url, quote string
		want       evidence.Status
	}
	var cites []cite
	for i, p := range pages {
		in, out := pageQuotes(t, p, 15, 10)
		u := site.url(fmt.Sprintf("h%d.test", i), p)
		for j := range 25 {
			if j%5 < 3 {
				cites = append(cites, cite{u, in[j/5*3+j%5], evidence.StatusFound})
			} else {
				cites = append(cites, cite{u, out[j/5*2+j%5-3], evidence.StatusNotFound})
			}
		}
	}
	cites = append(cites,
		cite{site.url("h0.test", "made-up-2025.html"), "the minister said the reform would start", evidence.StatusNotFound},
		cite{site.url("h0.test", "made-up-2025.html"), "critics were unconvinced by the reform", evidence.StatusNotFound},
		cite{site.url("fabricated-news.example", "story.html"), "the minister said the reform would start", evidence.StatusNotFound},
	)
	claims := make([]evidence.Claim, len(cites))
	for i, c := range cites {
		claims[i] = claimOf(claimLabel(i)+".", c.url, c.quote)
	}
	store, _ := openStore(t)
	jobs := verify.NewJobs(store, verify.NewChecker(verify.LoopbackFetchConfig()), 4)
	defer jobs.Close()

	check := func(name string, batch ledger.Batch, recheck bool) {
		t.Helper()
		id, err := jobs.Start(batch.ID, "user:olga", recheck)
		if err != nil {
			t.Fatal(err)
		}
		st := waitJob(t, jobs, id)
		if st.State != verify.JobDone || st.Done != len(cites) {
			t.Fatalf("%s: job %+v, want done %d of %d", name, st, len(cites), len(cites))
		}
		views, err := store.Claims(context.Background(), ledger.ClaimFilter{Batch: batch.ID})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range views {
			c := v.Citations[0]
			if c.Status != cites[i].want {
				t.Errorf("%s: citation %d %s %q: %s (%s), want %s", name, i, c.URL, c.Quote, c.Status, c.Note, cites[i].want)
			}
			if cites[i].want == evidence.StatusNotFound && strings.Contains(c.URL, "made-up") && !strings.HasPrefix(c.Note, evidence.NoteAbsent) {
				t.Errorf("%s: citation %d: note %q, want it to say %q", name, i, c.Note, evidence.NoteAbsent)
			}
		}
		log := site.take()
		for i, p := range pages {
			if got := log[fmt.Sprintf("h%d.test /%s", i, p)]; got != 2 {
				t.Errorf("%s: %d requests for %s cited 25 times, want 2 (one per verifier)", name, got, p)
			}
		}
		if got := log["h0.test /made-up-2025.html"]; got != 2 {
			t.Errorf("%s: %d requests for the page that does not exist, cited twice, want 2", name, got)
		}
		for k, n := range log {
			// Besides the pages and robots.txt, only the style sheets the pages link
			// (lwn-1.html's), each requested once per verifier too.
			if !strings.HasSuffix(k, " /robots.txt") && !strings.Contains(k, ".html") && n != 2 {
				t.Errorf("%s: unexpected request %s (%d)", name, k, n)
			}
		}
		t.Logf("%s: server log %v", name, log)
	}
	first := importClaims(t, store, claims...)
	check("first run", first, false)
	check("check every citation again", first, true)
	check("a new batch of the same research", importClaims(t, store, claims...), false)
	auditHolds(t, store)
}

// TestSecondCheckRetriesUnreachable: a citation left unreachable (the server answered 503)
// is checked again by the next check without --recheck, and a found one is not.
func TestSecondCheckRetriesUnreachable(t *testing.T) {
	body := verify.ReadCorpusPage(t, "bbc-1.html")
	var mu sync.Mutex
	requests := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests[r.URL.Path]++
		n := requests[r.URL.Path]
		mu.Unlock()
		switch {
		case r.URL.Path == "/robots.txt":
			http.NotFound(w, r)
		case r.URL.Path == "/flaky" && n <= 2:
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(body)
		}
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	quote := "unable to secure any significant changes to the laws"
	store, _ := openStore(t)
	b := importClaims(t, store,
		claimOf("Flaky.", "http://a.test:"+u.Port()+"/flaky", quote),
		claimOf("Steady.", "http://a.test:"+u.Port()+"/steady", quote))
	checker := verify.NewChecker(verify.LoopbackFetchConfig())
	ctx := context.Background()
	statuses := func() []evidence.Status {
		views, err := store.Claims(ctx, ledger.ClaimFilter{Batch: b.ID})
		if err != nil {
			t.Fatal(err)
		}
		return []evidence.Status{views[0].Citations[0].Status, views[1].Citations[0].Status}
	}
	if _, err := verify.RunBatch(ctx, store, checker, "system", b.ID, false, 2, nil); err != nil {
		t.Fatal(err)
	}
	if got := statuses(); got[0] != evidence.StatusUnreachable || got[1] != evidence.StatusFound {
		t.Fatalf("first check: %v, want [unreachable found_at_source]", got)
	}
	outs, err := verify.RunBatch(ctx, store, checker, "system", b.ID, false, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 1 || outs[0].Target.URL != "http://a.test:"+u.Port()+"/flaky" {
		t.Fatalf("second check took %d citations, want only the unreachable one", len(outs))
	}
	if got := statuses(); got[0] != evidence.StatusFound || got[1] != evidence.StatusFound {
		t.Fatalf("second check: %v, want both found_at_source", got)
	}
}

// TestRealResearchPaste: research as an assistant writes it (chatter, prose with footnote
// markers after quotations that end with a full stop, a fabricated figure beside real ones,
// a made-up source), parsed, imported and checked against the real corpus pages: every
// citation gets the right status and no fabricated quote rides on its neighbour's citation.
func TestRealResearchPaste(t *testing.T) {
	site := newCorpusSite(t, "bbc-1.html", "lwn-1.html")
	paste := `Hello! Here's a concise briefing on the two stories, with sources.

President Obama has been "unable to secure any significant changes to the laws."[1] He called it the greatest frustration of his presidency.[1] LibreOffice developers of unknown affiliation "contributed 23% of the changes"[2]. They "make up 82% of the developer base"[2]. Volunteers "make up 91% of the developer base"[2]. A later survey "was published in a journal of open source economics"[3].

Would you like me to expand any of these points?

[1]: ` + site.url("bbc.test", "bbc-1.html") + `
[2]: ` + site.url("lwn.test", "lwn-1.html") + `
[3]: ` + site.url("bbc.test", "made-up-survey.html") + "\n"
	research, err := evidence.ParseResearch(paste)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		quote  string
		status evidence.Status
	}{
		{"unable to secure any significant changes to the laws.", evidence.StatusFound},
		{"", evidence.StatusReported}, // cited, but no quote to look for
		{"contributed 23% of the changes", evidence.StatusFound},
		{"make up 82% of the developer base", evidence.StatusFound},
		{"make up 91% of the developer base", evidence.StatusNotFound},
		{"was published in a journal of open source economics", evidence.StatusNotFound},
	}
	if len(research.Claims) != len(want) {
		for _, c := range research.Claims {
			t.Logf("claim %q %+v", c.Text, c.Citations)
		}
		t.Fatalf("%d claims, want %d (chatter is no claim; each sentence is one)", len(research.Claims), len(want))
	}
	store, _ := openStore(t)
	b, err := store.ImportResearch(context.Background(), "user:olga", []byte(paste), research)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verify.RunBatch(context.Background(), store, verify.NewChecker(verify.LoopbackFetchConfig()), "system", b.ID, false, 2, nil); err != nil {
		t.Fatal(err)
	}
	views, err := store.Claims(context.Background(), ledger.ClaimFilter{Batch: b.ID})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range views {
		c := v.Citations[0]
		if len(v.Citations) != 1 || c.Quote != want[i].quote || c.Status != want[i].status {
			t.Errorf("claim %d %q: %d citations, first %q %s (%s); want %q %s", i, v.Text, len(v.Citations), c.Quote, c.Status, c.Note, want[i].quote, want[i].status)
		}
	}
	if n := site.take()["bbc.test /made-up-survey.html"]; n != 2 {
		t.Errorf("%d requests for the made-up page, want 2", n)
	}
}
