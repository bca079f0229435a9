package model

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
	"evidenceledger/fetch/fetchtest"
	"evidenceledger/match"
	"evidenceledger/verify"
)

// firstPassage finds passage [1] of a verifier's request.
var firstPassage = regexp.MustCompile(`(?m)^\[1\] (.+)$`)

// BenchmarkModelTier checks a realistic batch, the claims and quotes of
// testdata/consistency/cases.json on their corpus pages (31 citations), twice per
// iteration: with the quote check alone (the floor) and with the model tier on, against an
// instant loopback model server that cites passage [1] as its evidence and, for one
// citation in ten, has model-b disagree (so the tier escalates). It reports:
//
//   - overhead-ratio: the time of the check with the tier over the floor's;
//   - tier-us/citation: the tier's own cost per citation (the difference);
//   - calls/citation: model calls per citation (2, and 2 more on a split);
//   - tier-tokens/citation and unverified-tokens/citation: the two sides of tokens-ratio;
//   - tokens-ratio: the tokens of the verified check over the tokens of one unverified
//     answer (unverifiedTokens), which reads what one reader of the page takes and writes
//     the claim with its quote and URL;
//   - tokens-ratio-claim-only: the same against an unverified answer that writes the claim
//     alone (a lower bound of its work).
//
// go test ./verify/model -run '^$' -bench ModelTier -benchtime 20x
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
		if req.Role == nameB && n%10 == 0 {
			return chatAnswer{Content: verdictJSON("contradicted", 55, "The passage reads otherwise.", m[1])}
		}
		return chatAnswer{Content: verdictJSON("supported", 85, "The passage states the claim.", m[1])}
	})
	models, err := New(Config{Verifier: chat.Endpoint("cheap"), Adjudicator: chat.Endpoint("big"), Timeout: 5 * time.Second}, fetchtest.Config())
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
	var calls, tokens, baseline, claimOnly int
	b.ResetTimer()
	for range b.N {
		// New checkers each round: a Fetcher's per-host budget is for one run.
		floor := verify.NewChecker(fetchtest.Config())
		tier := verify.NewChecker(fetchtest.Config()).WithModels(models)
		start := time.Now()
		for _, t := range targets {
			if _, err := floor.Check(ctx, t); err != nil {
				b.Fatal(err)
			}
		}
		floorTime += time.Since(start)
		start = time.Now()
		var outs []verify.Outcome
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
			read, written := unverifiedTokens(b, models, targets[i])
			baseline += read + written
			claimOnly += read + quarterTokens(targets[i].ClaimText)
		}
		b.StartTimer()
	}
	n := float64(b.N * len(targets))
	b.ReportMetric(float64(tierTime)/float64(floorTime), "overhead-ratio")
	b.ReportMetric(float64((tierTime-floorTime).Microseconds())/n, "tier-us/citation")
	b.ReportMetric(float64(calls)/n, "calls/citation")
	b.ReportMetric(float64(tokens)/n, "tier-tokens/citation")
	b.ReportMetric(float64(baseline)/n, "unverified-tokens/citation")
	b.ReportMetric(float64(tokens)/float64(baseline), "tokens-ratio")
	b.ReportMetric(float64(tokens)/float64(claimOnly), "tokens-ratio-claim-only")
}

// readerBudget is what one unverified reader of a page takes: twice a verifier's
// selection (14 sentences, 4,000 runes), so that the two verifiers together read about what
// it reads.
var readerBudget = passageBudget{sentences: 2 * maxSentences, runes: 2 * maxPassageRunes}

// unverifiedTokens is what one unverified answer costs, counted as the instant server
// counts tokens (a quarter of the bytes): a single call that reads, after a one-line
// question, the passages one reader of the page takes (model-a's scoring and anchors, with
// readerBudget), and writes its answer: the claim with its quote and URL, as research
// cites it.
func unverifiedTokens(b *testing.B, m *Tiers, t evidence.CheckTarget) (read, written int) {
	b.Helper()
	body := readCorpusPage(b, t.URL[strings.LastIndexByte(t.URL, '/')+1:])
	ext, err := m.first.read(&fetch.Result{Body: body, ContentType: "text/html"})
	if err != nil {
		b.Fatal(err)
	}
	sentences, spans := sentenceSpans(ext.Body)
	var anchors []int
	if match, err := match.Quote(ext.Body, t.Quote); err == nil {
		anchors = anchorSentences(spans, match)
	}
	forced, cands := sentenceCandidates(t.ClaimText, sentences, anchors)
	passages := pick(sentences, forced, cands, readerBudget)
	prompt := "Answer from these passages of the page.\n" + strings.Join(passages, "\n")
	return quarterTokens(prompt), quarterTokens(t.ClaimText + "\n“" + t.Quote + "”\n" + t.URL)
}
