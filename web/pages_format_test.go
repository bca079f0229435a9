package web

import (
	"testing"
	"time"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

func TestHumanDuration(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{22535984 * time.Nanosecond, "23 ms"},
		{0, "0 ms"},
		{-time.Second, "0 ms"},
		{999 * time.Millisecond, "999 ms"},
		{time.Second, "1.0 s"},
		{1450 * time.Millisecond, "1.4 s"},
		{59 * time.Second, "59.0 s"},
		{time.Minute, "1 min 0 s"},
		{125*time.Second + 600*time.Millisecond, "2 min 6 s"},
		{3 * time.Hour, "180 min 0 s"},
	} {
		if got := humanDuration(tt.d); got != tt.want {
			t.Errorf("humanDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestSplitNote(t *testing.T) {
	for _, tt := range []struct {
		note string
		want noteParts
	}{
		{"the quote is not on the page at http://a.test/r (closest passage, 66% of its words, not a match: “the registry counted 4,812 companies”)",
			noteParts{Text: "the quote is not on the page at http://a.test/r", Similarity: "66", Hint: "the registry counted 4,812 companies"}},
		{"found on the page: “In 2025 the registry counted (closest passage, 1% of its words, not a match: x)”", noteParts{Text: "found on the page: “In 2025 the registry counted (closest passage, 1% of its words, not a match: x)”"}},
		{"the page cannot be read: the server answered 503", noteParts{Text: "the page cannot be read: the server answered 503"}},
		{"", noteParts{}},
	} {
		if got := splitNote(tt.note); got != tt.want {
			t.Errorf("splitNote(%q) = %+v, want %+v", tt.note, got, tt.want)
		}
	}
}

// TestSummarize: a batch where most citations could not be checked says so, with counts by
// reason, the URLs and hints taken out so that one cause counts once.
func TestSummarize(t *testing.T) {
	ct := func(status evidence.Status, url, quote, note string, seams ...string) ledger.CitationView {
		return ledger.CitationView{Status: status, URL: url, Quote: quote, Note: note, OpenSeams: append([]string{}, seams...)}
	}
	q := "the registry counted 4,812 companies"
	var cits []ledger.CitationView
	cits = append(cits, ct(evidence.StatusFound, "https://a.example/", q, "found on the page: “…”"))
	for i := 0; i < 18; i++ {
		cits = append(cits, ct(evidence.StatusUnreachable, "https://down.example/"+string(rune('a'+i)), q, "the page cannot be read: the server answered 503 Service Unavailable"))
	}
	cits = append(cits,
		ct(evidence.StatusNotFound, "https://b.example/", q, "the quote is not on the page at https://b.example/ (closest passage, 50% of its words, not a match: “x”)"),
		ct(evidence.StatusNotFound, "https://c.example/", q, "the quote is not on the page at https://c.example/"),
		ct(evidence.StatusReported, "https://d.example/", q, "the verifiers disagree", "s_1"),
		ct(evidence.StatusReported, "", q, evidence.NoteNoSource),
		ct(evidence.StatusReported, "https://e.example/", q, ""),
	)
	s := summarize(ledger.Batch{Claims: []ledger.ClaimView{{Citations: cits}}})
	if s.Total != 24 || s.Found != 1 || s.Unreachable != 18 || s.NotFound != 2 || s.Waiting != 1 || s.NotCheckable != 1 || s.Unchecked != 1 || s.Checkable() != 23 || s.Checked() != 22 {
		t.Fatalf("counts %+v", s)
	}
	if !s.Mostly {
		t.Fatal("1 of 23 found is not said to be mostly unconfirmed")
	}
	want := []reasonLine{
		{evidence.StatusUnreachable, "the page cannot be read: the server answered 503 Service Unavailable", 18},
		{evidence.StatusNotFound, "the quote is not on the page", 2},
	}
	if len(s.Reasons) != len(want) || s.Reasons[0] != want[0] || s.Reasons[1] != want[1] {
		t.Fatalf("reasons %+v, want %+v", s.Reasons, want)
	}
	if s := summarize(ledger.Batch{Claims: []ledger.ClaimView{{Citations: cits[:1]}}}); s.Mostly || s.Found != s.Checkable() {
		t.Fatalf("all found: %+v", s)
	}
	if s := summarize(ledger.Batch{}); s.Mostly || s.Checked() != 0 {
		t.Fatalf("an empty batch: %+v", s)
	}
	// The origin a robots.txt reason names is kept as its host: the reason reads whole.
	robots := summarize(ledger.Batch{Claims: []ledger.ClaimView{{Citations: []ledger.CitationView{
		ct(evidence.StatusUnreachable, "https://blog.example:8443/drafts/a", q, `robots.txt of https://blog.example:8443 closes /drafts/a to "EvidenceLedger"`)}}}})
	if len(robots.Reasons) != 1 || robots.Reasons[0].Reason != `robots.txt of blog.example:8443 closes /drafts/a to "EvidenceLedger"` {
		t.Fatalf("robots reason %+v", robots.Reasons)
	}
}
