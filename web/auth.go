package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"evidenceledger/ledger"
)

// role is what a route requires of its user.
type role int

const (
	roleRead  role = iota // any user (auditors and operators)
	roleWrite             // operators only
)

type userKey struct{}

// UserFrom returns the authenticated user of a request that passed the auth middleware.
func UserFrom(ctx context.Context) (ledger.User, bool) {
	u, ok := ctx.Value(userKey{}).(ledger.User)
	return u, ok
}

// errForbidden answers 403: the user is known but may not do this.
var errForbidden = errors.New("forbidden")

// auth requires a valid bearer token, and for roleWrite an operator, before h runs.
func (s *server) auth(need role, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
			Error(w, r, fmt.Errorf("send \"Authorization: Bearer TOKEN\" (make a token with `ledger user add`): %w", ledger.ErrUnauthenticated))
			return
		}
		u, err := s.authStore().Authenticate(r.Context(), strings.TrimSpace(token))
		if err != nil {
			Error(w, r, err)
			return
		}
		if need == roleWrite && !u.CanWrite() {
			Error(w, r, fmt.Errorf("user %s is an %s; only operators may change things: %w", u.Name, u.Role, errForbidden))
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), userKey{}, u)))
	})
}

// authLedger is what the API's authentication calls.
type authLedger interface {
	Authenticate(ctx context.Context, token string) (ledger.User, error)
}

// authStore is the store as the API's authentication sees it.
func (s *server) authStore() authLedger { return s.cfg.Ledger }
