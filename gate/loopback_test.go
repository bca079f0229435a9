package gate

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"time"

	"evidenceledger/fetch"
)

// loopbackResolver stands in for DNS in the tests that check pages on the spot: every name
// ending in ".test" is 127.0.0.1, where a test site answers; anything else does not exist.
type loopbackResolver struct{}

func (loopbackResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if strings.HasSuffix(host, ".test") {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// loopbackFetchConfig opens loopback, maps *.test to it, waits for nobody, and treats
// walled.test as a login-walled host. No fetch has a
// time limit of its own (the test binary's -timeout bounds it); the fetch time limits are
// tested in package fetch.
func loopbackFetchConfig() fetch.Config {
	return fetch.Config{
		Allow:        []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		Resolver:     loopbackResolver{},
		MinDelay:     -1,
		HopTimeout:   time.Hour,
		TotalTimeout: time.Hour,
		LoginWalled:  []string{"walled.test"},
	}
}
