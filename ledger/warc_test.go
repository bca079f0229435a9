package ledger

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evidenceledger/evidence"
)

// corpusCaptures records one check per corpus page, each its own claim, capture, body and
// heads, and returns the bodies' total size.
func corpusCaptures(tb testing.TB, s *Store, rounds int) (int64, string) {
	tb.Helper()
	ctx := context.Background()
	names, err := filepath.Glob(filepath.Join("..", "testdata", "corpus", "pages", "*.html"))
	if err != nil || len(names) == 0 {
		tb.Fatalf("no corpus pages: %v", err)
	}
	var claims []evidence.Claim
	for r := 0; r < rounds; r++ {
		for i := range names {
			claims = append(claims, claim(fmt.Sprintf("Claim %d of round %d.", i, r), fmt.Sprintf("https://site%d.example/page-%d", i, r), "the registry counted 4,812 companies"))
		}
	}
	b, err := s.ImportResearch(ctx, "user:olga", []byte("corpus"), research(claims...))
	if err != nil {
		tb.Fatal(err)
	}
	var total int64
	for i, c := range b.Claims {
		body, err := os.ReadFile(names[i%len(names)])
		if err != nil {
			tb.Fatal(err)
		}
		body = append(body, fmt.Sprintf("<!-- %d -->", i)...)
		ct := c.Citations[0]
		ch, _ := foundCheck(c.ID, ct.ID, ct.URL)
		sum := sha256.Sum256(body)
		ch.Document.SHA256 = hex.EncodeToString(sum[:])
		for j := range ch.Verdicts {
			ch.Verdicts[j].Document = ch.Document.SHA256
		}
		// Heads of the size real pages come with.
		reqHead := fmt.Sprintf("GET /page-%d HTTP/1.1\r\nHost: site%d.example\r\nUser-Agent: %s\r\nAccept: text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1\r\nAccept-Encoding: gzip\r\n\r\n",
			i, i, "evidence-ledger/1.0 (public-page quote checker; +https://evidence-ledger.example/contact)")
		respHead := fmt.Sprintf("HTTP/1.1 200 OK\r\nAge: 0\r\nCache-Control: max-age=600\r\nContent-Length: %d\r\nContent-Type: text/html; charset=utf-8\r\n"+
			"Date: Mon, 30 Nov 2026 10:00:00 GMT\r\nEtag: \"%x\"\r\nLast-Modified: Sun, 29 Nov 2026 08:00:00 GMT\r\nServer: nginx\r\n"+
			"Set-Cookie: session=%d; Path=/; HttpOnly\r\nStrict-Transport-Security: max-age=31536000\r\nVary: Accept-Encoding\r\nX-Cache: HIT\r\n\r\n", len(body), i, i)
		ch.Document.RequestHead, ch.Document.ResponseHead = hexSum(reqHead), hexSum(respHead)
		if err := s.RecordCheck(ctx, "system", ch, body, []byte(reqHead), []byte(respHead), nil); err != nil {
			tb.Fatal(err)
		}
		total += int64(len(body))
	}
	return total, b.ID
}

func TestExportWARCRecords(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	total, batch := corpusCaptures(t, s, 1)
	var buf bytes.Buffer
	st, err := s.ExportWARC(ctx, &buf, batch)
	if err != nil {
		t.Fatal(err)
	}
	if st.Captures != 40 || st.Records != 1+3*40 || st.Bytes != int64(buf.Len()) || st.Bytes < total {
		t.Fatalf("stats %+v for %d bytes of bodies; wrote %d bytes", st, total, buf.Len())
	}
	if n := bytes.Count(buf.Bytes(), []byte("\r\nWARC-Type: response\r\n")); n != 40 {
		t.Fatalf("%d response records", n)
	}
	var again bytes.Buffer
	if _, err := s.ExportWARC(ctx, &again, batch); err != nil || !bytes.Equal(again.Bytes(), buf.Bytes()) {
		t.Fatalf("a second export of the same ledger differs (%v)", err)
	}
	if _, err := s.ExportWARC(ctx, io.Discard, "b_0000000000000000"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("an unknown batch: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.ExportWARC(cctx, io.Discard, ""); err == nil {
		t.Fatal("a cancelled export succeeded")
	}
}

// BenchmarkExportWARC writes 120 captures of real corpus pages (40 pages, 3 rounds, 13 MB of
// bodies each round) as WARC. Its floor, in the same run, is what any WARC writer must do
// with the same bytes: hash every block and payload with SHA-256 and copy them out.
func BenchmarkExportWARC(b *testing.B) {
	s, _ := openTest(b)
	ctx := context.Background()
	total, _ := corpusCaptures(b, s, 3)
	b.Run("export", func(b *testing.B) {
		b.SetBytes(total)
		for i := 0; i < b.N; i++ {
			if _, err := s.ExportWARC(ctx, io.Discard, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
	var bodies [][]byte
	rows, err := s.rdb.Query("SELECT b.data FROM documents d JOIN blobs b ON b.sha256 = d.sha256 ORDER BY d.check_seq")
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var d []byte
		if err := rows.Scan(&d); err != nil {
			b.Fatal(err)
		}
		bodies = append(bodies, d)
	}
	rows.Close()
	b.Run("floor", func(b *testing.B) {
		b.SetBytes(total)
		for i := 0; i < b.N; i++ {
			for _, body := range bodies {
				head := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n", len(body))
				block := append([]byte(head), body...)
				bs, ps := sha256.Sum256(block), sha256.Sum256(body)
				io.Discard.Write(bs[:])
				io.Discard.Write(ps[:])
				io.Discard.Write(block)
			}
		}
	})
}
