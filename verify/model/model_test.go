package model

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"evidenceledger/evidence"
	"evidenceledger/fetch/fetchtest"
	"evidenceledger/match"
	"evidenceledger/verify"
)

// The page the model tests check: /report of the loopback site (supportedHTML).
const (
	reportClaim    = "The registry counted 4,812 companies in 2025."
	reportQuote    = "the registry counted 4,812 companies"
	reportSentence = "In 2025 the registry counted 4,812 companies, up from 4,500 the year before."
)

// tierChecker returns a Checker with the model tier on, both tiers served by chat.
func tierChecker(t *testing.T, chat *chatServer, tune func(*Config)) *verify.Checker {
	t.Helper()
	return verify.NewChecker(fetchtest.Config()).WithModels(newTiers(t, chat, tune))
}

// newTiers returns the model tier, both tiers served by chat, retrying after a short wait.
func newTiers(t *testing.T, chat *chatServer, tune func(*Config)) *Tiers {
	t.Helper()
	cfg := Config{Verifier: chat.Endpoint("cheap"), Adjudicator: chat.Endpoint("big"), Timeout: time.Hour, Retries: 1} // no limit of its own: a test of the limit sets one
	if tune != nil {
		tune(&cfg)
	}
	m, err := New(cfg, fetchtest.Config())
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []*modelVerifier{m.first, m.second} {
		v.client.backoff = 50 * time.Millisecond
	}
	return m
}

// agreeing answers every verifier with the same content, and the adjudicator with adj.
func scripted(a, b, c, adj string) func(chatSeen, int) chatAnswer {
	return func(req chatSeen, n int) chatAnswer {
		switch {
		case req.Role == nameA && n == 1:
			return chatAnswer{Content: a}
		case req.Role == nameA:
			return chatAnswer{Content: c}
		case req.Role == nameB:
			return chatAnswer{Content: b}
		}
		return chatAnswer{Content: adj}
	}
}

