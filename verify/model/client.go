package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Endpoint is one model tier's OpenAI-compatible chat-completions server: the URL (the
// base, such as http://127.0.0.1:11434/v1, or the full .../chat/completions), the model
// name sent in every request, and the API key sent as a bearer token (empty for none). The
// key comes from the environment, never from a flag; it is never logged and never part of
// an error.
type Endpoint struct {
	URL    string
	Model  string
	APIKey string
}

// Limits of the model adapter (docs/models.md).
const (
	// DefaultTimeout is the longest one attempt of a model call may take.
	DefaultTimeout = 60 * time.Second
	// DefaultRetries is how many times a call is retried after a 429, a 5xx, a network
	// error or a timeout.
	DefaultRetries = 2
	// DefaultBudgetCalls and DefaultBudgetTokens bound the model calls of one check run.
	DefaultBudgetCalls  = 2000
	DefaultBudgetTokens = 4_000_000
	// maxReply is the largest reply body read from a model server.
	maxReply = 1 << 20
	// maxRetryAfter caps the wait a server's Retry-After may ask for.
	maxRetryAfter = 30 * time.Second
)

// chatURL returns the chat-completions URL of an endpoint's base URL, or an error that says
// what to give.
func chatURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("model endpoint %q: want an http(s) URL such as http://127.0.0.1:11434/v1", raw)
	}
	if u.User != nil {
		return "", fmt.Errorf("model endpoint %q: give the API key in the environment, not in the URL", u.Redacted())
	}
	p := strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(p, "/chat/completions") {
		p += "/chat/completions"
	}
	u.Path = p
	return u.String(), nil
}

// chatClient speaks the chat-completions protocol to one endpoint with an HTTP client of
// its own: no connection, cookie or cache is shared with any other client.
type chatClient struct {
	http    *http.Client
	url     string
	model   string
	key     string
	timeout time.Duration
	retries int
	backoff time.Duration
}

func newChatClient(e Endpoint, timeout time.Duration, retries int) (*chatClient, error) {
	u, err := chatURL(e.URL)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(e.Model) == "" {
		return nil, fmt.Errorf("model endpoint %s: no model name; give the name the server knows the model by", u)
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if retries < 0 {
		retries = DefaultRetries
	}
	return &chatClient{http: newModelHTTP(), url: u, model: e.Model, key: e.APIKey,
		timeout: timeout, retries: retries, backoff: 500 * time.Millisecond}, nil
}

// clone returns a client of the same endpoint with an HTTP client of its own.
func (c *chatClient) clone() *chatClient {
	cc := *c
	cc.http = newModelHTTP()
	return &cc
}

// newModelHTTP returns a new HTTP client with a transport of its own. It uses no proxy
// from the environment (the endpoint is what the owner named) and follows no redirect.
func newModelHTTP() *http.Client {
	tr := &http.Transport{
		DialContext:     (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		MaxIdleConns:    4,
		IdleConnTimeout: 30 * time.Second,
	}
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return errors.New("a model endpoint must answer without redirects")
	}}
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model          string         `json:"model"`
	Messages       []chatMessage  `json:"messages"`
	Temperature    int            `json:"temperature"`
	MaxTokens      int            `json:"max_tokens"`
	Stream         bool           `json:"stream"`
	ResponseFormat responseFormat `json:"response_format"`
}

type responseFormat struct {
	Type       string     `json:"type"`
	JSONSchema jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Strict bool            `json:"strict"`
	Schema json.RawMessage `json:"schema"`
}

// chatResponse is the part of a chat-completions reply the adapter reads. Servers add
// members (system_fingerprint, timings); they are ignored.
type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// usage is what one call cost.
type usage struct {
	prompt, completion int
	latency            time.Duration
	attempts           int
}

// errOffSchema marks a reply that came back but cannot be used: a refusal, a reply cut at
// the token limit, no content, invalid JSON, a field missing or out of range. It is never
// retried: the answer escalates.
var errOffSchema = errors.New("the model's reply is off its schema")

// errNoAnswer marks a call that got no usable reply after every retry, or was refused by
// the budget.
var errNoAnswer = errors.New("the model gave no answer")

