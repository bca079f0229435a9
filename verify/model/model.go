// Package model is the model tiers of the verifiers (docs/models.md): two cheap model
// verifiers that judge whether a captured page supports a claim, a third for an escalation,
// and an adjudicator that compares their verdicts, each speaking the OpenAI-compatible
// chat-completions protocol to an endpoint the owner names.
//
// It sits below package verify's Checker and beside it: [Tiers] implements
// verify.SupportJudge, which the Checker declares and calls, and it reads pages through
// verify's readers (verify.ReadDOM, verify.ReadTokens), so that a model verifier reads a
// page as its quote verifier does. verify never imports it; the binary wires the two
// together (verify.NewChecker(cfg).WithModels(tiers)).
package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"evidenceledger/evidence"
	"evidenceledger/fetch"
	"evidenceledger/match"
	"evidenceledger/verify"
)

// Config configures the model tiers (docs/models.md). The tiers are off unless
// Verifier.URL is set: then nothing leaves the machine but the pages' passages sent to the
// endpoints named here.
type Config struct {
	// Verifier is the cheap tier's endpoint; its model judges every citation twice.
	Verifier Endpoint
	// Adjudicator is the expensive tier's endpoint, asked only when the verifiers split. An
	// empty URL with a model name uses the verifier's URL (and key); no model name at all
	// means no adjudicator: every split goes to a person.
	Adjudicator Endpoint
	// Timeout bounds one attempt of one call (default DefaultTimeout).
	Timeout time.Duration
	// Retries is how many times a call is retried after a 429, a 5xx, a network error or
	// a timeout (0 for none).
	Retries int
	// Budget bounds the calls and tokens of one check run.
	Budget Budget
}

// Enabled reports whether the configuration turns the model tiers on.
func (c Config) Enabled() bool { return strings.TrimSpace(c.Verifier.URL) != "" }

// Tiers is the model tier of a verify.Checker: two cheap verifiers that judge whether a
// captured page supports a claim, a third for an escalation, and the adjudicator. Build it
// with [New] and give it to verify.Checker.WithModels. It is safe for concurrent use.
//
// Isolation is by construction. Each verifier has its own chatClient, hence its own HTTP
// client and connections; each request is two messages (instructions, then the claim and
// passages) with no history; and a verifier's judge method takes only the citation and the
// page it reads, so no code can hand it another verifier's output. The adjudicator's
// compare method takes the claim text and the judgements: it holds no fetcher and receives
// no page, no passage and no URL.
type Tiers struct {
	first, second *modelVerifier
	// third builds, for each escalation, a verifier with a client and a Fetcher of its own
	// that fetches the page afresh.
	third       func() (*modelVerifier, *fetch.Fetcher)
	adjudicator *modelAdjudicator
	budget      Budget
}

// Names of the model verifiers, as recorded in each judgement (docs/models.md).
const (
	nameA = "model-a"
	nameB = "model-b"
	nameC = "model-c"
)

// pageReader reads the visible text of a fetched body: verify.ReadDOM or verify.ReadTokens.
type pageReader func(page *fetch.Result) (fetch.Text, error)

// New builds the model tier from cfg; fc is the fetch configuration of the fresh capture
// an escalation makes. It fails when an endpoint URL is not http(s) or names no model.
func New(cfg Config, fc fetch.Config) (*Tiers, error) {
	mk := func(name string, read pageReader, choose func(string, []string, []int) []string, system string) (*modelVerifier, error) {
		c, err := newChatClient(cfg.Verifier, cfg.Timeout, cfg.Retries)
		if err != nil {
			return nil, fmt.Errorf("--verifier-endpoint: %w", err)
		}
		return &modelVerifier{name: name, client: c, read: read, choose: choose, system: system}, nil
	}
	m := &Tiers{budget: cfg.Budget}
	var err error
	if m.first, err = mk(nameA, verify.ReadDOM, chooseSentences, promptA); err != nil {
		return nil, err
	}
	if m.second, err = mk(nameB, verify.ReadTokens, chooseWindows, promptB); err != nil {
		return nil, err
	}
	m.third = func() (*modelVerifier, *fetch.Fetcher) {
		v := &modelVerifier{name: nameC, client: m.first.client.clone(), read: verify.ReadDOM, choose: chooseSentences, system: promptA}
		return v, fetch.New(fc)
	}
	if a := cfg.Adjudicator; strings.TrimSpace(a.Model) != "" || strings.TrimSpace(a.URL) != "" {
		if strings.TrimSpace(a.URL) == "" {
			a.URL = cfg.Verifier.URL
			if a.APIKey == "" {
				a.APIKey = cfg.Verifier.APIKey
			}
		}
		c, err := newChatClient(a, cfg.Timeout, cfg.Retries)
		if err != nil {
			return nil, fmt.Errorf("--adjudicator-endpoint: %w", err)
		}
		m.adjudicator = &modelAdjudicator{client: c}
	}
	return m, nil
}

