package ledger

import (
	"io"
	"testing"

	"github.com/nlnwa/gowarc/v3"
)

// TestWARCHTTP2Heads: a response head recorded over HTTP/2 (Go's Proto is "HTTP/2.0") is
// one the strict writer builds and writes, as is the bare "HTTP/2" form others record.
func TestWARCHTTP2Heads(t *testing.T) {
	for _, block := range []string{"HTTP/2.0 200 OK\r\nContent-Type: text/html\r\n\r\nhi", "HTTP/2 200 \r\nContent-Type: text/html\r\n\r\nhi"} {
		rb := newRecord(gowarc.Response, "application/http;msgtype=response", "2026-11-30T10:00:00.000Z", recordID("x", "y"))
		rb.AddWarcHeader(gowarc.WarcTargetURI, "https://a.example/")
		rb.AddWarcHeader(gowarc.WarcPayloadDigest, "sha256:"+sha256Hex([]byte("hi")))
		writeBlock(rb, []byte(block))
		rec, _, err := rb.Build()
		if err != nil {
			t.Errorf("%q: %v", block, err)
			continue
		}
		if _, n, err := gowarc.NewMarshaler().Marshal(io.Discard, rec, 0); err != nil || n <= int64(len(block)) {
			t.Errorf("%q: wrote %d bytes: %v", block, n, err)
		}
		rec.Close()
	}
}
