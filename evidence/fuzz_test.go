package evidence

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// seedPastes adds every paste of testdata/pastes, and the pastes and JSON files of
// evidence/testdata/pairing and evidence/testdata/json, to the fuzz corpus.
func seedPastes(f *testing.F, keep func(path string) bool) {
	f.Helper()
	more, _ := filepath.Glob("testdata/pairing/*.md")
	js, _ := filepath.Glob("testdata/json/*.json")
	for _, path := range append(append(pastes(f), more...), js...) {
		if !keep(path) {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
}

// FuzzParseResearch checks, for any input: no panic; only the documented errors; the same
// output twice; and nothing invented (every URL, quote and claim word comes from the input).
func FuzzParseResearch(f *testing.F) {
	seedPastes(f, func(string) bool { return true })
	f.Add("Claim: a\nSource: [x](https://a.example/(b)) Quote: “c d e f g h i j k l”")
	f.Add("text [1]\n\n[1]: https://a.example [1]")
	f.Fuzz(func(t *testing.T, in string) {
		r, err := ParseResearch(in)
		if err != nil {
			if !errors.Is(err, ErrNothingUsable) && !errors.Is(err, ErrBadResearch) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		again, err := ParseResearch(in)
		if err != nil || !reflect.DeepEqual(r, again) {
			t.Fatalf("second parse differs: %v\n%+v\n%+v", err, r, again)
		}
		assertFromInput(t, in, r)
		checkVia(t, in)
	})
}

// FuzzParseClaimsJSON checks the JSON reader the same way, and that it drops nothing
// silently (checkJSONLeftOut).
func FuzzParseClaimsJSON(f *testing.F) {
	seedPastes(f, func(path string) bool { return strings.HasSuffix(path, ".json") })
	f.Add(`{"claims":[{"text":"a b c","citations":[{"url":"https://a.example","quote":"q"}]}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		r, err := ParseClaimsJSON([]byte(in))
		if err != nil {
			if !errors.Is(err, ErrNothingUsable) && !errors.Is(err, ErrBadResearch) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if !json.Valid([]byte(in)) {
			t.Fatalf("accepted invalid JSON %q", in)
		}
		again, _ := ParseClaimsJSON([]byte(in))
		if !reflect.DeepEqual(r, again) {
			t.Fatalf("second parse differs")
		}
		assertFromInput(t, in, r)
		checkJSONLeftOut(t, in)
	})
}

var reSeedURL = regexp.MustCompile(`https?://[^\s)>\]"”|]+`)

// FuzzSourceID checks that SourceID never panics, is deterministic, and returns a lowercase
// id that the URL's host ends with (or an error matching ErrBadSourceURL).
func FuzzSourceID(f *testing.F) {
	for _, path := range pastes(f) {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, u := range reSeedURL.FindAllString(string(b), -1) {
			f.Add(u)
		}
	}
	f.Fuzz(func(t *testing.T, raw string) {
		id, err := SourceID(raw)
		if err != nil {
			if !errors.Is(err, ErrBadSourceURL) {
				t.Fatalf("error %v does not match ErrBadSourceURL", err)
			}
			return
		}
		again, _ := SourceID(raw)
		if id != again {
			t.Fatalf("SourceID(%q) gave %q then %q", raw, id, again)
		}
		if id == "" || id != strings.ToLower(id) {
			t.Fatalf("SourceID(%q) = %q: empty or not lowercase", raw, id)
		}
	})
}
