// The fetcher's request path, in one file: the guard on every hop (address, login walls,
// robots.txt), the request and its heads, redirects, body limits and the errors a person
// reads. They are the steps of one request and read in its order; robots.txt rules, the
// address guard's tables and the extractors have files of their own.

package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// maxRedirects is the most redirect hops a fetch follows (docs/design.md §2, law 2).
const maxRedirects = 3

// pageAccept is the Accept header of a request for a page (and for robots.txt).
const pageAccept = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1"

// maxRobotsRedirects is the most redirects followed to reach a robots.txt (RFC 9309 §2.3.1.2).
const maxRobotsRedirects = 5

// Fetcher fetches public pages. It is safe for concurrent use. Each Fetcher has its own
// HTTP client, connections, robots.txt cache and politeness state, and no cookie jar.
type Fetcher struct {
	cfg    Config
	client *http.Client
	polite *polite

	robotsMu sync.Mutex
	robots   map[string]*robotsEntry
}

type robotsEntry struct {
	mu      sync.Mutex
	rules   *robotsRules
	expires time.Time
}

// Hop is one request made during a fetch.
type Hop struct {
	URL    string
	Status int
	IP     string // the address dialled, without port
}

// Result is a fetched page with everything needed to keep it as evidence.
type Result struct {
	RequestedURL, FinalURL string
	Hops                   []Hop  // every request made for the page, in order (robots.txt not included)
	IP                     string // address dialled for the final response
	Status                 int
	ContentType            string // as sent, or as sniffed when the server sent none
	Body                   []byte // raw bytes as received, after content-encoding decompression
	SHA256                 string // lowercase hex of Body
	FetchedAt              time.Time
	Truncated              bool // Body was cut at Config.MaxBytes
	// RequestHead is the head of the final request as the client wrote it: the request
	// line and every header field in the order written (docs/fetch.md, "What a capture
	// keeps"), ending with the empty line. Nil when no request was made.
	RequestHead []byte
	// ResponseHead is the head of the final response as Go received it: the status line
	// as sent and the header fields (names canonicalised, sorted by name, the values of a
	// name in the order received; the framing Go removed for Body and Connection are not
	// there), ending with the empty line. Nil when no response came.
	ResponseHead []byte
	// Sheets are the style sheets an HTML page links and imports, fetched with it (see
	// docs/fetch.md, "Style sheets"), in the order they were found; Extract applies them.
	Sheets []Sheet
}

// New returns a Fetcher for cfg, with the defaults of [Config] for its zero values.
func New(cfg Config) *Fetcher {
	cfg = cfg.withDefaults()
	d := newDialer(guard{allow: cfg.Allow, ports: cfg.Ports}, cfg.Resolver)
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            d.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  cfg.HopTimeout,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &Fetcher{
		cfg: cfg,
		client: &http.Client{
			Transport: tr,
			// Redirects are followed by Fetch itself, so that every hop is checked.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		polite: newPolite(cfg.MinDelay, cfg.MaxCrawlDelay, cfg.Concurrency, cfg.Now),
		robots: map[string]*robotsEntry{},
	}
}

// Fetch gets the public page at rawURL, following at most 3 redirects and checking each hop
// for scheme, credentials, login wall, robots.txt and (when dialling) address. For an HTML
// page it then fetches the style sheets the page links and imports, each the same way
// (Result.Sheets; docs/fetch.md, "Style sheets"), within the same total time.
//
// On failure it returns a *[Error] saying why; when the server answered (an error status, an
// unsupported type, a body that timed out) it returns the *Result too, with its hops. A body
// longer than Config.MaxBytes is not an error: it is cut and Result.Truncated is set.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, f.cfg.TotalTimeout)
	defer cancel()
	res, err := f.get(ctx, rawURL, false)
	if err == nil && isHTML(res.ContentType) {
		res.Sheets = f.fetchSheets(ctx, res)
	}
	if f.cfg.Observe != nil {
		outcome := ""
		if err != nil {
			outcome = "error"
			if k := KindOf(err); k != 0 {
				outcome = k.String()
			}
		}
		f.cfg.Observe(outcome)
	}
	return res, err
}

