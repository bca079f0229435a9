package ledger

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"
)

const (
	testReqHead  = "GET /page HTTP/1.1\r\nHost: registry.example\r\nUser-Agent: evidence-ledger/1.0\r\nAccept-Encoding: gzip\r\n\r\n"
	testRespHead = "HTTP/1.1 200 Fine\r\nContent-Type: text/html\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nX-Served-By: r1\r\n\r\n"
)

func hexSum(b string) string {
	sum := sha256.Sum256([]byte(b))
	return hex.EncodeToString(sum[:])
}

// TestRecordCheckHeads: a check stores its heads as blobs named by its event, the
// projection (and so the audit's replay) carries them, a changed head is found by the
// audit, and a check recorded without heads keeps the old payload (no new members).
func TestRecordCheckHeads(t *testing.T) {
	s, dir := openTest(t)
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "user:olga", []byte("p"), research(
		claim("The registry counted 4,812 companies.", "https://registry.example/page", "the registry counted 4,812 companies"),
		claim("Again, 4,812 companies.", "https://registry.example/old", "the registry counted 4,812 companies")))
	if err != nil {
		t.Fatal(err)
	}
	c, old := b.Claims[0], b.Claims[1]
	ch, body := foundCheck(c.ID, c.Citations[0].ID, c.Citations[0].URL)
	ch.Document.RequestHead, ch.Document.ResponseHead = hexSum(testReqHead), hexSum(testRespHead)

	// Refused, and nothing recorded: heads that do not hash to the document's, one head
	// without the other, heads without a document.
	bad := ch
	doc := *ch.Document
	bad.Document = &doc
	for _, tc := range []struct {
		desc          string
		reqHead, resp string
		mutate        func()
		want          string
	}{
		{"a changed response head", testReqHead, testRespHead + "X", func() {}, "response head hashes to"},
		{"a missing request head", "", testRespHead, func() {}, "request head hashes to"},
		{"one head named", testReqHead, testRespHead, func() { doc.ResponseHead = "" }, "both are kept or neither"},
		{"a head not hex", testReqHead, testRespHead, func() { doc.RequestHead = strings.Repeat("Z", 64) }, "64 lowercase hex"},
	} {
		doc = *ch.Document
		tc.mutate()
		err := s.RecordCheck(ctx, "system", bad, body, []byte(tc.reqHead), []byte(tc.resp), nil)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInvalid saying %q", tc.desc, err, tc.want)
		}
	}
	nodoc := ch
	nodoc.Document = nil
	if err := s.RecordCheck(ctx, "system", nodoc, nil, []byte(testReqHead), []byte(testRespHead), nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("heads without a document: %v", err)
	}

	if err := s.RecordCheck(ctx, "system", ch, body, []byte(testReqHead), []byte(testRespHead), nil); err != nil {
		t.Fatal(err)
	}
	och, obody := foundCheck(old.ID, old.Citations[0].ID, old.Citations[0].URL)
	if err := s.RecordCheck(ctx, "system", och, obody, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, dir)
	var reqH, respH, payload, oldPayload string
	if err := db.QueryRow(`SELECT d.request_head, d.response_head, e.payload FROM documents d JOIN events e ON e.seq = d.check_seq
		JOIN checks k ON k.seq = d.check_seq WHERE k.citation = ?`, c.Citations[0].ID).Scan(&reqH, &respH, &payload); err != nil {
		t.Fatal(err)
	}
	if reqH != hexSum(testReqHead) || respH != hexSum(testRespHead) ||
		!strings.Contains(payload, `"request_head":"`+reqH+`"`) || !strings.Contains(payload, reqH) || !strings.Contains(payload, `"blobs":[`) {
		t.Fatalf("documents row %q %q, payload %s", reqH, respH, payload)
	}
	for _, h := range []string{reqH, respH} {
		if got, err := s.Blob(ctx, h); err != nil || (string(got) != testReqHead && string(got) != testRespHead) {
			t.Fatalf("blob %s: %q %v", h, got, err)
		}
	}
	if err := db.QueryRow(`SELECT e.payload FROM documents d JOIN events e ON e.seq = d.check_seq JOIN checks k ON k.seq = d.check_seq
		WHERE k.citation = ? AND d.request_head = '' AND d.response_head = ''`, old.Citations[0].ID).Scan(&oldPayload); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(oldPayload, "_head") {
		t.Errorf("a check without heads has new members: %s", oldPayload)
	}
	if rep, err := s.Audit(ctx); err != nil || !rep.OK {
		t.Fatalf("audit of a ledger with heads: %+v %v", rep, err)
	}

	// A stored head changed behind the program's back is found by the audit.
	if _, err := db.Exec("DROP TRIGGER blobs_no_update"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE blobs SET data = ? WHERE sha256 = ?", []byte(strings.Replace(testRespHead, "r1", "r2", 1)), respH); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Audit(ctx)
	if err != nil || rep.OK || len(rep.Problems) == 0 || !strings.Contains(rep.Problems[0].Problem, respH) {
		t.Fatalf("audit after a head was changed: %+v %v", rep, err)
	}
}