// Tiers is what a verify.Checker runs.
var _ verify.SupportJudge = (*Tiers)(nil)

type runKey struct{}

// BeginRun gives ctx the model budget of one check run; every JudgeSupport under it spends
// from the same budget. A judgement outside a run has a budget of its own.
func (m *Tiers) BeginRun(ctx context.Context) context.Context {
	return context.WithValue(ctx, runKey{}, newBudget(m.budget))
}

// JudgeSupport runs the tier on one citation whose page was read (see judge).
func (m *Tiers) JudgeSupport(ctx context.Context, t evidence.CheckTarget, page *fetch.Result) *evidence.Support {
	return m.judge(ctx, m.runBudget(ctx), t, page)
}

func (m *Tiers) runBudget(ctx context.Context) *budget {
	if b, ok := ctx.Value(runKey{}).(*budget); ok {
		return b
	}
	return newBudget(m.budget)
}

// modelVerifier is one cheap-tier verifier: its own client, extractor, passage selection
// and instructions.
type modelVerifier struct {
	name   string
	client *chatClient
	read   pageReader
	choose func(claim string, sentences []string, anchors []int) []string
	system string
}

// verdictSchema is the JSON schema of a verifier's answer, sent as a strict
// response_format and checked locally whatever the server does with it. It is compact: the
// four members the tier needs, a reasoning of one short sentence, and at most
// evidence.MaxEvidence evidence sentences.
var verdictSchema = json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
	`"verdict":{"type":"string","enum":["supported","contradicted","not_found"]},`+
	`"accuracy_estimate":{"type":"integer","minimum":1,"maximum":100},`+
	`"reasoning":{"type":"string","maxLength":%d},`+
	`"evidence":{"type":"array","items":{"type":"string"},"maxItems":%d}},`+
	`"required":["verdict","accuracy_estimate","reasoning","evidence"],"additionalProperties":false}`,
	evidence.MaxReasoningRunes, evidence.MaxEvidence))

