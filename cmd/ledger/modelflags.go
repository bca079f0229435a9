package main

import (
	"flag"
	"fmt"
	"net/url"
	"strings"

	"evidenceledger/fetch"
	"evidenceledger/verify"
	"evidenceledger/verify/model"
)

// The environment variables that hold the model tiers' API keys. Keys are never flags (a
// flag shows in the process list and in shell history) and are never printed.
const (
	envVerifierKey    = "LEDGER_VERIFIER_API_KEY"
	envAdjudicatorKey = "LEDGER_ADJUDICATOR_API_KEY"
)

// addModelFlags adds the model tiers' flags to fs, the flags of serve, check or gate, and
// returns the function that, once fs is parsed, builds the tier (nil when it is off, the
// default):
//
//	--verifier-endpoint URL       the cheap tier's OpenAI-compatible endpoint (its /v1 base); off when empty
//	--verifier-model NAME         the model the cheap tier asks (required with the endpoint)
//	--adjudicator-endpoint URL    the expensive tier's endpoint (default: the verifier's)
//	--adjudicator-model NAME      the model asked on a split (none: every split goes to a person)
//	--model-timeout D             the longest one attempt of a call may take (default 60s)
//	--model-retries N             retries after a 429, a 5xx, a network error or a timeout (default 2)
//	--model-calls N, --model-tokens N   the budget of one check run (default 2000 calls, 4,000,000 tokens)
//
// Keys come from LEDGER_VERIFIER_API_KEY and LEDGER_ADJUDICATOR_API_KEY (an adjudicator on
// the verifier's endpoint without a key of its own uses the verifier's). Errors name the
// flag and wrap errUsage.
func addModelFlags(fs *flag.FlagSet, e *env) func(fetch.Config) (verify.SupportJudge, error) {
	vURL := fs.String("verifier-endpoint", "", "`URL` of the cheap model tier's OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 (off when empty; key from "+envVerifierKey+")")
	vModel := fs.String("verifier-model", "", "`name` of the cheap tier's model")
	aURL := fs.String("adjudicator-endpoint", "", "`URL` of the expensive tier's endpoint (default: the verifier's; key from "+envAdjudicatorKey+")")
	aModel := fs.String("adjudicator-model", "", "`name` of the model that compares split verdicts (none: every split goes to a person)")
	timeout := fs.Duration("model-timeout", model.DefaultTimeout, "longest `time` one attempt of a model call may take")
	retries := fs.Int("model-retries", model.DefaultRetries, "`number` of retries after a 429, a 5xx, a network error or a timeout")
	calls := fs.Int("model-calls", model.DefaultBudgetCalls, "most model `calls` in one check run")
	tokens := fs.Int("model-tokens", model.DefaultBudgetTokens, "most model `tokens` in one check run")
	return func(fc fetch.Config) (verify.SupportJudge, error) {
		cfg := model.Config{
			Verifier:    model.Endpoint{URL: strings.TrimSpace(*vURL), Model: strings.TrimSpace(*vModel), APIKey: e.getenv(envVerifierKey)},
			Adjudicator: model.Endpoint{URL: strings.TrimSpace(*aURL), Model: strings.TrimSpace(*aModel), APIKey: e.getenv(envAdjudicatorKey)},
			Timeout:     *timeout, Retries: *retries, Budget: model.Budget{Calls: *calls, Tokens: *tokens},
		}
		switch {
		case !cfg.Enabled() && (cfg.Verifier.Model != "" || cfg.Adjudicator.URL != "" || cfg.Adjudicator.Model != ""):
			return nil, fmt.Errorf("--verifier-model, --adjudicator-endpoint and --adjudicator-model need --verifier-endpoint: %w", errUsage)
		case !cfg.Enabled():
			return nil, nil
		case cfg.Adjudicator.URL != "" && cfg.Adjudicator.Model == "":
			return nil, fmt.Errorf("--adjudicator-endpoint needs --adjudicator-model: %w", errUsage)
		case *timeout <= 0 || *retries < 0 || *retries > 10 || *calls < 1 || *tokens < 1:
			return nil, fmt.Errorf("--model-timeout must be above 0, --model-retries 0 to 10, --model-calls and --model-tokens 1 or more: %w", errUsage)
		}
		m, err := model.New(cfg, fc)
		if err != nil {
			return nil, fmt.Errorf("%v: %w", err, errUsage)
		}
		adj := "no adjudicator: every split goes to a person"
		if cfg.Adjudicator.Model != "" {
			at := cfg.Adjudicator.URL
			if at == "" {
				at = cfg.Verifier.URL
			}
			adj = "adjudicator " + cfg.Adjudicator.Model + " at " + redact(at)
		}
		fmt.Fprintf(e.stderr, "model tier on: passages of checked pages go to verifier %s at %s; %s\n", cfg.Verifier.Model, redact(cfg.Verifier.URL), adj)
		return m, nil
	}
}

// redact shows an endpoint without any user information or query.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an endpoint that does not parse)"
	}
	u.User, u.RawQuery = nil, ""
	return u.String()
}
