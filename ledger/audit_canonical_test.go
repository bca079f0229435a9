package ledger

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
)

// TestCanonicalJSON checks the audit's shortcut against hand-picked forms; every form it
// accepts must also come back unchanged from jsoncanonicalizer.Transform.
func TestCanonicalJSON(t *testing.T) {
	tests := []struct {
		desc string
		raw  string
		want bool
	}{
		{"a payload as Record stores it", `{"accuracy":97,"citation":"c-1","note":"The page says: “the words”","status":"found_at_source"}`, true},
		{"empty object", `{}`, true},
		{"empty array at the top", `[]`, true},
		{"nested arrays and objects", `{"a":[1,{"b":null,"c":[true,false]}],"b":{}}`, true},
		{"blob list", `{"blobs":["0a1b"],"page":"p"}`, true},
		{"the seven short escapes", `{"s":"\"\\\b\f\n\r\t"}`, true},
		{"other control characters in lowercase hex", `{"s":"\u0000\u001f\u000b"}`, true},
		{"slash and DEL as they are", "{\"s\":\"a/b\x7f\"}", true},
		{"invalid UTF-8 inside a value is copied as it is", "{\"s\":\"\xff\xfe\"}", true},
		{"largest integer of 15 digits", `{"n":-999999999999999}`, true},
		{"zero", `{"n":0}`, true},
		{"members out of order", `{"b":1,"a":2}`, false},
		{"a member twice", `{"a":1,"a":1}`, false},
		{"a name that is the prefix of the one before", `{"ab":1,"a":2}`, false},
		{"whitespace after a colon", `{"a": 1}`, false},
		{"whitespace around the object", ` {"a":1}`, false},
		{"trailing newline", "{\"a\":1}\n", false},
		{"minus zero", `{"n":-0}`, false},
		{"leading zero", `{"n":01}`, false},
		{"a fraction", `{"n":1.0}`, false},
		{"an exponent", `{"n":1e2}`, false},
		{"16 digits", `{"n":1000000000000000}`, false},
		{"uppercase hex escape", `{"s":"\u001F"}`, false},
		{"escaped slash", `{"s":"a\/b"}`, false},
		{"escaped letter", `{"s":"\u0041"}`, false},
		{"long form of a short escape", `{"s":"\u000a"}`, false},
		{"surrogate pair escape", `{"s":"\ud83d\ude00"}`, false},
		{"raw control character", "{\"s\":\"a\tb\"}", false},
		{"non-ASCII member name", `{"é":1}`, false},
		{"escape in a member name", `{"a\"":1}`, false},
		{"a string at the top", `"a"`, false},
		{"a number at the top", `1`, false},
		{"unterminated string", `{"a":"b`, false},
		{"unterminated object", `{"a":1`, false},
		{"trailing comma", `{"a":1,}`, false},
		{"misspelled literal", `{"a":nul}`, false},
		{"literal run on", `{"a":truex}`, false},
		{"empty input", ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			if got := canonicalJSON([]byte(tt.raw)); got != tt.want {
				t.Fatalf("canonicalJSON(%q) = %v, want %v", tt.raw, got, tt.want)
			}
			if tt.want {
				mustTransformUnchanged(t, []byte(tt.raw))
			}
		})
	}
	deep := bytes.Repeat([]byte("["), maxCanonicalDepth+2)
	deep = append(deep, bytes.Repeat([]byte("]"), maxCanonicalDepth+2)...)
	if canonicalJSON(deep) {
		t.Errorf("nesting deeper than %d accepted", maxCanonicalDepth)
	}
}

func mustTransformUnchanged(t *testing.T, raw []byte) {
	t.Helper()
	got, err := jsoncanonicalizer.Transform(raw)
	if err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("canonicalJSON accepted %q, but Transform gives %q, %v", raw, got, err)
	}
}

// FuzzCanonicalJSON: whatever canonicalJSON accepts, Transform returns unchanged.
func FuzzCanonicalJSON(f *testing.F) {
	entries, err := os.ReadDir(filepath.Join(testdataDir, "payloads"))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		f.Add(readTestdata(f, filepath.Join("payloads", e.Name())))
	}
	for _, line := range bytes.Split(bytes.TrimSpace(readTestdata(f, "export.jsonl")), []byte("\n")) {
		ev, err := ParseEvent(line)
		if err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(ev.Payload))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if canonicalJSON(raw) {
			mustTransformUnchanged(t, raw)
		}
	})
}

// TestCanonicalJSONTakesStoredPayloads: every payload of the test data export, as Record
// stored it, takes the shortcut.
func TestCanonicalJSONTakesStoredPayloads(t *testing.T) {
	for _, line := range bytes.Split(bytes.TrimSpace(readTestdata(t, "export.jsonl")), []byte("\n")) {
		ev, err := ParseEvent(line)
		if err != nil {
			t.Fatal(err)
		}
		if !canonicalJSON(ev.Payload) {
			t.Errorf("event %d: stored payload %s not taken as canonical", ev.Seq, ev.Payload)
		}
	}
}
