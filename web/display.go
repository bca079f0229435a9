package web

import "strings"

// hideCredentials returns a URL for display with the user name and password it carries (in
// "scheme://user:pass@host/…") replaced by "***", so a secret that research pasted into a
// URL is never shown on a page nor sent by a click on its link. The authority ends where a
// browser ends it: at the first "/", "\", "?" or "#". A URL without credentials is returned
// unchanged. The stored citation keeps the URL as the research gave it (the fetcher refuses
// to open such a URL: it is never fetched with the credentials).
func hideCredentials(raw string) string {
	i := strings.Index(raw, "//")
	if i < 0 {
		return raw
	}
	rest := raw[i+2:]
	end := strings.IndexAny(rest, `/\?#`)
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndex(rest[:end], "@")
	if at < 0 {
		return raw
	}
	return raw[:i+2] + "***@" + rest[at+1:]
}