func checkWithTier(t *testing.T, c *verify.Checker, site *pageServer, claim, quote string) verify.Outcome {
	t.Helper()
	tg := evidence.CheckTarget{ClaimID: "c_0000000000000001", ClaimText: claim, CitationID: "ct_0000000000000001",
		URL: site.At("example.test", "/report"), Quote: quote}
	out, err := c.Check(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func roles(s *evidence.Support) []string {
	var out []string
	for _, c := range s.Calls {
		out = append(out, c.Role)
	}
	return out
}

func TestModelTierVerdicts(t *testing.T) {
	supported := verdictJSON("supported", 90, "The page gives the count for 2025.", reportSentence)
	tests := []struct {
		desc         string
		claim, quote string
		a, b         string
		wantSupport  evidence.Verdict
		wantStatus   evidence.Status
		wantSeam     evidence.SeamKind
		wantInSeam   string
	}{
		{"both supported: decided by code, two calls, no seam", reportClaim, reportQuote, supported, supported,
			evidence.VerdictSupported, evidence.StatusFound, "", ""},
		{"both contradicted: a contradiction seam quoting the page's evidence",
			"The registry counted 4,812 companies in 2025, down from the year before.", reportQuote,
			verdictJSON("contradicted", 85, "The page says up, not down.", reportSentence),
			verdictJSON("contradicted", 80, "Up from 4,500.", reportSentence),
			evidence.VerdictContradicted, evidence.StatusFound, evidence.SeamContradiction, reportSentence},
		{"both not_found on a found quote: the quote is there but the page does not address the claim",
			"The registry's fees doubled in 2025.", reportQuote,
			verdictJSON("not_found", 70, "Nothing about fees."), verdictJSON("not_found", 75, "No fees mentioned."),
			evidence.VerdictNotFound, evidence.StatusFound, evidence.SeamDisagreement, "does not address the claim"},
		{"a paraphrase: the quote is not on the page, the page supports the claim in its own words",
			reportClaim, "the registry recorded four thousand eight hundred companies", supported, supported,
			evidence.VerdictSupported, evidence.StatusNotFound, evidence.SeamDisagreement, reportSentence},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			site := newPageServer(t)
			chat := newChatServer(t, scripted(tt.a, tt.b, tt.a, adjudicationJSON(true, "supported", 90, false)))
			out := checkWithTier(t, tierChecker(t, chat, nil), site, tt.claim, tt.quote)
			s := out.Checked.Support
			if s == nil {
				t.Fatal("no support judgement with the tier on")
			}
			if s.Verdict != tt.wantSupport || s.DecidedBy != evidence.SupportByCode || s.Escalated {
				t.Errorf("support = %q by %q (escalated %t), want %q by code", s.Verdict, s.DecidedBy, s.Escalated, tt.wantSupport)
			}
			if out.Checked.Status != tt.wantStatus {
				t.Errorf("status = %s, want %s: the quote status is the quote check's", out.Checked.Status, tt.wantStatus)
			}
			if got := roles(s); !reflect.DeepEqual(got, []string{nameA, nameB}) {
				t.Errorf("calls = %v, want the two cheap verifiers and no adjudicator", got)
			}
			if len(chat.Seen()) != 2 {
				t.Errorf("%d requests reached the model server, want 2", len(chat.Seen()))
			}
			for _, c := range s.Calls {
				if c.PromptTokens <= 0 || c.CompletionTokens <= 0 || c.Model != "cheap" || c.Tier != evidence.TierVerifier || c.Attempts != 1 || c.Outcome != "ok" {
					t.Errorf("call %+v: want its tokens, model, tier, one attempt, ok", c)
				}
			}
			switch {
			case tt.wantSeam == "" && out.Seam != nil:
				t.Errorf("seam %+v opened, want none", out.Seam)
			case tt.wantSeam != "" && (out.Seam == nil || out.Seam.Kind != tt.wantSeam || !strings.Contains(out.Seam.Summary, tt.wantInSeam)):
				t.Errorf("seam = %+v, want a %s seam holding %q", out.Seam, tt.wantSeam, tt.wantInSeam)
			}
			if s.ResidualRisk == "" || !strings.Contains(s.ResidualRisk, "two models can both be wrong") {
				t.Errorf("residual risk = %q", s.ResidualRisk)
			}
		})
	}
}

