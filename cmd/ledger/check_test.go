package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
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
		`(?m)^ct_[0-9a-f]{16} +unreachable +the page cannot be read: .*404`,
		`(?m)^ct_[0-9a-f]{16} +reported +not checked: no source of record`,
		`(?m)^batch ` + batch + `: 4 citations in [0-9.]+s: 1 found_at_source, 1 not_found, 1 unreachable, 1 reported \(0 seams opened for a person, 1 not checkable\)$`,
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
