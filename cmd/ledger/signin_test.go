package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"evidenceledger/ledger"
)

// ledgerStdin runs a command line with stdin.
func ledgerStdin(t *testing.T, data, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, getenv: func(k string) string {
		if k == "LEDGER_DATA" {
			return data
		}
		return ""
	}}
	return result{run(context.Background(), args, e), out.String(), errOut.String()}
}

func TestUserAddPasswordStdin(t *testing.T) {
	data := t.TempDir()
	tokenOnly := regexp.MustCompile(`^evl_[A-Za-z0-9_-]{43}\n$`)
	tests := []struct {
		desc, name, stdin string
		code              int
		stderr            string
		signIn            string // a password that must then sign in
	}{
		{"password with a newline", "olga", "olga's long password\n", 0, "", "olga's long password"},
		{"password with CRLF and no more lines read", "pia", "pia's long password\r\nignored\n", 0, "", "pia's long password"},
		{"password without a line end", "ines", "ines's long password", 0, "", "ines's long password"},
		{"empty stdin", "karl", "", 2, "stdin held no password", ""},
		{"too short", "karl", "short\n", 1, "use at least 10", ""},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			r := ledgerStdin(t, data, tt.stdin, "user", "add", tt.name, "--role", "operator", "--password-stdin")
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) {
				t.Fatalf("%+v; want code %d and %q on stderr", r, tt.code, tt.stderr)
			}
			if tt.code != 0 {
				if r.stdout != "" {
					t.Fatalf("a refused user add printed %q", r.stdout)
				}
				return
			}
			if !tokenOnly.MatchString(r.stdout) || strings.Contains(r.stdout+r.stderr, tt.signIn) {
				t.Fatalf("stdout %q stderr %q: want the token alone and the password nowhere", r.stdout, r.stderr)
			}
			s, err := ledger.Open(context.Background(), data, ledger.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.SignIn(context.Background(), tt.name, tt.signIn); err != nil {
				t.Fatalf("sign in with the password from stdin: %v", err)
			}
		})
	}
	// Without the flag the user has only a token, and stdin is not read.
	r := ledgerStdin(t, data, "not read at all\n", "user", "add", "arno", "--role", "auditor")
	if r.code != 0 || !tokenOnly.MatchString(r.stdout) {
		t.Fatalf("user add without --password-stdin: %+v", r)
	}
}

func TestServePrintsFirstRunLink(t *testing.T) {
	data := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	e := &env{stdout: &bytes.Buffer{}, stderr: &stderr, getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"serve", "--data", data, "--addr", "127.0.0.1:0"}, e) }()
	re := regexp.MustCompile(`(http://127\.0\.0\.1:\d+)/setup\?token=([A-Za-z0-9_-]{43})\n`)
	m := stderr.waitFor(t, re, done)
	base, token := m[1], m[2]
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) int {
		resp, err := client.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := get("/setup?token=" + token); c != 200 {
		t.Fatalf("GET the first-run link: %d", c)
	}
	if c := get("/setup?token=" + wrongToken(token)); c != 403 {
		t.Fatalf("GET a wrong first-run token: %d", c)
	}
	form := url.Values{"token": {token}, "name": {"olga"}, "password": {"olga's long password"}, "password2": {"olga's long password"}}
	resp, err := client.PostForm(base+"/setup", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("POST the first-run form: %d", resp.StatusCode)
	}
	if c := get("/setup?token=" + token); c != 403 {
		t.Fatalf("the first-run link after use: %d", c)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve: %d %s", code, stderr.String())
	}
	// A ledger with a user prints no link.
	var again syncBuffer
	ctx2, cancel2 := context.WithCancel(context.Background())
	done2 := make(chan int, 1)
	go func() {
		done2 <- run(ctx2, []string{"serve", "--data", data, "--addr", "127.0.0.1:0"}, &env{stdout: &bytes.Buffer{}, stderr: &again, getenv: func(string) string { return "" }})
	}()
	again.waitFor(t, regexp.MustCompile("serving on"), done2)
	cancel2()
	<-done2
	if !strings.Contains(again.String(), "serving on") || strings.Contains(again.String(), "setup?token") {
		t.Fatalf("second start: %s", again.String())
	}
}

// wrongToken returns token with its first character changed, so it never equals token.
func wrongToken(token string) string {
	if strings.HasPrefix(token, "x") {
		return "y" + token[1:]
	}
	return "x" + token[1:]
}