// get fetches one resource: a page, or (sheet) a style sheet.
func (f *Fetcher) get(ctx context.Context, rawURL string, sheet bool) (*Result, error) {
	res := &Result{RequestedURL: rawURL}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, &Error{Kind: KindBadURL, URL: rawURL, Reason: "the URL cannot be parsed; check it was copied whole", Err: err}
	}
	accept := pageAccept
	if sheet {
		accept = "text/css,*/*;q=0.1"
	}
	seen := map[string]bool{}
	for redirects := 0; ; redirects++ {
		u.Fragment, u.RawFragment = "", ""
		here := u.String()
		if err := f.checkHop(ctx, u); err != nil {
			return resultOrNil(res), err
		}
		seen[here] = true
		resp, ip, reqHead, done, err := f.do(ctx, u, accept)
		if err != nil {
			return resultOrNil(res), f.requestError(ctx, here, err)
		}
		res.Hops = append(res.Hops, Hop{URL: here, Status: resp.StatusCode, IP: ip})
		if isRedirect(resp.StatusCode) && resp.Header.Get("Location") != "" {
			loc := resp.Header.Get("Location")
			done()
			next, err := u.Parse(loc)
			if err != nil {
				return res, &Error{Kind: KindBadURL, URL: here, Status: resp.StatusCode, Reason: fmt.Sprintf("the redirect target %q cannot be parsed", loc), Err: err}
			}
			next.Fragment, next.RawFragment = "", ""
			if seen[next.String()] {
				return res, &Error{Kind: KindRedirectLoop, URL: here, Status: resp.StatusCode, Reason: fmt.Sprintf("the redirect to %s goes back to a page already visited; the site is misconfigured", next)}
			}
			if redirects == maxRedirects {
				return res, &Error{Kind: KindTooManyRedirects, URL: here, Status: resp.StatusCode, Reason: fmt.Sprintf("more than %d redirects; open the last URL by hand if it matters", maxRedirects)}
			}
			u = next
			continue
		}
		res.RequestHead, res.ResponseHead = reqHead, responseHead(resp)
		if sheet {
			err = f.finishSheet(res, u, resp, ip)
		} else {
			err = f.finish(res, u, resp, ip)
		}
		done()
		return res, err
	}
}

