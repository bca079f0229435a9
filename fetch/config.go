package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"
)

// Defaults applied by [New] to the zero values of [Config].
const (
	DefaultUserAgent     = "evidence-ledger/1.0 (public-page quote checker; +https://evidence-ledger.example/contact)"
	DefaultProductToken  = "evidence-ledger"
	DefaultMaxBytes      = 10 << 20
	DefaultHopTimeout    = 15 * time.Second
	DefaultTotalTimeout  = 45 * time.Second
	DefaultMinDelay      = time.Second
	DefaultMaxCrawlDelay = 10 * time.Second
	DefaultConcurrency   = 8
	DefaultRobotsTTL     = 24 * time.Hour
	// DefaultRobotsErrorTTL is how long a robots.txt that could not be read (and so closes
	// the whole origin) is remembered before it is asked for again.
	DefaultRobotsErrorTTL = time.Minute
)

// DefaultLoginWalled lists the hosts (with all their subdomains) that are never fetched: the
// big social networks, whose pages need a login to be seen as published.
var DefaultLoginWalled = []string{
	"linkedin.com", "lnkd.in",
	"facebook.com", "fb.com", "fb.watch", "messenger.com",
	"instagram.com",
	"x.com", "twitter.com", "t.co",
	"tiktok.com",
	"threads.net", "threads.com",
	"snapchat.com",
	"pinterest.com",
	"reddit.com",
	"quora.com",
	"vk.com",
	"weibo.com",
	"discord.com", "discord.gg",
	"xing.com",
}

// Resolver looks up the addresses of a host name. *net.Resolver satisfies it; tests use it to
// point names such as "a.test" at loopback addresses.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Config sets up a [Fetcher]. Zero values get the safe defaults named in each field's comment.
type Config struct {
	// UserAgent is sent with every request. Default [DefaultUserAgent], which names the
	// program and a contact URL that is a placeholder on a reserved .example domain:
	// operators set their own contact page (ledger's --user-agent flag).
	UserAgent string
	// ProductToken is the name matched against robots.txt user-agent lines, exactly and
	// without regard to case. Default [DefaultProductToken].
	ProductToken string
	// Allow opens address ranges that are otherwise refused as private or special, on any
	// port (for tests and intranets). Default: none. See [ParseAllow].
	Allow []netip.Prefix
	// LoginWalled lists hosts that are never fetched, with all their subdomains. nil means
	// [DefaultLoginWalled]; an empty, non-nil slice means none.
	LoginWalled []string
	// Ports are the TCP ports public addresses may be reached on. Default 80 and 443.
	Ports []uint16
	// MaxBytes caps the body after content-encoding decompression; a longer body is cut
	// there and marked truncated. Default [DefaultMaxBytes] (10 MiB).
	MaxBytes int64
	// MaxPDFBytes caps a PDF body (see [IsPDF]) as MaxBytes caps the others; a PDF cut
	// there is not read at all. Default [DefaultMaxPDFBytes] (50 MiB).
	MaxPDFBytes int64
	// HopTimeout bounds one request, from dialling to the last body byte (so a server that
	// drips its body slowly is cut off). Default [DefaultHopTimeout].
	HopTimeout time.Duration
	// TotalTimeout bounds a whole Fetch: robots.txt, waiting for politeness, every hop.
	// Default [DefaultTotalTimeout].
	TotalTimeout time.Duration
	// MinDelay is the least time between the end of one request to a host and the start of
	// the next. Zero means [DefaultMinDelay]; a negative value means no delay.
	MinDelay time.Duration
	// MaxCrawlDelay caps a robots.txt Crawl-delay. Zero means [DefaultMaxCrawlDelay]; a
	// negative value means Crawl-delay is not waited for.
	MaxCrawlDelay time.Duration
	// Concurrency is the most requests in flight at once over all hosts.
	// Default [DefaultConcurrency].
	Concurrency int
	// RobotsTTL is how long a robots.txt is cached per origin; never more than 24 hours.
	// Default [DefaultRobotsTTL].
	RobotsTTL time.Duration
	// Resolver resolves host names. Default net.DefaultResolver.
	Resolver Resolver
	// Now is the clock, for fetch times, cache expiry and the spacing of requests to a host.
	// Default time.Now.
	Now func() time.Time
	// Observe, when not nil, is told the outcome of each Fetch of a page as it returns: ""
	// for a page fetched, else the words of its error's [Kind] ("robots.txt disallowed",
	// "timeout", ...; "error" for an error of no kind). Style sheets are not counted. It
	// must be safe for concurrent use and quick: it runs on the fetch's goroutine.
	Observe func(outcome string)
}

