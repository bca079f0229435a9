package evidence

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update regenerates the golden files: go test ./evidence -run TestGoldenPastes -update
var update = flag.Bool("update", false, "rewrite testdata/pastes/*.golden.json from the parser's output")

const pastesDir = "../testdata/pastes"

// pastes returns the paste files of testdata/pastes (every file that is not a golden file).
func pastes(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir(pastesDir)
	if err != nil {
		t.Fatalf("reading %s: %v", pastesDir, err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() || strings.HasSuffix(e.Name(), ".golden.json") {
			continue
		}
		out = append(out, filepath.Join(pastesDir, e.Name()))
	}
	if len(out) < 8 {
		t.Fatalf("found %d pastes in %s, want at least 8", len(out), pastesDir)
	}
	return out
}

func goldenPath(paste string) string {
	return strings.TrimSuffix(paste, filepath.Ext(paste)) + ".golden.json"
}

func TestGoldenPastes(t *testing.T) {
	for _, path := range pastes(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := ParseResearch(string(in))
			if err != nil {
				t.Fatalf("ParseResearch: %v", err)
			}
			got, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := goldenPath(path)
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("reading golden file: %v (run go test ./evidence -run TestGoldenPastes -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s; review the change and rerun with -update if it is right\ngot:\n%s", golden, got)
			}
			assertFromInput(t, string(in), r)
		})
	}
}
