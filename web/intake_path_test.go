package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestOneIntakePath: the preview, the commit and the API accept and refuse the same texts,
// so nothing the preview showed is refused at commit.
func TestOneIntakePath(t *testing.T) {
	f := newPageFixture(t, "")
	b := f.browser(t)
	b.signIn("olga", opPassword)
	token, err := f.store.AddUser(t.Context(), "system", "paula", "operator")
	if err != nil {
		t.Fatal(err)
	}
	good := "- Acme was founded in 1990. https://acme.example/about \"Acme was founded in 1990 by two engineers.\"\n"
	tests := []struct {
		desc, text string
		ok         bool
	}{
		{"a paste", good, true},
		{"a NUL byte", good + "\x00", false},
		{"a control character", strings.Replace(good, "Acme was founded in 1990.", "Acme was\x1b founded in 1990.", 1), false},
		{"a C1 control character", good + "\u009b", false},
		{"nothing usable", "hello", false},
		{"white space", "   ", false},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			p := b.post("/paste/preview", url.Values{"text": {tt.text}})
			if (p.status == http.StatusOK) != tt.ok {
				t.Fatalf("preview: %d %s", p.status, p.body)
			}
			c := b.post("/paste", url.Values{"text": {tt.text}, "sha256": {textHash(tt.text)}})
			if (c.status == http.StatusSeeOther) != tt.ok || (!tt.ok && c.status != p.status) {
				t.Fatalf("commit: %d, preview %d; want both to accept or both to refuse alike", c.status, p.status)
			}
			req, _ := http.NewRequest("POST", f.srv.URL+"/api/research", strings.NewReader(tt.text))
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "text/plain")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if (resp.StatusCode == http.StatusCreated) != tt.ok {
				t.Fatalf("API: %d; preview %d", resp.StatusCode, p.status)
			}
		})
	}
}
