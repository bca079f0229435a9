package model

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
	"evidenceledger/match"
)

// modelSeeds returns the recorded replies of testdata/models.
func modelSeeds(t testing.TB) [][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(testdataDir, "models", "*-response.json"))
	if err != nil || len(names) < 4 {
		t.Fatalf("the recorded replies must be in %s/models: %v (%d found)", testdataDir, err, len(names))
	}
	var out [][]byte
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// FuzzModelReply: whatever a server sends with a 200, readReply either refuses it (off its
// schema) or returns non-empty content, and token counts never go negative; whatever the
// content, an answer that passes every check is a valid verdict whose every evidence
// sentence is on the page.
func FuzzModelReply(f *testing.F) {
	page, err := fetch.ExtractDOM([]byte(supportedHTML), "text/html")
	if err != nil {
		f.Fatal(err)
	}
	good := verdictJSON("supported", 90, "ok", reportSentence)
	for _, b := range modelSeeds(f) {
		f.Add(b, good)
	}
	f.Add([]byte(`{"choices":[{"message":{"content":"x"},"finish_reason":"stop"}],"usage":{"prompt_tokens":-5}}`), `{"verdict":"supported"}`)
	f.Add([]byte(`{}`), verdictJSON("contradicted", 1, "r", "The chair said: “We expect growth to continue — slowly.”"))
	f.Fuzz(func(t *testing.T, body []byte, content string) {
		var u usage
		got, err := readReply(body, &u)
		switch {
		case err != nil && !errors.Is(err, errOffSchema):
			t.Fatalf("readReply error %v does not mark the reply off its schema", err)
		case err == nil && strings.TrimSpace(got) == "":
			t.Fatal("readReply accepted empty content")
		case u.prompt < 0 || u.completion < 0:
			t.Fatalf("negative token counts %+v", u)
		}
		j := evidence.SupportJudgement{Verifier: nameA}
		err = parseVerdict(content, &j)
		if err == nil {
			err = j.Validate()
		}
		if err == nil {
			err = evidenceOnPage(match.NewPageText(page.Body), j.Evidence)
		}
		if err != nil {
			return
		}
		if !evidence.SupportVerdictValid(j.Verdict) || j.AccuracyEstimate < 1 || j.AccuracyEstimate > 100 || len(j.Evidence) > evidence.MaxEvidence {
			t.Fatalf("an accepted answer is off its schema: %+v", j)
		}
		for _, e := range j.Evidence {
			if _, err := evidence.QuoteParts(e); err != nil {
				t.Fatalf("accepted evidence %q is not a checkable quote: %v", e, err)
			}
			if m, err := match.Quote(page.Body, e); err != nil || !m.Found {
				t.Fatalf("accepted evidence %q is not on the page", e)
			}
		}
	})
}

// The limits of a reply: the body size, the number of evidence sentences.
func TestModelReplyLimits(t *testing.T) {
	content := verdictJSON("supported", 90, "ok", reportSentence)
	body := completion(t, content, "", 10, 10)
	pad := func(n int) []byte { // a reply of exactly n bytes: spaces after the JSON are allowed
		return []byte(body + strings.Repeat(" ", n-len(body)))
	}
	var u usage
	if got, err := readReply(pad(maxReply), &u); err != nil || got != content {
		t.Errorf("a reply of exactly %d bytes: %q, %v", maxReply, got, err)
	}
	if _, err := readReply(pad(maxReply+1), &u); !errors.Is(err, errOffSchema) || !strings.Contains(err.Error(), "over") {
		t.Errorf("a reply of %d bytes: %v, want off its schema", maxReply+1, err)
	}
	most := make([]string, evidence.MaxEvidence)
	for i := range most {
		most[i] = reportSentence
	}
	j := evidence.SupportJudgement{Verifier: nameA, Verdict: evidence.VerdictSupported, AccuracyEstimate: 90, Reasoning: "ok", Evidence: most}
	if err := j.Validate(); err != nil {
		t.Errorf("%d evidence sentences: %v", evidence.MaxEvidence, err)
	}
	j.Evidence = append(j.Evidence, reportSentence)
	if err := j.Validate(); !errors.Is(err, evidence.ErrOffSchema) {
		t.Errorf("%d evidence sentences: %v, want off its schema", len(j.Evidence), err)
	}
	// The reasoning: MaxReasoningRunes runes (of several bytes each) pass, one more does
	// not.
	j.Evidence = most
	j.Reasoning = strings.Repeat("é", evidence.MaxReasoningRunes)
	if err := j.Validate(); err != nil {
		t.Errorf("a reasoning of %d runes: %v", evidence.MaxReasoningRunes, err)
	}
	j.Reasoning += "é"
	if err := j.Validate(); !errors.Is(err, evidence.ErrOffSchema) || !strings.Contains(err.Error(), "reasoning of") {
		t.Errorf("a reasoning of %d runes: %v, want off its schema", evidence.MaxReasoningRunes+1, err)
	}
	for _, est := range []int{0, 101} {
		j := evidence.SupportJudgement{Verifier: nameA, Verdict: evidence.VerdictNotFound, AccuracyEstimate: est, Reasoning: "r"}
		if err := j.Validate(); err == nil {
			t.Errorf("estimate %d passed", est)
		}
	}
	a := evidence.SupportAdjudication{Verdict: evidence.VerdictUnreachable, Confidence: 0}
	if err := a.Validate(); err == nil || !strings.Contains(err.Error(), "confidence 0") || !strings.Contains(err.Error(), `"unreachable"`) {
		t.Errorf("adjudication %+v: %v", a, err)
	}
	// Passages stop at maxSentences sentences and maxPassageRunes runes, with and without
	// an anchor.
	var sentences []string
	for i := range 40 {
		sentences = append(sentences, "The registry counted companies in the year "+strings.Repeat("x", i)+".")
	}
	for name, choose := range map[string]func(string, []string, []int) []string{"sentences": chooseSentences, "windows": chooseWindows} {
		for _, anchors := range [][]int{nil, {20}} {
			got := choose("The registry counted companies.", sentences, anchors)
			n, runes := 0, 0
			for _, p := range got {
				n += len(pageSentences(p))
				runes += len([]rune(p))
			}
			if n == 0 || n > maxSentences || runes > maxPassageRunes {
				t.Errorf("%s, anchors %v: %d passages, %d sentences, %d runes; want 1 to %d sentences within %d runes", name, anchors, len(got), n, runes, maxSentences, maxPassageRunes)
			}
			if anchors != nil && !strings.Contains(strings.Join(got, " "), sentences[20]) {
				t.Errorf("%s: the anchor sentence is not sent: %q", name, got)
			}
		}
	}
}
