package evidence

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// jsonWant is the expected reading of a JSON file of testdata/json, written by hand: each
// claim's text with its citations as [URL, quote] pairs, and what the preview lists as not
// read (NotRead), by place.
type jsonWant struct {
	Claims []struct {
		Text      string      `json:"text"`
		Citations [][2]string `json:"citations"`
	} `json:"claims"`
	NotRead []struct {
		Field string `json:"field"`
		Text  string `json:"text"`
	} `json:"not_read"`
}

// TestJSONFieldNames: the JSON reader takes the usual names of a source and of a quote, and
// reports every other value that may hold research as not read, by its place, so nothing is
// dropped silently.
func TestJSONFieldNames(t *testing.T) {
	files, _ := filepath.Glob("testdata/json/*.json")
	n := 0
	for _, path := range files {
		if strings.HasSuffix(path, ".want.json") {
			continue
		}
		n++
		t.Run(filepath.Base(path), func(t *testing.T) {
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(strings.TrimSuffix(path, ".json") + ".want.json")
			if err != nil {
				t.Fatal(err)
			}
			var want jsonWant
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			for _, text := range []string{string(in), "Here is the JSON:\n\n```json\n" + string(in) + "\n```\n"} {
				r, left, err := ParseResearchLeftOut(text)
				if err != nil {
					t.Fatal(err)
				}
				var got jsonWant
				for _, c := range r.Claims {
					var cs [][2]string
					for _, ct := range c.Citations {
						cs = append(cs, [2]string{ct.URL, ct.Quote})
					}
					got.Claims = append(got.Claims, struct {
						Text      string      `json:"text"`
						Citations [][2]string `json:"citations"`
					}{c.Text, cs})
				}
				for _, l := range NotRead(left) {
					got.NotRead = append(got.NotRead, struct {
						Field string `json:"field"`
						Text  string `json:"text"`
					}{l.Field, l.Text})
				}
				if !reflect.DeepEqual(got, want) {
					g, _ := json.MarshalIndent(got, "", "  ")
					t.Fatalf("got\n%s\nwant\n%s", g, b)
				}
				// The short values are left out too, for the memory-write gate to sort.
				for _, l := range left {
					if l.Reason == LeftJSON && l.Field == "" {
						t.Errorf("left-out JSON value %q has no place", l.Text)
					}
				}
				assertFromInput(t, text, r)
			}
			checkJSONLeftOut(t, string(in))
		})
	}
	if n < 2 {
		t.Fatalf("found %d JSON files in testdata/json", n)
	}
}

// TestJSONNotReadShortValues: short values the reader does not read (an id, a rating, a
// source's name) are left out with their place, but are not listed as not read.
func TestJSONNotReadShortValues(t *testing.T) {
	_, left, err := ParseResearchLeftOut(`[{"claim": "The plan adds 4,000 homes by 2030.", "id": "c1", "confidence": "high", "source": "Reuters"}]`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range left {
		got = append(got, l.Field+"="+l.Text)
	}
	if want := []string{"[0].source=Reuters", "[0].confidence=high", "[0].id=c1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("left out %q, want %q", got, want)
	}
	if nr := NotRead(left); len(nr) != 0 {
		t.Errorf("NotRead = %+v, want none", nr)
	}
}

// checkJSONLeftOut checks, for a JSON paste, that nothing is dropped silently: every string
// under a member whose name the reader does not know is reported as left out, and every
// left-out value's place (Field) leads, in the decoded JSON, to exactly that value.
func checkJSONLeftOut(t *testing.T, in string) {
	t.Helper()
	var v any
	if json.Unmarshal([]byte(in), &v) != nil {
		return
	}
	_, left, err := readClaimsJSON([]byte(in), true)
	if err != nil && len(left) == 0 {
		return
	}
	known := map[string]bool{}
	for _, ks := range [][]string{jsonTextKeys, jsonURLKeys, jsonQuoteKeys, jsonCitationKeys, jsonListKeys} {
		for _, k := range ks {
			known[k] = true
		}
	}
	reported := map[string]string{}
	for _, l := range left {
		if l.Reason != LeftJSON || l.Field == "" {
			t.Fatalf("left out %+v: not a JSON value with its place", l)
		}
		reported[l.Field] = l.Text
	}
	var walk func(v any, at *jsonPath, name string, unknown bool)
	walk = func(v any, at *jsonPath, name string, unknown bool) {
		switch x := v.(type) {
		case string:
			if !unknown || !hasLetterOrDigit(x) {
				return
			}
			if got, ok := reported[at.String()]; !ok || got != strings.TrimSpace(x) {
				t.Fatalf("the value %q at %s, under the unknown member %q, is not reported (left out: %+v)", x, at, name, left)
			}
		case []any:
			for i, e := range x {
				walk(e, at.at(i), name, unknown)
			}
		case map[string]any:
			for k, e := range x {
				walk(e, at.member(k), k, unknown || !known[strings.ToLower(keyReplacer.Replace(k))])
			}
		}
	}
	walk(v, nil, "", false)
	// every reported place leads to its value
	for _, l := range left {
		if !resolves(v, l.Field, l.Text) {
			t.Fatalf("left out %+v: its place does not lead to it", l)
		}
	}
}

// resolves reports whether some string value of v, at the place spelled field, is text.
func resolves(v any, field, text string) bool {
	found := false
	var walk func(v any, at *jsonPath)
	walk = func(v any, at *jsonPath) {
		switch x := v.(type) {
		case string:
			if at.String() == field && strings.TrimSpace(x) == text {
				found = true
			}
		case []any:
			for i, e := range x {
				walk(e, at.at(i))
			}
		case map[string]any:
			for k, e := range x {
				walk(e, at.member(k))
			}
		}
	}
	walk(v, nil)
	return found
}
