package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
	"evidenceledger/fetch/fetchtest"
	"evidenceledger/verify"
)

// loopbackFetch is the fetcher's configuration in these tests: fetchtest's, with the default
// login-walled hosts rather than its one.
func loopbackFetch() fetch.Config {
	cfg := fetchtest.Config()
	cfg.LoginWalled = nil
	return cfg
}

// checkFixture is a server over a real ledger with real check jobs, and a loopback site
// whose /hold page answers only once release is closed.
func checkFixture(t *testing.T) (fixture, func(host, path string) string, chan struct{}) {
	t.Helper()
	release := make(chan struct{})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
			return
		case "/hold":
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<p>In 2025 the registry counted 4,812 companies, up from 4,500 the year before.</p>")
	}))
	t.Cleanup(site.Close)
	port := strings.TrimPrefix(site.URL, "http://127.0.0.1:")
	st, op, au := openUsers(t)
	jobs := verify.NewJobs(st, verify.NewChecker(loopbackFetch()), 2)
	t.Cleanup(jobs.Close)
	srv := httptest.NewServer(New(Config{Ledger: st, Jobs: jobs}))
	t.Cleanup(srv.Close)
	return fixture{srv: srv, store: st, operator: op, auditor: au},
		func(host, path string) string {
			return (&url.URL{Scheme: "http", Host: host + ":" + port, Path: path}).String()
		},
		release
}

