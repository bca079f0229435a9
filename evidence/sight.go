package evidence

// Sight is what rendering a web page showed of a quote whose words its text holds
// (docs/verification.md, "The rendering verifier").
type Sight int

const (
	// SightSeen: a browser rendered the page and drew every part of the quote where a
	// reader sees it.
	SightSeen Sight = iota
	// SightUnseen: a browser rendered the page and drew the words nowhere a reader sees
	// them (hidden, transparent, too small, too faint, off the page, clipped or covered).
	SightUnseen
	// SightStyleOnly: the page was not rendered (no browser, or the rendering failed), so
	// that the words are visible rests on the style rules of the extractors alone.
	SightStyleOnly
)

// SightVerdict is a default verifier's verdict on a web page whose text holds the quote
// (found) or not: words a rendering shows no reader are not found, so never
// found_at_source; words not rendered stay found, with [NoteStyleOnly] and
// [RiskStyleOnly] saying what that rests on.
func SightVerdict(found bool, s Sight) Verdict {
	if !found || s == SightUnseen {
		return VerdictNotFound
	}
	return VerdictSupported
}

// The words of the notes and the residual risk of a quote checked on a web page without
// or against a rendering.
const (
	// NoteUnseen begins the note of a quote whose words the page's text holds but its
	// rendering shows no reader; why follows a colon.
	NoteUnseen = "the quote's words are in the page's text, but the rendered page does not show them to a reader"
	// NoteStyleOnly ends the note of a quote found on a web page that was not rendered.
	NoteStyleOnly = "visibility rests on the style rules alone"
	// RiskStyleOnly is added to the residual risk of such a quote.
	RiskStyleOnly = "The page was not rendered in a browser, so that the words are drawn where a reader sees them rests on the style rules alone (the page's style sheets as this program applies them); what only layout shows, such as text covered by another box, is not ruled out."
)
