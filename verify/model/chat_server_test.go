package model

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// chatServer is a loopback server that speaks the chat-completions protocol and answers
// each request from a script. It records every request as sent: the bytes, the headers,
// the client's address.
type chatServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []chatSeen
	script   func(req chatSeen, n int) chatAnswer
}

// chatSeen is one request as the server received it.
type chatSeen struct {
	Body   []byte
	Header http.Header
	Remote string
	// Role is who sent it, from its instructions: model-a (or model-c, which shares its
	// instructions), model-b or adjudicator.
	Role   string
	Model  string
	System string
	User   string
	// Messages is how many messages the request held.
	Messages int
}

// chatAnswer is what the script answers: a status (200 when 0), a body (a completion
// built by reply when empty and Content is set), a Retry-After header, a delay.
type chatAnswer struct {
	Status     int
	Body       string
	Content    string
	Finish     string
	RetryAfter string
	// Hang: no answer at all; the request ends only when its client gives up.
	Hang bool
}

func newChatServer(t testing.TB, script func(req chatSeen, n int) chatAnswer) *chatServer {
	t.Helper()
	s := &chatServer{script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model    string        `json:"model"`
			Messages []chatMessage `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		seen := chatSeen{Body: body, Header: r.Header.Clone(), Remote: r.RemoteAddr, Model: req.Model, Messages: len(req.Messages)}
		if len(req.Messages) > 0 {
			seen.System = req.Messages[0].Content
		}
		if len(req.Messages) > 1 {
			seen.User = req.Messages[1].Content
		}
		switch seen.System {
		case promptA:
			seen.Role = nameA
		case promptB:
			seen.Role = nameB
		case promptAdjudicator:
			seen.Role = "adjudicator"
		}
		s.mu.Lock()
		s.requests = append(s.requests, seen)
		n := 0
		for _, q := range s.requests {
			if q.Role == seen.Role {
				n++
			}
		}
		s.mu.Unlock()
		a := s.script(seen, n)
		if a.Hang {
			<-r.Context().Done()
			return
		}
		if a.RetryAfter != "" {
			w.Header().Set("Retry-After", a.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		if a.Status != 0 {
			w.WriteHeader(a.Status)
		}
		if a.Body == "" {
			a.Body = completion(t, a.Content, a.Finish, quarterTokens(seen.System+seen.User), quarterTokens(a.Content))
		}
		io.WriteString(w, a.Body)
	}))
	t.Cleanup(s.Close)
	return s
}

// Seen returns the requests received so far.
func (s *chatServer) Seen() []chatSeen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]chatSeen(nil), s.requests...)
}

// Endpoint is the base URL the adapter is given.
func (s *chatServer) Endpoint(model string) Endpoint {
	return Endpoint{URL: s.URL + "/v1", Model: model}
}

// completion wraps content in the recorded llama.cpp reply shape, with the token counts
// given.
func completion(t testing.TB, content, finish string, prompt, completionTokens int) string {
	t.Helper()
	var r map[string]any
	if err := json.Unmarshal(readTestdata(t, "models/llamacpp-response.json"), &r); err != nil {
		t.Fatal(err)
	}
	ch := r["choices"].([]any)[0].(map[string]any)
	ch["message"].(map[string]any)["content"] = content
	if finish != "" {
		ch["finish_reason"] = finish
	}
	r["usage"] = map[string]int{"prompt_tokens": prompt, "completion_tokens": completionTokens, "total_tokens": prompt + completionTokens}
	b, _ := json.Marshal(r)
	return string(b)
}

// verdictJSON is a verifier's answer.
func verdictJSON(verdict string, estimate int, reasoning string, evidence ...string) string {
	if evidence == nil {
		evidence = []string{}
	}
	b, _ := json.Marshal(map[string]any{"verdict": verdict, "accuracy_estimate": estimate, "reasoning": reasoning, "evidence": evidence})
	return string(b)
}

// adjudicationJSON is the adjudicator's answer.
func adjudicationJSON(agree bool, verdict string, confidence int, escalate bool) string {
	return fmt.Sprintf(`{"agree":%t,"verdict":%q,"confidence":%d,"escalate":%t}`, agree, verdict, confidence, escalate)
}

// quarterTokens counts the tokens of s as a quarter of its bytes, roughly what a tokenizer
// of English text gives.
func quarterTokens(s string) int { return (len(s) + 3) / 4 }