func TestCheckRoutes(t *testing.T) {
	f, at, release := checkFixture(t)
	ctx := context.Background()
	quote := "the registry counted 4,812 companies"
	var claims []evidence.Claim
	for i, host := range []string{"a.test", "b.test", "c.test"} {
		claims = append(claims, evidence.Claim{Text: fmt.Sprintf("Claim %c.", 'a'+i), Citations: []evidence.Citation{{URL: at(host, "/report"), Quote: quote}}})
	}
	b, err := f.store.ImportResearch(ctx, "user:olga", []byte("paste"), evidence.Research{Claims: claims})
	if err != nil {
		t.Fatal(err)
	}
	refusals := []struct {
		desc, method, path, token, body string
		status                          int
		words                           string
	}{
		{"auditors may not start checks", "POST", "/api/batches/" + b.ID + "/check", f.auditor, "", 403, "only operators"},
		{"no token", "POST", "/api/batches/" + b.ID + "/check", "", "", 401, "Bearer"},
		{"unknown batch", "POST", "/api/batches/b_0000000000000000/check", f.operator, "", 404, "does not exist"},
		{"unknown member in the body", "POST", "/api/batches/" + b.ID + "/check", f.operator, `{"rechek":true}`, 400, "recheck"},
		{"body that is not JSON", "POST", "/api/batches/" + b.ID + "/check", f.operator, `recheck`, 400, "recheck"},
		{"unknown job", "GET", "/api/jobs/j_0000000000000000", f.auditor, "", 404, "does not exist"},
		{"wait that is not a number", "GET", "/api/jobs/j_0000000000000000?wait=soon", f.auditor, "", 400, "wait"},
		{"wait with a unit says to give seconds", "GET", "/api/jobs/j_0000000000000000?wait=30s", f.auditor, "", 400, `wait=\"30s\" is not a whole number; give the seconds to wait, digits only, like wait=30`},
		{"negative wait", "GET", "/api/jobs/j_0000000000000000?wait=-1", f.auditor, "", 400, "wait"},
	}
	n, head := f.head(t)
	for _, tt := range refusals {
		t.Run(tt.desc, func(t *testing.T) {
			status, body := f.send(t, tt.method, tt.path, tt.token, "application/json", []byte(tt.body))
			if status != tt.status || !strings.Contains(string(body), tt.words) {
				t.Fatalf("%d %s; want %d saying %q", status, body, tt.status, tt.words)
			}
		})
	}
	if n2, head2 := f.head(t); n2 != n || head2 != head {
		t.Fatal("a refused request changed the chain")
	}

	status, body := f.send(t, "POST", "/api/batches/"+b.ID+"/check", f.operator, "", nil)
	job := decode[map[string]string](t, body)["job"]
	if status != http.StatusAccepted || !strings.HasPrefix(job, "j_") {
		t.Fatalf("start: %d %s", status, body)
	}
	status, body = f.waitJob(t, job, f.auditor)
	st := decode[verify.JobStatus](t, body)
	if status != 200 || st.Job != job || st.State != verify.JobDone || st.Total != 3 || st.Done != 3 {
		t.Fatalf("job: %d %s", status, body)
	}
	for _, want := range []string{`"job":`, `"state":"done"`, `"total":3`, `"done":3`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("job answer %s lacks %s", body, want)
		}
	}

	// The claim read model carries what the check recorded.
	status, body = f.send(t, "GET", "/api/claims/"+b.Claims[0].ID, f.auditor, "", nil)
	for _, want := range []string{`"status":"found_at_source"`, `"strength":"low"`, `"excerpt":"In 2025 the registry counted 4,812 companies`,
		`"document":{"sha256":"`, `"final_url":"http://a.test:`, `"fetched_at":"20`, `"verdicts":[{"verifier":"dom","verdict":"supported"`,
		`"adjudication":{"agree":true,"escalated":false,"decision":"supported","residual_risk":"`} {
		if status != 200 || !strings.Contains(string(body), want) {
			t.Errorf("claim answer %d lacks %s:\n%s", status, want, body)
		}
	}

	// A recheck takes every citation again; it appends.
	status, body = f.send(t, "POST", "/api/batches/"+b.ID+"/check", f.operator, "application/json", []byte(`{"recheck":true}`))
	again := decode[map[string]string](t, body)["job"]
	if status != 202 || again == job {
		t.Fatalf("recheck: %d %s", status, body)
	}
	_, body = f.waitJob(t, again, f.operator)
	if st := decode[verify.JobStatus](t, body); st.State != verify.JobDone || st.Total != 3 {
		t.Fatalf("recheck job: %s", body)
	}
	if n2, _ := f.head(t); n2 != n+6 {
		t.Errorf("%d events after two checks of 3 citations, want %d", n2, n+6)
	}

	// Long-poll: a job held by a slow page answers at the wait's end, with its progress. The
	// page answers only after the wait has answered, so the answer came from the wait's end;
	// and the wait's timer cannot end early, whatever the machine's speed.
	held, err := f.store.ImportResearch(ctx, "user:olga", []byte("paste 2"), evidence.Research{Claims: []evidence.Claim{
		{Text: "Held.", Citations: []evidence.Citation{{URL: at("d.test", "/hold"), Quote: quote}}}}})
	if err != nil {
		t.Fatal(err)
	}
	_, body = f.send(t, "POST", "/api/batches/"+held.ID+"/check", f.operator, "", nil)
	job = decode[map[string]string](t, body)["job"]
	start := time.Now()
	_, body = f.send(t, "GET", "/api/jobs/"+job+"?wait=1", f.auditor, "", nil)
	if el := time.Since(start); el < time.Second {
		t.Errorf("a wait of 1 s answered after %v", el)
	}
	if st := decode[verify.JobStatus](t, body); st.State != verify.JobRunning && st.State != verify.JobQueued || st.Done != 0 || st.Total != 1 {
		t.Errorf("held job: %s, want running, 0 of 1 done", body)
	}
	close(release)
	_, body = f.waitJob(t, job, f.auditor)
	if st := decode[verify.JobStatus](t, body); st.State != verify.JobDone || st.Done != 1 {
		t.Errorf("released job: %s", body)
	}
	f.head(t)
}

func TestCheckRoutesWithoutJobs(t *testing.T) {
	f := newFixture(t)
	status, body, _ := f.do(t, "POST", "/api/batches/b_0000000000000000/check", "Bearer "+f.operator)
	if status != http.StatusServiceUnavailable || !strings.Contains(string(body), "not set up") {
		t.Fatalf("%d %s, want 503", status, body)
	}
}
