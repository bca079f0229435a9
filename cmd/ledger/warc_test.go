package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	iawarc "github.com/internetarchive/gowarc"
	iaverify "github.com/internetarchive/gowarc/cmd/warc/verify"
	_ "modernc.org/sqlite"
)

// warcRecord is one record as the independent reader read it.
type warcRecord struct {
	header  iawarc.Header
	version string
	block   []byte
}

// readWARC reads every record of a WARC file with the Internet Archive's reader, which
// shares no code with the writer (nlnwa/gowarc), and runs that library's own verifier of
// block and payload digests over the file.
func readWARC(t *testing.T, path string) []warcRecord {
	t.Helper()
	res, err := iaverify.ValidateWARCFile(path)
	if err != nil || !res.Valid || !res.AllRecordsRead || res.ErrorsCount != 0 {
		t.Fatalf("the independent verifier refuses %s: %+v %v", path, res, err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := iawarc.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []warcRecord
	for {
		rec, err := r.ReadRecord()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("record %d: %v", len(out)+1, err)
		}
		block, err := io.ReadAll(rec.Content)
		rec.Content.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, warcRecord{header: rec.Header, version: rec.Version, block: block})
	}
	if len(out) != res.RecordCount {
		t.Fatalf("the reader read %d records, the verifier %d", len(out), res.RecordCount)
	}
	return out
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestExportWARC exports the pages a real check stored and reads the file back with the
// independent reader: every record, every digest, every capture's request, exact body, IP
// address, fetch time and its link to citations and events.
func TestExportWARC(t *testing.T) {
	data, batch, site := checkedBatch(t)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(data, "ledger.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type doc struct{ seq, sha, url, final, at, ip, citation, hash string }
	var docs []doc
	rows, err := db.Query(`SELECT d.check_seq, d.sha256, d.url, d.final_url, d.fetched_at, d.ip, k.citation, e.hash
		FROM documents d JOIN checks k ON k.seq = d.check_seq JOIN events e ON e.seq = d.check_seq ORDER BY d.check_seq`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var d doc
		if err := rows.Scan(&d.seq, &d.sha, &d.url, &d.final, &d.at, &d.ip, &d.citation, &d.hash); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	rows.Close()
	// Three checked citations fetched two URLs: /report twice in one run (one capture), and
	// /survey (a 404, stored with its empty body).
	if len(docs) != 3 {
		t.Fatalf("%d documents stored, want 3: %+v", len(docs), docs)
	}

	out := filepath.Join(t.TempDir(), "pages.warc")
	r := ledgerCmd(t, data, "export", "--warc", out)
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "2 capture(s) in 7 WARC records") {
		t.Fatalf("export --warc: %+v", r)
	}
	recs := readWARC(t, out)
	if len(recs) != 7 {
		t.Fatalf("%d records, want warcinfo and 2 × (request, response, metadata)", len(recs))
	}
	types := []string{"warcinfo", "request", "response", "metadata", "request", "response", "metadata"}
	ids := map[string]bool{}
	for i, rec := range recs {
		h := rec.header
		if rec.version != "WARC/1.1" || h.Get("WARC-Type") != types[i] {
			t.Errorf("record %d: %s %s, want WARC/1.1 %s", i, rec.version, h.Get("WARC-Type"), types[i])
		}
		if got := h.Get("WARC-Block-Digest"); got != digest(rec.block) {
			t.Errorf("record %d: WARC-Block-Digest %s, the block hashes to %s", i, got, digest(rec.block))
		}
		id := h.Get("WARC-Record-ID")
		if !strings.HasPrefix(id, "<urn:uuid:") || ids[id] {
			t.Errorf("record %d: id %q missing or repeated", i, id)
		}
		ids[id] = true
	}
	if !bytes.Contains(recs[0].block, []byte("format: WARC File Format 1.1\r\n")) || !bytes.Contains(recs[0].block, []byte("ledger-head-hash: ")) {
		t.Errorf("warcinfo: %s", recs[0].block)
	}

	for i, want := range []struct {
		d       doc
		status  int
		also    []doc
		request string
	}{
		{docs[0], 200, docs[1:2], "GET /report HTTP/1.1\r\n"},
		{docs[2], 404, nil, "GET /survey HTTP/1.1\r\n"},
	} {
		req, resp, meta := recs[1+3*i], recs[2+3*i], recs[3+3*i]
		var body []byte
		if err := db.QueryRow("SELECT data FROM blobs WHERE sha256 = ?", want.d.sha).Scan(&body); err != nil {
			t.Fatal(err)
		}
		hr, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(resp.block)), nil)
		if err != nil {
			t.Fatalf("capture %d: the response block is not HTTP: %v", i, err)
		}
		payload, err := io.ReadAll(hr.Body)
		if err != nil {
			t.Fatal(err)
		}
		h := resp.header
		switch {
		case hr.StatusCode != want.status:
			t.Errorf("capture %d: HTTP %d, want %d", i, hr.StatusCode, want.status)
		case !bytes.Equal(payload, body):
			t.Errorf("capture %d: the payload is not the stored body", i)
		case h.Get("WARC-Payload-Digest") != "sha256:"+want.d.sha:
			t.Errorf("capture %d: WARC-Payload-Digest %s, the ledger's SHA-256 is %s", i, h.Get("WARC-Payload-Digest"), want.d.sha)
		case h.Get("WARC-Target-URI") != want.d.final || !strings.HasPrefix(want.d.final, site):
			t.Errorf("capture %d: WARC-Target-URI %s, want %s", i, h.Get("WARC-Target-URI"), want.d.final)
		case h.Get("WARC-IP-Address") != want.d.ip || want.d.ip != "127.0.0.1":
			t.Errorf("capture %d: WARC-IP-Address %q, the ledger has %q", i, h.Get("WARC-IP-Address"), want.d.ip)
		case h.Get("WARC-Date") != want.d.at:
			t.Errorf("capture %d: WARC-Date %s, fetched at %s", i, h.Get("WARC-Date"), want.d.at)
		case h.Get("WARC-Concurrent-To") != req.header.Get("WARC-Record-ID") || req.header.Get("WARC-Concurrent-To") != h.Get("WARC-Record-ID"):
			t.Errorf("capture %d: request and response do not name each other", i)
		case !strings.HasPrefix(string(req.block), want.request) || req.header.Get("WARC-Target-URI") != want.d.final:
			t.Errorf("capture %d: request %q", i, req.block)
		case meta.header.Get("WARC-Refers-To") != h.Get("WARC-Record-ID") || meta.header.Get("Content-Type") != "application/warc-fields":
			t.Errorf("capture %d: the metadata record does not refer to its response: %v", i, meta.header)
		}
		for _, d := range append([]doc{want.d}, want.also...) {
			for _, line := range []string{"citation: " + d.citation + "\r\n", "event: " + d.seq + " " + d.hash + " citation.checked ", "batch: " + batch + "\r\n", "ledger-sha256: " + d.sha + "\r\n"} {
				if !bytes.Contains(meta.block, []byte(line)) {
					t.Errorf("capture %d: the metadata lacks %q:\n%s", i, line, meta.block)
				}
			}
		}
	}

	// The same ledger exports the same bytes; a batch without pages gives a warcinfo alone.
	again := filepath.Join(t.TempDir(), "again.warc")
	if r := ledgerCmd(t, data, "export", "--warc", again, "--batch", batch); r.code != 0 {
		t.Fatalf("export --warc --batch: %+v", r)
	}
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(again)
	if bytes.Equal(a, b) || !bytes.Equal(a[bytes.Index(a, []byte("WARC/1.1\r\nWARC-Type: request")):], b[bytes.Index(b, []byte("WARC/1.1\r\nWARC-Type: request")):]) {
		t.Error("the batch's export should differ from the whole export only in its warcinfo (which names the batch)")
	}
	paste := filepath.Join(t.TempDir(), "more.md")
	os.WriteFile(paste, []byte("Claim: Growth will continue.\nQuote: we expect growth to continue\n"), 0o600)
	r = ledgerCmd(t, data, "import", paste)
	other := strings.SplitN(r.stdout, "\n", 2)[0]
	empty := filepath.Join(t.TempDir(), "empty.warc")
	if r := ledgerCmd(t, data, "export", "--warc", empty, "--batch", other); r.code != 0 || !strings.Contains(r.stderr, "0 capture(s) in 1 WARC records") {
		t.Fatalf("export of a batch without pages: %+v", r)
	}
	if recs := readWARC(t, empty); len(recs) != 1 || recs[0].header.Get("WARC-Type") != "warcinfo" {
		t.Fatalf("a batch without pages: %d records", len(recs))
	}

	for _, tt := range []struct {
		desc string
		args []string
		code int
		want string
	}{
		{"--batch without --warc", []string{"export", "--batch", batch}, 2, "ledger export --warc FILE [--batch ID]"},
		{"--warc with --out", []string{"export", "--warc", out, "--out", out}, 2, "ledger export --warc FILE [--batch ID]"},
		{"unknown batch", []string{"export", "--warc", filepath.Join(t.TempDir(), "x.warc"), "--batch", "b_0000000000000000"}, 1, "does not exist"},
	} {
		t.Run(tt.desc, func(t *testing.T) {
			r := ledgerCmd(t, data, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("%+v; want code %d and %q", r, tt.code, tt.want)
			}
		})
	}
}
