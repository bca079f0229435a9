package fetch

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
)

// guardCase is one address the guard allows or refuses.
type guardCase struct {
	desc    string
	addr    string
	allowed bool
}

// checkGuard runs g.check over every case.
func checkGuard(t *testing.T, g guard, tests []guardCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			err := g.check(netip.MustParseAddrPort(tc.addr))
			if (err == nil) != tc.allowed {
				t.Errorf("check(%s) = %v, want allowed=%v", tc.addr, err, tc.allowed)
			}
		})
	}
}

func TestGuardAddresses(t *testing.T) {
	g := guard{ports: []uint16{80, 443}}
	tests := []guardCase{
		{"public IPv4", "93.184.215.14:443", true},
		{"public IPv4 on port 80", "8.8.8.8:80", true},
		{"public IPv4 on another port", "8.8.8.8:8080", false},
		{"this network", "0.0.0.0:80", false},
		{"private 10/8", "10.1.2.3:80", false},
		{"private 172.16/12", "172.31.255.1:80", false},
		{"just outside 172.16/12", "172.32.0.1:80", true},
		{"private 192.168/16", "192.168.1.1:443", false},
		{"CGNAT", "100.64.0.1:80", false},
		{"just outside CGNAT", "100.128.0.1:80", true},
		{"loopback", "127.0.0.1:80", false},
		{"loopback, other address", "127.8.9.10:443", false},
		{"cloud metadata", "169.254.169.254:80", false},
		{"IETF protocol assignments", "192.0.0.170:80", false},
		{"TEST-NET-1", "192.0.2.1:80", false},
		{"TEST-NET-2", "198.51.100.7:80", false},
		{"TEST-NET-3", "203.0.113.9:80", false},
		{"benchmarking", "198.18.0.1:80", false},
		{"6to4 relay anycast", "192.88.99.1:80", false},
		{"multicast", "224.0.0.251:80", false},
		{"reserved", "240.0.0.1:80", false},
		{"broadcast", "255.255.255.255:80", false},
		{"public IPv6", "[2606:4700::1111]:443", true},
		{"IPv6 unspecified", "[::]:80", false},
		{"IPv6 loopback", "[::1]:80", false},
		{"IPv4-mapped loopback", "[::ffff:127.0.0.1]:80", false},
		{"IPv4-mapped metadata", "[::ffff:169.254.169.254]:80", false},
		{"IPv4-mapped public", "[::ffff:8.8.8.8]:80", false},
		{"IPv4-compatible", "[::127.0.0.1]:80", false},
		{"NAT64", "[64:ff9b::a9fe:a9fe]:80", false},
		{"local NAT64", "[64:ff9b:1::1]:80", false},
		{"6to4 of a private address", "[2002:c0a8:101::1]:80", false},
		{"Teredo", "[2001:0:4136:e378:8000:63bf:3fff:fdd2]:80", false},
		{"IPv6 documentation", "[2001:db8::1]:80", false},
		{"IPv6 documentation 3fff::/20", "[3fff::1]:80", false},
		{"unique-local", "[fd00::1]:80", false},
		{"link-local", "[fe80::1]:80", false},
		{"link-local with zone", "[fe80::1%eth0]:80", false},
		{"site-local", "[fec0::1]:80", false},
		{"IPv6 multicast", "[ff02::1]:80", false},
		{"discard", "[100::1]:80", false},
	}
	checkGuard(t, g, tests)
}

func TestGuardAllowList(t *testing.T) {
	allow, err := ParseAllow("127.0.0.0/8, fd00::/8")
	if err != nil {
		t.Fatal(err)
	}
	g := guard{allow: allow, ports: []uint16{80, 443}}
	tests := []guardCase{
		{"allowed range on any port", "127.0.0.1:54321", true},
		{"allowed range, mapped form", "[::ffff:127.0.0.2]:8080", true},
		{"allowed IPv6 range", "[fd12::1]:9000", true},
		{"other private range stays closed", "10.0.0.1:80", false},
		{"metadata stays closed", "169.254.169.254:80", false},
	}
	checkGuard(t, g, tests)
}

// TestGuardAtDialTime dials through the dialer's Control hook directly, as a resolver that
// changes its answer would: the connection is refused by the hook itself.
func TestGuardAtDialTime(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	d := newDialer(guard{ports: []uint16{80, 443}}, net.DefaultResolver)
	_, err = d.net.DialContext(context.Background(), "tcp", ln.Addr().String())
	var be *blockedError
	if !errors.As(err, &be) || !strings.Contains(be.reason, "loopback") {
		t.Fatalf("dial to %s through Control = %v, want a loopback refusal", ln.Addr(), err)
	}
}

func TestParseAllow(t *testing.T) {
	tests := []struct {
		desc    string
		in      string
		want    []string
		wantErr string
	}{
		{"empty", "", nil, ""},
		{"blank entries skipped", " , ,", nil, ""},
		{"v4 and v6", "127.0.0.0/8,::1/128", []string{"127.0.0.0/8", "::1/128"}, ""},
		{"spaces and masking", " 10.1.2.3/8 ", []string{"10.0.0.0/8"}, ""},
		{"bare address", "192.168.1.5", []string{"192.168.1.5/32"}, ""},
		{"bare IPv6 address", "fd00::1", []string{"fd00::1/128"}, ""},
		{"not a range", "localhost", nil, `"localhost" is neither`},
		{"bad prefix length", "10.0.0.0/33", nil, `"10.0.0.0/33" is not a CIDR range`},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			got, err := ParseAllow(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseAllow(%q) error = %v, want one containing %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var s []string
			for _, p := range got {
				s = append(s, p.String())
			}
			if strings.Join(s, ",") != strings.Join(tc.want, ",") {
				t.Errorf("ParseAllow(%q) = %v, want %v", tc.in, s, tc.want)
			}
		})
	}
}

func TestParseLoginWalled(t *testing.T) {
	tests := []struct {
		desc    string
		in      string
		want    []string
		wantErr string
	}{
		{"empty", "", nil, ""},
		{"blank entries skipped", " , ,", nil, ""},
		{"two hosts, spaces trimmed", " members.example.org , intranet.example ", []string{"members.example.org", "intranet.example"}, ""},
		{"case and a trailing dot folded", "Paywall.Example.COM.", []string{"paywall.example.com"}, ""},
		{"punycode", "xn--bcher-kva.example", []string{"xn--bcher-kva.example"}, ""},
		{"digits and hyphens", "news-24.example", []string{"news-24.example"}, ""},
		{"a URL", "https://members.example.org/", nil, `"https://members.example.org/" is not a host name`},
		{"a host with a port", "members.example.org:443", nil, `":" is not a letter`},
		{"a wildcard", "*.example.org", nil, `"*" is not a letter`},
		{"an empty label", "members..example.org", nil, "every label between dots"},
		{"a leading dot", ".example.org", nil, "every label between dots"},
		{"a label ending in a hyphen", "members-.example.org", nil, "starts or ends with a hyphen"},
		{"a label of 64 characters", strings.Repeat("a", 64) + ".example", nil, "1 to 63 characters"},
		{"a name of 254 characters", strings.Repeat(strings.Repeat("a", 63)+".", 4)[:254], nil, "1 to 253 characters"},
		{"non-ASCII letters", "bücher.example", nil, "xn-- form"},
		{"a space inside", "members example.org", nil, `" " is not a letter`},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			got, err := ParseLoginWalled(tc.in)
			if tc.wantErr != "" {
				if !errors.Is(err, errHostName) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseLoginWalled(%q) error = %v, want one containing %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("ParseLoginWalled(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}
