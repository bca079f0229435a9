package web

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"sync"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// accounts is what the pages need to sign people in.
type accounts interface {
	HasUsers(ctx context.Context) (bool, error)
	AddUserWithPassword(ctx context.Context, actor, name, role, password string) (string, error)
	SignIn(ctx context.Context, name, password string) (ledger.Session, error)
	SessionUser(ctx context.Context, id string) (ledger.Session, error)
	SignOut(ctx context.Context, id string) error
}

// sessionCookie is the base name of the cookie that holds the session id (see
// [cookieName]). It is HttpOnly, Secure and SameSite=Lax always. Browsers treat
// http://127.0.0.1, http://[::1] and http://localhost as secure contexts, so the local server
// gets the cookie back over plain http; on any other host a Secure cookie is sent only over
// https, so a server reached from elsewhere must be behind TLS.
const sessionCookie = "ledger_session"

// cookieName is the session cookie's name for a server reached over TLS or not, on port.
// Over TLS it is __Host-ledger_session: browsers then take it only from a secure origin,
// with Path=/ and no Domain, so no other host (not even a subdomain) can set or shadow it.
// Without TLS it carries the port (ledger_session_8080), since cookies do not tell ports
// apart: a session of this server is then never sent to another service on the same host,
// nor replaced by one of its cookies. With no port known it is ledger_session.
func cookieName(tls bool, port string) string {
	switch {
	case tls:
		return "__Host-" + sessionCookie
	case port != "":
		return sessionCookie + "_" + port
	}
	return sessionCookie
}

// viewer is the signed-in person of a page request.
type viewer struct {
	User ledger.User
	// sessionID is the cookie's secret; CSRF is derived from it (csrf.go).
	sessionID string
	CSRF      string
}

type viewerKey struct{}

// viewerFrom returns the signed-in person of a request that passed [server.page].
func viewerFrom(ctx context.Context) (viewer, bool) {
	v, ok := ctx.Value(viewerKey{}).(viewer)
	return v, ok
}

func (s *server) setSessionCookie(w http.ResponseWriter, sess ledger.Session) {
	http.SetCookie(w, &http.Cookie{
		Name: s.cookie, Value: sess.ID, Path: "/", Expires: sess.Expires,
		HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode,
	})
}

func (s *server) clearSessionCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{
		Name: s.cookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode,
	})
}

// page wraps a page handler: it requires a signed-in session (otherwise a GET is redirected
// to the sign-in page and comes back afterwards; anything else gets 401), for roleWrite an
// operator (an auditor gets a 403 page), and on every method but GET and HEAD a valid CSRF
// token (403 otherwise).
func (s *server) page(need role, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(s.cookie)
		var sess ledger.Session
		if err == nil {
			sess, err = s.accountStore().SessionUser(r.Context(), c.Value)
		}
		if err != nil {
			if c != nil {
				s.clearSessionCookie(w)
			}
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				target := "/signin?next=" + url.QueryEscape(r.URL.RequestURI())
				if isHTMX(r) {
					w.Header().Set("HX-Redirect", target)
					w.WriteHeader(http.StatusUnauthorized)
					return
				}
				seeOther(w, r, target)
				return
			}
			s.pageError(w, r, viewer{}, fmt.Errorf("you are not signed in, or your session ended; sign in again: %w", ledger.ErrUnauthenticated))
			return
		}
		v := viewer{User: sess.User, sessionID: sess.ID, CSRF: csrfToken(sess.ID)}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if err := readForm(w, r, maxPageForm); err != nil {
				s.pageError(w, r, v, err)
				return
			}
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !validCSRF(r, v.CSRF) {
			s.pageError(w, r, v, fmt.Errorf("the form's security token is missing or stale; reload the page and try again: %w", errForbidden))
			return
		}
		if need == roleWrite && !sess.User.CanWrite() {
			s.pageError(w, r, v, fmt.Errorf("you are signed in as %s, an %s; only operators may change things: %w", sess.User.Name, sess.User.Role, errForbidden))
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), viewerKey{}, v)))
	})
}

// Form size limits: a page form may carry a paste of evidence.MaxPasteBytes, percent-encoded
// (up to three bytes each); the sign-in and first-run forms are small.
const (
	maxPageForm  = 3*evidence.MaxPasteBytes + 64<<10
	maxSmallForm = 64 << 10
)

// readForm parses a posted form of at most limit bytes. A larger body is an error wrapping
// errTooLarge (413); a multipart body (the pages' forms never send one) wraps errMediaType
// (415); an unreadable one wraps ledger.ErrInvalid.
func readForm(w http.ResponseWriter, r *http.Request, limit int64) error {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		return fmt.Errorf("the form is sent as multipart/form-data; send it as application/x-www-form-urlencoded, as the page does: %w", errMediaType)
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	if err := r.ParseForm(); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return fmt.Errorf("the form is more than %d bytes; paste less at once: %w", limit, errTooLarge)
		}
		return fmt.Errorf("the form cannot be read (%v); send it from the page: %w", err, ledger.ErrInvalid)
	}
	return nil
}

// setup is the first-run state: the hash of the one-time token, until it is used.
type setup struct {
	mu   sync.Mutex
	hash [sha256.Size]byte
	live bool
}

func newSetup(token string) *setup {
	if token == "" {
		return &setup{}
	}
	return &setup{hash: sha256.Sum256([]byte(token)), live: true}
}

// matches reports, in constant time, whether token is the live setup token.
func (st *setup) matches(token string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	h := sha256.Sum256([]byte(token))
	return st.live && subtle.ConstantTimeCompare(h[:], st.hash[:]) == 1
}

// errSetupUsed means the first-run link is no longer valid.
var errSetupUsed = errors.New("this first-run link is not valid: it was used already, the server restarted, or it was mistyped; ask an operator for an account, or restart `ledger serve` on an empty ledger for a new link")

// use runs create while holding the token, and retires the token when create succeeds, so
// two requests with the same token cannot both create a user.
func (st *setup) use(token string, create func() error) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	h := sha256.Sum256([]byte(token))
	if !st.live || subtle.ConstantTimeCompare(h[:], st.hash[:]) != 1 {
		return fmt.Errorf("%w: %w", errSetupUsed, errForbidden)
	}
	if err := create(); err != nil {
		return err
	}
	st.live = false
	return nil
}

// accountStore is the store as sign-in, sessions and the first-run page see it.
func (s *server) accountStore() accounts { return s.cfg.Ledger }
