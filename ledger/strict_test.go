package ledger

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"
)

// TestExportAuditIsStrict feeds the offline audit export lines that docs/chain.md rules out,
// or that another RFC 8785 implementation would hash differently; each must fail at its seq.
// Several of them hash and verify under a lenient reader (the last "payload" of a line, a
// sig whose padding bits are set), which is why they must be refused rather than read.
func TestExportAuditIsStrict(t *testing.T) {
	s, _ := buildLedger(t)
	_, keys := keysOf(t, s)
	lines := strings.SplitAfter(string(exportOf(t, s)), "\n")
	six := strings.TrimSuffix(lines[5], "\n")
	if !strings.Contains(six, `"n":2`) {
		t.Fatalf("line 6 is not the note n=2: %s", six)
	}
	ev, err := ParseEvent([]byte(six))
	if err != nil {
		t.Fatal(err)
	}
	// The sig's second-to-last character carries 2 bits of data and 4 padding bits: setting
	// a padding bit spells the same 64 bytes differently.
	sig := ev.Sig
	alphabet := "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	c := strings.IndexByte(alphabet, sig[85])
	loose := sig[:85] + string(alphabet[c|1]) + sig[86:]
	if c&1 == 1 {
		loose = sig[:85] + string(alphabet[c&^1]) + sig[86:]
	}
	if a, _ := base64.StdEncoding.DecodeString(sig); true {
		b, err := base64.StdEncoding.DecodeString(loose)
		if err != nil || !bytes.Equal(a, b) {
			t.Fatalf("the loose sig does not decode to the same bytes leniently: %v", err)
		}
	}
	cases := []struct{ desc, line, words string }{
		{"a float in the payload", strings.Replace(six, `"n":2`, `"n":2.0`, 1), "only integers"},
		{"an exponent in the payload", strings.Replace(six, `"n":2`, `"n":2e0`, 1), "only integers"},
		{"an integer beyond 2^53", strings.Replace(six, `"n":2`, `"n":9007199254740993`, 1), "beyond"},
		{"a seq beyond 2^53", strings.Replace(six, `"seq":6`, `"seq":9007199254740998`, 1), "beyond"},
		{"a lone high surrogate", strings.Replace(six, `note <&>`, `note \ud800 <&>`, 1), "RFC 8785"},
		{"a lone low surrogate", strings.Replace(six, `note <&>`, `note \udc00 <&>`, 1), "RFC 8785"},
		{"invalid UTF-8", strings.Replace(six, `note <&>`, "note \xff <&>", 1), "RFC 8785"},
		{"a duplicate payload, the last one genuine", strings.Replace(six, `"payload":`, `"payload":{"n":99},"payload":`, 1), "RFC 8785"},
		{"a duplicate member inside the payload", strings.Replace(six, `"n":2`, `"n":2,"n":2`, 1), "RFC 8785"},
		{"a duplicate seq", strings.Replace(six, `"seq":6`, `"seq":6,"seq":6`, 1), "RFC 8785"},
		{"a sig with its padding bits set", strings.Replace(six, sig, loose, 1), "canonical standard base64"},
		{"a sig without padding", strings.Replace(six, sig, strings.TrimRight(sig, "="), 1), "canonical standard base64"},
		{"an uppercase hash", strings.Replace(six, ev.Hash, strings.ToUpper(ev.Hash), 1), "lowercase hex"},
		{"two values on a line", six + ` {}`, "more than one"},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			if tc.line == six {
				t.Fatal("the case changes nothing")
			}
			export := strings.Join(lines[:5], "") + tc.line + "\n" + strings.Join(lines[6:], "")
			rep, err := AuditExport(context.Background(), strings.NewReader(export), bytes.NewReader(keys))
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK || rep.Problems[0].Seq != 6 || !strings.Contains(rep.Problems[0].Problem, tc.words) {
				t.Fatalf("got %+v; want the first problem at 6 with %q", rep.Problems, tc.words)
			}
		})
	}
}

// TestCheckStrictJSON: the table of what the strict reader takes and refuses.
func TestCheckStrictJSON(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{`{"a":1,"b":[1,-2,{"c":"é\u00e9😀"}],"d":null,"e":true}`, true},
		{`{"a":9007199254740991,"b":-9007199254740991}`, true},
		{`{"a":"\ud83d\ude00"}`, true}, // a surrogate pair is a valid escape
		{`{"a":-0}`, true},
		{`{"a":9007199254740992}`, false},
		{`{"a":1.5}`, false},
		{`{"a":1E2}`, false},
		{`{"a":"\ud83d"}`, false},
		{`{"a":"\ude00\ud83d"}`, false},
		{"{\"a\":\"\xc3\x28\"}", false},
		{"{\"a\xff\":1}", false},
		{`{"a":1,"a":1}`, false},
		{`{"x":{"a":1,"a":2}}`, false},
		{`{"a":1}{"a":1}`, false},
		{`{"a":1`, false},
		{``, false},
	} {
		if err := checkStrictJSON([]byte(c.in)); (err == nil) != c.ok {
			t.Errorf("checkStrictJSON(%q) = %v, want ok %v", c.in, err, c.ok)
		}
	}
}
