package ledger

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/migrations"
)

// statusCheck matches a schema's list of the statuses a column may hold.
var statusCheck = regexp.MustCompile(`CHECK \(status IN \(([^)]*)\)\)`)

// sqlQuoted matches a quoted word in SQL.
var sqlQuoted = regexp.MustCompile(`'([a-z_]+)'`)

// TestSQLSpellsTheStatuses: every list of statuses in the schema is exactly evidence's four,
// and every status the package's SQL still spells as a literal is one of evidence's
// constants, so a renamed status cannot leave a query behind.
func TestSQLSpellsTheStatuses(t *testing.T) {
	want := []string{string(evidence.StatusReported), string(evidence.StatusFound), string(evidence.StatusNotFound), string(evidence.StatusUnreachable)}
	lists := 0
	err := fs.WalkDir(migrations.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations.FS, path)
		if err != nil {
			return err
		}
		for _, m := range statusCheck.FindAllStringSubmatch(string(b), -1) {
			lists++
			var got []string
			for _, q := range sqlQuoted.FindAllStringSubmatch(m[1], -1) {
				got = append(got, q[1])
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: the statuses are %v; evidence has %v", path, got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if lists == 0 {
		t.Fatal("no status list in the schema")
	}
	// Where the package's SQL still compares a status with a literal (the projectors'
	// queries of batches.go and checks.go), the literal is one of evidence's constants.
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	compared := regexp.MustCompile(`status\s*(?:=\s*'[a-z_]+'|IN\s*\([^)]*\))`)
	literals := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range compared.FindAllString(string(b), -1) {
			for _, q := range sqlQuoted.FindAllStringSubmatch(m, -1) {
				literals++
				if !evidence.Status(q[1]).Valid() {
					t.Errorf("%s: %q compares a status with %q, which is no status of package evidence", f, m, q[1])
				}
			}
		}
	}
	if literals == 0 {
		t.Fatal("no status literal found in the package's SQL; the pattern no longer reads it")
	}
}
