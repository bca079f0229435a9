package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/net/http/httpguts"

	"evidenceledger/fetch"
	"evidenceledger/verify"
)

// parseFetchFlags adds the fetcher's flags, shared by the subcommands that check pages (serve
// and check), to fs, which holds the subcommand's own flags; parses args wherever the flags
// stand among them (parse); and returns the other arguments with the fetch.Config and the
// number of workers the flags give. Its errors are parse's, or name the flag that is wrong
// and wrap errUsage (or are flag.ErrHelp).
//
//	--fetch-allow CIDR,...    ranges the fetcher may reach although private or special (default none)
//	--fetch-delay D           least time between two requests to one host (default 1s; 0 for none)
//	--workers N               citations checked at once (default verify.DefaultWorkers)
//	--user-agent STRING       the User-Agent sent with every request (default fetch.DefaultUserAgent,
//	                          whose contact URL is a placeholder: operators set their own)
//	--login-walled HOST,...   hosts never fetched, with their subdomains, added to
//	                          fetch.DefaultLoginWalled (default none added)
//	--max-pdf-mib N           the most of a PDF read, in MiB (default 50; 1 to 1024)
//
// Everything else takes fetch's defaults: 10 MiB per page, 15 s per request, 45 s per
// fetch, at most 3 redirect hops, robots.txt obeyed for the product token evidence-ledger.
func parseFetchFlags(fs *flag.FlagSet, args []string) (rest []string, cfg fetch.Config, workers int, err error) {
	allow := fs.String("fetch-allow", "", "comma-separated `CIDR` ranges the fetcher may reach although private or special")
	delay := fs.Duration("fetch-delay", fetch.DefaultMinDelay, "least `time` between two requests to one host (0 for none)")
	nworkers := fs.Int("workers", verify.DefaultWorkers, "`number` of citations checked at once")
	agent := fs.String("user-agent", fetch.DefaultUserAgent, "User-Agent `string` sent with every request; name your own contact URL in it")
	walled := fs.String("login-walled", "", "comma-separated `hosts` never fetched (with their subdomains), added to the default social networks")
	pdfMiB := fs.Int("max-pdf-mib", fetch.DefaultMaxPDFBytes>>20, "`MiB` of a PDF read at most; a PDF cut there is unreachable (1 to 1024)")
	if rest, err = parse(fs, args); err != nil {
		return nil, fetch.Config{}, 0, err
	}
	prefixes, err := fetch.ParseAllow(*allow)
	if err != nil {
		return nil, fetch.Config{}, 0, fmt.Errorf("--fetch-allow: %w: %w", err, errUsage)
	}
	if *delay < 0 {
		return nil, fetch.Config{}, 0, fmt.Errorf("--fetch-delay %v: want 0 or more: %w", *delay, errUsage)
	}
	if *nworkers < 1 || *nworkers > 64 {
		return nil, fetch.Config{}, 0, fmt.Errorf("--workers %d: want 1 to 64: %w", *nworkers, errUsage)
	}
	ua := strings.TrimSpace(*agent)
	if ua == "" || !httpguts.ValidHeaderFieldValue(ua) {
		return nil, fetch.Config{}, 0, fmt.Errorf("--user-agent %q: want a non-empty header value without line breaks or control characters, e.g. \"evidence-ledger/1.0 (+https://your.site/contact)\": %w", *agent, errUsage)
	}
	if *pdfMiB < 1 || *pdfMiB > 1024 {
		return nil, fetch.Config{}, 0, fmt.Errorf("--max-pdf-mib %d: want 1 to 1024: %w", *pdfMiB, errUsage)
	}
	hosts, err := fetch.ParseLoginWalled(*walled)
	if err != nil {
		return nil, fetch.Config{}, 0, fmt.Errorf("--login-walled: %w: %w", err, errUsage)
	}
	cfg = fetch.Config{Allow: prefixes, MinDelay: *delay, UserAgent: ua, MaxPDFBytes: int64(*pdfMiB) << 20}
	if *delay == 0 {
		cfg.MinDelay = -1 // fetch: a negative delay means none
	}
	if len(hosts) > 0 {
		// Added to the defaults, never replacing them: a nil LoginWalled would mean the defaults alone.
		cfg.LoginWalled = append(slices.Clone(fetch.DefaultLoginWalled), hosts...)
	}
	return rest, cfg, *nworkers, nil
}
