package fetch

import (
	"errors"
	"fmt"
)

// Kind says why a fetch did not give a page.
type Kind int

// The kinds of [Error].
const (
	KindBadURL           Kind = iota + 1 // not http(s), credentials in the URL, or unparsable
	KindLoginWall                        // a login-walled host: a person must open it
	KindRobots                           // robots.txt closes the path (or could not be read)
	KindBlockedAddress                   // a private, special or closed address or port
	KindTooManyRedirects                 // more than 3 redirect hops
	KindRedirectLoop                     // a redirect back to a URL already visited
	KindNeedsLogin                       // the server answered 401 or 403
	KindGone                             // the server answered 404 or 410
	KindHTTPStatus                       // any other answer that is not a page
	KindUnsupportedType                  // not HTML, XHTML, plain text or PDF
	KindNetwork                          // DNS, connection or protocol failure
	KindTimeout                          // a hop or the whole fetch ran out of time
	KindNoHost                           // the resolver answered that the host name does not exist
)

var kindNames = map[Kind]string{
	KindBadURL:           "bad url",
	KindLoginWall:        "login wall",
	KindRobots:           "robots.txt disallowed",
	KindBlockedAddress:   "blocked address",
	KindTooManyRedirects: "too many redirects",
	KindRedirectLoop:     "redirect loop",
	KindNeedsLogin:       "needs login",
	KindGone:             "gone",
	KindHTTPStatus:       "http status",
	KindUnsupportedType:  "unsupported type",
	KindNetwork:          "network",
	KindTimeout:          "timeout",
	KindNoHost:           "no such host",
}

// String names the kind in a few lowercase words.
func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Error is the error of every failed [Fetcher.Fetch]. Reason says in plain words what
// happened and what a person can do; Status holds the HTTP status for KindNeedsLogin,
// KindGone and KindHTTPStatus.
//
// Two kinds say that the cited page does not exist: KindGone (404, 410) and KindNoHost (the
// resolver's definite "no such host", never a temporary DNS failure or a timeout); see
// [Error.Absent]. Every other kind says only that the page could not be read.
type Error struct {
	Kind   Kind
	URL    string // the URL being fetched when it failed
	Status int
	Reason string
	Err    error // the underlying cause, if any
}

func (e *Error) Error() string {
	return fmt.Sprintf("fetch %s: %s: %s", e.URL, e.Kind, e.Reason)
}

// Absent reports whether the error says the page does not exist: a 404 or 410, or a host
// name the resolver definitely does not know.
func (e *Error) Absent() bool { return e.Kind == KindGone || e.Kind == KindNoHost }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the Kind of the first *Error in err's chain, or 0 when there is none.
func KindOf(err error) Kind {
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Kind
	}
	return 0
}

// Errors of the text extractors: they wrap one of these, so callers can tell with errors.Is
// why a page's text cannot be read.
var (
	// ErrCharset: the bytes cannot be decoded to text with confidence.
	ErrCharset = errors.New("the page's character encoding cannot be read")
	// ErrNoText: the page has no visible text (scripts draw it, or it is empty).
	ErrNoText = errors.New("the page has no visible text")
	// ErrTruncated: the body was cut at the byte cap, so the text ends early.
	ErrTruncated = errors.New("the page was cut off at the size limit")
)
