package ledger

import (
	"crypto/ed25519"
	"encoding/hex"
	"testing"

	"github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
)

// RFC 8785 cases (from the RFC's examples and its reference test data), as the ledger's
// canonicalizer must write them.
func TestRFC8785Vectors(t *testing.T) {
	tests := []struct {
		desc, in, want string
	}{
		{
			desc: "RFC 8785 3.2.2: numbers, string escapes, literals",
			in:   `{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]}`,
			want: `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
		},
		{
			desc: "RFC 8785 3.2.3: member order by UTF-16 code units, not code points",
			in:   `{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\u000a": "Newline", "1": "One", "\u0080": "Control\u007f", "\ud83d\ude02": "Smiley", "\u00f6": "Latin Small Letter O With Diaeresis", "\ufb33": "Hebrew Letter Dalet With Dagesh", "</script>": "Browser Challenge"}`,
			want: "{\"\\n\":\"Newline\",\"\\r\":\"Carriage Return\",\"1\":\"One\",\"</script>\":\"Browser Challenge\",\"\u0080\":\"Control\u007f\",\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\",\"\U0001F602\":\"Smiley\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}",
		},
		{
			desc: "nested objects sorted at every level, arrays kept in order",
			in:   `{"1":{"f":{"f":"hi","F":5},"\n":56.0},"10":{},"":"empty","a":{},"111":[{"e":"yes","E":"no"}],"A":{}}`,
			want: `{"":"empty","1":{"\n":56,"f":{"F":5,"f":"hi"}},"10":{},"111":[{"E":"no","e":"yes"}],"A":{},"a":{}}`,
		},
		{
			desc: "no locale-aware ordering",
			in:   `{"peach":"This sorting order","péché":"is wrong according to French","pêche":"but canonicalization MUST","sin":"ignore locale"}`,
			want: `{"peach":"This sorting order","péché":"is wrong according to French","pêche":"but canonicalization MUST","sin":"ignore locale"}`,
		},
		{
			desc: "no Unicode normalization",
			in:   `{"Unnormalized Unicode":"A\u030a"}`,
			want: "{\"Unnormalized Unicode\":\"A\u030a\"}",
		},
		{
			desc: "largest safe integers",
			in:   `{"max": 9007199254740991, "min": -9007199254740991, "zero": -0}`,
			want: `{"max":9007199254740991,"min":-9007199254740991,"zero":0}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			got, err := jsoncanonicalizer.Transform([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// RFC 8032 section 7.1, TEST 1 to 3: the signatures Ed25519 must give.
func TestEd25519KnownAnswers(t *testing.T) {
	tests := []struct {
		desc, seed, pub, msg, sig string
	}{
		{
			desc: "TEST 1, empty message",
			seed: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
			pub:  "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
			msg:  "",
			sig:  "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
		},
		{
			desc: "TEST 2, one byte",
			seed: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
			pub:  "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
			msg:  "72",
			sig:  "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
		},
		{
			desc: "TEST 3, two bytes",
			seed: "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
			pub:  "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
			msg:  "af82",
			sig:  "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
		},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			seed, _ := hex.DecodeString(tt.seed)
			msg, _ := hex.DecodeString(tt.msg)
			priv := ed25519.NewKeyFromSeed(seed)
			pub := priv.Public().(ed25519.PublicKey)
			if hex.EncodeToString(pub) != tt.pub {
				t.Fatalf("public key %x, want %s", pub, tt.pub)
			}
			sig := ed25519.Sign(priv, msg)
			if hex.EncodeToString(sig) != tt.sig {
				t.Fatalf("signature %x, want %s", sig, tt.sig)
			}
			if !ed25519.Verify(pub, msg, sig) {
				t.Fatal("does not verify")
			}
			sig[0] ^= 1
			if ed25519.Verify(pub, msg, sig) {
				t.Fatal("a changed signature verifies")
			}
		})
	}
}
