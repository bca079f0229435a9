package fetch

import (
	"bytes"
	"fmt"
	"mime"
	"regexp"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
)

// metaScan is how far into a page a <meta> charset declaration is looked for. Browsers stop
// at 1,024 bytes; real pages declare later than that, so a little more is read.
const metaScan = 64 << 10

var metaCharset = regexp.MustCompile(`(?i)<meta[^>]+charset\s*=\s*["']?\s*([a-z0-9_.:+-]+)`)

// decode returns body as UTF-8 text; valid UTF-8 is body itself, not a copy, and must not be
// changed. In order:
//   - a byte-order mark decides, and is removed;
//   - bytes that are valid UTF-8 and not plain ASCII are UTF-8, whatever is declared (a
//     legacy encoding almost never produces valid UTF-8 by chance, while pages that declare
//     a charset their bytes contradict are common);
//   - otherwise the charset of the Content-Type, then of a <meta> in the first 64 KiB;
//   - undeclared bytes that are single-byte-like are windows-1252, as in browsers.
//
// It returns an error wrapping ErrCharset for an unknown declared charset, for undeclared
// bytes that look like a multi-byte encoding (which cannot be told apart reliably), and for
// bytes the chosen encoding cannot decode.
func decode(body []byte, contentType string) ([]byte, error) {
	switch {
	case bytes.HasPrefix(body, []byte("\xef\xbb\xbf")):
		return bytes.ToValidUTF8(body[3:], []byte("\ufffd")), nil
	case bytes.HasPrefix(body, []byte("\xfe\xff")):
		return decodeWith(unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "utf-16be", body[2:])
	case bytes.HasPrefix(body, []byte("\xff\xfe")):
		return decodeWith(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "utf-16le", body[2:])
	}
	ascii := isASCII(body)
	if !ascii && utf8.Valid(body) {
		return body, nil
	}
	label := ""
	if _, params, err := mime.ParseMediaType(contentType); err == nil {
		label = params["charset"]
	}
	if label == "" {
		head := body[:min(len(body), metaScan)]
		if m := metaCharset.FindSubmatch(head); m != nil {
			label = string(m[1])
		}
	}
	if label == "" {
		if ascii {
			return body, nil
		}
		if looksMultiByte(body) {
			return nil, fmt.Errorf("%w: no charset is declared and the bytes are neither UTF-8 nor a single-byte encoding; the page must declare its charset", ErrCharset)
		}
		label = "windows-1252"
	}
	enc, name := charset.Lookup(label)
	if enc == nil {
		return nil, fmt.Errorf("%w: the declared charset %q is unknown", ErrCharset, label)
	}
	if name == "utf-8" {
		return decodeUTF8(body)
	}
	return decodeWith(enc, name, body)
}

// decodeUTF8 accepts UTF-8 with a few stray bytes (replaced by U+FFFD) but not text that is
// mostly not UTF-8.
func decodeUTF8(body []byte) ([]byte, error) {
	s := bytes.ToValidUTF8(body, []byte("\ufffd"))
	if bad := bytes.Count(s, []byte("\ufffd")) - bytes.Count(body, []byte("\ufffd")); bad*100 > utf8.RuneCount(s) {
		return nil, fmt.Errorf("%w: the page declares UTF-8 but %d byte sequences are not UTF-8", ErrCharset, bad)
	}
	return s, nil
}

// decodeWith decodes with enc and refuses output where more than 1% of the characters could
// not be decoded.
func decodeWith(enc encoding.Encoding, name string, body []byte) ([]byte, error) {
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return nil, fmt.Errorf("%w: the bytes are not valid %s: %w", ErrCharset, name, err)
	}
	if bad := bytes.Count(out, []byte("\ufffd")); bad*100 > utf8.RuneCount(out) {
		return nil, fmt.Errorf("%w: %d characters cannot be decoded as %s, the declared charset", ErrCharset, bad, name)
	}
	return out, nil
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// looksMultiByte reports whether most non-ASCII bytes come in runs, as in Shift_JIS, EUC or
// GBK text, rather than alone between ASCII letters, as in windows-1252 text.
func looksMultiByte(b []byte) bool {
	high, paired := 0, 0
	for i, c := range b {
		if c < 0x80 {
			continue
		}
		high++
		if (i > 0 && b[i-1] >= 0x80) || (i+1 < len(b) && b[i+1] >= 0x80) {
			paired++
		}
	}
	return high > 0 && paired*2 > high
}
