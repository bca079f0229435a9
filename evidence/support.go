package evidence

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Support is the model tier's judgement of whether a captured page supports a claim,
// recorded in citation.checked beside the quote status, never instead of it. It is absent
// from the payload when the tier is off.
type Support struct {
	// Verdict is supported, contradicted or not_found (the page does not address the claim);
	// empty when nothing was decided: the verifiers split (a disagreement seam is open) or
	// the tier was skipped (Skipped says why).
	Verdict Verdict `json:"verdict,omitempty"`
	// DecidedBy is SupportByCode when both verifiers were on their schema and gave the same
	// label (no adjudicator call), SupportByAdjudicator when the adjudicator decided after
	// escalation, and empty when nothing was decided.
	DecidedBy string `json:"decided_by,omitempty"`
	// Escalated: the first two verifiers split or one was off its schema, so a third
	// verifier read a fresh capture and the adjudicator compared the three.
	Escalated bool `json:"escalated"`
	// Skipped says why the tier judged nothing (the page could not be read, the run's model
	// budget was spent); empty when it judged.
	Skipped string `json:"skipped,omitempty"`
	// Judgements holds every model verifier's answer, in the order they ran.
	Judgements []SupportJudgement `json:"judgements"`
	// Adjudication is the adjudicator's answer; nil when it was not asked.
	Adjudication *SupportAdjudication `json:"adjudication,omitempty"`
	// Calls records every model call: tier, model, tokens and latency.
	Calls []ModelCall `json:"calls"`
	// ResidualRisk says what the judgement adds and what it does not.
	ResidualRisk string `json:"residual_risk"`
}

// Who decided a Support.
const (
	SupportByCode        = "code"
	SupportByAdjudicator = "adjudicator"
)

// SupportJudgement is one model verifier's answer about a claim and a page: the verdict,
// the estimate, the reasoning, and the page's own sentences it relied on.
type SupportJudgement struct {
	Verifier         string   `json:"verifier"`
	Model            string   `json:"model"`
	Verdict          Verdict  `json:"verdict"`
	AccuracyEstimate int      `json:"accuracy_estimate"`
	Reasoning        string   `json:"reasoning"`
	Evidence         []string `json:"evidence"`
	// Document is the SHA-256 of the page body the verifier read.
	Document string `json:"document,omitempty"`
	// Problem says why the answer is off its schema; empty when it is on it. An off-schema
	// answer never decides anything.
	Problem string `json:"problem,omitempty"`
}

// SupportAdjudication is the adjudicator's answer: it compares the verdicts only.
type SupportAdjudication struct {
	Model      string  `json:"model"`
	Agree      bool    `json:"agree"`
	Verdict    Verdict `json:"verdict"`
	Confidence int     `json:"confidence"`
	Escalate   bool    `json:"escalate"`
	Problem    string  `json:"problem,omitempty"`
}

// ModelCall is one call to a model endpoint, as recorded. Tokens are those the server
// reported; LatencyMS covers every attempt, retries included.
type ModelCall struct {
	Tier             string `json:"tier"`
	Role             string `json:"role"`
	Model            string `json:"model"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
	LatencyMS        int    `json:"latency_ms"`
	Attempts         int    `json:"attempts"`
	// Outcome is "ok", or what went wrong (off its schema, no answer).
	Outcome string `json:"outcome"`
}

// The model tiers a call belongs to.
const (
	TierVerifier    = "verifier"
	TierAdjudicator = "adjudicator"
)

// SupportVerdictValid reports whether v is a verdict a support judgement may give:
// supported, contradicted or not_found (a model reads a captured page, so unreachable is
// not its to say).
func SupportVerdictValid(v Verdict) bool {
	return v == VerdictSupported || v == VerdictContradicted || v == VerdictNotFound
}

// Limits of a support judgement, which keep a verifier's reply short (each is paid for in
// tokens on every citation): at most MaxEvidence evidence sentences, and a reasoning of at
// most MaxReasoningRunes runes (one short sentence).
const (
	MaxEvidence       = 3
	MaxReasoningRunes = 300
)

// Validate reports a judgement off its schema: a verdict that is not supported,
// contradicted or not_found, an estimate outside 1..100, an empty reasoning or one longer
// than MaxReasoningRunes, more than
// MaxEvidence evidence sentences or an empty one, or a supported or contradicted verdict
// that cites no evidence. The error matches [ErrOffSchema]. Whether the evidence is on
// the page is for the caller, who holds the page.
func (j SupportJudgement) Validate() error {
	var problems []string
	if !SupportVerdictValid(j.Verdict) {
		problems = append(problems, fmt.Sprintf("verdict %q is not supported, contradicted or not_found", j.Verdict))
	}
	if j.AccuracyEstimate < 1 || j.AccuracyEstimate > 100 {
		problems = append(problems, fmt.Sprintf("accuracy_estimate %d is outside 1..100", j.AccuracyEstimate))
	}
	if strings.TrimSpace(j.Reasoning) == "" {
		problems = append(problems, "reasoning is empty")
	}
	if n := utf8.RuneCountInString(j.Reasoning); n > MaxReasoningRunes {
		problems = append(problems, fmt.Sprintf("reasoning of %d characters, more than %d", n, MaxReasoningRunes))
	}
	if len(j.Evidence) > MaxEvidence {
		problems = append(problems, fmt.Sprintf("%d evidence sentences, more than %d", len(j.Evidence), MaxEvidence))
	}
	for i, e := range j.Evidence {
		if strings.TrimSpace(e) == "" {
			problems = append(problems, fmt.Sprintf("evidence sentence %d is empty", i+1))
		}
	}
	if (j.Verdict == VerdictSupported || j.Verdict == VerdictContradicted) && len(j.Evidence) == 0 {
		problems = append(problems, "a "+string(j.Verdict)+" verdict cites no evidence from the page")
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s: %s", ErrOffSchema, j.Verifier, strings.Join(problems, "; "))
}

// Validate reports an adjudication off its schema: a verdict that is not supported,
// contradicted or not_found, or a confidence outside 1..100. The error matches
// [ErrOffSchema].
func (a SupportAdjudication) Validate() error {
	var problems []string
	if !SupportVerdictValid(a.Verdict) {
		problems = append(problems, fmt.Sprintf("verdict %q is not supported, contradicted or not_found", a.Verdict))
	}
	if a.Confidence < 1 || a.Confidence > 100 {
		problems = append(problems, fmt.Sprintf("confidence %d is outside 1..100", a.Confidence))
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%w: adjudicator: %s", ErrOffSchema, strings.Join(problems, "; "))
}

// SupportResidualRisk is the residual-risk statement of every support judgement: what a
// model verdict adds and what it does not.
const SupportResidualRisk = "Model verifiers read passages of the page and judged whether those words support the claim; every sentence they cited was found on the stored page by the program itself. That adds a reading of the claim against the page's words, not a proof: two models can both be wrong in the same way, they saw only the passages chosen for them, the page may be wrong or out of date, and a sentence being on the page does not show it means what the models say. A person weighs any contradiction or split."
