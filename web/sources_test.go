package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"evidenceledger/verify"
)

// TestSourcesApartWhenTheHostDoesNotExist: a source whose every citation was checked and
// whose host name does not exist is listed apart on /sources, with nothing to classify, and
// counted as such in what GET /api/sources sends (no_host); a source there is stays in the table, and so does a
// source not checked yet.
func TestSourcesApartWhenTheHostDoesNotExist(t *testing.T) {
	f, jobs, site := checkPages(t)
	b := f.browser(t)
	b.signIn("olga", opPassword)
	paste := strings.NewReplacer("{{port}}", site.port).Replace(`Claim 1: The Bardo museum attack was condemned.
Source: http://news.test:{{port}}/wapo-1
Quote: "condemned the attack and said"

Claim 2: The ministry published the figures.
Source: http://www.ministry-of-figures.invalid/report
Quote: "the ministry published the figures for the year"

Claim 3: The agency confirmed the count.
Source: https://stats.agency-that-is-not.invalid/count
Quote: "the agency confirmed the count on Monday"
`)
	id := commitPaste(t, b, paste)
	before := b.get("/sources")
	if !strings.Contains(before.body, `<tr id="ministry-of-figures.invalid">`) || strings.Contains(before.body, "Hosts that do not exist") {
		t.Fatalf("before any check, every source is in the table: %s", before.body)
	}
	p := b.post("/batches/"+id+"/check", url.Values{})
	m := regexp.MustCompile(`\?job=(\S+)$`).FindStringSubmatch(p.header.Get("Location"))
	if p.status != http.StatusSeeOther || m == nil {
		t.Fatalf("start the check: %d %s", p.status, p.body)
	}
	if st := waitJob(t, jobs, m[1]); st.State != verify.JobDone {
		t.Fatalf("job: %+v", st)
	}
	p = b.get("/sources")
	table, absent, ok := strings.Cut(p.body, `<h2 id="absent">Hosts that do not exist</h2>`)
	if !ok {
		t.Fatalf("no list of hosts that do not exist: %s", p.body)
	}
	for _, gone := range []string{"ministry-of-figures.invalid", "agency-that-is-not.invalid"} {
		if strings.Contains(table, "<code>"+gone+"</code>") || strings.Contains(table, "/sources/"+gone+"/classify") {
			t.Errorf("%s is offered as a source to classify", gone)
		}
		if !strings.Contains(absent, `<tr id="`+gone+`"><td><code>`+gone+`</code></td><td>1</td></tr>`) {
			t.Errorf("%s is not listed apart: %s", gone, absent)
		}
	}
	if !strings.Contains(table, `<tr id="news.test">`) || !strings.Contains(table, "/sources/news.test/classify") || strings.Contains(absent, "news.test") {
		t.Errorf("the source there is is not in the table: %s", p.body)
	}
	vs, err := f.store.Sources(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	api, err := json.Marshal(vs) // what GET /api/sources sends
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"id":"ministry-of-figures.invalid"`, `"no_host":1`, `"id":"news.test"`, `"no_host":0`} {
		if !strings.Contains(string(api), want) {
			t.Errorf("the sources lack %s: %s", want, api)
		}
	}
}