// Every answer that is off its schema escalates and never decides: model-b answers badly,
// model-a and model-c (on a fresh capture) say supported, the adjudicator decides.
func TestModelOffSchemaEscalates(t *testing.T) {
	good := verdictJSON("supported", 90, "The page gives the count.", reportSentence)
	tests := []struct {
		desc    string
		answer  chatAnswer
		problem string
	}{
		{"malformed JSON", chatAnswer{Content: `{"verdict": "supported", "accuracy_estimate": 90,`}, "not the JSON object"},
		{"estimate out of range", chatAnswer{Content: verdictJSON("supported", 150, "sure", reportSentence)}, "outside 1..100"},
		{"estimate not an integer", chatAnswer{Content: `{"verdict":"supported","accuracy_estimate":87.5,"reasoning":"r","evidence":["` + reportSentence + `"]}`}, "not an integer"},
		{"a verdict off the enum", chatAnswer{Content: verdictJSON("true", 90, "yes", reportSentence)}, `verdict "true"`},
		{"a member the schema does not have", chatAnswer{Content: `{"verdict":"supported","accuracy_estimate":90,"reasoning":"r","evidence":["` + reportSentence + `"],"source":"x"}`}, "unknown field"},
		{"a member missing", chatAnswer{Content: `{"verdict":"supported","accuracy_estimate":90,"reasoning":"r"}`}, "evidence is missing"},
		{"a reasoning past its bound", chatAnswer{Content: verdictJSON("supported", 90, strings.Repeat("The page says so. ", 17), reportSentence)}, "reasoning of 306 characters"},
		{"more evidence sentences than the bound", chatAnswer{Content: verdictJSON("supported", 90, "r", reportSentence, reportSentence, reportSentence, reportSentence)}, "4 evidence sentences, more than 3"},
		{"supported without evidence", chatAnswer{Content: verdictJSON("supported", 90, "trust me")}, "cites no evidence"},
		{"invented evidence", chatAnswer{Content: verdictJSON("supported", 95, "It says so.", "The registry counted 4,812 companies in 2025, a record.")}, "not on the page"},
		{"finish_reason length", chatAnswer{Body: string(readTestdata(t, "models/length-response.json"))}, "token limit"},
		{"a refusal", chatAnswer{Body: string(readTestdata(t, "models/refusal-response.json"))}, "refused"},
		{"HTTP 400", chatAnswer{Status: http.StatusBadRequest, Body: `{"error":{"message":"bad schema"}}`}, "HTTP 400"},
		{"500 on every attempt", chatAnswer{Status: http.StatusInternalServerError, Body: `{}`}, "HTTP 500"},
		{"no choices", chatAnswer{Body: `{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":0}}`}, "no choices"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			site := newPageServer(t)
			chat := newChatServer(t, func(req chatSeen, n int) chatAnswer {
				switch req.Role {
				case nameB:
					return tt.answer
				case "adjudicator":
					return chatAnswer{Content: adjudicationJSON(false, "supported", 80, false)}
				}
				return chatAnswer{Content: good}
			})
			out := checkWithTier(t, tierChecker(t, chat, nil), site, reportClaim, reportQuote)
			s := out.Checked.Support
			if !s.Escalated || len(s.Judgements) != 3 || s.Adjudication == nil {
				t.Fatalf("support %+v: want an escalation with a third judgement and the adjudicator", s)
			}
			if p := s.Judgements[1].Problem; !strings.Contains(p, tt.problem) {
				t.Errorf("model-b's problem = %q, want it to say %q", p, tt.problem)
			}
			if s.Verdict != evidence.VerdictSupported || s.DecidedBy != evidence.SupportByAdjudicator {
				t.Errorf("support = %q by %q, want supported by the adjudicator (model-a and model-c on their schema)", s.Verdict, s.DecidedBy)
			}
			if got := roles(s); !reflect.DeepEqual(got, []string{nameA, nameB, nameC, "adjudicator"}) {
				t.Errorf("calls = %v", got)
			}
			if out.Seam != nil {
				t.Errorf("seam %+v: the adjudicator decided with two valid judgements", out.Seam)
			}
		})
	}
}

// An off-schema answer never passes: when only one judgement is on its schema, even an
// adjudicator that says supported decides nothing, and a disagreement seam lists every
// verdict.
func TestModelOffSchemaNeverPasses(t *testing.T) {
	site := newPageServer(t)
	chat := newChatServer(t, scripted(
		verdictJSON("supported", 90, "ok", reportSentence),
		`not json at all`,
		verdictJSON("supported", 90, "ok", "A sentence the page never had."),
		adjudicationJSON(true, "supported", 99, false)))
	out := checkWithTier(t, tierChecker(t, chat, nil), site, reportClaim, reportQuote)
	s := out.Checked.Support
	if s.Verdict != "" || s.DecidedBy != "" {
		t.Fatalf("support = %q by %q: one valid judgement decided", s.Verdict, s.DecidedBy)
	}
	if out.Seam == nil || out.Seam.Kind != evidence.SeamDisagreement {
		t.Fatalf("seam = %+v, want a disagreement seam", out.Seam)
	}
	for _, want := range []string{"model-a: supported", "model-b: off its schema", "model-c: off its schema", "adjudicator: supported"} {
		if !strings.Contains(out.Seam.Summary, want) {
			t.Errorf("seam summary %q lacks %q", out.Seam.Summary, want)
		}
	}
	if out.Checked.Status != evidence.StatusFound {
		t.Errorf("status = %s: the quote status must stay the quote check's", out.Checked.Status)
	}
}

