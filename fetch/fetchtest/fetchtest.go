// Package fetchtest gives tests a loopback world to fetch pages in, as net/http/httptest
// gives them servers: every host name ending in ".test" resolves to 127.0.0.1, where the
// test's own server answers, and no other name exists.
package fetchtest

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"time"

	"evidenceledger/fetch"
)

// Resolver stands in for DNS: every name ending in ".test" is 127.0.0.1; anything else does
// not exist.
type Resolver struct{}

// LookupNetIP implements fetch's resolver.
func (Resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if strings.HasSuffix(host, ".test") {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// WalledHost is the host Config treats as login-walled.
const WalledHost = "walled.test"

// Config is the fetcher's configuration for tests: loopback is open, *.test maps to it
// (Resolver), nobody is waited for, WalledHost is the one login-walled host, and no fetch has
// a time limit of its own, so a page a test holds stays held as long as the test needs,
// however slow the machine (the test binary's -timeout bounds it); the fetch time limits
// are tested in package fetch.
func Config() fetch.Config {
	return fetch.Config{
		Allow:        []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		Resolver:     Resolver{},
		MinDelay:     -1,
		HopTimeout:   time.Hour,
		TotalTimeout: time.Hour,
		LoginWalled:  []string{WalledHost},
	}
}
