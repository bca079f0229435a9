package ledger

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

// This file checks docs/chain.md against the program with code that shares nothing with the
// ledger's own canonicalization: handCanonical follows the page's rules literally.

// handCanonical writes v (decoded with UseNumber) by the rules of docs/chain.md.
func handCanonical(buf *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case map[string]any:
		names := make([]string, 0, len(v))
		for k := range v {
			names = append(names, k)
		}
		sort.Slice(names, func(i, j int) bool { return utf16Less(names[i], names[j]) })
		buf.WriteByte('{')
		for i, k := range names {
			if i > 0 {
				buf.WriteByte(',')
			}
			handString(buf, k)
			buf.WriteByte(':')
			if err := handCanonical(buf, v[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := handCanonical(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case string:
		handString(buf, v)
	case json.Number:
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return fmt.Errorf("not an integer: %s", v)
		}
		buf.WriteString(strconv.FormatInt(n, 10))
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	case nil:
		buf.WriteString("null")
	default:
		return fmt.Errorf("unexpected %T", v)
	}
	return nil
}

func utf16Less(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

func handString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			buf.WriteString(`\"`)
		case '\\':
			buf.WriteString(`\\`)
		case '\b':
			buf.WriteString(`\b`)
		case '\t':
			buf.WriteString(`\t`)
		case '\n':
			buf.WriteString(`\n`)
		case '\f':
			buf.WriteString(`\f`)
		case '\r':
			buf.WriteString(`\r`)
		default:
			if r < 0x20 {
				fmt.Fprintf(buf, `\u%04x`, r)
			} else {
				buf.WriteRune(r)
			}
		}
	}
	buf.WriteByte('"')
}

// handEventBytes rebuilds an exported line's canonical bytes: the line minus hash and sig.
func handEventBytes(t *testing.T, line []byte) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	delete(m, "hash")
	delete(m, "sig")
	var buf bytes.Buffer
	if err := handCanonical(&buf, m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// docBlock returns the fenced block after the marker <!-- example:NAME --> in docs/chain.md.
func docBlock(t *testing.T, doc, name string) string {
	t.Helper()
	re := regexp.MustCompile("(?s)<!-- example:" + name + " -->\n```[a-z]*\n(.*?)\n```")
	m := re.FindStringSubmatch(doc)
	if m == nil {
		t.Fatalf("docs/chain.md has no example block %q", name)
	}
	return m[1]
}

func TestChainDocWorkedExample(t *testing.T) {
	b, err := os.ReadFile("../docs/chain.md")
	if err != nil {
		t.Fatalf("read docs/chain.md: %v", err)
	}
	doc := string(b)
	line := docBlock(t, doc, "event")
	canonical := docBlock(t, doc, "canonical")
	hash := docBlock(t, doc, "hash")
	sig := docBlock(t, doc, "sig")
	seed, err := hex.DecodeString(docBlock(t, doc, "seed"))
	if err != nil || len(seed) != 32 {
		t.Fatalf("seed: %v", err)
	}

	got := handEventBytes(t, []byte(line))
	if string(got) != canonical {
		t.Fatalf("canonical bytes rebuilt by the documented rules:\n%s\nthe page says:\n%s", got, canonical)
	}
	sum := sha256.Sum256(got)
	if hex.EncodeToString(sum[:]) != hash || !strings.Contains(line, `"hash":"`+hash+`"`) {
		t.Fatalf("SHA-256 %x; the page says %s", sum, hash)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	if s := base64.StdEncoding.EncodeToString(ed25519.Sign(priv, sum[:])); s != sig || !strings.Contains(line, `"sig":"`+sig+`"`) {
		t.Fatalf("signature %s; the page says %s", s, sig)
	}

	// The program agrees with the page: its parser and hash give the same bytes, and its
	// offline audit accepts the line with the documented key.
	ev, err := ParseEvent([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := ev.canonical(); string(c) != canonical {
		t.Fatalf("the program's canonical bytes differ from the page:\n%s", c)
	}
	pub := priv.Public().(ed25519.PublicKey)
	keys := fmt.Sprintf(`{"keys":[{"id":%q,"alg":"Ed25519","public_key":%q}]}`, KeyID(pub), base64.StdEncoding.EncodeToString(pub))
	rep, err := AuditExport(context.Background(), strings.NewReader(line+"\n"), strings.NewReader(keys))
	if err != nil || !rep.OK || rep.Head != hash {
		t.Fatalf("offline audit of the worked example: %+v, %v", rep, err)
	}
}

// TestHandRebuiltHashesMatchStore rebuilds every hash of a real ledger (with payloads that
// need escaping) by the documented rules.
func TestHandRebuiltHashesMatchStore(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	payloads := []any{
		map[string]any{"quote": "He said \"no\" \\ then\tleft\n", "url": "https://example.org/a?b=1&c=<2>"},
		map[string]any{"\u20ac": 1, "\r": 2, "1": 3, "\u0080": "ctl\u007f\u0001", "\U0001F602": -9007199254740991, "\ufb33": true, "ö": nil},
		map[string]any{"nested": map[string]any{"b": []any{"x", 0, false}, "a": map[string]any{}}},
	}
	for _, p := range payloads {
		if _, err := s.recordDrafts(ctx, "user:alice", Draft{Type: "note.added", Payload: p, Blobs: [][]byte{[]byte("body")}}); err != nil {
			t.Fatal(err)
		}
	}
	var export bytes.Buffer
	if err := s.Export(ctx, &export); err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(export.Bytes()), []byte("\n")) {
		sum := sha256.Sum256(handEventBytes(t, line))
		if want := hex.EncodeToString(sum[:]); !bytes.Contains(line, []byte(`"hash":"`+want+`"`)) {
			t.Errorf("hand-rebuilt hash %s is not the stored one in %s", want, line)
		}
	}
}
