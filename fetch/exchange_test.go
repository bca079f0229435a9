package fetch

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// rawSite is a loopback HTTP/1.1 server that answers each path with fixed response bytes
// and keeps the exact bytes of each request head it read.
type rawSite struct {
	ln    net.Listener
	mu    sync.Mutex
	heads map[string][]byte
}

func newRawSite(t *testing.T, answers map[string][]byte) *rawSite {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawSite{ln: ln, heads: map[string][]byte{}}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				var head []byte
				for {
					line, err := br.ReadBytes('\n')
					if err != nil {
						return
					}
					head = append(head, line...)
					if string(line) == "\r\n" {
						break
					}
				}
				path := strings.Fields(string(head))[1]
				s.mu.Lock()
				s.heads[path] = head
				s.mu.Unlock()
				a, ok := answers[path]
				if !ok {
					a = []byte("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
				}
				c.Write(a)
			}()
		}
	}()
	return s
}

func (s *rawSite) head(path string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.heads[path]
}

func gzipped(t *testing.T, b string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(b))
	zw.Close()
	return buf.Bytes()
}

// TestFetchKeepsExchange: the request head is the exact bytes the server read, and the
// response head is the status line as sent with every field the server sent, except the
// framing Go removed for the stored body and the hop-by-hop Connection field.
func TestFetchKeepsExchange(t *testing.T) {
	const html = "<html><body><p>Hello exchange</p></body></html>"
	gz := gzipped(t, html)
	answers := map[string][]byte{
		// An unusual reason phrase, repeated fields, a field Go would not write itself.
		"/plain": []byte("HTTP/1.1 200 Fine Thanks\r\nX-Zeta: last\r\nSet-Cookie: a=1; Path=/\r\nContent-Type: text/html\r\n" +
			"Set-Cookie: b=2\r\nx-lower: kept\r\nContent-Length: " + strconv.Itoa(len(html)) + "\r\nConnection: close\r\n\r\n" + html),
		// Chunked: Transfer-Encoding is framing, gone from the head as the body is de-chunked.
		"/chunked": []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" +
			"10\r\n<html><body><p>H\r\n1f\r\nello exchange</p></body></html>\r\n0\r\n\r\n"),
		// gzip the client asked for and decoded: Content-Encoding and Content-Length go.
		"/gzip": append([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nVary: Accept-Encoding\r\n"+
			"Content-Length: "+strconv.Itoa(len(gz))+"\r\nConnection: close\r\n\r\n"), gz...),
		"/moved": []byte("HTTP/1.1 301 Moved Permanently\r\nLocation: /plain\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
		"/gone":  []byte("HTTP/1.1 410 Gone\r\nContent-Type: text/html\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
		// An HTTP/1.0 server: the request still went out as HTTP/1.1, and its head says so.
		"/old": []byte("HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n" + html),
	}
	s := newRawSite(t, answers)
	port := s.ln.Addr().(*net.TCPAddr).Port
	base := "http://a.test:" + strconv.Itoa(port)
	plainHead := "HTTP/1.1 200 Fine Thanks\r\nContent-Length: " + strconv.Itoa(len(html)) + "\r\nContent-Type: text/html\r\n" +
		"Set-Cookie: a=1; Path=/\r\nSet-Cookie: b=2\r\nX-Lower: kept\r\nX-Zeta: last\r\n\r\n"
	cases := []struct {
		path, final, head string
		err               bool
	}{
		{"/plain", "/plain", plainHead, false},
		{"/chunked", "/chunked", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n", false},
		{"/gzip", "/gzip", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nVary: Accept-Encoding\r\n\r\n", false},
		{"/moved", "/plain", plainHead, false}, // the final response's heads, not the redirect's
		{"/gone", "/gone", "HTTP/1.1 410 Gone\r\nContent-Length: 0\r\nContent-Type: text/html\r\n\r\n", true},
		{"/old", "/old", "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n", false},
	}
	f := New(testConfig())
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			res, err := f.Fetch(context.Background(), base+c.path)
			if (err != nil) != c.err {
				t.Fatalf("err %v, want error %v", err, c.err)
			}
			if got := string(res.ResponseHead); got != c.head {
				t.Errorf("response head\n%q\nwant\n%q", got, c.head)
			}
			wire := s.head(c.final)
			if len(wire) == 0 || !bytes.Equal(res.RequestHead, wire) {
				t.Errorf("request head\n%q\nthe server read\n%q", res.RequestHead, wire)
			}
			if !strings.HasPrefix(string(wire), "GET "+c.final+" HTTP/1.1\r\nHost: a.test:") ||
				!strings.Contains(string(wire), "\r\nUser-Agent: "+DefaultUserAgent+"\r\n") ||
				strings.Contains(strings.ToLower(string(wire)), "cookie") {
				t.Errorf("request head %q: want our GET, Host and User-Agent and no cookie", wire)
			}
			if !c.err && string(res.Body) != html {
				t.Errorf("body %q, want %q", res.Body, html)
			}
		})
	}
}

// TestHeaderValueLineBreaks: a value holding a line break (which net/http's reader
// cannot produce from the wire, but a Header can hold) never ends a field in the head.
func TestHeaderValueLineBreaks(t *testing.T) {
	for in, want := range map[string]string{"a\r\nb": "a b", "a\nb": "a b", "a\rb": "a b", "ab": "ab"} {
		if got := headerValue(in); got != want {
			t.Errorf("headerValue(%q) = %q, want %q", in, got, want)
		}
	}
}