func TestModelSplitAndAdjudicatorEscalate(t *testing.T) {
	site := newPageServer(t)
	chat := newChatServer(t, scripted(
		verdictJSON("supported", 90, "yes", reportSentence),
		verdictJSON("contradicted", 70, "no", reportSentence),
		verdictJSON("supported", 80, "yes", reportSentence),
		adjudicationJSON(false, "supported", 55, true)))
	out := checkWithTier(t, tierChecker(t, chat, nil), site, reportClaim, reportQuote)
	s := out.Checked.Support
	if s.Verdict != "" || s.Adjudication == nil || !s.Adjudication.Escalate {
		t.Fatalf("support %+v: an adjudicator that asks to escalate decides nothing", s)
	}
	if out.Seam == nil || out.Seam.Kind != evidence.SeamDisagreement || !strings.Contains(out.Seam.Summary, "model-b: contradicted") {
		t.Errorf("seam = %+v, want a disagreement seam with every verdict", out.Seam)
	}
	// The adjudicator may not pick a verdict fewer than two valid judgements hold.
	chat2 := newChatServer(t, scripted(
		verdictJSON("supported", 90, "yes", reportSentence),
		verdictJSON("contradicted", 70, "no", reportSentence),
		verdictJSON("not_found", 60, "nothing"),
		adjudicationJSON(true, "contradicted", 90, false)))
	out = checkWithTier(t, tierChecker(t, chat2, nil), site, reportClaim, reportQuote)
	if s := out.Checked.Support; s.Verdict != "" {
		t.Errorf("support = %q: the adjudicator decided a verdict one judgement held", s.Verdict)
	}
	// Without an adjudicator every split is a person's.
	chat3 := newChatServer(t, scripted(
		verdictJSON("supported", 90, "yes", reportSentence),
		verdictJSON("contradicted", 70, "no", reportSentence),
		verdictJSON("supported", 80, "yes", reportSentence), ""))
	out = checkWithTier(t, tierChecker(t, chat3, func(c *Config) { c.Adjudicator = Endpoint{} }), site, reportClaim, reportQuote)
	if s := out.Checked.Support; s.Verdict != "" || s.Adjudication != nil || out.Seam == nil {
		t.Errorf("support %+v, seam %+v: without an adjudicator a split goes to a person", s, out.Seam)
	}
}

func TestModelRetriesAndTimeout(t *testing.T) {
	good := verdictJSON("supported", 90, "The page gives the count.", reportSentence)
	t.Run("429 then success", func(t *testing.T) {
		site := newPageServer(t)
		chat := newChatServer(t, func(req chatSeen, n int) chatAnswer {
			if req.Role == nameB && n == 1 {
				return chatAnswer{Status: http.StatusTooManyRequests, Body: string(readTestdata(t, "models/error-429.json")), RetryAfter: "0"}
			}
			return chatAnswer{Content: good}
		})
		s := checkWithTier(t, tierChecker(t, chat, nil), site, reportClaim, reportQuote).Checked.Support
		if s.Verdict != evidence.VerdictSupported || s.Escalated {
			t.Fatalf("support %+v: a retried 429 should decide by code", s)
		}
		if s.Calls[1].Attempts != 2 || s.Calls[1].Outcome != "ok" {
			t.Errorf("model-b's call = %+v, want 2 attempts, ok", s.Calls[1])
		}
	})
	t.Run("timeout on every attempt", func(t *testing.T) {
		site := newPageServer(t)
		chat := newChatServer(t, func(req chatSeen, n int) chatAnswer {
			switch req.Role {
			case nameB:
				return chatAnswer{Hang: true}
			case "adjudicator":
				return chatAnswer{Content: adjudicationJSON(false, "supported", 80, false)}
			}
			return chatAnswer{Content: good}
		})
		// model-b never answers: the check ends only because the timeout is enforced.
		s := checkWithTier(t, tierChecker(t, chat, func(c *Config) { c.Timeout = 200 * time.Millisecond }), site, reportClaim, reportQuote).Checked.Support
		if b := s.Judgements[1]; !strings.Contains(b.Problem, "no reply") || s.Calls[1].Attempts != 2 {
			t.Errorf("model-b = %+v, call %+v: want no reply after 2 attempts", b, s.Calls[1])
		}
		if !s.Escalated || s.DecidedBy != evidence.SupportByAdjudicator {
			t.Errorf("support %+v: a timeout escalates", s)
		}
	})
}

