package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"evidenceledger/ledger"
)

// TestDiskFullInWords: when the disk under the ledger is full (a ledger capped with
// MaxPages), the API answers 507 and the pages a 507 page, both saying so in words, and
// nothing is recorded.
func TestDiskFullInWords(t *testing.T) {
	ctx := context.Background()
	st, err := ledger.Open(ctx, t.TempDir(), ledger.Options{MaxPages: 96})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.AddUserWithPassword(ctx, "system", "olga", ledger.RoleOperator, opPassword); err != nil {
		t.Fatal(err)
	}
	token, err := st.AddUser(ctx, "system", "paula", ledger.RoleOperator)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New(Config{Ledger: st}))
	t.Cleanup(srv.Close)
	f := pageFixture{srv: srv, store: st}
	b := f.browser(t)
	b.signIn("olga", opPassword)

	paste := func() string {
		noise := make([]byte, 6000)
		rand.Read(noise)
		return fmt.Sprintf("- Acme was founded in 1990. https://acme.example/about \"Acme was founded in 1990 by two engineers.\"\n\n%s\n", hex.EncodeToString(noise))
	}
	var status int
	var answer struct{ Error string }
	for range 200 {
		req, _ := http.NewRequest("POST", srv.URL+"/api/research", strings.NewReader(paste()))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "text/plain")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		status = resp.StatusCode
		if status != http.StatusCreated {
			json.Unmarshal(body, &answer)
			break
		}
	}
	if status != http.StatusInsufficientStorage || !strings.Contains(answer.Error, "the disk holding the ledger is full; nothing was recorded") {
		t.Fatalf("API on a full disk: %d %q; want 507 saying the disk is full", status, answer.Error)
	}
	before, err := st.Audit(ctx)
	if err != nil || !before.OK {
		t.Fatalf("audit after the full disk: %+v %v", before, err)
	}
	text := paste()
	p := b.post("/paste", url.Values{"text": {text}, "sha256": {textHash(text)}})
	if p.status != http.StatusInsufficientStorage || !strings.Contains(p.body, "the disk holding the ledger is full; nothing was recorded") {
		t.Fatalf("page commit on a full disk: %d %s", p.status, p.body)
	}
	after, err := st.Audit(ctx)
	if err != nil || !after.OK || after.Events != before.Events {
		t.Fatalf("the refused commit changed the ledger: %+v %v", after, err)
	}
}
