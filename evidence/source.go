package evidence

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// Source is the publisher behind one or more URLs, as operators classify it.
type Source struct {
	// ID is the source's id, as SourceID computes it from a URL: by default the
	// registrable domain, such as "sec.gov" or "bbc.co.uk".
	ID string `json:"id"`
	// Publisher is the name of who publishes there, such as "U.S. Securities and Exchange
	// Commission". Empty means the publisher is only known by ID.
	Publisher string `json:"publisher,omitempty"`
	// Class is primary, semi or lead. An empty or unknown class counts as lead.
	Class SourceClass `json:"class"`
}

// EffectiveClass is the class the strength rules use: Class when it is valid, ClassLead
// otherwise (unknown sources are leads).
func (s Source) EffectiveClass() SourceClass {
	if s.Class.Valid() {
		return s.Class
	}
	return ClassLead
}

// ErrBadSourceURL is matched (with errors.Is) by every error of SourceID.
var ErrBadSourceURL = errors.New("cannot tell the source of this URL")

// SourceID returns the id of the publisher behind an http(s) URL: the registrable domain of
// its host (eTLD+1 by the public suffix list), lowercased, in ASCII (an internationalized
// name becomes its xn-- form). "https://www.BBC.co.uk/news" gives "bbc.co.uk". A host that
// is an IP address gives the address itself; a single-label host such as "localhost" gives
// that label.
//
// The error matches ErrBadSourceURL when the URL does not parse, is not http or https, has
// no host, or its host is itself a public suffix (such as "co.uk").
func SourceID(rawURL string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return "", fmt.Errorf("%w: %q does not parse (%v); give an absolute http(s) URL", ErrBadSourceURL, rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("%w: %q is not an http or https URL", ErrBadSourceURL, rawURL)
	}
	host := u.Hostname()
	if host == "" {
		return "", fmt.Errorf("%w: %q names no host; give an absolute http(s) URL", ErrBadSourceURL, rawURL)
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.Zone() == "" {
		return ip.Unmap().String(), nil
	}
	host = strings.TrimSuffix(host, ".")
	if host == "" || strings.HasPrefix(host, ".") {
		return "", fmt.Errorf("%w: %q names no valid host; give an absolute http(s) URL", ErrBadSourceURL, rawURL)
	}
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil {
		return "", fmt.Errorf("%w: host %q of %q is not a valid domain name: %w", ErrBadSourceURL, host, rawURL, err)
	}
	ascii = strings.ToLower(ascii)
	if !strings.Contains(ascii, ".") {
		return ascii, nil
	}
	id, err := publicsuffix.EffectiveTLDPlusOne(ascii)
	if err != nil {
		return "", fmt.Errorf("%w: host %q of %q has no registrable domain: %w", ErrBadSourceURL, host, rawURL, err)
	}
	return id, nil
}

// FoundCitation is a citation whose quote was found at its source: the classified source and
// the URL of the record the quote was found on.
type FoundCitation struct {
	Source Source `json:"source"`
	// RecordURL is the page the quote was found on (the final URL after redirects).
	RecordURL string `json:"record_url"`
}

// independent reports whether two found citations rest on independent sources: they differ
// in source id, in publisher (compared case-insensitively, a missing publisher standing for
// the id) and in record URL (compared after normalizing scheme and host case, a default port,
// an empty path and the fragment away).
func independent(a, b FoundCitation) bool {
	if strings.EqualFold(a.Source.ID, b.Source.ID) {
		return false
	}
	if strings.EqualFold(publisherOf(a.Source), publisherOf(b.Source)) {
		return false
	}
	return !SameURL(a.RecordURL, b.RecordURL)
}

func publisherOf(s Source) string {
	if p := strings.TrimSpace(s.Publisher); p != "" {
		return p
	}
	return s.ID
}

// ComputeStrength computes the strength of a claim from its found citations:
//
//   - StrengthHigh: a primary source, corroborated by an independent source that is not a
//     lead (another primary or a semi);
//   - StrengthMedium: a single primary source, or two independent semi sources;
//   - StrengthLow: anything else that was found: leads only, a single semi source, or semi
//     sources that are not independent of each other. Press discovers; it never confirms,
//     so no number of leads raises a claim above low, and a lead never corroborates.
//   - StrengthNone: no found citation.
//
// Sources with an unknown class count as leads (see Source.EffectiveClass).
func ComputeStrength(found []FoundCitation) Strength {
	if len(found) == 0 {
		return StrengthNone
	}
	hasPrimary := false
	for i, a := range found {
		if a.Source.EffectiveClass() != ClassPrimary {
			continue
		}
		hasPrimary = true
		for j, b := range found {
			if i != j && b.Source.EffectiveClass() != ClassLead && independent(a, b) {
				return StrengthHigh
			}
		}
	}
	if hasPrimary {
		return StrengthMedium
	}
	for i, a := range found {
		if a.Source.EffectiveClass() != ClassSemi {
			continue
		}
		for _, b := range found[i+1:] {
			if b.Source.EffectiveClass() == ClassSemi && independent(a, b) {
				return StrengthMedium
			}
		}
	}
	return StrengthLow
}
