package fetch

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
)

func readPDFFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/pdf/" + name)
	if err != nil {
		t.Fatalf("PDF corpus file missing (run scripts/pdf-corpus.sh): %v", err)
	}
	return b
}

func TestIsPDF(t *testing.T) {
	tests := []struct {
		desc, contentType string
		body              string
		want              bool
	}{
		{"application/pdf", "application/pdf", "%PDF-1.7\n", true},
		{"application/pdf that is not a PDF", "application/pdf", "<html>", false},
		{"old x-pdf", "application/x-pdf; name=a.pdf", "%PDF-1.4", true},
		{"octet-stream sniffed", "application/octet-stream", "%PDF-1.5\n%\xe2\xe3", true},
		{"octet-stream with junk before the signature, as readers allow", "application/octet-stream", "\r\n\r\n%PDF-1.5", true},
		{"octet-stream that is not a PDF", "application/octet-stream", "PK\x03\x04", false},
		{"no type, sniffed", "", "%PDF-1.7", true},
		{"HTML that mentions %PDF- is HTML", "text/html", "%PDF-1.7", false},
		{"signature past 1024 bytes", "application/octet-stream", strings.Repeat(" ", 1024) + "%PDF-1.7", false},
	}
	for _, tc := range tests {
		if got := IsPDF(tc.contentType, []byte(tc.body)); got != tc.want {
			t.Errorf("%s: IsPDF = %v, want %v", tc.desc, got, tc.want)
		}
	}
}

// TestFetchPDF: a PDF is fetched under its own cap, sent as application/pdf or as a generic
// binary type; a PDF over the cap is cut (package verify never reads a cut PDF).
func TestFetchPDF(t *testing.T) {
	pdf := readPDFFile(t, "report.pdf")
	s := newSite(t, nil)
	serve := func(path, ct string, body []byte) {
		s.mux.HandleFunc(path, func(w http.ResponseWriter, _ *http.Request) {
			if ct != "" {
				w.Header().Set("Content-Type", ct)
			}
			w.Write(body)
		})
	}
	serve("/report.pdf", "application/pdf", pdf)
	serve("/download", "application/octet-stream", pdf)
	serve("/unlabelled", "", pdf)
	serve("/zip", "application/octet-stream", []byte("PK\x03\x04 not a pdf"))
	serve("/big.html", "text/html", bytes.Repeat([]byte("<p>words</p>"), 2000))
	tests := []struct {
		desc, path    string
		cfg           func(*Config)
		wantKind      Kind
		wantTruncated bool
	}{
		{desc: "application/pdf", path: "/report.pdf"},
		{desc: "octet-stream that is a PDF", path: "/download"},
		{desc: "no content type, sniffed", path: "/unlabelled"},
		{desc: "octet-stream that is not a PDF", path: "/zip", wantKind: KindUnsupportedType},
		{desc: "a PDF exactly at its cap is whole", path: "/report.pdf", cfg: func(c *Config) { c.MaxPDFBytes = int64(len(pdf)); c.MaxBytes = 100 }},
		{desc: "a PDF one byte past its cap is cut", path: "/report.pdf", cfg: func(c *Config) { c.MaxPDFBytes = int64(len(pdf) - 1) }, wantTruncated: true},
		{desc: "a sniffed PDF past its cap is cut", path: "/download", cfg: func(c *Config) { c.MaxPDFBytes = 1000 }, wantTruncated: true},
		{desc: "the HTML cap is not the PDF cap", path: "/big.html", cfg: func(c *Config) { c.MaxBytes = 1000 }, wantTruncated: true},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			cfg := testConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			res, err := New(cfg).Fetch(context.Background(), s.URL+tc.path)
			if tc.wantKind != 0 {
				if KindOf(err) != tc.wantKind {
					t.Fatalf("error %v, want kind %s", err, tc.wantKind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Truncated != tc.wantTruncated {
				t.Fatalf("truncated %v, want %v (%d bytes)", res.Truncated, tc.wantTruncated, len(res.Body))
			}
			if strings.HasSuffix(tc.path, ".html") {
				return
			}
			if !IsPDF(res.ContentType, res.Body) {
				t.Fatalf("the body of %s, sent as %q, is not taken for a PDF", tc.path, res.ContentType)
			}
			if want := pdf[:min(len(pdf), len(res.Body))]; !bytes.Equal(res.Body, want) || (!tc.wantTruncated && len(res.Body) != len(pdf)) {
				t.Errorf("body of %d bytes, want the PDF's %d (cut: %v)", len(res.Body), len(pdf), tc.wantTruncated)
			}
		})
	}
}
