package web

import (
	"net/http"
	"net/url"
)

// Redirects. Every redirect the server answers goes through [seeOther], and every target
// that comes from a request (the sign-in page's next, ids posted by a form) is accepted only
// when [localPath] says a browser would stay on this server with it.
//
// Browsers do not read a Location as net/url does: they drop tabs and newlines anywhere,
// strip leading and trailing control characters and spaces, read a backslash as a slash in
// http(s) URLs, and take two or more leading slashes as the start of a host name. So
// "/\t/evil.example" and "/\\evil.example" both lead to evil.example. localPath therefore
// refuses every byte outside printable ASCII and every backslash before it parses, and
// requires one leading slash not followed by another.

// maxNext bounds a redirect target taken from a request, in bytes.
const maxNext = 2048

// localPath reports whether p is a path on this server that every browser resolves to this
// server: printable ASCII without space or backslash, at most maxNext bytes, starting with
// exactly one "/", and parsing (net/url) to a URL without scheme, host or user.
func localPath(p string) bool {
	if len(p) == 0 || len(p) > maxNext || p[0] != '/' || (len(p) > 1 && p[1] == '/') {
		return false
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c <= ' ' || c >= 0x7f || c == '\\' {
			return false
		}
	}
	u, err := url.Parse(p)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return false
	}
	base := &url.URL{Scheme: "http", Host: "ledger.invalid", Path: "/"}
	r := base.ResolveReference(u)
	return r.Scheme == base.Scheme && r.Host == base.Host
}

// safeNext returns next when it is a path on this server ([localPath]), "/" otherwise, so a
// link to the sign-in page can never send a person elsewhere (no open redirect).
func safeNext(next string) string {
	if !localPath(next) {
		return "/"
	}
	return next
}

// seeOther answers 303 to target, a path on this server; a target that is not one
// ([localPath]) goes to "/" instead.
func seeOther(w http.ResponseWriter, r *http.Request, target string) {
	http.Redirect(w, r, safeNext(target), http.StatusSeeOther)
}
