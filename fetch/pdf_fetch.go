package fetch

import (
	"bytes"
	"fmt"
	"mime"
)

// DefaultMaxPDFBytes is the default of Config.MaxPDFBytes, the fetch cap of a PDF body.
const DefaultMaxPDFBytes = 50 << 20

// IsPDF reports whether a body with this content type is read as a PDF: the type is
// application/pdf (or its old x-pdf form) or a generic binary type
// (application/octet-stream, binary/octet-stream, none), and the body has the PDF
// signature "%PDF-" within its first 1024 bytes, where readers look for it.
func IsPDF(contentType string, body []byte) bool {
	if contentType != "" && !mayBePDF(contentType) {
		return false
	}
	head := body[:min(len(body), 1024)]
	return bytes.Contains(head, []byte("%PDF-"))
}

// mayBePDF reports whether a body of this content type may be a PDF, to be told by its
// first bytes when the type is a generic one (see [IsPDF]).
func mayBePDF(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch mt {
	case "application/pdf", "application/x-pdf",
		"application/octet-stream", "binary/octet-stream", "application/download", "application/force-download":
		return true
	}
	return false
}

// bodyLimit is how much of a body of this content type is read: Config.MaxPDFBytes for a
// PDF, or for a type that may turn out to be one (a generic binary type, or none), and
// Config.MaxBytes for the others. One byte more is read to tell a longer body.
func (f *Fetcher) bodyLimit(contentType string) int64 {
	if contentType == "" || mayBePDF(contentType) {
		return max(f.cfg.MaxBytes, f.cfg.MaxPDFBytes)
	}
	return f.cfg.MaxBytes
}

// capFor is the size cap of a body of this content type, once the body tells whether it is
// a PDF.
func (f *Fetcher) capFor(contentType string, body []byte) int64 {
	if IsPDF(contentType, body) {
		return f.cfg.MaxPDFBytes
	}
	return f.cfg.MaxBytes
}

// checkPDF accepts a body sent as a PDF or as a generic binary type when it is a PDF.
func checkPDF(u, contentType string, body []byte) error {
	if IsPDF(contentType, body) {
		return nil
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "application/pdf" || mt == "application/x-pdf" {
		return &Error{Kind: KindUnsupportedType, URL: u, Reason: fmt.Sprintf("the server sent %s, but the body does not start as a PDF does (%%PDF-)", mt)}
	}
	return &Error{Kind: KindUnsupportedType, URL: u, Reason: fmt.Sprintf("the content type is %s and the body is not a PDF; only HTML, XHTML, plain text and PDF are read", mt)}
}
