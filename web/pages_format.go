package web

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// humanDuration writes d in the unit a person reads: milliseconds under a second, seconds
// with one decimal under a minute, then minutes and seconds.
func humanDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "0 ms"
	case d < time.Second:
		return fmt.Sprintf("%d ms", (d+time.Millisecond/2)/time.Millisecond)
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%d min %d s", d/time.Minute, (d%time.Minute)/time.Second)
}

// noteParts is a citation's note with the hint of a quote that is not on its page taken
// apart: the closest passage is shown as what it is, not a match.
type noteParts struct {
	Text       string
	Hint       string
	Similarity string
}

// hintInNote is how the quote verifiers append the closest passage to a not-found note.
var hintInNote = regexp.MustCompile(`^(?s)(.*) \(closest passage, (\d+)% of its words, not a match: “(.*)”\)$`)

func splitNote(note string) noteParts {
	m := hintInNote.FindStringSubmatch(note)
	if m == nil {
		return noteParts{Text: note}
	}
	return noteParts{Text: m[1], Similarity: m[2], Hint: m[3]}
}

// checkSummary is what a batch's check came to, in words a person reads at a glance.
type checkSummary struct {
	// Checked counts the citations a check has looked at (not reported, or reported with a
	// seam for a person); Checkable those that can be checked at all.
	Found, NotFound, Unreachable, Waiting, Unchecked, NotCheckable, Total int
	// Mostly is true when fewer than half of the checkable citations were found.
	Mostly bool
	// Reasons count the citations not found or unreachable by what stopped them, most
	// frequent first.
	Reasons []reasonLine
}

type reasonLine struct {
	Status evidence.Status
	Reason string
	N      int
}

// urlInNote matches the URLs a note names, which differ from citation to citation: the
// page a note is "at", and other URLs (a robots.txt's origin).
var urlInNote = regexp.MustCompile(`\s*\bat https?://\S+|https?://\S+`)

// noteReason is a note's reason without the page it is at and without its hint, so that the
// same cause counts once; another URL it names (the origin whose robots.txt closes a path)
// is cut to its host, which the reason needs to be read.
func noteReason(note string) string {
	r := strings.TrimSpace(urlInNote.ReplaceAllStringFunc(splitNote(note).Text, func(m string) string {
		if !strings.HasPrefix(m, "http") {
			return ""
		}
		if u, err := url.Parse(m); err == nil && u.Host != "" {
			return u.Host
		}
		return m
	}))
	if r == "" {
		return "no reason recorded"
	}
	return r
}

// summarize counts the citations of a batch by what their checks found, from the batch's
// tallies (ledger.Store.BatchTallies).
func summarize(tallies []ledger.CitationTally) checkSummary {
	var s checkSummary
	count := map[[2]string]int{}
	for _, t := range tallies {
		s.Total += t.N
		switch t.Kind {
		case ledger.TallyFound:
			s.Found += t.N
		case ledger.TallyNotFound:
			s.NotFound += t.N
			count[[2]string{string(evidence.StatusNotFound), noteReason(t.Note)}] += t.N
		case ledger.TallyUnreachable:
			s.Unreachable += t.N
			count[[2]string{string(evidence.StatusUnreachable), noteReason(t.Note)}] += t.N
		case ledger.TallyNotCheckable:
			s.NotCheckable += t.N
		case ledger.TallyWaiting:
			s.Waiting += t.N
		default:
			s.Unchecked += t.N
		}
	}
	for k, n := range count {
		s.Reasons = append(s.Reasons, reasonLine{Status: evidence.Status(k[0]), Reason: k[1], N: n})
	}
	sort.Slice(s.Reasons, func(i, j int) bool {
		a, b := s.Reasons[i], s.Reasons[j]
		if a.N != b.N {
			return a.N > b.N
		}
		if a.Status != b.Status {
			return a.Status < b.Status
		}
		return a.Reason < b.Reason
	})
	checkable := s.Total - s.NotCheckable
	s.Mostly = checkable > 0 && s.Found*2 < checkable
	return s
}

// Checked counts the citations a check looked at.
func (s checkSummary) Checked() int { return s.Found + s.NotFound + s.Unreachable + s.Waiting }

// Checkable counts the citations that can be checked at all.
func (s checkSummary) Checkable() int { return s.Total - s.NotCheckable }
