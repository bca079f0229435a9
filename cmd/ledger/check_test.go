package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestCheck(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/report" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<p>In 2025 the registry counted 4,812 companies, up from 4,500 the year before.</p>")
	}))
	defer site.Close()
	data := t.TempDir()
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
`, site.URL)
	if err := os.WriteFile(paste, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	r := ledgerCmd(t, data, "import", paste)
	if r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	batch := strings.SplitN(r.stdout, "\n", 2)[0]
	flags := []string{"--fetch-allow", "127.0.0.0/8", "--fetch-delay", "0"}

	r = ledgerCmd(t, data, append([]string{"check", "--batch", batch}, flags...)...)
	if r.code != 0 {
		t.Fatalf("check: %+v", r)
	}
	rows := []string{
		`(?m)^CITATION +STATUS +NOTE$`,
		`(?m)^ct_[0-9a-f]{16} +found_at_source +found on the page: “In 2025 the registry counted 4,812 companies`,
		`(?m)^ct_[0-9a-f]{16} +not_found +the quote is not on the page`,
		`(?m)^ct_[0-9a-f]{16} +not_found +the cited page does not exist: .*404`,
		`(?m)^ct_[0-9a-f]{16} +reported +not checked: no source of record`,
		`(?m)^batch ` + batch + `: 4 citations in [0-9.]+s: 1 found_at_source, 2 not_found, 0 unreachable, 1 reported \(0 seams opened for a person, 1 not checkable\)$`,
	}
	for _, re := range rows {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("output lacks %s:\n%s", re, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "checked 4 of 4") {
		t.Errorf("progress on stderr: %q", r.stderr)
	}

	// Only the citation that cannot be checked is left; --recheck takes them all again.
	r = ledgerCmd(t, data, append([]string{"check", "--batch", batch}, flags...)...)
	if r.code != 0 || !strings.Contains(r.stdout, ": 1 citations in") || !strings.Contains(r.stdout, "1 not checkable") {
		t.Errorf("second check: %+v", r)
	}
	r = ledgerCmd(t, data, append([]string{"check", "--recheck", "--batch", batch}, flags...)...)
	if r.code != 0 || !strings.Contains(r.stdout, ": 4 citations in") {
		t.Errorf("recheck: %+v", r)
	}
	if r := ledgerCmd(t, data, "audit"); r.code != 0 || !strings.Contains(r.stdout, "The chain holds: 8 events") {
		t.Errorf("audit after the checks (key, import, 3 + 3 checks): %+v", r)
	}

	tests := []struct {
		desc string
		args []string
		code int
		want string
	}{
		{"no batch", []string{"check"}, 2, "want: ledger check --batch ID"},
		{"stray argument", []string{"check", "--batch", batch, "extra"}, 2, "want: ledger check --batch ID"},
		{"unknown batch", []string{"check", "--batch", "b_0000000000000000"}, 1, "does not exist"},
		{"bad allow-list", []string{"check", "--batch", batch, "--fetch-allow", "intranet"}, 2, `"intranet" is neither a CIDR range`},
		{"negative delay", []string{"check", "--batch", batch, "--fetch-delay", "-1s"}, 2, "want 0 or more"},
		{"no workers", []string{"check", "--batch", batch, "--workers", "0"}, 2, "want 1 to 64"},
		{"no PDF cap", []string{"check", "--batch", batch, "--max-pdf-mib", "0"}, 2, "--max-pdf-mib 0: want 1 to 1024"},
		{"a PDF cap past 1 GiB", []string{"check", "--batch", batch, "--max-pdf-mib", "1025"}, 2, "--max-pdf-mib 1025: want 1 to 1024"},
		{"a User-Agent that injects a header", []string{"check", "--batch", batch, "--user-agent", "ua\r\nX-Injected: 1"}, 2, "--user-agent \"ua\\r\\nX-Injected: 1\": want a non-empty header value"},
		{"an empty User-Agent", []string{"check", "--batch", batch, "--user-agent", " "}, 2, "want a non-empty header value"},
		{"a URL as a login-walled host", []string{"check", "--batch", batch, "--login-walled", "example.org,https://members.example.org/"}, 2, `--login-walled: login-walled hosts: "https://members.example.org/" is not a host name`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			r := ledgerCmd(t, data, tt.args...)
			if r.code != tt.code || r.stdout != "" || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("%+v; want code %d and %q on stderr", r, tt.code, tt.want)
			}
		})
	}
}

// TestCheckFetchFlags shows that --user-agent and --login-walled reach the fetchers: the
// site records the host and User-Agent of every request; the host added as login-walled is
// never requested but opens a manual seam for a person, and is fetched once the flag is
// left out.
func TestCheckFetchFlags(t *testing.T) {
	port, requests := recordingSite(t)
	data := t.TempDir()
	paste := filepath.Join(t.TempDir(), "research.md")
	text := fmt.Sprintf(`Claim: The registry counted 4,812 companies.
