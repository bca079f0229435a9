package ledger

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/nlnwa/gowarc/v3"

	"evidenceledger/evidence"
)

// WARCStats counts what [Store.ExportWARC] wrote.
type WARCStats struct {
	// Captures are the distinct fetches written, each as a request, a response and a
	// metadata record.
	Captures int `json:"captures"`
	// Records counts every record, the warcinfo record included.
	Records int   `json:"records"`
	Bytes   int64 `json:"bytes"`
}

// capture is one fetch of a page: the checks that stored it (one per citation of the URL
// within a check run, each a documents row with the same body, URL and fetch time).
type capture struct {
	sha, url, finalURL, fetchedAt, contentType, ip string
	// reqHead and respHead are the SHA-256 of the stored heads; '' for a capture recorded
	// before the heads were kept.
	reqHead, respHead string
	status            int
	truncated         bool
	hops              []evidence.Hop
	checks            []captureCheck
}

type captureCheck struct {
	seq                           int64
	hash, at, citation, claim, bt string
	status                        evidence.Status
}

// warcNamespace names the record ids of the ledger's WARC files: a record's id is a
// version 5 UUID over the hash of the event that stored its capture and the record's role,
// so exporting the same ledger twice gives the same ids.
var warcNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("urn:evidence-ledger:warc"))

// ExportWARC writes every stored capture, or those of one batch when batch is not empty, as
// an uncompressed WARC 1.1 file (docs/report.md): a warcinfo record naming the chain head,
// then for each capture, oldest first, a request record, a response record whose payload is
// the exact body the fetcher stored (its WARC-Payload-Digest is the ledger's SHA-256 of the
// stored page), and a metadata record linking it to its citations and check events. The
// HTTP heads of the request and the response are the recorded ones; for a capture recorded
// before the heads were kept they are rebuilt from what the ledger keeps (method, URL,
// status, content type), which the metadata record says. Everything is read in one
// snapshot. It fails, wrapping [ErrNotFound], when the batch does not exist; what was
// written before an error is incomplete.
func (s *Store) ExportWARC(ctx context.Context, w io.Writer, batch string) (WARCStats, error) {
	var st WARCStats
	s.awaitCheckpoint(ctx)
	tx, err := s.readTx(ctx)
	if err != nil {
		return st, fmt.Errorf("WARC export: %w", err)
	}
	defer tx.Rollback()
	if batch != "" {
		var one int
		if err := tx.QueryRowContext(ctx, "SELECT 1 FROM batches WHERE id = ?", batch).Scan(&one); err != nil {
			return st, fmt.Errorf("WARC export: %w", notFound(err, fmt.Sprintf("batch %q", batch)))
		}
	}
	caps, err := readCaptures(ctx, tx, batch)
	if err != nil {
		return st, fmt.Errorf("WARC export: %w", err)
	}
	head, err := chainPoint(ctx, tx)
	if err != nil {
		return st, fmt.Errorf("WARC export: %w", err)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	m := gowarc.NewMarshaler()
	write := func(rb gowarc.WarcRecordBuilder) error {
		rec, _, err := rb.Build()
		if err != nil {
			return err
		}
		defer rec.Close()
		_, n, err := m.Marshal(bw, rec, 0)
		st.Records++
		st.Bytes += n
		return err
	}
	info := warcFields{
		{"software", "evidence-ledger"},
		{"format", "WARC File Format 1.1"},
		{"conformsTo", "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"},
		{"description", "Pages stored by the evidence ledger's checks. The payload of each response is the exact body the fetcher stored; the HTTP heads are those recorded with it (rebuilt for captures recorded before heads were kept, as each metadata record says)."},
		{"ledger-head-seq", strconv.FormatInt(head.Seq, 10)},
		{"ledger-head-hash", head.Hash},
	}
	if batch != "" {
		info = append(info, [2]string{"ledger-batch", batch})
	}
	rb := newRecord(gowarc.Warcinfo, "application/warc-fields", head.EventAt, recordID(head.Hash, "warcinfo"))
	if err := writeBlock(rb, info.bytes()); err != nil {
		return st, fmt.Errorf("WARC export: %w", err)
	}
	if err := write(rb); err != nil {
		return st, fmt.Errorf("WARC export: warcinfo: %w", err)
	}
	for _, c := range caps {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		var body, reqHead, respHead []byte
		for _, b := range []struct {
			sha, what string
			data      *[]byte
		}{{c.sha, "page", &body}, {c.reqHead, "request head", &reqHead}, {c.respHead, "response head", &respHead}} {
			if b.sha == "" {
				continue
			}
			if err := tx.QueryRowContext(ctx, "SELECT data FROM blobs WHERE sha256 = ?", b.sha).Scan(b.data); err != nil {
				return st, fmt.Errorf("WARC export: the stored %s %s: %w", b.what, b.sha, notFound(err, b.what))
			}
		}
		rbs, err := c.records(body, reqHead, respHead)
		if err != nil {
			return st, fmt.Errorf("WARC export: the capture of %s at %s: %w", c.finalURL, c.fetchedAt, err)
		}
		for i, rb := range rbs {
			if err := write(rb); err != nil {
				for _, rest := range rbs[i+1:] {
					rest.Close()
				}
				return st, fmt.Errorf("WARC export: the capture of %s at %s: %w", c.finalURL, c.fetchedAt, err)
			}
		}
		st.Captures++
	}
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("WARC export: %w", err)
	}
	return st, nil
}

