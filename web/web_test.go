package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"evidenceledger/ledger"
)

type fixture struct {
	srv      *httptest.Server
	store    *ledger.Store
	operator string
	auditor  string
}

// openUsers opens a ledger in a fresh directory with an operator (olga) and an auditor
// (arno), and returns it with their tokens.
func openUsers(t *testing.T) (st *ledger.Store, operator, auditor string) {
	t.Helper()
	ctx := context.Background()
	st, err := ledger.Open(ctx, t.TempDir(), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if operator, err = st.AddUser(ctx, "system", "olga", ledger.RoleOperator); err != nil {
		t.Fatal(err)
	}
	if auditor, err = st.AddUser(ctx, "system", "arno", ledger.RoleAuditor); err != nil {
		t.Fatal(err)
	}
	return st, operator, auditor
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	st, op, au := openUsers(t)
	s := newServer(Config{Ledger: st})
	mux := http.NewServeMux()
	mux.Handle("/", s.handler())
	// A route that writes, to check the role rule of the middleware.
	mux.Handle("POST /api/test-write", s.auth(roleWrite, func(w http.ResponseWriter, r *http.Request) {
		u, _ := UserFrom(r.Context())
		writeJSON(w, http.StatusOK, u)
	}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return fixture{srv: srv, store: st, operator: op, auditor: au}
}

func (f fixture) do(t *testing.T, method, path, token string) (int, []byte, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(method, f.srv.URL+path, nil)
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body, resp.Header
}

func TestAPI(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		desc, method, path, auth string
		status                   int
		body                     string
	}{
		{"health without a token", "GET", "/healthz", "", 200, `{"ok":true}`},
		{"audit without a token", "GET", "/api/audit", "", 401, `"error":"send \"Authorization: Bearer TOKEN\"`},
		{"audit with a wrong scheme", "GET", "/api/audit", "Basic " + f.auditor, 401, `"error"`},
		{"audit with an unknown token", "GET", "/api/audit", "Bearer evl_" + strings.Repeat("A", 43), 401, "unknown token"},
		{"audit as auditor", "GET", "/api/audit", "Bearer " + f.auditor, 200, `{"ok":true,"events":3,"head":"`},
		{"the server's audit is full", "GET", "/api/audit", "Bearer " + f.auditor, 200, `"kind":"full","from":0,"last_full":"`},
		{"scheme is case-insensitive", "GET", "/api/keys", "bearer " + f.auditor, 200, `{"keys":[{"id":"`},
		{"events default page", "GET", "/api/events", "Bearer " + f.auditor, 200, `{"events":[{"v":1,"seq":1,"prev":"0000`},
		{"events after the head", "GET", "/api/events?after=3", "Bearer " + f.auditor, 200, `{"events":[]}`},
		{"events limit too large", "GET", "/api/events?limit=1001", "Bearer " + f.auditor, 400, "limit 1001"},
		{"events after not a number", "GET", "/api/events?after=x", "Bearer " + f.auditor, 400, `after=\"x\" is not a whole number; give the sequence number of the last event you have, digits only, like after=0`},
		{"unknown API route", "GET", "/api/nothing", "Bearer " + f.auditor, 404, "no such route"},
		{"unknown API route without a token", "GET", "/api/nothing", "", 401, "error"},
		{"auditor may not write", "POST", "/api/test-write", "Bearer " + f.auditor, 403, "only operators"},
		{"operator may write", "POST", "/api/test-write", "Bearer " + f.operator, 200, `{"name":"olga","role":"operator"}`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			status, body, h := f.do(t, tt.method, tt.path, tt.auth)
			if status != tt.status || !strings.Contains(string(body), tt.body) {
				t.Fatalf("%d %s; want %d containing %s", status, body, tt.status, tt.body)
			}
			if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
			if status == 401 && h.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
}

func TestEventsMatchExport(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if _, err := f.store.RotateKey(ctx); err != nil {
		t.Fatal(err)
	}
	var export bytes.Buffer
	if err := f.store.Export(ctx, &export); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for after := 0; ; after += 2 {
		_, body, _ := f.do(t, "GET", "/api/events?limit=2&after="+strconv.Itoa(after), "Bearer "+f.auditor)
		var page struct{ Events []json.RawMessage }
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		if len(page.Events) == 0 {
			break
		}
		for _, e := range page.Events {
			lines = append(lines, string(e)+"\n")
		}
	}
	if got := strings.Join(lines, ""); got != export.String() {
		t.Fatalf("events from the API differ from the export:\n%s\nvs\n%s", got, export.String())
	}
	_, keys, _ := f.do(t, "GET", "/api/keys", "Bearer "+f.auditor)
	rep, err := ledger.AuditExport(ctx, strings.NewReader(export.String()), bytes.NewReader(keys))
	if err != nil || !rep.OK {
		t.Fatalf("offline audit of what the API handed over: %+v %v", rep, err)
	}
}