// The two verifier requests share nothing: separate connections, no cookie, two messages
// each and no history, and neither holds the other's answer; the adjudicator's request
// holds no page text beyond the evidence sentences, and no URL.
func TestModelIsolation(t *testing.T) {
	site := newPageServer(t)
	aSays := verdictJSON("supported", 91, "REASONING-OF-A", reportSentence)
	bSays := verdictJSON("contradicted", 62, "REASONING-OF-B", reportSentence)
	chat := newChatServer(t, scripted(aSays, bSays, verdictJSON("supported", 88, "REASONING-OF-C", reportSentence),
		adjudicationJSON(false, "supported", 70, false)))
	out := checkWithTier(t, tierChecker(t, chat, nil), site, reportClaim, reportQuote)
	seen := chat.Seen()
	byRole := map[string][]chatSeen{}
	for _, r := range seen {
		byRole[r.Role] = append(byRole[r.Role], r)
	}
	if len(byRole[nameA]) != 2 || len(byRole[nameB]) != 1 || len(byRole["adjudicator"]) != 1 {
		t.Fatalf("requests by role: %d a/c, %d b, %d adjudicator", len(byRole[nameA]), len(byRole[nameB]), len(byRole["adjudicator"]))
	}
	a, b, c, adj := byRole[nameA][0], byRole[nameB][0], byRole[nameA][1], byRole["adjudicator"][0]
	remotes := map[string]bool{a.Remote: true, b.Remote: true, c.Remote: true, adj.Remote: true}
	if len(remotes) != 4 {
		t.Errorf("the requests came over %d connections, want 4 (one client each)", len(remotes))
	}
	for _, r := range []chatSeen{a, b, c, adj} {
		if r.Messages != 2 || r.Header.Get("Cookie") != "" {
			t.Errorf("%s: %d messages, cookie %q: want 2 messages and no cookie", r.Role, r.Messages, r.Header.Get("Cookie"))
		}
		for _, other := range []string{"REASONING-OF-A", "REASONING-OF-B", "REASONING-OF-C"} {
			if r.Role != "adjudicator" && strings.Contains(string(r.Body), other) {
				t.Errorf("the request of %s holds %s", r.Role, other)
			}
		}
	}
	if a.User == b.User {
		t.Error("model-a and model-b were sent the same passages: their selections must differ")
	}
	for _, want := range []string{"REASONING-OF-A", "REASONING-OF-B", "REASONING-OF-C", reportSentence, reportClaim} {
		if !strings.Contains(adj.User, want) {
			t.Errorf("the adjudicator was not given %q", want)
		}
	}
	for _, leak := range []string{"example.test", "http://", "The chair said", "We expect growth", "Annual report", "Passages"} {
		if strings.Contains(string(adj.Body), leak) {
			t.Errorf("the adjudicator's request holds page text or a URL: %q", leak)
		}
	}
	if out.Checked.Support.DecidedBy != evidence.SupportByAdjudicator {
		t.Errorf("support %+v", out.Checked.Support)
	}
}

func TestModelTierOffByDefault(t *testing.T) {
	site := newPageServer(t)
	chat := newChatServer(t, func(chatSeen, int) chatAnswer { return chatAnswer{Content: "{}"} })
	var cfg Config
	if cfg.Enabled() {
		t.Fatal("a zero Config turns the tier on")
	}
	out := checkWithTier(t, verify.NewChecker(fetchtest.Config()), site, reportClaim, reportQuote)
	if out.Checked.Support != nil {
		t.Errorf("support %+v with the tier off", out.Checked.Support)
	}
	if n := len(chat.Seen()); n != 0 {
		t.Errorf("%d requests reached a model server with the tier off", n)
	}
	b, _ := json.Marshal(out.Checked)
	if strings.Contains(string(b), `"support"`) {
		t.Errorf("the payload names support with the tier off: %s", b)
	}
}