// withDefaults returns cfg with every zero value replaced by its default.
func (cfg Config) withDefaults() Config {
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	if cfg.ProductToken == "" {
		cfg.ProductToken = DefaultProductToken
	}
	if cfg.LoginWalled == nil {
		cfg.LoginWalled = DefaultLoginWalled
	}
	if len(cfg.Ports) == 0 {
		cfg.Ports = []uint16{80, 443}
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.MaxPDFBytes <= 0 {
		cfg.MaxPDFBytes = DefaultMaxPDFBytes
	}
	if cfg.HopTimeout <= 0 {
		cfg.HopTimeout = DefaultHopTimeout
	}
	if cfg.TotalTimeout <= 0 {
		cfg.TotalTimeout = DefaultTotalTimeout
	}
	switch {
	case cfg.MinDelay == 0:
		cfg.MinDelay = DefaultMinDelay
	case cfg.MinDelay < 0:
		cfg.MinDelay = 0
	}
	switch {
	case cfg.MaxCrawlDelay == 0:
		cfg.MaxCrawlDelay = DefaultMaxCrawlDelay
	case cfg.MaxCrawlDelay < 0:
		cfg.MaxCrawlDelay = 0
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.RobotsTTL <= 0 || cfg.RobotsTTL > DefaultRobotsTTL {
		cfg.RobotsTTL = DefaultRobotsTTL
	}
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return cfg
}

// ParseAllow parses the value of the --fetch-allow flag: CIDR ranges separated by commas,
// such as "127.0.0.0/8,::1/128". A bare address stands for itself alone (/32 or /128).
// Blank input gives no ranges. It returns an error naming the first entry that is not a
// range, so the operator can correct the flag.
func ParseAllow(csv string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for part := range strings.SplitSeq(csv, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			a, err := netip.ParseAddr(part)
			if err != nil {
				return nil, fmt.Errorf("fetch allow-list: %q is neither a CIDR range nor an address (write e.g. 10.0.0.0/8): %w", part, err)
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fmt.Errorf("fetch allow-list: %q is not a CIDR range (write e.g. 10.0.0.0/8): %w", part, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// ParseLoginWalled parses the value of the --login-walled flag: host names separated by
// commas, such as "members.example.org,intranet.example". Each is returned in lower case
// without a trailing dot; a host stands for all its subdomains too. Blank input gives no
// hosts. The hosts are meant to be added to [DefaultLoginWalled], not to replace it.
//
// It returns an error naming the first entry that is not a bare host name (a URL, a
// host:port, a wildcard, a name with spaces or empty labels, or non-ASCII letters, which
// must be written in their xn-- form), so the operator can correct the flag.
func ParseLoginWalled(csv string) ([]string, error) {
	var out []string
	for part := range strings.SplitSeq(csv, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		host := strings.TrimSuffix(strings.ToLower(part), ".")
		if err := checkHostName(host); err != nil {
			return nil, fmt.Errorf("login-walled hosts: %q is not a host name (write e.g. members.example.org; subdomains are included): %w", part, err)
		}
		out = append(out, host)
	}
	return out, nil
}

// errHostName is the cause ParseLoginWalled wraps for an entry that is not a host name.
var errHostName = errors.New("not a host name")

// checkHostName accepts a lower-case host name of ASCII letters, digits, hyphens and dots,
// with labels of 1 to 63 characters that neither start nor end with a hyphen, at most 253
// characters in all.
func checkHostName(host string) error {
	if host == "" || len(host) > 253 {
		return fmt.Errorf("%w: it must be 1 to 253 characters long", errHostName)
	}
	for label := range strings.SplitSeq(host, ".") {
		if label == "" || len(label) > 63 {
			return fmt.Errorf("%w: every label between dots must be 1 to 63 characters long", errHostName)
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("%w: label %q starts or ends with a hyphen", errHostName, label)
		}
		for _, c := range []byte(label) {
			switch {
			case c >= 0x80:
				return fmt.Errorf("%w: it has non-ASCII characters; write the name in its xn-- form", errHostName)
			case (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-':
				return fmt.Errorf("%w: %q is not a letter, digit, hyphen or dot (URLs, ports and wildcards are not accepted)", errHostName, string(c))
			}
		}
	}
	return nil
}
