package web

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Sign-in is the one route where a request makes the server do expensive work (an argon2id
// hash of 19 MiB) before anyone is known, so it is bounded twice (docs/pages.md):
//
//   - failures back off, per account name and per client address: after a few free
//     failures each further one makes the next attempt wait twice as long, answered 429 with
//     Retry-After without hashing anything; an unknown name backs off exactly like a known
//     one, so the answers never tell which names exist;
//   - at most maxHashes password hashes run at once; a sign-in waits for a slot up to
//     hashWait, and when more than maxHashWaiters already wait, or the wait runs out, it is
//     answered 503 with Retry-After. Memory is so bounded by maxHashes × 19 MiB whatever
//     the number of requests.

// limits are the backoff rules of one key kind.
type limits struct {
	free    int           // failures without delay
	base    time.Duration // the delay after the first failure past free; doubles with each
	max     time.Duration // the longest delay
	forget  time.Duration // a key whose last failure is older, and not delayed, is forgotten
	entries int           // the most keys kept
}

// The sign-in limits. An account name may fail 5 times in a row without delay; an address
// (an IPv4 address, or the /64 of an IPv6 address) 20 times, since several people may share
// it. Past that, delays run 1 s, 2 s, 4 s, ... up to 15 minutes. A successful sign-in clears
// its name's failures, not its address's.
var (
	accountLimits = limits{free: 5, base: time.Second, max: 15 * time.Minute, forget: time.Hour, entries: 10000}
	addressLimits = limits{free: 20, base: time.Second, max: 15 * time.Minute, forget: time.Hour, entries: 10000}
)

// The bound on password hashing.
const (
	maxHashes      = 4
	maxHashWaiters = 64
	hashWait       = 10 * time.Second
)

// backoff counts failures per key under one set of limits. It holds at most l.entries keys:
// when full, keys that are forgotten by the rules go first, then arbitrary ones (so an
// attacker spraying names can only make the server forget, never grow).
type backoff struct {
	l  limits
	mu sync.Mutex
	m  map[string]*strikes
}

type strikes struct {
	n     int       // failures in a row
	last  time.Time // the latest failure
	until time.Time // no attempt before this
}

func newBackoff(l limits) *backoff { return &backoff{l: l, m: map[string]*strikes{}} }

// wait returns how long key must wait before its next attempt; 0 when it may try now.
func (b *backoff) wait(key string, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.m[key]; s != nil && now.Before(s.until) {
		return s.until.Sub(now)
	}
	return 0
}

// fail records a failed attempt of key at now.
func (b *backoff) fail(key string, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.m[key]
	if s == nil {
		if len(b.m) >= b.l.entries {
			b.evict(now)
		}
		s = &strikes{}
		b.m[key] = s
	}
	s.n++
	s.last = now
	if past := s.n - b.l.free; past > 0 {
		d := b.l.max
		if past-1 < 32 {
			d = min(b.l.base<<(past-1), b.l.max)
		}
		s.until = now.Add(d)
	}
}

// evict makes room for one key: every forgotten key goes, and if none was, an arbitrary one.
func (b *backoff) evict(now time.Time) {
	for k, s := range b.m {
		if now.Sub(s.last) > b.l.forget && !now.Before(s.until) {
			delete(b.m, k)
		}
	}
	for k := range b.m {
		if len(b.m) < b.l.entries {
			return
		}
		delete(b.m, k)
	}
}

// reset forgets key's failures.
func (b *backoff) reset(key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, key)
}

// signInGuard holds the sign-in limits of one server.
type signInGuard struct {
	now      func() time.Time
	accounts *backoff
	addrs    *backoff
	hashes   chan struct{} // one token per hash allowed to run
	waiters  atomic.Int64
	wait     time.Duration
	maxWait  int64
}

func newSignInGuard() *signInGuard {
	return &signInGuard{now: time.Now, accounts: newBackoff(accountLimits), addrs: newBackoff(addressLimits),
		hashes: make(chan struct{}, maxHashes), wait: hashWait, maxWait: maxHashWaiters}
}

// errTooMany answers 429: too many failed sign-ins; the error carries how long to wait.
type errTooMany struct{ after time.Duration }

func (e errTooMany) Error() string {
	return fmt.Sprintf("too many failed sign-ins for this name or from this address; wait %d seconds and try again", retrySeconds(e.after))
}

// errBusy answers 503: the server is hashing as many passwords as it may.
type errBusy struct{ after time.Duration }

func (e errBusy) Error() string {
	return fmt.Sprintf("the server is busy checking other sign-ins; try again in %d seconds", retrySeconds(e.after))
}

func retrySeconds(d time.Duration) int64 {
	return max(1, int64(math.Ceil(d.Seconds())))
}

// retryAfter sets Retry-After and returns the status for a guard error, or 0 for another.
func retryAfter(w http.ResponseWriter, err error) int {
	var many errTooMany
	var busy errBusy
	switch {
	case errors.As(err, &many):
		w.Header().Set("Retry-After", strconv.FormatInt(retrySeconds(many.after), 10))
		return http.StatusTooManyRequests
	case errors.As(err, &busy):
		w.Header().Set("Retry-After", strconv.FormatInt(retrySeconds(busy.after), 10))
		return http.StatusServiceUnavailable
	}
	return 0
}

// clientKey is the address key of a request: its peer's IP address (an IPv6 address by its
// /64). Forwarded headers are not trusted: behind a proxy every request shares the proxy's
// address, so its limit applies to all of them together.
func clientKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// accountKey is the account key of a name: case and surrounding space do not make a new one.
func accountKey(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// check returns errTooMany when name or addr must wait.
func (g *signInGuard) check(name, addr string) error {
	now := g.now()
	if d := max(g.accounts.wait(name, now), g.addrs.wait(addr, now)); d > 0 {
		return errTooMany{after: d}
	}
	return nil
}

// hash runs f, which hashes a password, when a hash slot is free: it waits for one up to
// g.wait (or until ctx ends), and returns errBusy when the wait runs out or too many wait.
func (g *signInGuard) hash(ctx context.Context, f func() error) error {
	select {
	case g.hashes <- struct{}{}:
	default:
		if g.waiters.Add(1) > g.maxWait {
			g.waiters.Add(-1)
			return errBusy{after: time.Second}
		}
		t := time.NewTimer(g.wait)
		select {
		case g.hashes <- struct{}{}:
			t.Stop()
			g.waiters.Add(-1)
		case <-t.C:
			g.waiters.Add(-1)
			return errBusy{after: time.Second}
		case <-ctx.Done():
			t.Stop()
			g.waiters.Add(-1)
			return fmt.Errorf("sign-in abandoned: %w", ctx.Err())
		}
	}
	defer func() { <-g.hashes }()
	return f()
}

// signIn runs attempt (which hashes, and reports whether the password was right) under the
// limits of name and addr: errTooMany before hashing when either must wait (checked again
// once a hash slot is held, so concurrent attempts cannot slip past the count), errBusy when
// no slot came free. A wrong password counts against both keys; a right one clears name's.
func (g *signInGuard) signIn(ctx context.Context, name, addr string, attempt func() (bool, error)) error {
	name = accountKey(name)
	if err := g.check(name, addr); err != nil {
		return err
	}
	return g.hash(ctx, func() error {
		if err := g.check(name, addr); err != nil {
			return err
		}
		ok, err := attempt()
		if err != nil {
			return err
		}
		if !ok {
			now := g.now()
			g.accounts.fail(name, now)
			g.addrs.fail(addr, now)
			return nil
		}
		g.accounts.reset(name)
		return nil
	})
}
