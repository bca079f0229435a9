package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"syscall"
	"time"
)

// special lists the address ranges that are never public: a Fetcher refuses them unless the
// allow-list opens them. IPv6 is handled as an allow-list instead (see publicReason).
var special4 = []struct {
	p    netip.Prefix
	name string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this-network"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local (cloud metadata)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
}

var (
	global6  = netip.MustParsePrefix("2000::/3")
	special6 = []struct {
		p    netip.Prefix
		name string
	}{
		{netip.MustParsePrefix("2001::/23"), "IETF protocol assignments (Teredo, benchmarking, ORCHID)"},
		{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
		{netip.MustParsePrefix("2002::/16"), "6to4"},
		{netip.MustParsePrefix("3fff::/20"), "documentation"},
	}
	// named6 only names common non-global IPv6 ranges in the refusal message.
	named6 = []struct {
		p    netip.Prefix
		name string
	}{
		{netip.MustParsePrefix("::/128"), "unspecified"},
		{netip.MustParsePrefix("::1/128"), "loopback"},
		{netip.MustParsePrefix("::ffff:0:0/96"), "IPv4-mapped"},
		{netip.MustParsePrefix("::/96"), "IPv4-compatible"},
		{netip.MustParsePrefix("64:ff9b::/96"), "NAT64"},
		{netip.MustParsePrefix("64:ff9b:1::/48"), "local NAT64"},
		{netip.MustParsePrefix("100::/64"), "discard"},
		{netip.MustParsePrefix("fc00::/7"), "unique-local"},
		{netip.MustParsePrefix("fe80::/10"), "link-local"},
		{netip.MustParsePrefix("fec0::/10"), "site-local"},
		{netip.MustParsePrefix("ff00::/8"), "multicast"},
	}
)

// publicReason returns "" when a is a public unicast address, or else the name of the special
// range that holds it. IPv6 is public only inside global unicast 2000::/3, outside the
// special blocks carved from it, so every embedding of IPv4 (mapped, compatible, NAT64,
// 6to4, Teredo) is refused.
func publicReason(a netip.Addr) string {
	a = a.WithZone("")
	if a.Is4() {
		for _, s := range special4 {
			if s.p.Contains(a) {
				return s.name
			}
		}
		if a == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
			return "broadcast"
		}
		return ""
	}
	if !global6.Contains(a) {
		for _, s := range named6 {
			if s.p.Contains(a) {
				return s.name
			}
		}
		return "not global unicast"
	}
	for _, s := range special6 {
		if s.p.Contains(a) {
			return s.name
		}
	}
	return ""
}

// blockedError is the refusal of the address guard.
type blockedError struct {
	addr   netip.AddrPort
	reason string
}

func (e *blockedError) Error() string {
	return fmt.Sprintf("address %s is refused: %s", e.addr, e.reason)
}

// guard decides which addresses and ports may be dialled.
type guard struct {
	allow []netip.Prefix
	ports []uint16
}

// check returns a *blockedError when ap may not be dialled: an allow-listed address may be
// dialled on any port; any other must be public and on one of the configured ports.
func (g guard) check(ap netip.AddrPort) error {
	a := ap.Addr().WithZone("")
	for _, p := range g.allow {
		if p.Contains(a) || p.Contains(a.Unmap()) {
			return nil
		}
	}
	if r := publicReason(a); r != "" {
		return &blockedError{ap, r + " address (open it with --fetch-allow if it is meant to be reached)"}
	}
	for _, p := range g.ports {
		if ap.Port() == p {
			return nil
		}
	}
	return &blockedError{ap, fmt.Sprintf("port %d is not one of the ports public pages are fetched on %v", ap.Port(), g.ports)}
}

// control is a net.Dialer ControlContext: it checks the address actually being connected
// to, after name resolution, so that no DNS answer can lead past the guard.
func (g guard) control(_ context.Context, _, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &blockedError{reason: fmt.Sprintf("dial address %q cannot be checked", address)}
	}
	return g.check(ap)
}

// dialer dials host:port after resolving the host itself, trying each address in turn; each
// is checked before dialling (for a clear error) and again by the dialer's Control.
type dialer struct {
	guard    guard
	resolver Resolver
	net      net.Dialer
}

func newDialer(g guard, r Resolver) *dialer {
	return &dialer{guard: g, resolver: r, net: net.Dialer{Timeout: 10 * time.Second, ControlContext: g.control}}
}

func (d *dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("port %q: %w", portStr, err)
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		addrs, err = d.resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, err
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("no address found for %s", host)
		}
	}
	var errs []error
	for _, a := range addrs {
		ap := netip.AddrPortFrom(a, uint16(port))
		if err := d.guard.check(ap); err != nil {
			errs = append(errs, err)
			continue
		}
		c, err := d.net.DialContext(ctx, "tcp", ap.String())
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}