// complete sends one request of two messages (system and user, no history) with a strict
// JSON schema and returns the reply's content. It retries a 429, a 5xx, a network error or
// a timeout, waiting backoff, then twice as long (or the server's Retry-After, capped at 30
// s). Errors wrap errOffSchema (a reply that cannot be used) or errNoAnswer; usage is
// filled either way with what the server reported.
func (c *chatClient) complete(ctx context.Context, b *budget, system, user, schemaName string, schema json.RawMessage, maxTokens int) (string, usage, error) {
	var u usage
	body, err := json.Marshal(chatRequest{
		Model:     c.model,
		Messages:  []chatMessage{{Role: "system", Content: system}, {Role: "user", Content: user}},
		MaxTokens: maxTokens,
		ResponseFormat: responseFormat{Type: "json_schema",
			JSONSchema: jsonSchema{Name: schemaName, Strict: true, Schema: schema}},
	})
	if err != nil {
		return "", u, fmt.Errorf("%w: %v", errNoAnswer, err)
	}
	if err := b.take(); err != nil {
		return "", u, err
	}
	start := time.Now()
	wait := c.backoff
	for attempt := 0; ; attempt++ {
		u.attempts = attempt + 1
		before := u.prompt + u.completion
		content, retryAfter, err := c.attempt(ctx, body, &u)
		b.spend(u.prompt + u.completion - before)
		u.latency = time.Since(start)
		if err == nil || errors.Is(err, errOffSchema) || attempt >= c.retries || ctx.Err() != nil || retryAfter < 0 {
			return content, u, err
		}
		if retryAfter > 0 {
			wait = min(retryAfter, maxRetryAfter)
		}
		select {
		case <-ctx.Done():
			u.latency = time.Since(start)
			return "", u, fmt.Errorf("%w: %w", errNoAnswer, ctx.Err())
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// attempt makes one HTTP request. retryAfter is -1 when the failure must not be retried
// (a 4xx other than 429), the server's Retry-After when it gave one, 0 otherwise.
func (c *chatClient) attempt(ctx context.Context, body []byte, u *usage) (content string, retryAfter time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return "", -1, fmt.Errorf("%w: %v", errNoAnswer, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return "", 0, fmt.Errorf("%w: no reply from %s within %v", errNoAnswer, c.url, c.timeout)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", 0, fmt.Errorf("%w: %s: %v", errNoAnswer, c.url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxReply+1))
	if err != nil {
		return "", 0, fmt.Errorf("%w: reading the reply of %s: %v", errNoAnswer, c.url, err)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		ra := time.Duration(0)
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
			ra = time.Duration(s) * time.Second
		}
		return "", ra, fmt.Errorf("%w: %s answered HTTP %d", errNoAnswer, c.url, resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		return "", -1, fmt.Errorf("%w: %s answered HTTP %d: %s", errNoAnswer, c.url, resp.StatusCode, snippet(raw))
	}
	content, err = readReply(raw, u)
	if err != nil {
		return "", -1, err
	}
	return content, 0, nil
}

// readReply reads the body of a 200 reply: the content of its first choice, adding the
// tokens it reports to u. It fails, wrapping errOffSchema, on a body over maxReply, a
// body that is not a chat completion, no choice, a refusal, a reply cut at the token limit
// or finished otherwise than by stop, and no content.
func readReply(raw []byte, u *usage) (string, error) {
	if len(raw) > maxReply {
		return "", fmt.Errorf("%w: the reply is over %d bytes", errOffSchema, maxReply)
	}
	var cr chatResponse
	if err := json.Unmarshal(raw, &cr); err != nil {
		return "", fmt.Errorf("%w: the reply is not a chat completion: %v", errOffSchema, err)
	}
	if cr.Usage.PromptTokens > 0 {
		u.prompt += cr.Usage.PromptTokens
	}
	if cr.Usage.CompletionTokens > 0 {
		u.completion += cr.Usage.CompletionTokens
	}
	if len(cr.Choices) == 0 {
		return "", fmt.Errorf("%w: the reply has no choices", errOffSchema)
	}
	ch := cr.Choices[0]
	switch {
	case ch.Message.Refusal != nil && *ch.Message.Refusal != "":
		return "", fmt.Errorf("%w: the model refused: %s", errOffSchema, snippet([]byte(*ch.Message.Refusal)))
	case ch.FinishReason == "length":
		return "", fmt.Errorf("%w: the reply was cut at the token limit (finish_reason length)", errOffSchema)
	case ch.FinishReason != "" && ch.FinishReason != "stop":
		return "", fmt.Errorf("%w: finish_reason %q, want stop", errOffSchema, ch.FinishReason)
	case ch.Message.Content == nil || strings.TrimSpace(*ch.Message.Content) == "":
		return "", fmt.Errorf("%w: the reply has no content", errOffSchema)
	}
	return *ch.Message.Content, nil
}

func snippet(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// decodeStrict decodes a model's JSON content into v: one JSON object, no unknown member,
// nothing after it. Whether every member is present and in range is for the caller.
func decodeStrict(content string, v any) error {
	d := json.NewDecoder(strings.NewReader(content))
	d.DisallowUnknownFields()
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("%w: the content is not the JSON object asked for: %v", errOffSchema, err)
	}
	if d.More() {
		return fmt.Errorf("%w: the content holds more than one JSON value", errOffSchema)
	}
	return nil
}

// intField reads a JSON number that must be an integer.
func intField(name string, n *json.Number) (int, error) {
	if n == nil {
		return 0, fmt.Errorf("%w: %s is missing", errOffSchema, name)
	}
	i, err := strconv.Atoi(n.String())
	if err != nil {
		return 0, fmt.Errorf("%w: %s %s is not an integer", errOffSchema, name, n.String())
	}
	return i, nil
}

// Budget bounds the model calls and tokens of one check run. The zero value means the
// defaults (DefaultBudgetCalls, DefaultBudgetTokens).
type Budget struct {
	Calls  int
	Tokens int
}

// budget is the spending of one run against its Budget. A call is refused when the run has
// made Calls calls or spent Tokens tokens; a call already under way is finished and
// counted, so a run may pass the token bound by at most one call's tokens.
type budget struct {
	limit        Budget
	calls, spent atomic.Int64
}

func newBudget(b Budget) *budget {
	if b.Calls <= 0 {
		b.Calls = DefaultBudgetCalls
	}
	if b.Tokens <= 0 {
		b.Tokens = DefaultBudgetTokens
	}
	return &budget{limit: b}
}

// exhausted reports, without taking a call, whether the budget is spent.
func (b *budget) exhausted() bool {
	return b.calls.Load() >= int64(b.limit.Calls) || b.spent.Load() >= int64(b.limit.Tokens)
}

func (b *budget) take() error {
	if b.spent.Load() >= int64(b.limit.Tokens) {
		return fmt.Errorf("%w: the run's model budget of %d tokens is spent", errNoAnswer, b.limit.Tokens)
	}
	if b.calls.Add(1) > int64(b.limit.Calls) {
		return fmt.Errorf("%w: the run's model budget of %d calls is spent", errNoAnswer, b.limit.Calls)
	}
	return nil
}

func (b *budget) spend(tokens int) { b.spent.Add(int64(tokens)) }