func TestModelBudget(t *testing.T) {
	site := newPageServer(t)
	good := verdictJSON("supported", 90, "ok", reportSentence)
	chat := newChatServer(t, func(chatSeen, int) chatAnswer { return chatAnswer{Content: good} })
	m := newTiers(t, chat, func(c *Config) { c.Budget = Budget{Calls: 2} })
	c := verify.NewChecker(fetchtest.Config()).WithModels(m)
	ctx := m.BeginRun(context.Background())
	tg := evidence.CheckTarget{ClaimID: "c_0000000000000001", ClaimText: reportClaim, CitationID: "ct_0000000000000001",
		URL: site.At("example.test", "/report"), Quote: reportQuote}
	first, err := c.Check(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Check(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	if first.Checked.Support.Verdict != evidence.VerdictSupported {
		t.Errorf("first support %+v", first.Checked.Support)
	}
	if s := second.Checked.Support; s.Skipped == "" || len(s.Calls) != 0 || !strings.Contains(second.Checked.Note, "budget") {
		t.Errorf("second support %+v, note %q: want skipped, the budget of 2 calls is spent", s, second.Checked.Note)
	}
	if n := len(chat.Seen()); n != 2 {
		t.Errorf("%d requests for a budget of 2 calls", n)
	}
	// The token bound: a budget of 1 token is spent by the first call.
	b := newBudget(Budget{Tokens: 1})
	if err := b.take(); err != nil {
		t.Fatal(err)
	}
	b.spend(5)
	if err := b.take(); !errors.Is(err, errNoAnswer) || !b.exhausted() {
		t.Errorf("take after the token bound: %v", err)
	}
}

func TestModelEndpointURLs(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{"http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1/chat/completions", ""},
		{"http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1/chat/completions", ""},
		{"https://models.example/v1/chat/completions", "https://models.example/v1/chat/completions", ""},
		{"ftp://x/v1", "", "want an http(s) URL"},
		{"127.0.0.1:8080", "", "want an http(s) URL"},
		{"http://user:secret@127.0.0.1/v1", "", "not in the URL"},
	}
	for _, tt := range tests {
		got, err := chatURL(tt.in)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("chatURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("chatURL(%q) error = %v; want %q", tt.in, err, tt.err)
		case err != nil && strings.Contains(err.Error(), "secret"):
			t.Errorf("chatURL(%q) error shows the password: %v", tt.in, err)
		}
	}
	if _, err := New(Config{Verifier: Endpoint{URL: "http://127.0.0.1:1/v1"}}, fetchtest.Config()); err == nil || !strings.Contains(err.Error(), "no model name") {
		t.Errorf("NewModels without a model name: %v", err)
	}
}

// The adapter reads the recorded replies of Ollama and llama.cpp's server, and sends the
// recorded request shape, with the API key as a bearer token.
func TestRecordedShapes(t *testing.T) {
	for _, name := range []string{"ollama-response.json", "llamacpp-response.json"} {
		t.Run(name, func(t *testing.T) {
			content := verdictJSON("supported", 90, "ok", reportSentence)
			body := strings.Replace(string(readTestdata(t, "models/"+name)), `"CONTENT"`, mustJSON(content), 1)
			chat := newChatServer(t, func(chatSeen, int) chatAnswer { return chatAnswer{Body: body} })
			e := chat.Endpoint("qwen2.5:7b-instruct")
			e.APIKey = "sk-test-key"
			c, err := newChatClient(e, time.Hour, 0)
			if err != nil {
				t.Fatal(err)
			}
			got, u, err := c.complete(context.Background(), newBudget(Budget{}), promptA, "Claim: x", "verdict", verdictSchema, 600)
			if err != nil || got != content {
				t.Fatalf("complete = %q, %v", got, err)
			}
			if u.prompt == 0 || u.completion == 0 {
				t.Errorf("usage %+v: the recorded usage was not read", u)
			}
			req := chat.Seen()[0]
			if req.Header.Get("Authorization") != "Bearer sk-test-key" {
				t.Errorf("Authorization = %q", req.Header.Get("Authorization"))
			}
			var sent, recorded map[string]any
			json.Unmarshal(req.Body, &sent)
			json.Unmarshal(readTestdata(t, "models/ollama-request.json"), &recorded)
			if keys(sent) != keys(recorded) {
				t.Errorf("request members %s, recorded %s", keys(sent), keys(recorded))
			}
			if !reflect.DeepEqual(sent["response_format"], recorded["response_format"]) {
				t.Errorf("response_format sent %v, recorded %v", sent["response_format"], recorded["response_format"])
			}
		})
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func keys(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

// The tier judges only a page that was read: an unreachable page is skipped with the reason
// and no request, a login-walled host gets no support member at all.
func TestModelTierOnlyOnReadPages(t *testing.T) {
	site := newPageServer(t)
	chat := newChatServer(t, func(chatSeen, int) chatAnswer { return chatAnswer{Content: "{}"} })
	c := tierChecker(t, chat, nil)
	for _, tt := range []struct {
		desc, url string
		skipped   bool
	}{
		{"a page drawn by scripts", site.At("example.test", "/scripts"), true},
		{"a host that does not exist", "http://nowhere.invalid/x", true},
		{"a login-walled host", site.At("walled.test", "/report"), false},
	} {
		out, err := c.Check(context.Background(), evidence.CheckTarget{ClaimID: "c_0000000000000001", ClaimText: reportClaim,
			CitationID: "ct_0000000000000001", URL: tt.url, Quote: reportQuote})
		if err != nil {
			t.Fatal(err)
		}
		s := out.Checked.Support
		switch {
		case tt.skipped && (s == nil || s.Skipped == "" || len(s.Calls) != 0):
			t.Errorf("%s: support %+v, want skipped", tt.desc, s)
		case !tt.skipped && s != nil:
			t.Errorf("%s: support %+v, want none", tt.desc, s)
		}
	}
	if n := len(chat.Seen()); n != 0 {
		t.Errorf("%d requests for pages that were not read", n)
	}
}

// A budget spent in the middle of a citation never lets it pass: the refused call is off
// its schema, the citation splits, and a person decides.
func TestModelBudgetSpentMidCitation(t *testing.T) {
	site := newPageServer(t)
	chat := newChatServer(t, scripted(
		verdictJSON("supported", 90, "yes", reportSentence),
		verdictJSON("contradicted", 70, "no", reportSentence),
		verdictJSON("supported", 80, "yes", reportSentence),
		adjudicationJSON(false, "supported", 90, false)))
	out := checkWithTier(t, tierChecker(t, chat, func(c *Config) { c.Budget = Budget{Calls: 3} }), site, reportClaim, reportQuote)
	s := out.Checked.Support
	if s.Verdict != "" || s.Adjudication == nil || !strings.Contains(s.Adjudication.Problem, "budget of 3 calls is spent") {
		t.Fatalf("support %+v: the adjudicator's refused call must not decide", s)
	}
	if len(s.Calls) != 3 || len(chat.Seen()) != 3 {
		t.Errorf("%d calls recorded, %d requests sent; want 3 and 3", len(s.Calls), len(chat.Seen()))
	}
	if out.Seam == nil || out.Seam.Kind != evidence.SeamDisagreement {
		t.Errorf("seam %+v, want a disagreement", out.Seam)
	}
}

// TestEvidenceSentenceIsAQuote: a model's evidence sentence is held to the same rule as a
// researcher's quote (evidence.QuoteParts): twelve runes that hold fewer than twelve letters or
// digits are refused, even where the words are on the page.
func TestEvidenceSentenceIsAQuote(t *testing.T) {
	page := match.NewPageText("Results: a, b, c, d, e. The council approved the budget on Monday.")
	if err := evidenceOnPage(page, []string{"a, b, c, d, e."}); !errors.Is(err, errOffSchema) {
		t.Errorf("a 14-rune sentence of 5 letters was accepted as evidence: %v", err)
	}
	if err := evidenceOnPage(page, []string{"The council approved the budget on Monday."}); err != nil {
		t.Errorf("a sentence on the page was refused: %v", err)
	}
}
