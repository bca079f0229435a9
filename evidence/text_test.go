package evidence

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckText(t *testing.T) {
	tests := []struct {
		desc, in string
		ok       bool
		where    string
	}{
		{"empty", "", true, ""},
		{"prose with tabs, newlines, CRLF and a form feed", "a\tb\r\nc\fd\n", true, ""},
		{"accents, CJK, emoji, NBSP and soft hyphen", "café 東京 🚀 a\u00a0b co\u00adop", true, ""},
		{"NUL byte", "abc\x00def", false, "byte 3 is a NUL"},
		{"bell", "abc\x07", false, "U+0007"},
		{"escape sequence", "\x1b[31mred", false, "U+001B"},
		{"DEL", "a\x7f", false, "U+007F"},
		{"C1 control", "a\u0085b", false, "U+0085"},
		{"invalid UTF-8", "ab\xffcd", false, "byte 2 is not valid UTF-8"},
		{"truncated UTF-8 sequence", "caf\xc3", false, "byte 3 is not valid UTF-8"},
		{"UTF-16 little endian", "\xff\xfeC\x00l\x00", false, "not valid UTF-8"},
		{"PNG header", "\x89PNG\r\n\x1a\n", false, "not valid UTF-8"},
		{"the replacement character itself is text", "a\ufffdb", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			err := CheckText([]byte(tt.in))
			if (err == nil) != tt.ok {
				t.Fatalf("CheckText(%q) = %v; want ok=%v", tt.in, err, tt.ok)
			}
			if err != nil && (!errors.Is(err, ErrNotText) || !strings.Contains(err.Error(), tt.where)) {
				t.Fatalf("error %q; want ErrNotText naming %q", err, tt.where)
			}
			if CheckString(tt.in) == nil != tt.ok {
				t.Fatal("CheckString disagrees with CheckText")
			}
		})
	}
}

// FuzzCheckText checks CheckText against a rune-by-rune rule on arbitrary bytes, seeded with
// the research pastes.
func FuzzCheckText(f *testing.F) {
	seeds, err := filepath.Glob("../testdata/pastes/*")
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seed pastes: %v", err)
	}
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("a\x00b\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		want := utf8.Valid(b)
		for _, r := range string(b) {
			if r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' || r >= 0x7f && r <= 0x9f {
				want = false
			}
		}
		if err := CheckText(b); (err == nil) != want {
			t.Fatalf("CheckText(%q) = %v; want ok=%v", b, err, want)
		}
	})
}
