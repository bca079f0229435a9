package evidence

import (
	"errors"
	"testing"
)

func TestSourceID(t *testing.T) {
	tests := []struct {
		desc, url, want string
	}{
		{"plain domain", "https://example.org/a/b", "example.org"},
		{"www and case", "https://WWW.Example.ORG/Path", "example.org"},
		{"two-part public suffix", "https://www.bbc.co.uk/news/world-12345", "bbc.co.uk"},
		{"deep subdomain", "http://a.b.c.investor.apple.com/x", "apple.com"},
		{"private suffix of the list", "https://someone.github.io/blog", "someone.github.io"},
		{"port and userinfo ignored", "https://user:pw@data.census.gov:8443/table?x=1#frag", "census.gov"},
		{"trailing dot", "https://www.sec.gov./cgi-bin/browse-edgar", "sec.gov"},
		{"internationalized name becomes xn--", "https://www.Bücher.de/", "xn--bcher-kva.de"},
		{"punycode stays", "https://xn--bcher-kva.de/", "xn--bcher-kva.de"},
		{"ipv4 loopback", "http://127.0.0.1:8080/page", "127.0.0.1"},
		{"ipv6", "http://[::1]:9000/", "::1"},
		{"single label", "http://localhost/x", "localhost"},
		{"wikipedia with parentheses", "https://en.wikipedia.org/wiki/Mozilla_(disambiguation)", "wikipedia.org"},
		{"surrounding spaces", "  https://example.com/  ", "example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			got, err := SourceID(tt.url)
			if err != nil {
				t.Fatalf("SourceID(%q) error: %v", tt.url, err)
			}
			if got != tt.want {
				t.Errorf("SourceID(%q) = %q, want %q", tt.url, got, tt.want)
			}
		})
	}
}

func TestSourceIDErrors(t *testing.T) {
	tests := []struct {
		desc, url string
	}{
		{"empty", ""},
		{"no scheme", "www.example.org/a"},
		{"ftp", "ftp://example.org/file"},
		{"mailto", "mailto:press@example.org"},
		{"no host", "https:///path"},
		{"bad escape", "https://example.org/%zz"},
		{"a public suffix alone", "https://co.uk/"},
		{"invalid label", "https://exa mple.org/"},
		{"host is only a dot", "http://."},
		{"empty label first", "https://.example.org/"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			got, err := SourceID(tt.url)
			if !errors.Is(err, ErrBadSourceURL) {
				t.Fatalf("SourceID(%q) = %q, %v; want an error matching ErrBadSourceURL", tt.url, got, err)
			}
		})
	}
}

func found(id, publisher string, class SourceClass, recordURL string) FoundCitation {
	return FoundCitation{Source: Source{ID: id, Publisher: publisher, Class: class}, RecordURL: recordURL}
}

