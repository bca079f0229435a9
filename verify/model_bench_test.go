package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"evidenceledger/evidence"
)

// firstPassage finds passage [1] of a verifier's request.
var firstPassage = regexp.MustCompile(`(?m)^\[1\] (.+)$`)

// BenchmarkModelTier checks a realistic batch, the claims and quotes of
// testdata/consistency/cases.json on their corpus pages (29 citations), twice per
// iteration: with the quote check alone (the floor) and with the model tier on, against an
// instant loopback model server that cites passage [1] as its evidence and, for one
// citation in ten, has model-b disagree (so the tier escalates). It reports:
//
//   - overhead-ratio: the time of the check with the tier over the floor's;
//   - tier-us/citation: the tier's own cost per citation (the difference);
//   - calls/citation: model calls per citation (2, and 2 more on a split);
//   - tokens-ratio: the tokens of the verified check over the tokens of one unverified
//     answer, which reads the same passages as model-a and writes the claim once.
//
// go test ./verify -run '^$' -bench ModelTier -benchtime 20x
func BenchmarkModelTier(b *testing.B) {
	var cases []struct{ Name, Page, Claim, Quote string }
	if err := json.Unmarshal(readTestdata(b, "consistency/cases.json"), &cases); err != nil {
		b.Fatal(err)
	}
	site := newPageServer(b)
	chat := newChatServer(b, func(req chatSeen, n int) chatAnswer {
		if req.Role == "adjudicator" {
			return chatAnswer{Content: adjudicationJSON(false, "supported", 80, false)}
		}
		m := firstPassage.FindStringSubmatch(req.User)
		if m != nil {
			m[1] = pageSentences(m[1])[0] // a model cites a sentence, not a whole window
		}
		if m == nil {
			return chatAnswer{Content: verdictJSON("not_found", 60, "The passages do not address the claim.")}
		}
		if req.Role == NameModelB && n%10 == 0 {
			return chatAnswer{Content: verdictJSON("contradicted", 55, "The passage reads otherwise.", m[1])}
		}
		return chatAnswer{Content: verdictJSON("supported", 85, "The passage states the claim.", m[1])}
	})
	models, err := NewModels(ModelConfig{Verifier: chat.Endpoint("cheap"), Adjudicator: chat.Endpoint("big"), Timeout: 5 * time.Second}, testFetchConfig())
	if err != nil {
		b.Fatal(err)
	}
	targets := make([]evidence.CheckTarget, len(cases))
	for i, c := range cases {
		targets[i] = evidence.CheckTarget{ClaimID: fmt.Sprintf("c_%016x", i), ClaimText: c.Claim, CitationID: fmt.Sprintf("ct_%016x", i),
			URL: site.At(fmt.Sprintf("h%d.test", i), "/corpus/"+c.Page), Quote: c.Quote}
	}
	ctx := context.Background()
	var floorTime, tierTime time.Duration
	var calls, tokens, baseline int
	b.ResetTimer()
	for range b.N {
		// New checkers each round: a Fetcher's per-host budget is for one run.
		floor := NewChecker(testFetchConfig())
		tier := NewChecker(testFetchConfig()).WithModels(models)
		start := time.Now()
		for _, t := range targets {
			if _, err := floor.Check(ctx, t); err != nil {
				b.Fatal(err)
			}
		}
		floorTime += time.Since(start)
		start = time.Now()
		var outs []Outcome
		for _, t := range targets {
			out, err := tier.Check(ctx, t)
			if err != nil {
				b.Fatal(err)
			}
			outs = append(outs, out)
		}
		tierTime += time.Since(start)
		b.StopTimer()
		for i, out := range outs {
			s := out.Checked.Support
			if s == nil || s.Skipped != "" {
				b.Fatalf("%s: no support judgement: %+v", cases[i].Name, s)
			}
			for _, c := range s.Calls {
				calls++
				tokens += c.PromptTokens + c.CompletionTokens
			}
			baseline += unverifiedTokens(b, models, targets[i])
		}
		b.StartTimer()
	}
	n := float64(b.N * len(targets))
	b.ReportMetric(float64(tierTime)/float64(floorTime), "overhead-ratio")
	b.ReportMetric(float64((tierTime-floorTime).Microseconds())/n, "tier-us/citation")
	b.ReportMetric(float64(calls)/n, "calls/citation")
	b.ReportMetric(float64(tokens)/float64(baseline), "tokens-ratio")
}

// unverifiedTokens is what one unverified answer costs: a single call that reads the
// passages model-a reads (with a one-line question) and writes the claim, counted as the
// instant server counts tokens (a quarter of the bytes).
func unverifiedTokens(b *testing.B, m *Models, t evidence.CheckTarget) int {
	b.Helper()
	body := readCorpusPage(b, t.URL[strings.LastIndexByte(t.URL, '/')+1:])
	ext, err := m.first.extract(body, "text/html")
	if err != nil {
		b.Fatal(err)
	}
	passages := m.first.choose(t.ClaimText, pageSentences(ext.Body))
	prompt := "Answer from these passages of the page.\n" + strings.Join(passages, "\n")
	return quarterTokens(prompt) + quarterTokens(t.ClaimText)
}