// adjudicationSchema is the JSON schema of the adjudicator's answer.
var adjudicationSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"agree":{"type":"boolean"},` +
	`"verdict":{"type":"string","enum":["supported","contradicted","not_found"]},` +
	`"confidence":{"type":"integer","minimum":1,"maximum":100},` +
	`"escalate":{"type":"boolean"}},` +
	`"required":["agree","verdict","confidence","escalate"],"additionalProperties":false}`)

// The instructions are short on purpose: every token of them is paid twice per citation.
// The reply's shape is fixed by the schema sent with each request; the words below say what
// the members mean.
var answerSpec = fmt.Sprintf(`Reply in JSON. verdict: supported (the passages state the claim), contradicted (they state otherwise: another figure, date or name, the opposite, "may" for "did") or not_found (not addressed). accuracy_estimate: 1-100, how likely you are right. reasoning: one short sentence. evidence: at most %d sentences you relied on, copied exactly from the passages (none for not_found).`, evidence.MaxEvidence)

var (
	promptA = `Do these passages of a web page support the claim? Judge from them alone. ` + answerSpec
	promptB = `Fact-check sceptically: first look in the passages for what conflicts with the claim (figures, dates, names, negations, hedges), then judge from them alone. ` + answerSpec
)

const promptAdjudicator = `Compare independent verdicts about one claim. You do not see the page: do not judge the claim, weigh only the verdicts, their reasoning and the page sentences they quote. Reply in JSON. agree: the verdicts agree in substance. verdict: supported, contradicted or not_found, the one their evidence best bears out. confidence: 1-100. escalate: true when they cannot be reconciled and a person should decide.`

// verdictReply is a verifier's JSON answer as decoded; a nil member is missing.
type verdictReply struct {
	Verdict          *string      `json:"verdict"`
	AccuracyEstimate *json.Number `json:"accuracy_estimate"`
	Reasoning        *string      `json:"reasoning"`
	Evidence         *[]string    `json:"evidence"`
}

// judge asks the verifier whether page supports t's claim. It takes only the citation and
// the page the verifier itself reads. The judgement's Problem is set when the answer is off
// its schema, including when an evidence sentence is not on the page (the program looks
// for each with match.PageText.Match in the page's whole visible text).
func (v *modelVerifier) judge(ctx context.Context, b *budget, t evidence.CheckTarget, page *fetch.Result) (evidence.SupportJudgement, evidence.ModelCall) {
	j := evidence.SupportJudgement{Verifier: v.name, Model: v.client.model, Evidence: []string{}, Document: verify.PageHash(page)}
	call := evidence.ModelCall{Tier: evidence.TierVerifier, Role: v.name, Model: v.client.model}
	text, err := v.read(page)
	if err != nil && !errors.Is(err, fetch.ErrTruncated) {
		j.Problem = "the page's text cannot be read: " + verify.ReadProblem(err)
		call.Outcome = "not asked: " + j.Problem
		return j, call
	}
	pt := match.NewPageText(text.Body).InLanguage(text.Lang)
	passages := v.passages(pt, t)
	var user strings.Builder
	user.WriteString("Claim: " + t.ClaimText + "\n\nPassages from the page:\n")
	for i, p := range passages {
		fmt.Fprintf(&user, "[%d] %s\n", i+1, p)
	}
	content, u, err := v.client.complete(ctx, b, v.system, user.String(), "verdict", verdictSchema, 600)
	recordUsage(&call, u)
	if err == nil {
		err = parseVerdict(content, &j)
	}
	if err == nil {
		err = j.Validate()
	}
	if err == nil {
		err = evidenceOnPage(pt, j.Evidence)
	}
	if err != nil {
		j.Problem = err.Error()
		call.Outcome = j.Problem
		return j, call
	}
	call.Outcome = "ok"
	return j, call
}

// passages is what the verifier sends of page for t: its selection from the page's
// sentences, anchored on the sentences where t's quote is found (passages.go).
func (v *modelVerifier) passages(page *match.PageText, t evidence.CheckTarget) []string {
	sentences, spans := sentenceSpans(page.Text())
	var anchors []int
	if m, err := page.Match(t.Quote); err == nil {
		anchors = anchorSentences(spans, m)
	}
	return v.choose(t.ClaimText, sentences, anchors)
}

func parseVerdict(content string, j *evidence.SupportJudgement) error {
	var r verdictReply
	if err := decodeStrict(content, &r); err != nil {
		return err
	}
	switch {
	case r.Verdict == nil:
		return fmt.Errorf("%w: verdict is missing", errOffSchema)
	case r.Reasoning == nil:
		return fmt.Errorf("%w: reasoning is missing", errOffSchema)
	case r.Evidence == nil:
		return fmt.Errorf("%w: evidence is missing", errOffSchema)
	}
	est, err := intField("accuracy_estimate", r.AccuracyEstimate)
	if err != nil {
		return err
	}
	j.Verdict, j.AccuracyEstimate, j.Reasoning, j.Evidence = evidence.Verdict(*r.Verdict), est, *r.Reasoning, *r.Evidence
	return nil
}

// evidenceOnPage fails, matching errOffSchema, unless every evidence sentence is on the
// page: a model cannot invent evidence.
func evidenceOnPage(page *match.PageText, sentences []string) error {
	for i, s := range sentences {
		if _, err := evidence.QuoteParts(s); err != nil {
			return fmt.Errorf("%w: evidence sentence %d (%q) cannot be looked for on the page: %v", errOffSchema, i+1, s, err)
		}
		m, err := page.Match(s)
		if err != nil || !m.Found {
			return fmt.Errorf("%w: evidence sentence %d is not on the page (a model cannot invent evidence): %q", errOffSchema, i+1, s)
		}
	}
	return nil
}

func recordUsage(c *evidence.ModelCall, u usage) {
	c.PromptTokens, c.CompletionTokens = u.prompt, u.completion
	c.LatencyMS, c.Attempts = int(u.latency.Milliseconds()), u.attempts
}

// modelAdjudicator is the expensive tier: it compares verdicts and nothing else.
type modelAdjudicator struct {
	client *chatClient
}

type adjudicationReply struct {
	Agree      *bool        `json:"agree"`
	Verdict    *string      `json:"verdict"`
	Confidence *json.Number `json:"confidence"`
	Escalate   *bool        `json:"escalate"`
}

// compare asks the adjudicator to weigh the judgements about claim. It receives the claim's
// text and the judgements (verdict, estimate, reasoning, evidence sentences, problem) only.
func (a *modelAdjudicator) compare(ctx context.Context, b *budget, claim string, js []evidence.SupportJudgement) (evidence.SupportAdjudication, evidence.ModelCall) {
	ad := evidence.SupportAdjudication{Model: a.client.model}
	call := evidence.ModelCall{Tier: evidence.TierAdjudicator, Role: "adjudicator", Model: a.client.model}
	var user strings.Builder
	user.WriteString("Claim: " + claim + "\n")
	for i, j := range js {
		fmt.Fprintf(&user, "\nVerdict %d: %s (accuracy estimate %d)\nReasoning: %s\n", i+1, j.Verdict, j.AccuracyEstimate, j.Reasoning)
		if j.Problem != "" {
			fmt.Fprintf(&user, "This verdict is off its schema and does not count: %s\n", j.Problem)
		}
		for _, e := range j.Evidence {
			fmt.Fprintf(&user, "Evidence: %s\n", e)
		}
	}
	content, u, err := a.client.complete(ctx, b, promptAdjudicator, user.String(), "adjudication", adjudicationSchema, 300)
	recordUsage(&call, u)
	if err == nil {
		var r adjudicationReply
		if err = decodeStrict(content, &r); err == nil {
			switch {
			case r.Agree == nil || r.Verdict == nil || r.Escalate == nil:
				err = fmt.Errorf("%w: agree, verdict and escalate are all required", errOffSchema)
			default:
				var conf int
				if conf, err = intField("confidence", r.Confidence); err == nil {
					ad.Agree, ad.Verdict, ad.Confidence, ad.Escalate = *r.Agree, evidence.Verdict(*r.Verdict), conf, *r.Escalate
					err = ad.Validate()
				}
			}
		}
	}
	if err != nil {
		ad.Problem = err.Error()
		call.Outcome = ad.Problem
		return ad, call
	}
	call.Outcome = "ok"
	return ad, call
}

// judge runs the tier on one citation whose page was read (page is the stored capture):
//
//   - model-a and model-b judge at once; both on their schema with the same verdict: that
//     verdict decides, by code, without an adjudicator call;
//   - otherwise the tier escalates: model-c judges a fresh capture of the page, then the
//     adjudicator compares the three; its verdict decides when it is on its schema, does not
//     ask to escalate, and is the verdict of at least two judgements on their schema;
//   - otherwise nothing is decided (a split): Verdict stays empty.
//
// A budget already spent skips the tier (Skipped says so); a budget spent during the
// citation makes the calls that were refused off their schema, so the citation splits.
func (m *Tiers) judge(ctx context.Context, b *budget, t evidence.CheckTarget, page *fetch.Result) *evidence.Support {
	s := &evidence.Support{Judgements: []evidence.SupportJudgement{}, Calls: []evidence.ModelCall{}, ResidualRisk: evidence.SupportResidualRisk}
	if b.exhausted() {
		s.Skipped = fmt.Sprintf("the run's model budget (%d calls, %d tokens) is spent", b.limit.Calls, b.limit.Tokens)
		return s
	}
	js := make([]evidence.SupportJudgement, 2)
	calls := make([]evidence.ModelCall, 2)
	var wg sync.WaitGroup
	for i, v := range []*modelVerifier{m.first, m.second} {
		wg.Go(func() { js[i], calls[i] = v.judge(ctx, b, t, page) })
	}
	wg.Wait()
	s.Judgements = append(s.Judgements, js...)
	addCalls(s, calls...)
	if js[0].Problem == "" && js[1].Problem == "" && js[0].Verdict == js[1].Verdict {
		s.Verdict, s.DecidedBy = js[0].Verdict, evidence.SupportByCode
		return s
	}
	s.Escalated = true
	v, f := m.third()
	fresh, err := f.Fetch(ctx, t.URL)
	if err != nil {
		s.Judgements = append(s.Judgements, evidence.SupportJudgement{Verifier: v.name, Model: v.client.model, Evidence: []string{},
			Problem: "the fresh capture failed: " + err.Error()})
	} else {
		j, call := v.judge(ctx, b, t, fresh)
		s.Judgements = append(s.Judgements, j)
		addCalls(s, call)
	}
	if m.adjudicator == nil {
		return s
	}
	ad, call := m.adjudicator.compare(ctx, b, t.ClaimText, s.Judgements)
	s.Adjudication = &ad
	addCalls(s, call)
	held := 0
	for _, j := range s.Judgements {
		if j.Problem == "" && j.Verdict == ad.Verdict {
			held++
		}
	}
	if ad.Problem == "" && !ad.Escalate && held >= 2 {
		s.Verdict, s.DecidedBy = ad.Verdict, evidence.SupportByAdjudicator
	}
	return s
}

// addCalls records the calls that reached an endpoint (at least one attempt); a judgement
// that asked nothing (the page's text could not be read, the budget refused the call) has
// its problem but no call.
func addCalls(s *evidence.Support, calls ...evidence.ModelCall) {
	for _, c := range calls {
		if c.Attempts > 0 {
			s.Calls = append(s.Calls, c)
		}
	}
}