// TestExportWARCHeads: a capture with recorded heads is written with them, byte for byte;
// a capture recorded before heads were kept gets the rebuilt head, and each metadata
// record says which it is.
func TestExportWARCHeads(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "user:olga", []byte("p"), research(
		claim("The registry counted 4,812 companies.", "https://registry.example/page", "the registry counted 4,812 companies"),
		claim("Again, 4,812 companies.", "https://registry.example/old", "the registry counted 4,812 companies")))
	if err != nil {
		t.Fatal(err)
	}
	c, old := b.Claims[0], b.Claims[1]
	ch, body := foundCheck(c.ID, c.Citations[0].ID, c.Citations[0].URL)
	ch.Document.RequestHead, ch.Document.ResponseHead = hexSum(testReqHead), hexSum(testRespHead)
	if err := s.RecordCheck(ctx, "system", ch, body, []byte(testReqHead), []byte(testRespHead), nil); err != nil {
		t.Fatal(err)
	}
	och, obody := foundCheck(old.ID, old.Citations[0].ID, old.Citations[0].URL)
	if err := s.RecordCheck(ctx, "system", och, obody, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := s.ExportWARC(ctx, &buf, ""); err != nil {
		t.Fatal(err)
	}
	w := buf.String()
	if !strings.Contains(w, "\r\n\r\n"+testReqHead+"\r\n\r\n") || !strings.Contains(w, "\r\n\r\n"+testRespHead+string(body)+"\r\n\r\n") {
		t.Errorf("the recorded heads are not the blocks of the first capture:\n%s", w)
	}
	rebuilt := "GET /old HTTP/1.1\r\nHost: registry.example\r\n\r\n"
	if !strings.Contains(w, "\r\n\r\n"+rebuilt+"\r\n\r\n") || !strings.Contains(w, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ") {
		t.Errorf("the capture without heads is not rebuilt:\n%s", w)
	}
	if strings.Count(w, "http-head: recorded: ") != 1 || strings.Count(w, "http-head: rebuilt: ") != 1 {
		t.Errorf("the metadata records do not say which head is recorded and which rebuilt:\n%s", w)
	}
}

func TestFitContentLength(t *testing.T) {
	for _, tc := range []struct {
		head      string
		n         int
		want, got string
	}{
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", 5, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", ""},
		{"HTTP/1.1 404 Not Found\r\nContent-Length: 19\r\nX: y\r\n\r\n", 0, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nX: y\r\n\r\n", "19"},
		{"HTTP/1.1 200 OK\r\ncontent-length:  12 \r\n\r\n", 4, "HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\n", "12"},
		{"HTTP/1.1 200 OK\r\nX-Content-Length: 9\r\n\r\n", 4, "HTTP/1.1 200 OK\r\nX-Content-Length: 9\r\n\r\n", ""},
		{"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n", 4, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n", ""},
		// A status line is never a field, whatever it holds.
		{"Content-Length: 3 nonsense\r\n\r\n", 4, "Content-Length: 3 nonsense\r\n\r\n", ""},
	} {
		head, got, fitted := fitContentLength([]byte(tc.head), tc.n)
		if string(head) != tc.want || got != tc.got || fitted != (tc.want != tc.head) {
			t.Errorf("fitContentLength(%q, %d) = %q, %q; want %q, %q", tc.head, tc.n, head, got, tc.want, tc.got)
		}
	}
}

// FuzzFitContentLength: whatever the stored head, fitting it changes at most the value of
// its first Content-Length field, to n, reports the value it replaced, and says whether it
// changed anything.
func FuzzFitContentLength(f *testing.F) {
	f.Add([]byte(testRespHead), 3)
	f.Add([]byte("HTTP/1.1 404 Not Found\r\nContent-Length: 19\r\nContent-Type: text/plain\r\n\r\n"), 0)
	f.Add([]byte("HTTP/1.1 200 OK\r\ncontent-length:12\r\nContent-Length: 12\r\n\r\n"), 12)
	f.Add([]byte("HTTP/1.1 200 OK\nContent-Length: 5\n\n"), 1)
	f.Fuzz(func(t *testing.T, head []byte, n int) {
		if n < 0 {
			n = -n
		}
		out, received, fitted := fitContentLength(head, n)
		in, got := strings.SplitAfter(string(head), "\r\n"), strings.SplitAfter(string(out), "\r\n")
		if len(in) != len(got) {
			t.Fatalf("%q became %q: lines added or lost", head, out)
		}
		changed := 0
		for i := range in {
			if in[i] == got[i] {
				continue
			}
			changed++
			name, value, _ := strings.Cut(in[i], ":")
			if i == 0 || !strings.EqualFold(name, "Content-Length") || strings.TrimSpace(value) != received ||
				got[i] != name+": "+strconv.Itoa(n)+"\r\n" {
				t.Fatalf("line %d %q became %q (received %q)", i, in[i], got[i], received)
			}
		}
		if changed > 1 || fitted != (changed == 1) {
			t.Fatalf("%q became %q, received %q", head, out, received)
		}
	})
}
