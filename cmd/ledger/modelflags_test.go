package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestCheckWithModelTier runs ledger check, then ledger gate --check, with the model tier on
// against a loopback chat-completions server: the key goes from the environment to the
// server and nowhere else, and each citation's line says the support judgement.
func TestCheckWithModelTier(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/report" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<p>In 2025 the registry counted 4,812 companies, up from 4,500 the year before.</p>")
	}))
	defer site.Close()
	var mu sync.Mutex
	var auth []string
	chat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		content, _ := json.Marshal(map[string]any{"verdict": "supported", "accuracy_estimate": 90, "reasoning": "The page gives the count.",
			"evidence": []string{"In 2025 the registry counted 4,812 companies, up from 4,500 the year before."}})
		reply, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": string(content)}}},
			"usage": map[string]int{"prompt_tokens": 300, "completion_tokens": 40}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(reply)
	}))
	defer chat.Close()

	data := t.TempDir()
	paste := filepath.Join(t.TempDir(), "research.md")
	os.WriteFile(paste, []byte("Claim: The registry counted 4,812 companies in 2025.\nSource: "+site.URL+"/report\nQuote: the registry counted 4,812 companies\n"), 0o600)
	r := ledgerCmd(t, data, "import", paste)
	if r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	batch := strings.SplitN(r.stdout, "\n", 2)[0]
	vars := map[string]string{"LEDGER_DATA": data, envVerifierKey: "k-secret-verifier"}
	fetchFlags := []string{"--fetch-allow", "127.0.0.0/8", "--fetch-delay", "0"}

	for _, tt := range []struct {
		desc string
		args []string
		want string
	}{
		{"a model without an endpoint", []string{"--verifier-model", "m"}, "need --verifier-endpoint"},
		{"an endpoint without a model", []string{"--verifier-endpoint", chat.URL + "/v1"}, "no model name"},
		{"an adjudicator endpoint without its model", []string{"--verifier-endpoint", chat.URL + "/v1", "--verifier-model", "m", "--adjudicator-endpoint", chat.URL + "/v1"}, "needs --adjudicator-model"},
		{"an endpoint that is not http", []string{"--verifier-endpoint", "file:///tmp/x", "--verifier-model", "m"}, "want an http(s) URL"},
		{"a key in the URL", []string{"--verifier-endpoint", "http://u:pw@127.0.0.1/v1", "--verifier-model", "m"}, "environment, not in the URL"},
	} {
		t.Run(tt.desc, func(t *testing.T) {
			r := ledgerEnvCmd(t, vars, append(append([]string{"check", "--batch", batch}, fetchFlags...), tt.args...)...)
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) || strings.Contains(r.stderr, "pw@") {
				t.Errorf("code %d, stderr %q: want 2 and %q", r.code, r.stderr, tt.want)
			}
		})
	}
	mu.Lock()
	n := len(auth)
	mu.Unlock()
	if n != 0 {
		t.Fatalf("%d requests reached the model server from refused command lines", n)
	}

	r = ledgerEnvCmd(t, vars, append(append([]string{"check", "--batch", batch}, fetchFlags...),
		"--verifier-endpoint", chat.URL+"/v1", "--verifier-model", "cheap", "--adjudicator-model", "big")...)
	if r.code != 0 {
		t.Fatalf("check: %+v", r)
	}
	if !strings.Contains(r.stdout, "support: supported (both model verifiers agree)") || !strings.Contains(r.stderr, "model tier on: passages of checked pages go to verifier cheap at "+chat.URL+"/v1; adjudicator big at") {
		t.Errorf("stdout %q, stderr %q", r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, "k-secret") {
		t.Error("the API key was printed")
	}
	mu.Lock()
	if len(auth) != 2 || auth[0] != "Bearer k-secret-verifier" || auth[1] != "Bearer k-secret-verifier" {
		t.Errorf("Authorization headers %q, want the verifier key twice", auth)
	}
	mu.Unlock()

	// ledger gate --check takes the same flags: a cited claim the ledger does not hold yet is
	// checked on the spot, the two model verifiers included.
	memory := filepath.Join(t.TempDir(), "MEMORY.md")
	os.WriteFile(memory, []byte("Claim: In 2025 the registry counted 4,812 companies.\nSource: "+site.URL+"/report\nQuote: In 2025 the registry counted 4,812 companies\n"), 0o600)
	r = ledgerEnvCmd(t, vars, append(append([]string{"gate", "--check", memory}, fetchFlags...),
		"--verifier-endpoint", chat.URL+"/v1", "--verifier-model", "cheap")...)
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, "k-secret") {
		t.Fatalf("gate --check with the model tier: %+v; want allowed, no key printed", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) != 4 {
		t.Errorf("%d model requests after the gate's check, want 4 (two more)", len(auth))
	}
}

// ledgerEnvCmd runs a command line with the environment variables vars.
func ledgerEnvCmd(t *testing.T, vars map[string]string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string { return vars[k] }}
	code := run(context.Background(), args, e)
	return result{code, out.String(), errOut.String()}
}
