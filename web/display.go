package web

import "strings"

// hideCredentials returns text for display with the user name and password of every URL in
// it ("scheme://user:pass@host/…") replaced by "***", so a secret that research pasted into a
// URL is never shown on a page, nor sent by a click on its link, nor repeated from a note or
// a verifier's reasoning that quotes the URL. A URL's authority ends where a browser ends it,
// at the first "/", "\", "?" or "#", and in running text also at white space, quotes, angle
// brackets and parentheses. Text without credentials is returned unchanged. The ledger keeps
// the URL as the research gave it (the fetcher refuses to open such a URL, so it is never
// fetched with the credentials).
func hideCredentials(text string) string {
	var b strings.Builder
	rest := text
	for {
		i := strings.Index(rest, "//")
		if i < 0 {
			b.WriteString(rest)
			return b.String()
		}
		b.WriteString(rest[:i+2])
		rest = rest[i+2:]
		end := strings.IndexAny(rest, "/\\?#\"'<>()[] \t\r\n")
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
			b.WriteString("***@")
			rest = rest[at+1:]
		}
	}
}
