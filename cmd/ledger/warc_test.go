package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
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
	type doc struct {
		seq, sha, url, final, at, ip, citation, hash string
		reqHead, respHead                            string
		status                                       int
	}
	var docs []doc
	rows, err := db.Query(`SELECT d.check_seq, d.sha256, d.url, d.final_url, d.fetched_at, d.ip, d.http_status, k.citation, e.hash,
		d.request_head, d.response_head
		FROM documents d JOIN checks k ON k.seq = d.check_seq JOIN events e ON e.seq = d.check_seq ORDER BY d.check_seq`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var d doc
		if err := rows.Scan(&d.seq, &d.sha, &d.url, &d.final, &d.at, &d.ip, &d.status, &d.citation, &d.hash, &d.reqHead, &d.respHead); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	rows.Close()
	// Three checked citations fetched two URLs: /report for two citations, and /survey (a
	// 404, stored with its empty body). Checks run on several workers, so the two citations
	// of /report may share one fetch (one capture) or not, and the order of the checks
	// varies: the captures expected are the ledger's documents grouped by fetch, in the
	// order of their first check.
	if len(docs) != 3 {
		t.Fatalf("%d documents stored, want 3: %+v", len(docs), docs)
	}
	var captures [][]doc
	at := map[string]int{}
	for _, d := range docs {
		key := strings.Join([]string{d.sha, d.url, d.final, d.at, d.ip}, " ")
		if i, ok := at[key]; ok {
			captures[i] = append(captures[i], d)
			continue
		}
		at[key] = len(captures)
		captures = append(captures, []doc{d})
	}

	out := filepath.Join(t.TempDir(), "pages.warc")
	r := ledgerCmd(t, data, "export", "--warc", out)
	if want := fmt.Sprintf("%d capture(s) in %d WARC records", len(captures), 1+3*len(captures)); r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, want) {
		t.Fatalf("export --warc: %+v; want %q", r, want)
	}
	recs := readWARC(t, out)
	if len(recs) != 1+3*len(captures) {
		t.Fatalf("%d records, want warcinfo and %d × (request, response, metadata)", len(recs), len(captures))
	}
	ids := map[string]bool{}
	for i, rec := range recs {
		h := rec.header
		want := []string{"metadata", "request", "response"}[i%3]
		if i == 0 {
			want = "warcinfo"
		}
		if rec.version != "WARC/1.1" || h.Get("WARC-Type") != want {
			t.Errorf("record %d: %s %s, want WARC/1.1 %s", i, rec.version, h.Get("WARC-Type"), want)
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

	for i, cp := range captures {
		d := cp[0]
		req, resp, meta := recs[1+3*i], recs[2+3*i], recs[3+3*i]
		var body, reqHead, respHead []byte
		for _, b := range []struct {
			sha  string
			data *[]byte
		}{{d.sha, &body}, {d.reqHead, &reqHead}, {d.respHead, &respHead}} {
			if err := db.QueryRow("SELECT data FROM blobs WHERE sha256 = ?", b.sha).Scan(b.data); err != nil {
				t.Fatalf("capture %d: blob %q: %v", i, b.sha, err)
			}
		}
		// The blocks are the recorded heads, byte for byte: the request the fetcher wrote,
		// the response head as received (with the site's own field), then the exact body.
		// The 404's body is not read, so its Content-Length says the 0 bytes stored and the
		// record says it is truncated, keeping the length received in the metadata.
		wantHead := respHead
		if d.status == 404 {
			cl := regexp.MustCompile(`\r\nContent-Length: (\d+)\r\n`).FindSubmatch(respHead)
			if cl == nil || string(cl[1]) == "0" || resp.header.Get("WARC-Truncated") != "unspecified" ||
				!bytes.Contains(meta.block, []byte("http-content-length-received: "+string(cl[1])+"\r\n")) {
				t.Errorf("capture %d: the 404's head %q, WARC-Truncated %q, metadata:\n%s", i, respHead, resp.header.Get("WARC-Truncated"), meta.block)
			} else {
				wantHead = bytes.Replace(respHead, cl[0], []byte("\r\nContent-Length: 0\r\n"), 1)
			}
		} else if resp.header.Get("WARC-Truncated") != "" {
			t.Errorf("capture %d: WARC-Truncated %q on a whole page", i, resp.header.Get("WARC-Truncated"))
		}
		if !bytes.Equal(req.block, reqHead) || !bytes.Equal(resp.block, append(wantHead, body...)) {
			t.Errorf("capture %d: the blocks are not the recorded heads and body:\n%q\n%q", i, req.block, resp.block)
		}
		if !bytes.Contains(req.block, []byte("\r\nUser-Agent: evidence-ledger/")) || !bytes.Contains(req.block, []byte("\r\nAccept-Encoding: gzip\r\n")) ||
			!bytes.Contains(resp.block, []byte("\r\nDate: ")) || (d.status == 200) != bytes.Contains(resp.block, []byte("\r\nX-Served-By: registry-1\r\n")) ||
			!bytes.Contains(meta.block, []byte("http-head: recorded: ")) {
			t.Errorf("capture %d: the request lacks our fields, the response the site's, or the metadata the head's provenance:\n%q\n%q\n%s", i, req.block, resp.block, meta.block)
		}
		hr, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(resp.block)), nil)
		if err != nil {
			t.Fatalf("capture %d: the response block is not HTTP: %v", i, err)
		}
		payload, err := io.ReadAll(hr.Body)
		if err != nil {
			t.Fatal(err)
		}
		path := strings.TrimPrefix(d.final, site)
		h := resp.header
		switch {
		case hr.StatusCode != d.status || (path == "/survey") != (d.status == 404):
			t.Errorf("capture %d of %s: HTTP %d, the ledger has %d", i, path, hr.StatusCode, d.status)
		case !bytes.Equal(payload, body):
			t.Errorf("capture %d: the payload is not the stored body", i)
		case h.Get("WARC-Payload-Digest") != "sha256:"+d.sha:
			t.Errorf("capture %d: WARC-Payload-Digest %s, the ledger's SHA-256 is %s", i, h.Get("WARC-Payload-Digest"), d.sha)
		case h.Get("WARC-Target-URI") != d.final || !strings.HasPrefix(d.final, site):
			t.Errorf("capture %d: WARC-Target-URI %s, want %s", i, h.Get("WARC-Target-URI"), d.final)
		case h.Get("WARC-IP-Address") != d.ip || d.ip != "127.0.0.1":
			t.Errorf("capture %d: WARC-IP-Address %q, the ledger has %q", i, h.Get("WARC-IP-Address"), d.ip)
		case h.Get("WARC-Date") != d.at:
			t.Errorf("capture %d: WARC-Date %s, fetched at %s", i, h.Get("WARC-Date"), d.at)
		case h.Get("WARC-Concurrent-To") != req.header.Get("WARC-Record-ID") || req.header.Get("WARC-Concurrent-To") != h.Get("WARC-Record-ID"):
			t.Errorf("capture %d: request and response do not name each other", i)
		case !strings.HasPrefix(string(req.block), "GET "+path+" HTTP/1.1\r\nHost: "+strings.TrimPrefix(site, "http://")+"\r\n") || req.header.Get("WARC-Target-URI") != d.final:
			t.Errorf("capture %d: request %q", i, req.block)
		case meta.header.Get("WARC-Refers-To") != h.Get("WARC-Record-ID") || meta.header.Get("Content-Type") != "application/warc-fields":
			t.Errorf("capture %d: the metadata record does not refer to its response: %v", i, meta.header)
		}
		for _, d := range cp {
			for _, line := range []string{"citation: " + d.citation + "\r\n", "event: " + d.seq + " " + d.hash + " citation.checked ", "batch: " + batch + "\r\n", "ledger-sha256: " + d.sha + "\r\n"} {
				if !bytes.Contains(meta.block, []byte(line)) {
					t.Errorf("capture %d: the metadata lacks %q:\n%s", i, line, meta.block)
				}
			}
		}
		if n := bytes.Count(meta.block, []byte("\r\ncitation: ")); n != len(cp) {
			t.Errorf("capture %d: the metadata names %d citations, the ledger %d", i, n, len(cp))
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
