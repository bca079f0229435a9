package evidence

import "fmt"

// PersonDecision is the status a person last gave a citation by resolving a manual or
// disagreement seam: the seam, who resolved it and the status decided. The store keeps it
// until the next check of the citation is recorded.
type PersonDecision struct {
	Seam   string
	By     string
	Status Status
}

// RespectPerson is the rule that keeps a re-check from overwriting a person's decision
// silently. checked is the re-check about to be recorded, seam the seam it opens itself (nil
// for none), prior the person's decision on the citation, and newSeam the id a seam this
// rule opens gets. When the re-check gives the status the person decided, nothing changes.
// Otherwise:
//
//   - a re-check that fetched nothing and asks a person to open the page (a login wall: no
//     document, a manual seam) learns nothing new: the person's status stays, the note says
//     so, and no seam opens (nil is returned);
//   - any other re-check leaves the citation reported and, unless it opens a seam itself,
//     opens a disagreement seam newSeam that names the person and both statuses, so that a
//     person decides again; the note says what the re-check found.
//
// It changes checked in place and returns the seam to record with it. The ledger's
// projection applies it; it reads nothing but its arguments.
func RespectPerson(checked *Checked, seam *SeamOpened, prior PersonDecision, newSeam string) *SeamOpened {
	switch {
	case checked.Status == prior.Status:
		return seam
	case checked.Document == nil && seam != nil && seam.Kind == SeamManual:
		checked.Status = prior.Status
		checked.Note = fmt.Sprintf("login-walled host, never fetched again; the decision of %s (seam %s) stands: %s", prior.By, prior.Seam, prior.Status)
		return nil
	}
	got := checked.Status
	checked.Status = StatusReported
	if seam == nil {
		seam = &SeamOpened{Seam: newSeam, Kind: SeamDisagreement,
			Summary: fmt.Sprintf("A re-check gives %s, but %s decided %s (seam %s); a person must decide again.", got, prior.By, prior.Status, prior.Seam),
			Claims:  []string{checked.Claim}, Citations: []string{checked.Citation}}
	}
	checked.Note = fmt.Sprintf("the re-check gives %s, but %s decided %s (seam %s): a person must decide again (seam %s); the re-check found: %s",
		got, prior.By, prior.Status, prior.Seam, seam.Seam, checked.Note)
	return seam
}
