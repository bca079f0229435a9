package evidence

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

const goodPaste = "- Acme was founded in 1990. https://acme.example/about \"Acme was founded in 1990 by two engineers.\"\n"

func TestReadPaste(t *testing.T) {
	tests := []struct {
		desc  string
		paste string
		want  error // nil: accepted
	}{
		{"a paste", goodPaste, nil},
		{"CRLF line ends", strings.ReplaceAll(goodPaste, "\n", "\r\n"), nil},
		{"a NUL byte", goodPaste + "\x00", ErrNotText},
		{"a bell", "- Acme \a was founded. https://acme.example \"Acme was founded in 1990 by two\"", ErrNotText},
		{"C1 control", goodPaste + "\u0085", ErrNotText},
		{"invalid UTF-8", goodPaste + "\xff", ErrNotText},
		{"empty", "", ErrNothingUsable},
		{"white space only", " \n\t\n", ErrNothingUsable},
		{"over the limit", goodPaste + strings.Repeat("a", MaxPasteBytes), ErrBadResearch},
		{"at the limit", goodPaste + strings.Repeat("a", MaxPasteBytes-len(goodPaste)), nil},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			_, err := ReadPaste([]byte(tt.paste))
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("ReadPaste: %v; want %v", err, tt.want)
			}
			// The API's {"text":...} form gives the same answer (JSON cannot carry bytes
			// that are not UTF-8, and the body must fit the limit too).
			body, _ := json.Marshal(map[string]string{"text": tt.paste})
			if len(body) > MaxPasteBytes || !utf8.ValidString(tt.paste) {
				return
			}
			stored, _, err2 := ReadRequest(body)
			if (err == nil) != (err2 == nil) || err != nil && !errors.Is(err2, tt.want) {
				t.Fatalf("ReadRequest of the same text: %v; ReadPaste said %v", err2, err)
			}
			if err == nil && string(stored) != tt.paste {
				t.Fatalf("ReadRequest stores %q; want the text itself", stored)
			}
		})
	}
}

func TestReadRequestJSON(t *testing.T) {
	tests := []struct {
		desc, body string
		want       error
	}{
		{"claims", `{"claims":[{"text":"Acme was founded in 1990.","citations":[{"url":"https://acme.example","quote":"Acme was founded in 1990 by two"}]}]}`, nil},
		{"an escaped NUL in a claim", `{"claims":[{"text":"Acme\u0000 was founded.","citations":[]}]}`, ErrNotText},
		{"an escaped bell in a member name", `{"claims":[{"text":"Acme was founded.","x\u0007":1}]}`, ErrNotText},
		{"a raw control byte", "{\"claims\":[{\"text\":\"a\x01\"}]}", ErrNotText},
		{"not JSON", `{"claims":`, ErrBadResearch},
		{"no claim", `{"claims":[]}`, ErrNothingUsable},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			stored, _, err := ReadRequest([]byte(tt.body))
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("ReadRequest: %v; want %v", err, tt.want)
			}
			if err == nil && string(stored) != tt.body {
				t.Fatalf("stored %q; want the body as received", stored)
			}
		})
	}
}

// FuzzReadPaste: what ReadPaste accepts is text within the limit, every claim text, URL and
// quote it returns is text, and the API's {"text":...} form reads it the same way.
func FuzzReadPaste(f *testing.F) {
	files, _ := filepath.Glob("../testdata/pastes/*.md")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(goodPaste + "\x00"))
	f.Fuzz(func(t *testing.T, paste []byte) {
		r, err := ReadPaste(paste)
		if err != nil {
			return
		}
		if len(paste) > MaxPasteBytes || CheckText(paste) != nil {
			t.Fatalf("accepted a paste that is not text within the limit: %q", paste)
		}
		for _, c := range r.Claims {
			for _, s := range []string{c.Text} {
				if CheckString(s) != nil {
					t.Fatalf("claim text %q is not text", s)
				}
			}
			for _, ct := range c.Citations {
				if CheckString(ct.URL) != nil || CheckString(ct.Quote) != nil {
					t.Fatalf("citation %+v is not text", ct)
				}
			}
		}
		body, _ := json.Marshal(map[string]string{"text": string(paste)})
		if len(body) > MaxPasteBytes {
			return
		}
		if _, r2, err := ReadRequest(body); err != nil || !reflect.DeepEqual(r, r2) {
			t.Fatalf("the API form reads it differently: %v", err)
		}
	})
}
