package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evidenceledger/ledger"
)

// checkedBatch makes a ledger in a temporary directory with one batch checked at a loopback
// site: one claim found, one not found, one whose page does not exist (a 404: not found),
// one without a source. It returns the data directory, the batch id and the site's URL.
func checkedBatch(t *testing.T) (data, batch, site string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/report" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("X-Served-By", "registry-1") // a field the WARC export must carry as received
		fmt.Fprint(w, "<p>In 2025 the registry counted 4,812 companies, up from 4,500 the year before.</p>")
	}))
	t.Cleanup(srv.Close)
	data = t.TempDir()
	paste := filepath.Join(t.TempDir(), "research.md")
	text := fmt.Sprintf(`Claim: The registry counted 4,812 companies.
Source: %[1]s/report
Quote: the registry counted 4,812 companies

Claim: The registry counted 9,999 companies.
Source: %[1]s/report
Quote: the registry counted 9,999 companies

Claim: The registry published a survey.
Source: %[1]s/survey
Quote: the survey covered every company

Claim: Growth will continue.
Quote: we expect growth to continue
`, srv.URL)
	if err := os.WriteFile(paste, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	r := ledgerCmd(t, data, "import", paste)
	if r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	batch = strings.SplitN(r.stdout, "\n", 2)[0]
	if r = ledgerCmd(t, data, "check", "--batch", batch, "--fetch-allow", "127.0.0.0/8", "--fetch-delay", "0"); r.code != 0 {
		t.Fatalf("check: %+v", r)
	}
	return data, batch, srv.URL
}

func TestReport(t *testing.T) {
	data, batch, site := checkedBatch(t)
	r := ledgerCmd(t, data, "report", "--batch", batch)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("report: %+v", r)
	}
	for _, want := range []string{
		"# Hand-off report: batch " + batch,
		"**1 may be used; 3 may not.**",
		"### 1. The registry counted 4,812 companies.",
		"- Found at `" + site + "/report`",
		"  - The page's own words: “In 2025 the registry counted 4,812 companies",
		"2 not found at its source; 1 not checked at its source.",
		"no URL, quote “we expect growth to continue”, reported: no source of record",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the Markdown report lacks %q:\n%s", want, r.stdout)
		}
	}
	a := ledgerCmd(t, data, "audit", "--json")
	var rep ledger.Report
	if err := json.Unmarshal([]byte(a.stdout), &rep); err != nil || !rep.OK {
		t.Fatalf("audit: %+v %v", a, err)
	}
	if !strings.Contains(r.stdout, fmt.Sprintf("Chain head: event %d of ", rep.Events)) || !strings.Contains(r.stdout, "hash `"+rep.Head+"`") {
		t.Errorf("the report does not end with the head the audit reports (%d %s):\n%s", rep.Events, rep.Head, r.stdout)
	}

	out := filepath.Join(t.TempDir(), "report.json")
	if r := ledgerCmd(t, data, "report", "--batch", batch, "--format", "json", "--out", out); r.code != 0 || r.stdout != "" {
		t.Fatalf("report --out: %+v", r)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var h ledger.HandOff
	if err := json.Unmarshal(b, &h); err != nil || len(h.Usable) != 1 || len(h.Withheld) != 3 || h.At.Hash != rep.Head {
		t.Fatalf("JSON report: %v %s", err, b)
	}
	if r := ledgerCmd(t, data, "report", "--batch", batch, "--format", "html"); r.code != 0 || !strings.HasPrefix(r.stdout, "<!doctype html>") || !strings.Contains(r.stdout, "<style>") {
		t.Fatalf("HTML report: %+v", r)
	}

	for _, tt := range []struct {
		desc string
		args []string
		code int
		want string
	}{
		{"no batch", []string{"report"}, 2, "want: ledger report --batch ID [--format md|html|json]"},
		{"unknown format", []string{"report", "--batch", batch, "--format", "pdf"}, 2, `format "pdf"`},
		{"unknown batch", []string{"report", "--batch", "b_0000000000000000"}, 1, "does not exist"},
	} {
		t.Run(tt.desc, func(t *testing.T) {
			r := ledgerCmd(t, data, tt.args...)
			if r.code != tt.code || r.stdout != "" || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("%+v; want code %d and %q", r, tt.code, tt.want)
			}
		})
	}
	if r := ledgerCmd(t, t.TempDir(), "report", "--batch", batch); r.code != 1 || !strings.Contains(r.stderr, "no ledger in") {
		t.Fatalf("report without a ledger: %+v", r)
	}
}
