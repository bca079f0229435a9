package web

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"evidenceledger/ledger"
)

func TestHideCredentials(t *testing.T) {
	for _, tt := range []struct{ desc, in, want string }{
		{"no credentials", "https://acme.example/about?q=1#x", "https://acme.example/about?q=1#x"},
		{"user and password", "https://alice:s3cret@acme.example/about", "https://***@acme.example/about"},
		{"user only", "http://alice@acme.example", "http://***@acme.example"},
		{"an @ in the path is not credentials", "https://acme.example/people/@alice", "https://acme.example/people/@alice"},
		{"an @ in the query", "https://acme.example/?mail=a@b.example", "https://acme.example/?mail=a@b.example"},
		{"an @ in the password", "https://alice:p@ss@acme.example/", "https://***@acme.example/"},
		{"a backslash ends the authority", `https://acme.example\@evil.example`, `https://acme.example\@evil.example`},
		{"scheme-relative", "//alice:s3cret@acme.example/", "//***@acme.example/"},
		{"no URL", "not a url", "not a url"},
		{"empty", "", ""},
		{"in running text", "fetching http://alice:s3cret@news.test:80/x failed (bad url)", "fetching http://***@news.test:80/x failed (bad url)"},
		{"two URLs in a note", "see https://a:b@one.example and https://two.example/@x", "see https://***@one.example and https://two.example/@x"},
		{"an @ after a space is not credentials", "https://one.example mail me@two.example", "https://one.example mail me@two.example"},
	} {
		if got := hideCredentials(tt.in); got != tt.want {
			t.Errorf("%s: hideCredentials(%q) = %q; want %q", tt.desc, tt.in, got, tt.want)
		}
	}
}

// FuzzHideCredentials: whatever net/url reads as the user info of the URL shown, it is
// never more than the "***" put in its place, and a text without "@" is unchanged.
func FuzzHideCredentials(f *testing.F) {
	for _, s := range []string{"https://alice:s3cret@acme.example/about", "https://acme.example/@x", "http://a@b@c/d", `https://a\@b`, "//u:p@h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := hideCredentials(raw)
		if u, err := url.Parse(got); err == nil && u.User != nil && u.User.Username() != "***" {
			t.Fatalf("hideCredentials(%q) = %q still carries user info %q", raw, got, u.User.String())
		}
		if !strings.Contains(raw, "@") && got != raw {
			t.Fatalf("hideCredentials(%q) = %q changed a URL without credentials", raw, got)
		}
	})
}

// TestCredentialsNeverShown: a citation URL with credentials is shown without them on every
// page that shows the URL, and its link does not carry them either.
func TestCredentialsNeverShown(t *testing.T) {
	f := newPageFixture(t, "")
	b := f.browser(t)
	b.signIn("olga", opPassword)
	text := "- Acme was founded in 1990. https://alice:s3cret-word@acme.example/about \"Acme was founded in 1990 by two engineers.\"\n"
	p := b.post("/paste/preview", url.Values{"text": {text}})
	// The paste itself comes back in the form, to be committed as it is; what the page
	// shows of the citations must not carry the credentials.
	shown := regexp.MustCompile(`(?s)<textarea.*?</textarea>|<input type="hidden" name="text" value="[^"]*">`).ReplaceAllString(p.body, "")
	if p.status != 200 || strings.Contains(shown, "s3cret-word@") || !strings.Contains(p.body, "https://***@acme.example/about") {
		t.Fatalf("preview: %d, shows the credentials or not the hidden URL:\n%s", p.status, p.body)
	}
	p = b.post("/paste", url.Values{"text": {text}, "sha256": {textHash(text)}})
	if p.status != 303 {
		t.Fatalf("commit: %d %s", p.status, p.body)
	}
	batch := p.header.Get("Location")
	claims, err := f.store.Claims(t.Context(), ledger.ClaimFilter{})
	if err != nil || len(claims) != 1 {
		t.Fatalf("claims: %v %v", claims, err)
	}
	for _, path := range []string{batch, "/claims", "/claims/" + claims[0].ID} {
		p := b.get(path)
		if p.status != 200 || strings.Contains(p.body, "s3cret-word") || !strings.Contains(p.body, "https://***@acme.example/about") {
			t.Fatalf("%s: %d, shows the credentials or not the hidden URL:\n%s", path, p.status, p.body)
		}
	}
}

// TestCredentialsNeverShownAfterACheck: checked, a citation URL with credentials is refused
// by the fetcher, and nothing the check wrote shows the credentials either.
func TestCredentialsNeverShownAfterACheck(t *testing.T) {
	f, jobs, site := checkPages(t)
	b := f.browser(t)
	b.signIn("olga", opPassword)
	text := "Claim 1: The Bardo museum attack was condemned.\nSource: http://alice:s3cret-word@news.test:" + site.port + "/wapo-1\nQuote: \"condemned the attack and said\"\n"
	id := commitPaste(t, b, text)
	job, err := jobs.Start(id, "user:olga", false)
	if err != nil {
		t.Fatal(err)
	}
	if st := waitJob(t, jobs, job); st.State != "done" {
		t.Fatalf("job: %+v", st)
	}
	cs, err := f.store.Claims(t.Context(), ledger.ClaimFilter{Batch: id})
	if err != nil || len(cs) != 1 {
		t.Fatal(cs, err)
	}
	if ct := cs[0].Citations[0]; ct.Status == "found_at_source" || !strings.Contains(ct.Note, "credentials") {
		t.Fatalf("the citation with credentials was %s: %q", ct.Status, ct.Note)
	}
	for _, path := range []string{"/batches/" + id, "/claims/" + cs[0].ID, "/claims", "/seams"} {
		if p := b.get(path); p.status != 200 || strings.Contains(p.body, "s3cret-word") {
			i := strings.Index(p.body, "s3cret-word")
			t.Fatalf("%s: %d, shows the credentials: %s", path, p.status, p.body[max(0, i-300):min(len(p.body), i+50)])
		}
	}
}
