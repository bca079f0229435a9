package evidence

import (
	"strings"
	"testing"
)

// TestRespectPerson: the rule that a re-check never overwrites a person's decision silently,
// case by case.
func TestRespectPerson(t *testing.T) {
	prior := PersonDecision{Seam: "s_0000000000000001", By: "user:olga", Status: StatusNotFound}
	doc := &Document{SHA256: strings.Repeat("a", 64)}
	ownSeam := &SeamOpened{Seam: "s_00000000000000aa", Kind: SeamDisagreement}
	manual := &SeamOpened{Seam: "s_00000000000000bb", Kind: SeamManual}
	cases := []struct {
		name       string
		status     Status
		document   *Document
		seam       *SeamOpened
		wantStatus Status
		wantSeam   string // "" for none, "new" for the rule's own
		wantNote   []string
	}{
		{"the same status as the person's: nothing changes", StatusNotFound, doc, nil, StatusNotFound, "", []string{"page says"}},
		{"the same status, with the check's own seam: kept", StatusNotFound, doc, ownSeam, StatusNotFound, ownSeam.Seam, []string{"page says"}},
		{"another status: reported, and a disagreement seam names the person", StatusFound, doc, nil, StatusReported, "new",
			[]string{"the re-check gives found_at_source, but user:olga decided not_found (seam s_0000000000000001)", "the re-check found: page says"}},
		{"another status with the check's own seam: that seam, no second one", StatusUnreachable, doc, ownSeam, StatusReported, ownSeam.Seam,
			[]string{"gives unreachable", "(seam s_00000000000000aa)"}},
		{"a login wall, never fetched: the person's status stands, no seam", StatusReported, nil, manual, StatusNotFound, "",
			[]string{"login-walled host, never fetched again; the decision of user:olga (seam s_0000000000000001) stands: not_found"}},
		{"no document but no manual seam: not a login wall", StatusUnreachable, nil, nil, StatusReported, "new", []string{"gives unreachable"}},
		{"a document with a manual seam: not a login wall either", StatusReported, doc, manual, StatusReported, manual.Seam, []string{"gives reported"}},
	}
	for _, c := range cases {
		ch := Checked{Citation: "ct_0000000000000001", Claim: "c_0000000000000001", Status: c.status, Document: c.document, Note: "page says"}
		var seam *SeamOpened
		if c.seam != nil {
			cp := *c.seam
			seam = &cp
		}
		got := RespectPerson(&ch, seam, prior, "s_00000000000000ff")
		if ch.Status != c.wantStatus {
			t.Errorf("%s: status %s, want %s", c.name, ch.Status, c.wantStatus)
		}
		switch {
		case c.wantSeam == "" && got != nil:
			t.Errorf("%s: seam %+v, want none", c.name, got)
		case c.wantSeam == "new" && (got == nil || got.Seam != "s_00000000000000ff" || got.Kind != SeamDisagreement ||
			len(got.Citations) != 1 || got.Citations[0] != ch.Citation || len(got.Claims) != 1 || got.Claims[0] != ch.Claim ||
			!strings.Contains(got.Summary, "user:olga decided not_found")):
			t.Errorf("%s: seam %+v, want a disagreement seam s_00000000000000ff about the citation naming the person", c.name, got)
		case c.wantSeam != "" && c.wantSeam != "new" && (got == nil || got.Seam != c.wantSeam):
			t.Errorf("%s: seam %+v, want %s", c.name, got, c.wantSeam)
		}
		for _, w := range c.wantNote {
			if !strings.Contains(ch.Note, w) {
				t.Errorf("%s: note %q lacks %q", c.name, ch.Note, w)
			}
		}
	}
}
