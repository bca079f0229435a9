package evidence

import (
	"errors"
	"strings"
	"testing"
)

func TestClaimStatus(t *testing.T) {
	tests := []struct {
		desc string
		in   []Status
		want Status
	}{
		{"no citations stay reported", nil, StatusReported},
		{"all reported", []Status{StatusReported, StatusReported}, StatusReported},
		{"one found among failures is enough", []Status{StatusNotFound, StatusUnreachable, StatusFound}, StatusFound},
		{"found wins over reported", []Status{StatusReported, StatusFound}, StatusFound},
		{"not found wins over unreachable", []Status{StatusUnreachable, StatusNotFound}, StatusNotFound},
		{"not found wins over a quote that cannot be checked", []Status{StatusReported, StatusNotFound}, StatusNotFound},
		{"unreachable wins over reported", []Status{StatusReported, StatusUnreachable}, StatusUnreachable},
		{"unknown statuses count as reported", []Status{"verified", "bogus"}, StatusReported},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			if got := ClaimStatus(tt.in); got != tt.want {
				t.Errorf("ClaimStatus(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCitationNote(t *testing.T) {
	tests := []struct {
		desc, url, quote, want string
	}{
		{"checkable", "https://example.org/a", "revenue rose by four percent", ""},
		{"no url", "", "revenue rose by four percent", NoteNoSource},
		{"blank url", "   ", "", NoteNoSource},
		{"ftp url", "ftp://example.org/report.pdf", "revenue rose by four percent", NoteNotHTTP},
		{"javascript url", "javascript:alert(1)", "revenue rose by four percent", NoteNotHTTP},
		{"scheme without host", "https:///path", "revenue rose by four percent", NoteNotHTTP},
		{"url without scheme", "www.example.org/a", "revenue rose by four percent", NoteNotHTTP},
		{"upper-case scheme is http", "HTTPS://EXAMPLE.ORG/", "revenue rose by four percent", ""},
		{"empty quote", "https://example.org/a", "", NoteNoQuote},
		{"eleven runes", "https://example.org/a", "abcdefghijk", NoteNoQuote},
		{"twelve letters in two words", "https://example.org/a", "abcdef ghijkl", ""},
		{"twelve letters in one word", "https://example.org/a", "abcdefghijkl", NoteNoQuote},
		{"punctuation does not count", "https://example.org/a", "It costs $499", NoteNoQuote},
		{"twelve dots", "https://example.org/a", "............", NoteNoQuote},
		{"a part between ellipses too short", "https://example.org/a", "n 2025 ... 4,812",
			NoteNoQuote + `: the part "n 2025" between ellipses has 5 letters or digits, fewer than 12`},
		{"a part that is one word", "https://example.org/a", "the minister said … internationally",
			NoteNoQuote + `: the part "internationally" between ellipses is a single word`},
		{"more parts than MaxQuoteParts", "https://example.org/a", strings.Repeat("the cat sat on a mat … ", 9),
			"not looked for: the quote has 9 parts between ellipses and at most 8 are looked for; cite the passages as separate quotes"},
		{"a Japanese sentence with a Latin word is not split into words", "https://example.org/a", "トレンドマイクロは無料のWi-Fiアプリ", ""},
		{"whitespace does not count", "https://example.org/a", "   abcdefghijk   ", NoteNoQuote},
		{"runes not bytes: eleven accented letters", "https://example.org/a", "ééééééééééé", NoteNoQuote},
		{"runes not bytes: twelve CJK characters", "https://example.org/a", "谷歌在2014年收购了深度思", ""},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			got := CitationNote(tt.url, tt.quote)
			if got != tt.want {
				t.Errorf("CitationNote(%q, %q) = %q, want %q", tt.url, tt.quote, got, tt.want)
			}
			c := Citation{URL: tt.url, Quote: tt.quote}
			if c.Checkable() != (tt.want == "") {
				t.Errorf("Checkable() = %v, want %v", c.Checkable(), tt.want == "")
			}
		})
	}
}

func TestVerifierResultValidate(t *testing.T) {
	tests := []struct {
		desc      string
		in        VerifierResult
		wantParts []string // empty: valid
	}{
		{"valid", VerifierResult{VerdictSupported, 90, "quote found verbatim", "fetch-a"}, nil},
		{"edges of the estimate are valid", VerifierResult{VerdictNotFound, 1, "absent", "fetch-b"}, nil},
		{"hundred is valid", VerifierResult{VerdictUnreachable, 100, "timeout", "fetch-b"}, nil},
		{"unknown verdict", VerifierResult{"probably", 50, "looks right", "fetch-a"}, []string{`verdict "probably"`}},
		{"empty verdict", VerifierResult{"", 50, "x", "fetch-a"}, []string{`verdict ""`}},
		{"verdict case matters", VerifierResult{"Supported", 50, "x", "fetch-a"}, []string{`verdict "Supported"`}},
		{"estimate zero", VerifierResult{VerdictSupported, 0, "x", "fetch-a"}, []string{"accuracy_estimate 0"}},
		{"estimate above range", VerifierResult{VerdictSupported, 101, "x", "fetch-a"}, []string{"accuracy_estimate 101"}},
		{"negative estimate", VerifierResult{VerdictSupported, -5, "x", "fetch-a"}, []string{"accuracy_estimate -5"}},
		{"blank reasoning", VerifierResult{VerdictSupported, 80, " \n\t", "fetch-a"}, []string{"reasoning is empty"}},
		{"everything wrong at once", VerifierResult{"yes", 900, "", ""}, []string{`verdict "yes"`, "accuracy_estimate 900", "reasoning is empty", "unnamed verifier"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			err := tt.in.Validate()
			if len(tt.wantParts) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrOffSchema) {
				t.Fatalf("Validate() = %v, want an error matching ErrOffSchema", err)
			}
			for _, p := range tt.wantParts {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("error %q does not mention %q", err, p)
				}
			}
		})
	}
}

func TestEnumsValid(t *testing.T) {
	for _, s := range []Status{StatusReported, StatusFound, StatusNotFound, StatusUnreachable} {
		if !s.Valid() {
			t.Errorf("%q not valid", s)
		}
	}
	for _, c := range []SourceClass{ClassPrimary, ClassSemi, ClassLead} {
		if !c.Valid() {
			t.Errorf("%q not valid", c)
		}
	}
	for _, k := range []SeamKind{SeamContradiction, SeamDisagreement, SeamManual, SeamAbsence} {
		if !k.Valid() {
			t.Errorf("%q not valid", k)
		}
	}
	for _, s := range []SeamState{SeamOpen, SeamResolved} {
		if !s.Valid() {
			t.Errorf("%q not valid", s)
		}
	}
	for _, v := range []Verdict{VerdictSupported, VerdictContradicted, VerdictNotFound, VerdictUnreachable} {
		if !v.Valid() {
			t.Errorf("%q not valid", v)
		}
	}
	if Status("found").Valid() || SourceClass("Primary").Valid() || SeamKind("other").Valid() ||
		SeamState("closed").Valid() || Verdict("").Valid() {
		t.Error("an unknown value was accepted as valid")
	}
}
