package web

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// TestVendoredHTMXUnmodified checks that the htmx the binary serves is the file
// static/update-htmx.sh fetched: its SHA-256 is the one the script recorded, the version is
// htmx 2.x, and the licence is beside it.
func TestVendoredHTMXUnmodified(t *testing.T) {
	served, err := staticFS.ReadFile("static/htmx.min.js")
	if err != nil {
		t.Fatal(err)
	}
	recorded, err := os.ReadFile("static/htmx.min.js.sha256")
	if err != nil {
		t.Fatalf("the hash update-htmx.sh records is missing: %v", err)
	}
	sum := sha256.Sum256(served)
	if got, want := hex.EncodeToString(sum[:]), strings.TrimSpace(string(recorded)); got != want {
		t.Errorf("htmx.min.js has SHA-256 %s, but update-htmx.sh recorded %s: re-run web/static/update-htmx.sh rather than editing the file", got, want)
	}
	version, err := os.ReadFile("static/htmx.version")
	if err != nil {
		t.Fatal(err)
	}
	if v := strings.TrimSpace(string(version)); !strings.HasPrefix(v, "2.") || !strings.Contains(string(served), `version:"`+v+`"`) {
		t.Errorf("htmx.version says %q; want a 2.x version that htmx.min.js itself names", v)
	}
	if lic, err := staticFS.ReadFile("static/htmx.LICENSE"); err != nil || !strings.Contains(string(lic), "Zero-Clause BSD") {
		t.Errorf("the htmx licence is not embedded beside it: %v", err)
	}
}
