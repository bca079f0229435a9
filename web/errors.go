package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"strings"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// errNoRoute answers 404 for an unknown API path.
var errNoRoute = errors.New("no such route")

// errMethod answers 405: the path exists, but not for this method.
var errMethod = errors.New("method not allowed")

// statuses maps each kind of error a handler may answer to its HTTP status. It is one literal
// with no order: no kind wraps another (TestErrorStatuses), so a sentinel matches one entry
// at most, and an error that wraps several kinds is answered by [statusOf]'s rule, not by
// where an entry stands. Every exported sentinel of ledger, verify, gate and evidence is
// either here or named by that test as reaching a handler only wrapped in one of these, or
// never.
var statuses = map[error]int{
	errTooLarge:               http.StatusRequestEntityTooLarge,
	errMediaType:              http.StatusUnsupportedMediaType,
	evidence.ErrNotText:       http.StatusUnsupportedMediaType,
	evidence.ErrNothingUsable: http.StatusUnprocessableEntity,
	evidence.ErrBadResearch:   http.StatusBadRequest,
	ledger.ErrUnauthenticated: http.StatusUnauthorized,
	errForbidden:              http.StatusForbidden,
	ledger.ErrInvalid:         http.StatusBadRequest,
	ledger.ErrNotFound:        http.StatusNotFound,
	errNoRoute:                http.StatusNotFound,
	errMethod:                 http.StatusMethodNotAllowed,
	ledger.ErrConflict:        http.StatusConflict,
	ledger.ErrDiskFull:        http.StatusInsufficientStorage,
	ledger.ErrReadOnly:        http.StatusServiceUnavailable,
	verify.ErrNoBatch:         http.StatusNotFound,
	errNoChecker:              http.StatusServiceUnavailable,
	verify.ErrStopping:        http.StatusServiceUnavailable,
}

// statusOf returns the status of the kind of err (statuses), and false for an error of no
// known kind. The kind is the first error of the table met walking err's chain from the
// outside in, as errors.Is walks it (errors.Unwrap, and each error of an error that wraps
// several, in turn), compared by identity: fmt.Errorf("%w: %w", evidence.ErrNothingUsable,
// ledger.ErrInvalid) is answered 422, the more precise kind written first, as the ledger
// writes its errors.
func statusOf(err error) (int, bool) {
	for err != nil {
		for kind, status := range statuses {
			if err == kind {
				return status, true
			}
		}
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if status, ok := statusOf(e); ok {
					return status, true
				}
			}
			return 0, false
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		default:
			return 0, false
		}
	}
	return 0, false
}

// Error answers err as JSON {"error":"..."} with the status its kind maps to (statusOf). An
// error of no known kind is a 500 whose details are logged, not sent.
func Error(w http.ResponseWriter, r *http.Request, err error) {
	status, ok := statusOf(err)
	if !ok {
		log.Printf("%s %s: %v", r.Method, r.URL.Path, err)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "internal error; the server log has the details"})
		return
	}
	if status >= 500 {
		logCause(r, err)
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="ledger"`)
	}
	writeJSON(w, status, map[string]string{"error": err.Error()})
}

// logCause logs a server-side error that is answered in words, with the cause the words
// leave out (SQLite's own message).
func logCause(r *http.Request, err error) {
	var causes []string
	for e := err; e != nil; {
		if u, ok := e.(interface{ Unwrap() []error }); ok {
			for _, c := range u.Unwrap() {
				causes = append(causes, c.Error())
			}
			break
		}
		e = errors.Unwrap(e)
	}
	log.Printf("%s %s: %v %v", r.Method, r.URL.Path, err, causes)
}

// writeJSON answers v as JSON with the status. HTML characters are not escaped, so events
// come out byte for byte as `ledger export` writes them.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		log.Printf("write JSON answer: %v", err)
	}
}

// notRouted is the error for a request no route took: errMethod naming the methods the path
// does take (and setting the Allow header), or errNotFound when the path takes none.
func notRouted(w http.ResponseWriter, r *http.Request, mux *http.ServeMux, catchAll string, notFound error) error {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := mux.Handler(probe); pattern != catchAll && pattern != "" {
			allow = append(allow, m)
		}
	}
	if len(allow) == 0 {
		return notFound
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	return fmt.Errorf("%s %s is not answered here; use %s: %w", r.Method, r.URL.Path, strings.Join(allow, " or "), errMethod)
}