// finishHead fills res from the final response's status and head, and refuses a status
// that is an error or a body compressed in a way that cannot be decoded; it returns the
// final URL.
func (f *Fetcher) finishHead(res *Result, u *url.URL, resp *http.Response, ip string) (string, error) {
	here := u.String()
	res.FinalURL, res.Status, res.IP = here, resp.StatusCode, ip
	res.ContentType = resp.Header.Get("Content-Type")
	res.FetchedAt = f.cfg.Now().UTC()
	if err := statusError(here, resp.StatusCode); err != nil {
		return here, err
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && !resp.Uncompressed && !strings.EqualFold(ce, "identity") {
		return here, &Error{Kind: KindUnsupportedType, URL: here, Status: resp.StatusCode, Reason: fmt.Sprintf("the body is compressed as %q, which cannot be decoded", ce)}
	}
	return here, nil
}

// finish fills res from the final response and reads the body.
func (f *Fetcher) finish(res *Result, u *url.URL, resp *http.Response, ip string) error {
	here, err := f.finishHead(res, u, resp, ip)
	if err != nil {
		return err
	}
	if res.ContentType != "" && !mayBePDF(res.ContentType) {
		if err := checkType(here, res.ContentType); err != nil {
			return err
		}
	}
	body, err := readBody(resp.Body, f.bodyLimit(res.ContentType), resp.ContentLength)
	if err != nil {
		return f.bodyError(here, err)
	}
	if res.ContentType == "" {
		res.ContentType = http.DetectContentType(body)
	}
	if mayBePDF(res.ContentType) {
		if err := checkPDF(here, res.ContentType, body); err != nil {
			return err
		}
	} else if err := checkType(here, res.ContentType); err != nil {
		return err
	}
	if limit := f.capFor(res.ContentType, body); int64(len(body)) > limit {
		body, res.Truncated = body[:limit], true
	}
	sum := sha256.Sum256(body)
	res.Body, res.SHA256 = body, hex.EncodeToString(sum[:])
	return nil
}

// readBody reads r to its end, or to one byte past limit so that a longer body can be told
// from one of exactly limit bytes. hint is the length the response announced
// (Content-Length, -1 when unknown). With a hint the body is read into one buffer of that
// size, bounded by limit; a body longer than announced is still read in full, so the hint
// is never trusted beyond sizing. Without one, io.ReadAll grows its buffer as it reads. The
// error is the reader's (an announced body that ends early is io.ErrUnexpectedEOF).
func readBody(r io.Reader, limit, hint int64) ([]byte, error) {
	r = io.LimitReader(r, limit+1)
	if hint < 0 {
		return io.ReadAll(r)
	}
	buf := make([]byte, 0, min(hint, limit)+1) // +1: room for the read that reports the end
	for len(buf) < cap(buf) {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	if int64(len(buf)) > limit {
		return buf, nil
	}
	rest, err := io.ReadAll(r)
	return append(buf, rest...), err
}

// checkHop refuses a URL before any request is made for it: scheme, credentials, login wall,
// robots.txt.
func (f *Fetcher) checkHop(ctx context.Context, u *url.URL) error {
	here := u.String()
	if u.Scheme != "http" && u.Scheme != "https" {
		return &Error{Kind: KindBadURL, URL: here, Reason: fmt.Sprintf("scheme %q is not fetched; only http and https pages are", u.Scheme)}
	}
	if u.User != nil {
		return &Error{Kind: KindBadURL, URL: here, Reason: "the URL carries credentials; only public pages are fetched"}
	}
	if u.Hostname() == "" {
		return &Error{Kind: KindBadURL, URL: here, Reason: "the URL has no host"}
	}
	host, err := dialledHost(u.Hostname())
	if err != nil {
		return &Error{Kind: KindBadURL, URL: here, Reason: "the host name is not a valid internationalized name: " + err.Error(), Err: err}
	}
	if w := f.loginWall(host); w != "" {
		return &Error{Kind: KindLoginWall, URL: here, Reason: fmt.Sprintf("%s pages need a login; a person must open this one by hand", w)}
	}
	rules := f.robotsFor(ctx, u)
	if rules.blocked != nil {
		return &Error{Kind: KindBlockedAddress, URL: here, Reason: rules.blocked.Error(), Err: rules.blocked}
	}
	if rules.noHost != nil {
		return noHostError(here, rules.noHost)
	}
	if p := u.EscapedPath() + query(u); !rules.allowed(p) {
		reason := fmt.Sprintf("robots.txt of %s closes %s to %q", origin(u), p, f.cfg.ProductToken)
		if rules.closed != "" {
			reason = rules.closed + "; when in doubt the page is not fetched"
		}
		return &Error{Kind: KindRobots, URL: here, Reason: reason}
	}
	return nil
}

// dialledHost returns the name the HTTP client will resolve for host: net/http maps a
// non-ASCII host with the UTS #46 lookup profile of IDNA (golang.org/x/net/idna's Lookup),
// which folds full-width letters, drops soft hyphens and lowers case. Checks of a host name
// (the login wall) are made on this name, so that ｌｉｎｋｅｄｉｎ.com or link\u00adedin.com
// is known for linkedin.com. An IP literal is returned as it is.
func dialledHost(host string) (string, error) {
	if _, err := netip.ParseAddr(host); err == nil {
		return host, nil
	}
	ascii := true
	for i := 0; i < len(host); i++ {
		if host[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(host), nil
	}
	return idna.Lookup.ToASCII(host)
}

// loginWall returns the configured login-walled host that host is or is under, or "".
func (f *Fetcher) loginWall(host string) string {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, w := range f.cfg.LoginWalled {
		w = strings.TrimSuffix(strings.ToLower(w), ".")
		if host == w || strings.HasSuffix(host, "."+w) {
			return w
		}
	}
	return ""
}

// do sends one GET, in its turn for the host and within the hop timeout. reqHead is the
// request's head as the client wrote it ([Result.RequestHead]). done closes the body and
// gives the turn back; the body must be read before done is called.
func (f *Fetcher) do(ctx context.Context, u *url.URL, accept string) (resp *http.Response, ip string, reqHead []byte, done func(), err error) {
	release, err := f.polite.acquire(ctx, strings.ToLower(u.Hostname()))
	if err != nil {
		return nil, "", nil, nil, err
	}
	hctx, cancel := context.WithTimeout(ctx, f.cfg.HopTimeout)
	var mu sync.Mutex
	var fields [][2]string
	trace := &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			mu.Lock()
			defer mu.Unlock()
			if h, _, err := net.SplitHostPort(info.Conn.RemoteAddr().String()); err == nil {
				ip = h
			}
			fields = nil // a request retried on a new connection is written again: keep the last
		},
		WroteHeaderField: func(key string, value []string) {
			mu.Lock()
			defer mu.Unlock()
			for _, v := range value {
				fields = append(fields, [2]string{key, v})
			}
		},
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(hctx, trace), http.MethodGet, u.String(), nil)
	if err != nil {
		cancel()
		release()
		return nil, "", nil, nil, err
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	req.Header.Set("Accept", accept)
	resp, err = f.client.Do(req)
	if err != nil {
		cancel()
		release()
		return nil, "", nil, nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	return resp, ip, requestHead(req, requestProto(resp), fields), func() {
		// A short unread rest is drained so that the connection can be used again.
		io.CopyN(io.Discard, resp.Body, 4<<10)
		resp.Body.Close()
		cancel()
		release()
	}, nil
}

// requestProto is the protocol the request went out in: HTTP/2.0 on a connection that
// speaks HTTP/2, otherwise HTTP/1.1, the only version Go's client writes, whatever version
// the server answers in.
func requestProto(resp *http.Response) string {
	if resp.ProtoMajor == 2 {
		return resp.Proto
	}
	return "HTTP/1.1"
}

// requestHead writes the head of req as the client wrote it: the request line with the
// protocol it went out in (requestProto), then the fields in the order the trace saw them written. An
// HTTP/2 request's pseudo-header fields are its request line; :authority is written as
// Host, the others are left out.
func requestHead(req *http.Request, proto string, fields [][2]string) []byte {
	var b strings.Builder
	b.WriteString(req.Method + " " + req.URL.RequestURI() + " " + proto + "\r\n")
	for _, kv := range fields {
		name := kv[0]
		switch {
		case name == ":authority":
			name = "Host"
		case strings.HasPrefix(name, ":"):
			continue
		}
		b.WriteString(name + ": " + headerValue(kv[1]) + "\r\n")
	}
	b.WriteString("\r\n")
	return []byte(b.String())
}

// responseHead writes the head of resp as Go received it: the protocol and the status as
// sent, then resp.Header as [http.Header.Write] writes it (sorted by name, values of a name
// in the order received, line breaks in values as spaces). Go has taken the body's framing
// out of resp.Header (Transfer-Encoding, and for a body it decompressed, Content-Encoding
// and Content-Length), so the head describes Body as stored; it also takes out the
// hop-by-hop Connection field.
func responseHead(resp *http.Response) []byte {
	var b strings.Builder
	b.WriteString(resp.Proto + " " + headerValue(resp.Status) + "\r\n")
	_ = resp.Header.Write(&b) // a strings.Builder never fails
	b.WriteString("\r\n")
	return []byte(b.String())
}

// headerValue puts a space for each line break, which would end a field.
func headerValue(v string) string {
	return strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ").Replace(v)
}

// requestError turns a failed request into an *Error.
func (f *Fetcher) requestError(ctx context.Context, u string, err error) error {
	var be *blockedError
	switch {
	case errors.As(err, &be):
		return &Error{Kind: KindBlockedAddress, URL: u, Reason: be.Error(), Err: err}
	case isNoHost(err):
		return noHostError(u, err)
	case ctx.Err() != nil:
		return &Error{Kind: KindTimeout, URL: u, Reason: fmt.Sprintf("the fetch took longer than %s in all", f.cfg.TotalTimeout), Err: err}
	case isTimeout(err):
		return &Error{Kind: KindTimeout, URL: u, Reason: fmt.Sprintf("the server did not answer within %s", f.cfg.HopTimeout), Err: err}
	}
	return &Error{Kind: KindNetwork, URL: u, Reason: "the server could not be reached: " + err.Error(), Err: err}
}

// bodyError turns a failed body read into an *Error.
func (f *Fetcher) bodyError(u string, err error) error {
	if isTimeout(err) {
		return &Error{Kind: KindTimeout, URL: u, Reason: fmt.Sprintf("the body did not arrive in time (a request may take %s, a fetch %s)", f.cfg.HopTimeout, f.cfg.TotalTimeout), Err: err}
	}
	return &Error{Kind: KindNetwork, URL: u, Reason: "the body could not be read: " + err.Error(), Err: err}
}

// isNoHost reports whether err holds the resolver's definite answer that a host name does not
// exist (NXDOMAIN), as opposed to a temporary failure or a timeout.
func isNoHost(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de) && de.IsNotFound && !de.IsTimeout && !de.IsTemporary
}

func noHostError(u string, err error) error {
	host := u
	if p, perr := url.Parse(u); perr == nil {
		host = p.Hostname()
	}
	return &Error{Kind: KindNoHost, URL: u, Reason: fmt.Sprintf("the host %s does not exist (the name server answered that there is no such host)", host), Err: err}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// statusError returns the *Error for a final status that is not a page, or nil for 2xx.
func statusError(u string, code int) error {
	switch {
	case code >= 200 && code < 300:
		return nil
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return &Error{Kind: KindNeedsLogin, URL: u, Status: code, Reason: fmt.Sprintf("the server answered %d %s: the page needs a login, so it is not public", code, http.StatusText(code))}
	case code == http.StatusNotFound || code == http.StatusGone:
		return &Error{Kind: KindGone, URL: u, Status: code, Reason: fmt.Sprintf("the server answered %d %s: the page is not there", code, http.StatusText(code))}
	}
	return &Error{Kind: KindHTTPStatus, URL: u, Status: code, Reason: fmt.Sprintf("the server answered %d %s instead of a page", code, http.StatusText(code))}
}

// checkType accepts HTML, XHTML and plain text.
func checkType(u, contentType string) error {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return &Error{Kind: KindUnsupportedType, URL: u, Reason: fmt.Sprintf("the content type %q cannot be read", contentType), Err: err}
	}
	switch mt {
	case "text/html", "application/xhtml+xml", "text/plain":
		return nil
	}
	return &Error{Kind: KindUnsupportedType, URL: u, Reason: fmt.Sprintf("the content type is %s; only HTML, XHTML, plain text and PDF documents are read", mt)}
}

// resultOrNil returns res when a request was made for it, so that callers see the hops.
func resultOrNil(res *Result) *Result {
	if len(res.Hops) == 0 {
		return nil
	}
	return res
}

func origin(u *url.URL) string { return u.Scheme + "://" + strings.ToLower(u.Host) }

func query(u *url.URL) string {
	if u.RawQuery == "" && !u.ForceQuery {
		return ""
	}
	return "?" + u.RawQuery
}

// robotsFor returns the cached robots.txt rules of u's origin, fetching them when missing or
// expired. Concurrent fetches for one origin wait for a single robots.txt request.
func (f *Fetcher) robotsFor(ctx context.Context, u *url.URL) *robotsRules {
	key := origin(u)
	f.robotsMu.Lock()
	e := f.robots[key]
	if e == nil {
		e = &robotsEntry{}
		f.robots[key] = e
	}
	f.robotsMu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	now := f.cfg.Now()
	if e.rules != nil && now.Before(e.expires) {
		return e.rules
	}
	rules := f.fetchRobots(ctx, u)
	ttl := f.cfg.RobotsTTL
	if rules.closed != "" {
		ttl = min(ttl, DefaultRobotsErrorTTL)
	} else {
		f.polite.setCrawlDelay(strings.ToLower(u.Hostname()), rules.crawlDelay)
	}
	e.rules, e.expires = rules, now.Add(ttl)
	return rules
}

// fetchRobots reads the robots.txt of u's origin per RFC 9309 §2.3.1: up to 5 redirects;
// 4xx (but 429) means no rules; 429, 5xx, network errors and timeouts close the origin.
func (f *Fetcher) fetchRobots(ctx context.Context, u *url.URL) *robotsRules {
	target := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}
	for range maxRobotsRedirects + 1 {
		if target.Scheme != "http" && target.Scheme != "https" {
			return closedRobots(fmt.Sprintf("robots.txt of %s redirects to a %s: URL", origin(u), target.Scheme))
		}
		resp, _, _, done, err := f.do(ctx, target, pageAccept)
		if err != nil {
			var be *blockedError
			if errors.As(err, &be) {
				r := closedRobots(be.Error())
				r.blocked = be
				return r
			}
			if isNoHost(err) {
				r := closedRobots(fmt.Sprintf("the host of %s does not exist", origin(u)))
				r.noHost = err
				return r
			}
			return closedRobots(fmt.Sprintf("robots.txt of %s could not be fetched (%v)", origin(u), err))
		}
		code := resp.StatusCode
		switch {
		case code >= 200 && code < 300:
			body, err := io.ReadAll(io.LimitReader(resp.Body, maxRobotsBytes+1))
			done()
			if err != nil {
				return closedRobots(fmt.Sprintf("robots.txt of %s could not be read (%v)", origin(u), err))
			}
			if len(body) > maxRobotsBytes {
				// Parse what fits; the last, partial line is dropped.
				body = body[:maxRobotsBytes]
				if i := strings.LastIndexAny(string(body), "\r\n"); i >= 0 {
					body = body[:i]
				}
			}
			return parseRobots(body, f.cfg.ProductToken)
		case isRedirect(code) && resp.Header.Get("Location") != "":
			next, err := target.Parse(resp.Header.Get("Location"))
			done()
			if err != nil {
				return closedRobots(fmt.Sprintf("robots.txt of %s redirects to an unreadable URL", origin(u)))
			}
			target = next
		case code == http.StatusTooManyRequests:
			done()
			return closedRobots(fmt.Sprintf("robots.txt of %s answered 429 Too Many Requests", origin(u)))
		case code >= 400 && code < 500:
			done()
			return parseRobots(nil, f.cfg.ProductToken)
		default:
			done()
			return closedRobots(fmt.Sprintf("robots.txt of %s answered %d %s", origin(u), code, http.StatusText(code)))
		}
	}
	return closedRobots(fmt.Sprintf("robots.txt of %s redirects more than %d times", origin(u), maxRobotsRedirects))
}
