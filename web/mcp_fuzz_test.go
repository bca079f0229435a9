package web

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"evidenceledger/gate"
	"evidenceledger/ledger"
)

// FuzzMCPToolInput sends arbitrary JSON as the arguments of every tool, over the SDK's
// in-memory transport, to a server on a real ledger built without check jobs (so that no
// input can make it fetch). Invariants: every call is answered, either with a tool error
// that says something or with structured content that decodes into the tool's output type;
// a gate decision that allows has no claim that is not allowed; and the chain never changes.
// Seeds: the pastes of testdata/pastes (as text and as claims) and the malformed inputs of
// TestMCPMalformedInput.
func FuzzMCPToolInput(f *testing.F) {
	pastes, err := filepath.Glob("../testdata/pastes/*")
	if err != nil || len(pastes) == 0 {
		f.Fatalf("no pastes: %v", err)
	}
	for _, p := range pastes {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if strings.HasSuffix(p, ".golden.json") {
			continue
		}
		text, _ := json.Marshal(map[string]string{"text": string(b)})
		f.Add(uint8(0), string(text))
		f.Add(uint8(3), string(text))
		if strings.HasSuffix(p, ".json") {
			f.Add(uint8(0), `{"claims":`+string(b)+`}`)
		}
	}
	for tool, args := range []string{
		`{"claims":"x"}`, `{"claims":[{"text":"x","citations":[{"url":"http://a.test/","quote":7}]}]}`, `{"claims":[],"recheck":true}`,
		`{"claim":"cl_1","batch":"b_1"}`, `{"batch":""}`, `{"text":12}`, `{"full":true}`, `null`, `[]`, `{"text":"a\u0000b"}`,
		`{"text":"The registry counted 4,812 companies [1].\n\n[1]: http://a.test/ \"counted 4,812\"","min_strength":"high"}`,
	} {
		f.Add(uint8(tool), args)
	}
	st, err := ledger.Open(f.Context(), f.TempDir(), ledger.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	u := ledger.User{Name: "olga", Role: ledger.RoleOperator}
	srv := NewMCPServer(Config{Ledger: st}, u)
	ct, st2 := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(f.Context(), st2, nil); err != nil {
		f.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fuzz", Version: "1"}, nil).Connect(f.Context(), ct, nil)
	if err != nil {
		f.Fatal(err)
	}
	rep, err := st.Audit(f.Context())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tool uint8, args string) {
		name := MCPTools[int(tool)%len(MCPTools)]
		if !json.Valid([]byte(args)) {
			return // the transport carries JSON; what is not JSON never reaches a tool
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			// Arguments that are not an object are refused by the protocol layer.
			if strings.HasPrefix(strings.TrimSpace(args), "{") {
				t.Fatalf("%s %s: %v", name, args, err)
			}
			return
		}
		if res.IsError {
			if strings.TrimSpace(resultText(res)) == "" {
				t.Fatalf("%s %s: a tool error that says nothing", name, args)
			}
		} else {
			raw, _ := json.Marshal(res.StructuredContent)
			var out any
			switch name {
			case "check_claims", "claim_status":
				out = &CheckAnswer{}
			case "batch_report":
				out = &ledger.HandOff{}
			case "gate_text":
				out = &gate.Decision{}
			default:
				out = &AuditStatus{}
			}
			dec := json.NewDecoder(strings.NewReader(string(raw)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(out); err != nil {
				t.Fatalf("%s %s: structured content %s: %v", name, args, raw, err)
			}
			if d, ok := out.(*gate.Decision); ok && d.Allow {
				for _, c := range d.Claims {
					if !c.Allow {
						t.Fatalf("gate_text %s: allows a text with a claim not allowed: %s", args, raw)
					}
				}
			}
		}
		if now, err := st.Audit(t.Context()); err != nil || now.Events != rep.Events || now.Head != rep.Head {
			t.Fatalf("%s %s changed the chain: %d → %d events (%v)", name, args, rep.Events, now.Events, err)
		}
	})
}
