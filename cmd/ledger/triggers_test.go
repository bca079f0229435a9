package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// triggerCase is one line of testdata/triggers/cases.jsonl.
type triggerCase struct {
	ID     string `json:"id"`
	Prompt string `json:"prompt"`
	Fire   *bool  `json:"fire"`
	Origin string `json:"origin"`
}

// readTriggerCases reads the cases strictly: every line one object of exactly those members.
func readTriggerCases(t *testing.T) []triggerCase {
	t.Helper()
	f, err := os.Open("../../testdata/triggers/cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []triggerCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		var c triggerCase
		if err := dec.Decode(&c); err != nil || dec.More() {
			t.Fatalf("cases.jsonl line %d: %v", n, err)
		}
		cases = append(cases, c)
	}
	return cases
}

// TestTriggerCases checks the shape of the trigger cases: unique ids that say fire- or
// nofire- as the case does, prompts, at least 27 cases of each kind, the cases the
// requirements name among them.
func TestTriggerCases(t *testing.T) {
	cases := readTriggerCases(t)
	ids := map[string]bool{}
	count := map[bool]int{}
	required := map[bool]int{}
	for _, c := range cases {
		if c.Fire == nil || strings.TrimSpace(c.Prompt) == "" || ids[c.ID] {
			t.Errorf("case %+v: want a unique id, a prompt and fire", c)
			continue
		}
		ids[c.ID] = true
		if prefix := map[bool]string{true: "fire-", false: "nofire-"}[*c.Fire]; !strings.HasPrefix(c.ID, prefix) {
			t.Errorf("case %s: fire is %v, so its id starts with %s", c.ID, *c.Fire, prefix)
		}
		switch c.Origin {
		case "requirements":
			required[*c.Fire]++
		case "added":
		default:
			t.Errorf("case %s: origin %q, want requirements or added", c.ID, c.Origin)
		}
		count[*c.Fire]++
	}
	if count[true] < 27 || count[false] < 27 {
		t.Errorf("%d cases that fire and %d that do not, want at least 27 of each", count[true], count[false])
	}
	for _, id := range []string{"fire-verify-these-claims", "fire-are-these-sources-real", "fire-double-check-before-memory", "fire-publishing-are-citations-real",
		"nofire-editorial-second-opinion", "nofire-model-selection", "nofire-read-time-grounding", "nofire-summary"} {
		if !ids[id] {
			t.Errorf("the case %s of the requirements is missing", id)
		}
	}
	if required[true] != 4 || required[false] != 4 {
		t.Errorf("cases of the requirements: %v", required)
	}
}

// TestTriggerEvalScript runs scripts/trigger-eval against a stand-in endpoint on loopback:
// the tool it offers must carry SKILL.md's name and description exactly, and the accuracy it
// reports must be the stand-in's. The stand-in fires on the cases whose prompt a fixed rule
// picks, so the expected counts are known.
func TestTriggerEvalScript(t *testing.T) {
	name, desc := skillFrontMatter(t)
	cases := readTriggerCases(t)
	rule := regexp.MustCompile(`(?i)verif|real|check`)
	var mu sync.Mutex
	var seen []string
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string
			Messages []struct{ Role, Content string }
			Tools    []struct {
				Function struct{ Name, Description string }
			}
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Tools) != 1 || req.Model != "stand-in" {
			http.Error(w, "not the request the script sends", http.StatusBadRequest)
			return
		}
		mu.Lock()
		seen = append(seen, req.Tools[0].Function.Name+"\x00"+req.Tools[0].Function.Description)
		mu.Unlock()
		msg := map[string]any{"role": "assistant", "content": "answered without the skill"}
		if rule.MatchString(req.Messages[len(req.Messages)-1].Content) {
			msg = map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "c1", "type": "function",
				"function": map[string]any{"name": req.Tools[0].Function.Name, "arguments": "{}"}}}}
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": msg}}})
	}))
	defer model.Close()
	cmd := exec.CommandContext(t.Context(), "python3", "../../scripts/trigger-eval", "--min", "0")
	cmd.Env = append(os.Environ(), "TRIGGER_EVAL_ENDPOINT="+model.URL+"/v1", "TRIGGER_EVAL_MODEL=stand-in")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("trigger-eval: %v\n%s", err, out)
	}
	right := map[bool]int{}
	total := map[bool]int{}
	for _, c := range cases {
		total[*c.Fire]++
		if rule.MatchString(c.Prompt) == *c.Fire {
			right[*c.Fire]++
		}
	}
	for _, want := range []string{
		fmt.Sprintf("should fire:     %d/%d", right[true], total[true]),
		fmt.Sprintf("should not fire: %d/%d", right[false], total[false]),
		fmt.Sprintf("overall:         %d/%d", right[true]+right[false], len(cases)),
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if len(seen) != len(cases) || slices.ContainsFunc(seen, func(s string) bool { return s != name+"\x00"+desc }) {
		t.Fatalf("the script evaluated %d requests, not all with SKILL.md's name and description", len(seen))
	}
}
