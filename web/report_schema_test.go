package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// compiledReportSchema compiles the published schema of the JSON report.
func compiledReportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(reportSchema))
	if err != nil {
		t.Fatalf("the report schema is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("report.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("report.schema.json")
	if err != nil {
		t.Fatalf("the report schema does not compile: %v", err)
	}
	return sch
}

// validReport fails t unless body, a JSON report, is valid under the published schema.
func validReport(t *testing.T, sch *jsonschema.Schema, body []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("the report is not JSON: %v", err)
	}
	if err := sch.Validate(v); err != nil {
		t.Fatalf("the report does not follow web/schema/report.schema.json: %v\n%s", err, body)
	}
}

// TestReportSchema: the JSON report follows its published schema (no member it does not
// name, none it requires missing), a report that breaks it is refused, and the schema's
// lists of statuses, strengths and reasons are the ones evidence has.
func TestReportSchema(t *testing.T) {
	sch := compiledReportSchema(t)
	golden, err := os.ReadFile(filepath.Join("..", "testdata", "web", "report", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	validReport(t, sch, golden)
	var buf bytes.Buffer
	if err := WriteReport(&buf, goldenHandOff(), ReportJSON); err != nil {
		t.Fatal(err)
	}
	validReport(t, sch, buf.Bytes())
	empty := ledger.HandOff{Batch: ledger.HandOffBatch{ID: "b_0000000000000000"}, Usable: []ledger.HandOffClaim{}, Withheld: []ledger.HandOffClaim{},
		WithheldBy: map[evidence.Withheld]int{}}
	for _, r := range evidence.WithheldReasons {
		empty.WithheldBy[r] = 0
	}
	buf.Reset()
	if err := WriteReport(&buf, empty, ReportJSON); err != nil {
		t.Fatal(err)
	}
	validReport(t, sch, buf.Bytes())

	for _, bad := range []struct{ desc, from, to string }{
		{"an unknown member", `"excerpt":`, `"surprise": 1, "excerpt":`},
		{"a status that does not exist", `"status": "not_found"`, `"status": "probably_true"`},
		{"a page that is not a number", `"page": 12`, `"page": "12"`},
		{"a hash that is not one", `"hash": "0f0f`, `"hash": "zz0f`},
	} {
		t.Run(bad.desc, func(t *testing.T) {
			changed := strings.Replace(string(golden), bad.from, bad.to, 1)
			if changed == string(golden) {
				t.Fatalf("the golden report has no %q", bad.from)
			}
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(changed))
			if err != nil {
				t.Fatal(err)
			}
			if sch.Validate(v) == nil {
				t.Fatal("the schema accepts it")
			}
		})
	}

	var s struct {
		Defs struct {
			Status struct{ Enum []string } `json:"status"`
			Claim  struct {
				Properties struct {
					Strength struct{ Enum []string } `json:"strength"`
					Withheld struct{ Enum []string } `json:"withheld"`
				} `json:"properties"`
			} `json:"claim"`
		} `json:"$defs"`
		Properties struct {
			WithheldBy struct {
				Required []string `json:"required"`
			} `json:"withheld_by"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(reportSchema, &s); err != nil {
		t.Fatal(err)
	}
	statuses := []string{string(evidence.StatusReported), string(evidence.StatusFound), string(evidence.StatusNotFound), string(evidence.StatusUnreachable)}
	strengths := []string{string(evidence.StrengthNone), string(evidence.StrengthLow), string(evidence.StrengthMedium), string(evidence.StrengthHigh)}
	var reasons []string
	for _, r := range evidence.WithheldReasons {
		reasons = append(reasons, string(r))
	}
	for _, c := range []struct {
		what      string
		got, want []string
	}{
		{"statuses", s.Defs.Status.Enum, statuses},
		{"strengths", s.Defs.Claim.Properties.Strength.Enum, strengths},
		{"reasons a claim is withheld", s.Defs.Claim.Properties.Withheld.Enum, append([]string{string(evidence.HandOnOK)}, reasons...)},
		{"reasons counted", s.Properties.WithheldBy.Required, reasons},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("the schema's %s are %q; evidence has %q", c.what, c.got, c.want)
		}
	}
}

// TestReportSchemaRoute: GET /api/report.schema.json serves the schema without sign-in.
func TestReportSchemaRoute(t *testing.T) {
	f := newFixture(t)
	status, body := f.send(t, "GET", "/api/report.schema.json", "", "", nil)
	if status != http.StatusOK || !bytes.Equal(body, reportSchema) {
		t.Fatalf("GET /api/report.schema.json: %d %.200s", status, body)
	}
}
