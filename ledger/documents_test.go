package ledger

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

func TestStoredPage(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	b, err := s.ImportResearch(ctx, "user:olga", []byte("p"), research(claim("The registry counted 4,812 companies.", "https://registry.example/report", "the registry counted 4,812 companies")))
	if err != nil {
		t.Fatal(err)
	}
	ct := b.Claims[0].Citations[0]
	ch, body := foundCheck(b.Claims[0].ID, ct.ID, ct.URL)
	ch.Document.Truncated = true
	if err := s.RecordCheck(ctx, "system", ch, body, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	p, err := s.StoredPage(ctx, ch.Document.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(p.Body, body) || p.URL != ct.URL || p.FinalURL != ct.URL || p.FetchedAt != ch.Document.FetchedAt || p.ContentType != "text/html" || !p.Truncated {
		t.Fatalf("stored page %+v", p)
	}
	// The paste is a stored body but no page: not found.
	if _, err := s.StoredPage(ctx, b.Paste); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the paste as a page: %v", err)
	}
	for _, bad := range []string{"", "zz", strings.ToUpper(ch.Document.SHA256)} {
		if _, err := s.StoredPage(ctx, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("StoredPage(%q): %v", bad, err)
		}
	}
}
