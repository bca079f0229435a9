package web

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// importClaims imports batches of n claims each and returns the claim ids in list order.
func importClaims(t testing.TB, st *ledger.Store, batches, n int) []string {
	t.Helper()
	var ids []string
	for bi := range batches {
		var paste strings.Builder
		for i := range n {
			fmt.Fprintf(&paste, "Claim %d: Fact %d of batch %d holds.\nSource: https://site%d.example/page/%d\nQuote: \"fact %d of batch %d holds in the record\"\n\n", i+1, i, bi, i%10, i, i, bi)
		}
		res, err := evidence.ReadPaste([]byte(paste.String()))
		if err != nil {
			t.Fatal(err)
		}
		b, err := st.ImportResearch(t.Context(), "user:olga", []byte(paste.String()), res)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range b.Claims {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

func TestAPIClaimPages(t *testing.T) {
	f := newFixture(t)
	want := importClaims(t, f.store, 3, 40)
	var got []string
	path := "/api/claims"
	for pages := 0; ; pages++ {
		status, body, _ := f.do(t, "GET", path, "Bearer "+f.auditor)
		var page struct {
			Claims []struct{ ID string }
			Next   string `json:"next_after"`
			Prev   string `json:"prev_before"`
		}
		if status != 200 || json.Unmarshal(body, &page) != nil {
			t.Fatalf("%s: %d %s", path, status, body)
		}
		if len(page.Claims) > defaultPageSize {
			t.Fatalf("%s: %d claims; the default page is %d", path, len(page.Claims), defaultPageSize)
		}
		if (pages == 0) != (page.Prev == "") {
			t.Fatalf("%s: prev_before %q on page %d", path, page.Prev, pages)
		}
		for _, c := range page.Claims {
			got = append(got, c.ID)
		}
		if page.Next == "" {
			break
		}
		path = "/api/claims?after=" + page.Next
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("the pages hold %d claims; want the %d in order", len(got), len(want))
	}
	for _, tt := range []struct {
		path   string
		status int
		count  int
	}{
		{"/api/claims?limit=500", 200, 120},
		{"/api/claims?limit=1", 200, 1},
		{"/api/claims?limit=501", 400, 0},
		{"/api/claims?limit=0", 400, 0},
		{"/api/claims?after=c_0000000000000000", 400, 0},
		{"/api/claims?after=" + want[0] + "&before=" + want[3], 400, 0},
		{"/api/claims?before=" + want[60] + "&limit=10", 200, 10},
		{"/api/batches?limit=2", 200, 0},
		{"/api/seams?limit=501", 400, 0},
	} {
		status, body, _ := f.do(t, "GET", tt.path, "Bearer "+f.auditor)
		var page struct{ Claims []json.RawMessage }
		json.Unmarshal(body, &page)
		if status != tt.status || len(page.Claims) != tt.count {
			t.Errorf("%s: %d with %d claims; want %d with %d: %s", tt.path, status, len(page.Claims), tt.status, tt.count, body)
		}
	}
	_, body, _ := f.do(t, "GET", "/api/batches?limit=2", "Bearer "+f.auditor)
	var bp struct {
		Batches []json.RawMessage
		Next    string `json:"next_after"`
	}
	if json.Unmarshal(body, &bp) != nil || len(bp.Batches) != 2 || bp.Next == "" {
		t.Fatalf("batches by 2: %s", body)
	}
}

var (
	claimRow = regexp.MustCompile(`<tr id="(c_[0-9a-f]+)">`)
	nextLink = regexp.MustCompile(`<a href="([^"]+)" rel="next">`)
	prevLink = regexp.MustCompile(`<a href="([^"]+)" rel="prev">`)
)

// TestClaimPagesWithoutJavaScript: the claims page shows a page at a time, and its Next and
// Previous links (plain links) walk the whole list, filters kept.
func TestClaimPagesWithoutJavaScript(t *testing.T) {
	f := newPageFixture(t, "")
	want := importClaims(t, f.store, 3, 40)
	b := f.browser(t)
	b.signIn("olga", opPassword)
	var got []string
	path := "/claims?status=reported"
	var last page
	for {
		p := b.get(path)
		if p.status != http.StatusOK {
			t.Fatalf("%s: %d", path, p.status)
		}
		rows := claimRow.FindAllStringSubmatch(p.body, -1)
		if len(rows) > defaultPageSize {
			t.Fatalf("%s: %d rows", path, len(rows))
		}
		for _, m := range rows {
			got = append(got, m[1])
		}
		last = p
		m := nextLink.FindStringSubmatch(p.body)
		if m == nil {
			break
		}
		path = html.UnescapeString(m[1])
		if !strings.Contains(path, "status=reported") {
			t.Fatalf("the next link %q drops the filter", path)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("the pages hold %d claims; want the %d in order", len(got), len(want))
	}
	m := prevLink.FindStringSubmatch(last.body)
	if m == nil {
		t.Fatal("the last page has no Previous link")
	}
	p := b.get(html.UnescapeString(m[1]))
	rows := claimRow.FindAllStringSubmatch(p.body, -1)
	if len(rows) != defaultPageSize || rows[0][1] != want[len(want)-20-defaultPageSize] {
		t.Fatalf("the previous page holds %d rows from %v", len(rows), rows[:1])
	}
	if p := b.get("/claims?limit=501"); p.status != http.StatusBadRequest || !strings.Contains(p.body, "a page holds 1 to 500 items") {
		t.Fatalf("limit past the maximum: %d", p.status)
	}
	for _, path := range []string{"/batches?limit=1", "/seams?limit=1"} {
		if p := b.get(path); p.status != http.StatusOK {
			t.Fatalf("%s: %d", path, p.status)
		}
	}
}

// TestBatchClaimPages: a batch's claims come in pages on the API and on its page too.
func TestBatchClaimPages(t *testing.T) {
	f := newPageFixture(t, "")
	ids := importClaims(t, f.store, 1, 120)
	bs, err := f.store.Batches(t.Context())
	if err != nil || len(bs) != 1 {
		t.Fatal(bs, err)
	}
	token, err := f.store.AddUser(t.Context(), "system", "aude", ledger.RoleAuditor)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", f.srv.URL+"/api/batches/"+bs[0].ID+"?limit=10&after="+ids[9], nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var bp struct {
		ID     string
		Counts struct{ Claims int }
		Claims []struct{ ID string }
		Next   string `json:"next_after"`
		Prev   string `json:"prev_before"`
	}
	err = json.NewDecoder(resp.Body).Decode(&bp)
	resp.Body.Close()
	if err != nil || bp.ID != bs[0].ID || bp.Counts.Claims != 120 || len(bp.Claims) != 10 || bp.Claims[0].ID != ids[10] || bp.Next != ids[19] || bp.Prev != ids[10] {
		t.Fatalf("batch page: %+v %v", bp, err)
	}
	b := f.browser(t)
	b.signIn("olga", opPassword)
	p := b.get("/batches/" + bs[0].ID)
	rows := claimRow.FindAllStringSubmatch(p.body, -1)
	m := nextLink.FindStringSubmatch(p.body)
	if p.status != 200 || len(rows) != defaultPageSize || m == nil {
		t.Fatalf("batch page: %d, %d rows, next %v", p.status, len(rows), m)
	}
	p = b.get(html.UnescapeString(m[1]))
	rows = claimRow.FindAllStringSubmatch(p.body, -1)
	if p.status != 200 || len(rows) != defaultPageSize || rows[0][1] != ids[defaultPageSize] {
		t.Fatalf("the batch's second page: %d, %d rows", p.status, len(rows))
	}
}
