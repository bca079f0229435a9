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
// reason, the URLs and hints taken out so that one cause counts once. (The tallies' kinds
// come from ledger.Store.BatchTallies, tested in the batch page tests.)
func TestSummarize(t *testing.T) {
	tl := func(kind, note string, n int) ledger.CitationTally {
		return ledger.CitationTally{Kind: kind, Note: note, N: n}
	}
	cits := []ledger.CitationTally{
		tl(ledger.TallyFound, "", 1),
		tl(ledger.TallyUnreachable, "the page cannot be read: the server answered 503 Service Unavailable", 18),
		tl(ledger.TallyNotFound, "the quote is not on the page at https://b.example/ (closest passage, 50% of its words, not a match: “x”)", 1),
		tl(ledger.TallyNotFound, "the quote is not on the page at https://c.example/", 1),
		tl(ledger.TallyWaiting, "", 1),
		tl(ledger.TallyNotCheckable, "", 1),
		tl(ledger.TallyUnchecked, "", 1),
	}
	s := summarize(cits)
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
	if s := summarize(cits[:1]); s.Mostly || s.Found != s.Checkable() {
		t.Fatalf("all found: %+v", s)
	}
	if s := summarize(nil); s.Mostly || s.Checked() != 0 {
		t.Fatalf("an empty batch: %+v", s)
	}
	// The origin a robots.txt reason names is kept as its host: the reason reads whole.
	robots := summarize([]ledger.CitationTally{tl(ledger.TallyUnreachable, `robots.txt of https://blog.example:8443 closes /drafts/a to "EvidenceLedger"`, 1)})
	if len(robots.Reasons) != 1 || robots.Reasons[0].Reason != `robots.txt of blog.example:8443 closes /drafts/a to "EvidenceLedger"` {
		t.Fatalf("robots reason %+v", robots.Reasons)
	}
}
