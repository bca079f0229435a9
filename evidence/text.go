package evidence

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrNotText is matched (with errors.Is) by the error of [CheckText]: the input is not text
// a person could have pasted.
var ErrNotText = errors.New("the research is not text")

// CheckText reports input that is not text: bytes that are not valid UTF-8, a NUL byte, or
// another control character (anything below U+0020 or U+007F..U+009F) other than tab,
// newline, carriage return and form feed. The error matches [ErrNotText] and says where the
// first offending byte is. Research must pass CheckText before it is stored.
func CheckText(b []byte) error {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return fmt.Errorf("%w: byte %d is not valid UTF-8; save the research as UTF-8 text and try again", ErrNotText, i)
		case r == 0:
			return fmt.Errorf("%w: byte %d is a NUL byte, so this looks like a binary file; paste the research as text", ErrNotText, i)
		case isControl(r):
			return fmt.Errorf("%w: byte %d is the control character U+%04X; paste the research as plain text", ErrNotText, i, r)
		}
		i += size
	}
	return nil
}

// CheckString is [CheckText] for a string.
func CheckString(s string) error { return CheckText([]byte(s)) }

func isControl(r rune) bool {
	switch r {
	case '\t', '\n', '\r', '\f':
		return false
	}
	return r < 0x20 || (r >= 0x7f && r <= 0x9f)
}
