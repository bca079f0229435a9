package web

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
)

// CSRF protection has two layers on every page route:
//
//   - net/http's CrossOriginProtection refuses a non-safe request that the browser marks as
//     cross-site (Sec-Fetch-Site) or whose Origin is not this host;
//   - every state-changing request of a signed-in person must carry the session's token, in
//     the form field "csrf" (every form has it) or the X-CSRF-Token header (htmx sends it
//     from the hx-headers attribute of <body>).
//
// The token is derived from the session id, so it needs no storage and changes with every
// sign-in; the database, which keeps only a hash of the id, cannot reveal it.

const csrfField = "csrf"

// csrfToken derives the CSRF token of a session.
func csrfToken(sessionID string) string {
	sum := sha256.Sum256([]byte("evidence-ledger csrf v1\x00" + sessionID))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// validCSRF reports whether r carries want in its header or form, compared in constant time.
func validCSRF(r *http.Request, want string) bool {
	got := r.Header.Get("X-CSRF-Token")
	if got == "" {
		got = r.PostFormValue(csrfField)
	}
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// crossOrigin is the first layer; its refusal is a 403 page.
func (s *server) crossOrigin(h http.Handler) http.Handler {
	p := http.NewCrossOriginProtection()
	p.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.pageError(w, r, viewer{}, errCrossSite)
	}))
	return p.Handler(h)
}