Source: http://127.0.0.1:%[1]s/report
Quote: the registry counted 4,812 companies

Claim: The members' area says the same.
Source: http://localhost:%[1]s/members
Quote: the registry counted 4,812 companies
`, port)
	if err := os.WriteFile(paste, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	r := ledgerCmd(t, data, "import", paste)
	if r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	batch := strings.SplitN(r.stdout, "\n", 2)[0]
	const agent = "registry-checks/2.0 (+https://checks.example.org/contact)"
	flags := []string{"--fetch-allow", "127.0.0.0/8,::1/128", "--fetch-delay", "0", "--user-agent", agent}

	r = ledgerCmd(t, data, append([]string{"check", "--batch", batch, "--login-walled", "localhost"}, flags...)...)
	if r.code != 0 {
		t.Fatalf("check: %+v", r)
	}
	for _, re := range []string{
		`(?m)^ct_[0-9a-f]{16} +found_at_source +found on the page`,
		`(?m)^ct_[0-9a-f]{16} +reported +login-walled host, never fetched: a person must open it \(seam s_[0-9a-f]{16}\)$`,
		`(?m)^batch ` + batch + `: 2 citations in [0-9.]+s: 1 found_at_source, 0 not_found, 0 unreachable, 1 reported \(1 seams opened for a person, 0 not checkable\)$`,
	} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("output lacks %s:\n%s", re, r.stdout)
		}
	}
	// Two verifiers fetch independently, each with its own robots.txt cache.
	want := []string{
		"127.0.0.1 /report " + agent, "127.0.0.1 /report " + agent,
		"127.0.0.1 /robots.txt " + agent, "127.0.0.1 /robots.txt " + agent,
	}
	if got := requests(); !slices.Equal(got, want) {
		t.Errorf("the site got\n%q\nwant\n%q", got, want)
	}

	// Without the flag, the same host is fetched like any other.
	r = ledgerCmd(t, data, append([]string{"check", "--batch", batch, "--recheck"}, flags...)...)
	if r.code != 0 || !strings.Contains(r.stdout, ": 2 citations in") || !strings.Contains(r.stdout, "2 found_at_source") {
		t.Fatalf("check without --login-walled: %+v", r)
	}
	if got := requests(); !slices.Contains(got, "localhost /members "+agent) {
		t.Errorf("without --login-walled the site got %q; want localhost /members among them", got)
	}
}

// recordingSite serves a page quoting the registry on 127.0.0.1 (no robots.txt) and records
// "host-name path user-agent" of every request. It returns the site's port and a function
// that returns the requests recorded since its last call, sorted.
func recordingSite(t *testing.T) (port string, requests func() []string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, strings.Split(r.Host, ":")[0]+" "+r.URL.Path+" "+r.UserAgent())
		mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<p>In 2025 the registry counted 4,812 companies, up from 4,500 the year before.</p>")
	}))
	t.Cleanup(site.Close)
	return site.URL[strings.LastIndexByte(site.URL, ':')+1:], func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := slices.Clone(got)
		got = nil
		slices.Sort(out)
		return out
	}
}
