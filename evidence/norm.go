package evidence

import (
	"net/url"
	"strings"
)

// NormalizeText is the form in which claim texts and quotes are compared when the ledger
// looks them up and when the memory-write gate matches a text against it: Unicode
// compatibility forms folded except those that would change a letter or digit
// ([FoldCompat]: 10⁶ stays 10⁶, never 106; ½ stays ½), lower case, runs of white space made
// one space, and trimmed. It is for finding equal texts, never for deciding that a quote is
// on a page (the matcher does that, with the rules of docs/matching.md).
func NormalizeText(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(FoldCompat(s))), " ")
}

// NormalizeURL makes two spellings of one http(s) URL compare equal: white space trimmed,
// the scheme and host lowercased, a default port and the fragment dropped, and an empty path
// made "/". Any other URL, or one that does not parse, is compared as written, trimmed.
// [SameURL] is the identity of URLs built on it.
func NormalizeURL(raw string) string {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || !IsHTTP(raw) {
		return raw
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	u.Host, u.Fragment, u.RawFragment = host, "", ""
	if u.Path == "" && u.RawPath == "" {
		u.Path = "/"
	}
	return u.String()
}

// SameURL reports whether a and b name the same page: the one rule of URL identity, equal
// after [NormalizeURL]. Sources use it to tell record URLs apart, the ledger to find a
// citation by URL (ledger.Store.FindCitations), and the memory-write gate to match a text's
// citations with the ledger's.
func SameURL(a, b string) bool { return NormalizeURL(a) == NormalizeURL(b) }

// IsJSON reports whether research is meant as JSON, and is read as such by ParseResearch:
// after a byte-order mark and white space it is an object, or an array of objects, strings
// or nothing. "[1] Acme …" is text. Research that is meant as JSON but does not parse is
// refused, never read as prose.
func IsJSON(research string) bool {
	s := strings.TrimSpace(strings.TrimPrefix(research, "\ufeff"))
	if strings.HasPrefix(s, "{") {
		return true
	}
	if !strings.HasPrefix(s, "[") {
		return false
	}
	rest := strings.TrimLeft(s[1:], " \t\r\n")
	return strings.HasPrefix(rest, "{") || strings.HasPrefix(rest, "\"") || strings.HasPrefix(rest, "]")
}