// readCaptures reads the documents of the checks (of one batch, when batch is not empty),
// grouped into captures, oldest first.
func readCaptures(ctx context.Context, tx *sql.Tx, batch string) ([]*capture, error) {
	q := `SELECT d.check_seq, e.hash, e.at, k.citation, k.claim, c.batch, k.status,
			d.sha256, d.url, d.final_url, d.fetched_at, d.http_status, d.content_type, d.truncated, d.ip, d.hops,
			d.request_head, d.response_head
		FROM documents d JOIN checks k ON k.seq = d.check_seq JOIN events e ON e.seq = d.check_seq JOIN claims c ON c.id = k.claim
		WHERE ? = '' OR c.batch = ? ORDER BY d.check_seq`
	var caps []*capture
	byKey := map[string]*capture{}
	err := eachRow(ctx, tx, q, []any{batch, batch}, func(rows *sql.Rows) error {
		var ch captureCheck
		var c capture
		var hops string
		if err := rows.Scan(&ch.seq, &ch.hash, &ch.at, &ch.citation, &ch.claim, &ch.bt, &ch.status,
			&c.sha, &c.url, &c.finalURL, &c.fetchedAt, &c.status, &c.contentType, &c.truncated, &c.ip, &hops,
			&c.reqHead, &c.respHead); err != nil {
			return err
		}
		key := strings.Join([]string{c.sha, c.url, c.finalURL, c.fetchedAt, c.ip, c.reqHead, c.respHead}, "\x00")
		if have, ok := byKey[key]; ok {
			have.checks = append(have.checks, ch)
			return nil
		}
		if err := json.Unmarshal([]byte(hops), &c.hops); err != nil {
			return fmt.Errorf("the hops of check %d: %w", ch.seq, err)
		}
		c.checks = []captureCheck{ch}
		byKey[key] = &c
		caps = append(caps, &c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the stored captures: %w", err)
	}
	return caps, nil
}

// records are the request, response and metadata records of the capture. The request
// block is the recorded request head, the response block the recorded response head and
// the body; a capture recorded without its heads (reqHead and respHead nil) gets heads
// rebuilt from what the ledger kept, and its metadata record says so.
func (c *capture) records(body, reqHead, respHead []byte) ([]gowarc.WarcRecordBuilder, error) {
	first := c.checks[0].hash
	reqID, respID := recordID(first, "request"), recordID(first, "response")

	target := c.finalURL
	if target == "" {
		target = c.url
	}
	path, host := "/", ""
	if u, err := url.Parse(target); err == nil {
		host = u.Host
		if p := u.RequestURI(); p != "" {
			path = p
		}
	}
	req := newRecord(gowarc.Request, "application/http;msgtype=request", c.fetchedAt, reqID)
	req.AddWarcHeader(gowarc.WarcTargetURI, target)
	req.AddWarcHeader(gowarc.WarcConcurrentTo, respID)
	if c.ip != "" {
		req.AddWarcHeader(gowarc.WarcIPAddress, c.ip)
	}
	headNote := "recorded: the request head as the fetcher wrote it and the response head as it was received, less the framing the HTTP client removed (docs/fetch.md); the payload is the exact body stored"
	if reqHead == nil || respHead == nil {
		headNote = "rebuilt: method, URL, status and Content-Type as the ledger recorded them; the payload is the exact body stored"
		reqHead = []byte("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n")
		var head strings.Builder
		fmt.Fprintf(&head, "HTTP/1.1 %d %s\r\n", c.status, http.StatusText(c.status))
		if ct := strings.Map(noCRLF, c.contentType); ct != "" {
			fmt.Fprintf(&head, "Content-Type: %s\r\n", ct)
		}
		fmt.Fprintf(&head, "Content-Length: %d\r\n\r\n", len(body))
		respHead = []byte(head.String())
	}
	reqErr := writeBlock(req, reqHead)
	respHead, announced, fitted := fitContentLength(respHead, len(body))

	resp := newRecord(gowarc.Response, "application/http;msgtype=response", c.fetchedAt, respID)
	resp.AddWarcHeader(gowarc.WarcTargetURI, target)
	resp.AddWarcHeader(gowarc.WarcConcurrentTo, reqID)
	if c.ip != "" {
		resp.AddWarcHeader(gowarc.WarcIPAddress, c.ip)
	}
	resp.AddWarcHeader(gowarc.WarcPayloadDigest, "sha256:"+sha256Hex(body))
	switch {
	case c.truncated:
		resp.AddWarcHeader(gowarc.WarcTruncated, "length")
	case fitted:
		// The fetcher does not read the body of an error status (a 404): the record
		// holds the head and the body as stored.
		resp.AddWarcHeader(gowarc.WarcTruncated, "unspecified")
	}
	respErr := writeBlock(resp, append(respHead[:len(respHead):len(respHead)], body...))

	f := warcFields{
		{"ledger-sha256", c.sha},
		{"requested-url", c.url},
		{"http-head", headNote},
	}
	if fitted {
		f = append(f, [2]string{"http-content-length-received", announced})
	}
	for _, h := range c.hops {
		f = append(f, [2]string{"hop", fmt.Sprintf("%d %s %s", h.Status, h.IP, h.URL)})
	}
	for _, ch := range c.checks {
		f = append(f,
			[2]string{"citation", ch.citation},
			[2]string{"claim", ch.claim},
			[2]string{"batch", ch.bt},
			[2]string{"event", fmt.Sprintf("%d %s citation.checked %s", ch.seq, ch.hash, ch.status)})
	}
	meta := newRecord(gowarc.Metadata, "application/warc-fields", c.checks[0].at, recordID(first, "metadata"))
	meta.AddWarcHeader(gowarc.WarcTargetURI, target)
	meta.AddWarcHeader(gowarc.WarcRefersTo, respID)
	metaErr := writeBlock(meta, f.bytes())
	rbs := []gowarc.WarcRecordBuilder{req, resp, meta}
	// Writing into a builder's buffer fails only when its spool file cannot be written.
	if err := errors.Join(reqErr, respErr, metaErr); err != nil {
		for _, rb := range rbs {
			rb.Close()
		}
		return nil, err
	}
	return rbs, nil
}

// fitContentLength returns the response head with its Content-Length field set to n, the
// length of the body as stored, the value received and true, when the two differ (a body
// cut at the fetcher's limit, or the unread body of an error status); a head whose
// Content-Length is n, or that has none, is returned as it is with false. Readers of the
// WARC parse the HTTP block by that field, so a head announcing more bytes than the block
// holds could not be read; the value received is kept in the metadata record and in the
// ledger's stored head.
func fitContentLength(head []byte, n int) ([]byte, string, bool) {
	lines := strings.SplitAfter(string(head), "\r\n")
	for i, l := range lines {
		name, value, ok := strings.Cut(l, ":")
		if i == 0 || !ok || !strings.HasSuffix(l, "\r\n") || !strings.EqualFold(name, "Content-Length") {
			continue
		}
		value = strings.TrimSpace(value)
		if value == strconv.Itoa(n) {
			return head, "", false
		}
		lines[i] = name + ": " + strconv.Itoa(n) + "\r\n"
		return []byte(strings.Join(lines, "")), value, true
	}
	return head, "", false
}

// newRecord starts a record with its id, date and content type.
func newRecord(t gowarc.RecordType, contentType, date, id string) gowarc.WarcRecordBuilder {
	rb := gowarc.NewRecordBuilder(t, gowarc.WithStrictValidation())
	rb.AddWarcHeader(gowarc.WarcRecordID, id)
	rb.AddWarcHeader(gowarc.WarcDate, date)
	rb.AddWarcHeader(gowarc.ContentType, contentType)
	return rb
}

// writeBlock writes the record's block and its WARC-Block-Digest.
func writeBlock(rb gowarc.WarcRecordBuilder, block []byte) error {
	rb.AddWarcHeader(gowarc.WarcBlockDigest, "sha256:"+sha256Hex(block))
	_, err := rb.Write(block)
	return err
}

func recordID(eventHash, role string) string {
	return "<urn:uuid:" + uuid.NewSHA1(warcNamespace, []byte(eventHash+":"+role)).String() + ">"
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// warcFields is an application/warc-fields block, in order.
type warcFields [][2]string

func (f warcFields) bytes() []byte {
	var b strings.Builder
	for _, kv := range f {
		b.WriteString(kv[0] + ": " + strings.Map(noCRLF, kv[1]) + "\r\n")
	}
	return []byte(b.String())
}

// noCRLF drops line breaks, which would end a header field.
func noCRLF(r rune) rune {
	if r == '\r' || r == '\n' {
		return -1
	}
	return r
}
