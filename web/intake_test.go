package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// send makes a request with a body and content type and returns the status and body.
// waitJob long-polls GET /api/jobs/{job} until the job has ended, however long that takes
// (the test binary's -timeout bounds it), and returns the last answer.
func (f fixture) waitJob(t *testing.T, job, token string) (int, []byte) {
	t.Helper()
	for {
		status, body := f.send(t, "GET", "/api/jobs/"+job+"?wait=60", token, "", nil)
		if status != http.StatusOK || strings.Contains(string(body), `"state":"done"`) || strings.Contains(string(body), `"state":"failed"`) {
			return status, body
		}
	}
}

func (f fixture) send(t *testing.T, method, path, token, contentType string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// head returns the chain's event count and head hash.
func (f fixture) head(t *testing.T) (int64, string) {
	t.Helper()
	rep, err := f.store.Audit(context.Background())
	if err != nil || !rep.OK {
		t.Fatalf("audit: %+v %v", rep, err)
	}
	return rep.Events, rep.Head
}

func decode[T any](t *testing.T, body []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("answer %s: %v", body, err)
	}
	return v
}

const apiPaste = `{"claims":[
 {"text":"Acme was founded in 1999.","citations":[{"url":"https://acme.example/about","quote":"Acme was founded in 1999"},{"url":"https://registry.example/acme","quote":"incorporated on 3 May 1999"}]},
 {"text":"Acme was founded in 2004.","citations":[{"url":"https://news.example/acme","quote":"founded in 2004 by two engineers"}]},
 {"text":"Acme has no auditor on file.","citations":[]}
]}`

// researchAnswerOf posts the API paste and returns the answer.
func postResearch(t *testing.T, f fixture) researchAnswer {
	t.Helper()
	status, body := f.send(t, "POST", "/api/research", f.operator, "application/json", []byte(apiPaste))
	if status != 201 {
		t.Fatalf("POST /api/research: %d %s", status, body)
	}
	return decode[researchAnswer](t, body)
}

func TestResearchForms(t *testing.T) {
	f := newFixture(t)
	labelled, err := os.ReadFile("../testdata/pastes/labelled-list.txt")
	if err != nil {
		t.Fatal(err)
	}
	textJSON, _ := json.Marshal(map[string]string{"text": string(labelled)})
	tests := []struct {
		desc, contentType string
		body              []byte
		paste             []byte // what must be stored as the batch's paste
		claims            int
	}{
		{"JSON claims form", "application/json", []byte(apiPaste), []byte(apiPaste), 3},
		{"JSON text form stores the text", "application/json; charset=utf-8", textJSON, labelled, 0},
		{"plain text", "text/plain; charset=utf-8", labelled, labelled, 0},
		{"markdown without a charset", "text/markdown", labelled, labelled, 0},
		{"no content type, JSON", "", []byte(apiPaste), []byte(apiPaste), 3},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			status, body := f.send(t, "POST", "/api/research", f.operator, tt.contentType, tt.body)
			if status != 201 {
				t.Fatalf("%d %s", status, body)
			}
			ans := decode[researchAnswer](t, body)
			if tt.claims > 0 && len(ans.Claims) != tt.claims || len(ans.Claims) == 0 {
				t.Fatalf("%d claims; want %d", len(ans.Claims), tt.claims)
			}
			for _, c := range ans.Claims {
				if c.ID == "" || c.Status != evidence.StatusReported || c.Citations == nil {
					t.Fatalf("claim %+v", c)
				}
			}
			b, err := f.store.Batch(context.Background(), ans.Batch)
			if err != nil {
				t.Fatal(err)
			}
			stored, err := f.store.Blob(context.Background(), b.Paste)
			if err != nil || !bytes.Equal(stored, tt.paste) {
				t.Fatalf("stored paste %.60q; want %.60q (%v)", stored, tt.paste, err)
			}
		})
	}
	status, body := f.send(t, "POST", "/api/research", f.operator, "application/json", []byte(apiPaste))
	ans := decode[researchAnswer](t, body)
	if status != 201 || ans.Claims[2].Notes[0] != evidence.NoteNoSource || ans.Claims[0].Citations[1].URL != "https://registry.example/acme" {
		t.Fatalf("answer %s", body)
	}
}

