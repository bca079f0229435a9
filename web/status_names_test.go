package web

import (
	"io/fs"
	"strings"
	"testing"

	"evidenceledger/evidence"
)

// TestTemplatesSpellNoStatus: the templates take the statuses from the one table
// (statusTable), whose names are package evidence's constants; none spells one itself,
// in quotes or as text.
func TestTemplatesSpellNoStatus(t *testing.T) {
	names := statusTable()
	for _, tt := range []struct {
		got, want evidence.Status
	}{{names.Reported, evidence.StatusReported}, {names.Found, evidence.StatusFound}, {names.NotFound, evidence.StatusNotFound}, {names.Unreachable, evidence.StatusUnreachable}} {
		if tt.got != tt.want {
			t.Errorf("status table has %q for %q", tt.got, tt.want)
		}
	}
	spelled := []string{string(evidence.StatusFound), string(evidence.StatusNotFound), `"` + string(evidence.StatusUnreachable) + `"`, `"` + string(evidence.StatusReported) + `"`}
	checked := 0
	for _, fsys := range []fs.FS{templateFS, reportFS} {
		if err := fs.WalkDir(fsys, "templates", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			return spellsNoStatus(t, fsys, path, spelled, &checked)
		}); err != nil {
			t.Fatal(err)
		}
	}
	if checked < 5 {
		t.Fatalf("%d templates read", checked)
	}
}

// spellsNoStatus fails t when the template at path spells one of spelled.
func spellsNoStatus(t *testing.T, fsys fs.FS, path string, spelled []string, checked *int) error {
	t.Helper()
	b, err := fs.ReadFile(fsys, path)
	if err != nil {
		return err
	}
	*checked++
	for _, s := range spelled {
		if strings.Contains(string(b), s) {
			t.Errorf("%s spells the status %s; take it from the status table ({{(status).…}})", path, s)
		}
	}
	return nil
}