func TestIndependent(t *testing.T) {
	tests := []struct {
		desc string
		a, b FoundCitation
		want bool
	}{
		{"different in everything",
			found("sec.gov", "SEC", ClassPrimary, "https://sec.gov/a"),
			found("acme.com", "Acme Inc", ClassSemi, "https://acme.com/b"), true},
		{"same id",
			found("sec.gov", "SEC", ClassPrimary, "https://sec.gov/a"),
			found("sec.gov", "EDGAR", ClassPrimary, "https://sec.gov/b"), false},
		{"same id in different case",
			found("SEC.gov", "SEC", ClassPrimary, "https://sec.gov/a"),
			found("sec.gov", "EDGAR", ClassPrimary, "https://sec.gov/b"), false},
		{"same publisher with different case on two domains",
			found("acme.com", "Acme Inc", ClassPrimary, "https://acme.com/ir"),
			found("acme-investors.com", "ACME INC", ClassSemi, "https://acme-investors.com/ir"), false},
		{"same publisher with surrounding spaces",
			found("acme.com", " Acme Inc", ClassPrimary, "https://acme.com/ir"),
			found("acme-investors.com", "acme inc ", ClassSemi, "https://acme-investors.com/ir"), false},
		{"missing publisher stands for the id, which differ",
			found("acme.com", "", ClassPrimary, "https://acme.com/ir"),
			found("sec.gov", "", ClassSemi, "https://sec.gov/x"), true},
		{"missing publisher equals the other's publisher spelled like the id",
			found("acme.com", "", ClassPrimary, "https://acme.com/ir"),
			found("mirror.net", "ACME.com", ClassSemi, "https://mirror.net/x"), false},
		{"same record url",
			found("sec.gov", "SEC", ClassPrimary, "https://www.sec.gov/filing/1"),
			found("edgar.net", "Edgar mirror", ClassSemi, "https://www.sec.gov/filing/1"), false},
		{"same record url spelled with host case, default port and fragment",
			found("sec.gov", "SEC", ClassPrimary, "https://WWW.SEC.GOV:443/filing/1#part2"),
			found("edgar.net", "Edgar mirror", ClassSemi, "https://www.sec.gov/filing/1"), false},
		{"same record url with and without an empty path",
			found("a.org", "A", ClassPrimary, "https://example.org"),
			found("b.org", "B", ClassSemi, "https://example.org/"), false},
		{"record urls differ only in path case: different records",
			found("a.org", "A", ClassPrimary, "https://example.org/Report"),
			found("b.org", "B", ClassSemi, "https://example.org/report"), true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			if got := independent(tt.a, tt.b); got != tt.want {
				t.Errorf("independent = %v, want %v", got, tt.want)
			}
			if got := independent(tt.b, tt.a); got != tt.want {
				t.Errorf("independent (swapped) = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestComputeStrength(t *testing.T) {
	primaryA := found("sec.gov", "U.S. SEC", ClassPrimary, "https://www.sec.gov/filing/1")
	primaryB := found("companieshouse.gov.uk", "Companies House", ClassPrimary, "https://find-and-update.company-information.service.gov.uk/company/1")
	semiA := found("iea.org", "International Energy Agency", ClassSemi, "https://www.iea.org/reports/x")
	semiB := found("oecd.org", "OECD", ClassSemi, "https://www.oecd.org/y")
	leadA := found("reuters.com", "Reuters", ClassLead, "https://www.reuters.com/a")
	leadB := found("bloomberg.com", "Bloomberg", ClassLead, "https://www.bloomberg.com/b")
	unknown := found("blog.example", "Some blog", "", "https://blog.example/p")
	bogus := found("weird.example", "Weird", "PRIMARY", "https://weird.example/p")

	tests := []struct {
		desc string
		in   []FoundCitation
		want Strength
	}{
		{"nothing found", nil, StrengthNone},
		{"empty slice", []FoundCitation{}, StrengthNone},
		{"primary corroborated by an independent primary", []FoundCitation{primaryA, primaryB}, StrengthHigh},
		{"primary corroborated by an independent semi", []FoundCitation{primaryA, semiA}, StrengthHigh},
		{"order does not matter", []FoundCitation{leadA, semiA, primaryA}, StrengthHigh},
		{"single primary", []FoundCitation{primaryA}, StrengthMedium},
		{"primary with a lead that would otherwise corroborate", []FoundCitation{primaryA, leadA}, StrengthMedium},
		{"primary with many leads", []FoundCitation{primaryA, leadA, leadB, unknown}, StrengthMedium},
		{"primary twice from the same source", []FoundCitation{primaryA, found("sec.gov", "U.S. SEC", ClassPrimary, "https://www.sec.gov/filing/2")}, StrengthMedium},
		{"primary and a semi of the same publisher in other case",
			[]FoundCitation{primaryA, found("sec-mirror.org", "u.s. sec", ClassSemi, "https://sec-mirror.org/f")}, StrengthMedium},
		{"primary and a semi at the same record url",
			[]FoundCitation{primaryA, found("mirror.org", "Mirror", ClassSemi, "https://www.sec.gov/filing/1")}, StrengthMedium},
		{"two independent semis", []FoundCitation{semiA, semiB}, StrengthMedium},
		{"two semis with leads", []FoundCitation{leadA, semiA, leadB, semiB}, StrengthMedium},
		{"two semis of one publisher", []FoundCitation{semiA, found("iea.net", "INTERNATIONAL ENERGY AGENCY", ClassSemi, "https://iea.net/r")}, StrengthLow},
		{"two semis from the same domain", []FoundCitation{semiA, found("iea.org", "IEA statistics", ClassSemi, "https://www.iea.org/data")}, StrengthLow},
		{"single semi is low", []FoundCitation{semiA}, StrengthLow},
		{"single semi with a lead", []FoundCitation{semiA, leadA}, StrengthLow},
		{"leads only", []FoundCitation{leadA, leadB}, StrengthLow},
		{"single lead", []FoundCitation{leadA}, StrengthLow},
		{"unclassified source is a lead", []FoundCitation{unknown}, StrengthLow},
		{"unknown class spelling is a lead, not primary", []FoundCitation{bogus, semiA}, StrengthLow},
		{"unclassified never corroborates a primary", []FoundCitation{primaryA, unknown}, StrengthMedium},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			if got := ComputeStrength(tt.in); got != tt.want {
				t.Errorf("ComputeStrength = %q, want %q", got, tt.want)
			}
		})
	}
}