func TestIntakeRefusalsChangeNothing(t *testing.T) {
	f := newFixture(t)
	ans := postResearch(t, f)
	claim := ans.Claims[0].ID
	seamStatus, seamBody := f.send(t, "POST", "/api/seams", f.operator, "application/json",
		[]byte(`{"kind":"absence","summary":"No auditor on file.","claims":["`+ans.Claims[2].ID+`"]}`))
	if seamStatus != 201 {
		t.Fatalf("open seam: %d %s", seamStatus, seamBody)
	}
	seam := decode[ledger.SeamView](t, seamBody)
	if st, b := f.send(t, "POST", "/api/seams/"+seam.ID+"/resolve", f.operator, "application/json", []byte(`{"decision":"not_established","reason":"No filing names one."}`)); st != 200 {
		t.Fatalf("resolve: %d %s", st, b)
	}
	big := bytes.Repeat([]byte("Acme was founded in 1999. "), evidence.MaxPasteBytes/20)
	tests := []struct {
		desc, method, path, token, contentType string
		body                                   []byte
		status                                 int
		want                                   string
	}{
		{"no token", "POST", "/api/research", "", "application/json", []byte(apiPaste), 401, "Authorization"},
		{"bad token", "POST", "/api/research", "evl_" + strings.Repeat("x", 43), "application/json", []byte(apiPaste), 401, "unknown token"},
		{"auditor pastes", "POST", "/api/research", f.auditor, "application/json", []byte(apiPaste), 403, "only operators"},
		{"auditor opens a seam", "POST", "/api/seams", f.auditor, "application/json", []byte(`{"kind":"absence","summary":"x","claims":["` + claim + `"]}`), 403, "only operators"},
		{"auditor resolves", "POST", "/api/seams/" + seam.ID + "/resolve", f.auditor, "application/json", []byte(`{"decision":"x","reason":"y"}`), 403, "only operators"},
		{"auditor classifies", "POST", "/api/sources/acme.example/classify", f.auditor, "application/json", []byte(`{"class":"primary"}`), 403, "only operators"},
		{"over 2 MiB", "POST", "/api/research", f.operator, "text/plain", big, 413, "smaller batches"},
		{"NUL bytes", "POST", "/api/research", f.operator, "text/plain", []byte("Claim: Acme\x00\x01\x02 PNG"), 415, "NUL"},
		{"invalid UTF-8", "POST", "/api/research", f.operator, "text/plain", []byte("Claim: Acme was founded in 1999 \xff\xfe"), 415, "UTF-8"},
		{"control character escaped in JSON", "POST", "/api/research", f.operator, "application/json", []byte(`{"text":"Claim: Acme \u0000 was founded. Source: https://a.example/ Quote: Acme was founded in 1999"}`), 415, "NUL"},
		{"image content type", "POST", "/api/research", f.operator, "image/png", []byte("Claim: Acme was founded."), 415, "Content-Type"},
		{"nothing usable", "POST", "/api/research", f.operator, "text/plain", []byte("Thanks! Let me know if you need anything else."), 422, "no claim"},
		{"JSON with no claim", "POST", "/api/research", f.operator, "application/json", []byte(`{"claims":[]}`), 422, "no claim"},
		{"malformed JSON", "POST", "/api/research", f.operator, "application/json", []byte(`{"claims":[{"text":"x"`), 400, "does not parse"},
		{"malformed seam JSON", "POST", "/api/seams", f.operator, "application/json", []byte(`{"kind":`), 400, "JSON object"},
		{"unknown seam member", "POST", "/api/seams", f.operator, "application/json", []byte(`{"kind":"absence","summary":"x","claim":"c"}`), 400, "unknown field"},
		{"contradiction of one claim", "POST", "/api/seams", f.operator, "application/json", []byte(`{"kind":"contradiction","summary":"x","claims":["` + claim + `"]}`), 400, "two or more"},
		{"seam on an unknown claim", "POST", "/api/seams", f.operator, "application/json", []byte(`{"kind":"absence","summary":"x","claims":["c_0000000000000000"]}`), 404, "does not exist"},
		{"resolve an unknown seam", "POST", "/api/seams/s_0000000000000000/resolve", f.operator, "application/json", []byte(`{"decision":"x","reason":"y"}`), 404, "does not exist"},
		{"resolve twice", "POST", "/api/seams/" + seam.ID + "/resolve", f.operator, "application/json", []byte(`{"decision":"rejected","reason":"again"}`), 409, "already resolved"},
		{"malformed resolve JSON", "POST", "/api/seams/" + seam.ID + "/resolve", f.operator, "application/json", []byte(`[`), 400, "JSON object"},
		{"classify an unknown source", "POST", "/api/sources/nowhere.example/classify", f.operator, "application/json", []byte(`{"class":"primary"}`), 404, "does not exist"},
		{"classify with an unknown class", "POST", "/api/sources/acme.example/classify", f.operator, "application/json", []byte(`{"class":"gold"}`), 400, "primary, semi or lead"},
		{"unknown claim", "GET", "/api/claims/c_0000000000000000", f.auditor, "", nil, 404, "does not exist"},
		{"unknown batch", "GET", "/api/batches/b_0000000000000000", f.auditor, "", nil, 404, "does not exist"},
		{"unknown seam", "GET", "/api/seams/s_0000000000000000", f.auditor, "", nil, 404, "does not exist"},
		{"bad status filter", "GET", "/api/claims?status=true", f.auditor, "", nil, 400, "status"},
		{"bad strength filter", "GET", "/api/claims?strength=strong", f.auditor, "", nil, 400, "strength"},
		{"bad seam state", "GET", "/api/seams?state=closed", f.auditor, "", nil, 400, "open or resolved"},
		{"claims without a token", "GET", "/api/claims", "", "", nil, 401, "Authorization"},
	}
	n0, h0 := f.head(t)
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			status, body := f.send(t, tt.method, tt.path, tt.token, tt.contentType, tt.body)
			if status != tt.status || !strings.Contains(string(body), tt.want) {
				t.Fatalf("%d %s; want %d containing %q", status, body, tt.status, tt.want)
			}
			if n, h := f.head(t); n != n0 || h != h0 {
				t.Fatalf("the chain changed: %d %s -> %d %s", n0, h0, n, h)
			}
		})
	}
}

func TestIntakeReadsAndWrites(t *testing.T) {
	f := newFixture(t)
	ans := postResearch(t, f)
	c1, c2 := ans.Claims[0], ans.Claims[1]

	// An operator decides two citations by hand, then classifies their sources.
	for _, ct := range c1.Citations {
		st, body := f.send(t, "POST", "/api/seams", f.operator, "application/json", []byte(`{"kind":"manual","summary":"Open it by hand.","citations":["`+ct.ID+`"]}`))
		if st != 201 {
			t.Fatalf("open manual seam: %d %s", st, body)
		}
		seam := decode[ledger.SeamView](t, body)
		st, body = f.send(t, "POST", "/api/seams/"+seam.ID+"/resolve", f.operator, "application/json", []byte(`{"decision":"found_at_source","reason":"The words are there."}`))
		if st != 200 || decode[ledger.SeamView](t, body).ResolvedBy != "user:olga" {
			t.Fatalf("resolve: %d %s", st, body)
		}
	}
	for _, cl := range []string{`acme.example {"class":"primary","publisher":"Acme Inc"}`, `registry.example {"class":"semi","publisher":"State registry"}`} {
		id, body, _ := strings.Cut(cl, " ")
		if st, out := f.send(t, "POST", "/api/sources/"+id+"/classify", f.operator, "application/json", []byte(body)); st != 200 {
			t.Fatalf("classify %s: %d %s", id, st, out)
		}
	}
	st, body := f.send(t, "POST", "/api/seams", f.operator, "application/json", []byte(`{"kind":"contradiction","summary":"Two founding years.","claims":["`+c1.ID+`","`+c2.ID+`"]}`))
	if st != 201 {
		t.Fatalf("contradiction: %d %s", st, body)
	}
	contra := decode[ledger.SeamView](t, body)

	_, body = f.send(t, "GET", "/api/claims/"+c1.ID, f.auditor, "", nil)
	claim := decode[ledger.ClaimView](t, body)
	if claim.Status != evidence.StatusFound || claim.Strength != evidence.StrengthHigh || len(claim.OpenSeams) != 1 || claim.OpenSeams[0] != contra.ID {
		t.Fatalf("claim %s", body)
	}
	for _, key := range []string{`"document":null`, `"verdicts":[]`, `"adjudication":null`, `"excerpt":""`, `"strength":"high"`} {
		if !strings.Contains(string(body), key) {
			t.Errorf("claim answer lacks %s: %s", key, body)
		}
	}
	reads := []struct {
		desc, path string
		check      func(body []byte) bool
	}{
		{"claims of the batch", "/api/claims?batch=" + ans.Batch, func(b []byte) bool { return len(decode[map[string][]ledger.ClaimView](t, b)["claims"]) == 3 }},
		{"found claims", "/api/claims?status=found_at_source", func(b []byte) bool { return len(decode[map[string][]ledger.ClaimView](t, b)["claims"]) == 1 }},
		{"high claims", "/api/claims?strength=high", func(b []byte) bool { return len(decode[map[string][]ledger.ClaimView](t, b)["claims"]) == 1 }},
		{"claims with no strength", "/api/claims?strength=none", func(b []byte) bool { return len(decode[map[string][]ledger.ClaimView](t, b)["claims"]) == 2 }},
		{"batches", "/api/batches", func(b []byte) bool {
			bs := decode[map[string][]ledger.Batch](t, b)["batches"]
			return len(bs) == 1 && bs[0].Counts.ClaimsByStatus[evidence.StatusFound] == 1 && bs[0].Counts.ClaimsByStrength["high"] == 1 && bs[0].Counts.OpenSeams == 1
		}},
		{"one batch with claims", "/api/batches/" + ans.Batch, func(b []byte) bool {
			bt := decode[ledger.Batch](t, b)
			return len(bt.Claims) == 3 && bt.Counts.Citations == 4 && bt.Counts.CitationsByStatus[evidence.StatusFound] == 2
		}},
		{"open seams", "/api/seams?state=open", func(b []byte) bool { return len(decode[map[string][]ledger.SeamView](t, b)["seams"]) == 1 }},
		{"resolved seams", "/api/seams?state=resolved", func(b []byte) bool { return len(decode[map[string][]ledger.SeamView](t, b)["seams"]) == 2 }},
		{"one seam", "/api/seams/" + contra.ID, func(b []byte) bool { return decode[ledger.SeamView](t, b).Kind == evidence.SeamContradiction }},
		{"sources", "/api/sources", func(b []byte) bool {
			vs := decode[map[string][]ledger.SourceView](t, b)["sources"]
			return len(vs) == 3 && vs[0].ID == "acme.example" && vs[0].Class == evidence.ClassPrimary && vs[0].Found == 1 && vs[1].Class == evidence.ClassLead
		}},
	}
	for _, tt := range reads {
		t.Run(tt.desc, func(t *testing.T) {
			st, body := f.send(t, "GET", tt.path, f.auditor, "", nil)
			if st != 200 || !tt.check(body) {
				t.Fatalf("%d %s", st, body)
			}
		})
	}
	f.head(t)
}
