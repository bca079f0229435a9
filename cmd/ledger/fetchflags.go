package main

import (
	"flag"
	"fmt"

	"evidenceledger/fetch"
	"evidenceledger/verify"
)

// fetchFlags adds the fetcher's flags, shared by the subcommands that check pages (serve and
// check), and returns a function that builds the fetch.Config and the number of workers
// from them once the flags are parsed. Its errors wrap errUsage.
//
//	--fetch-allow CIDR,...  ranges the fetcher may reach although private or special (default none)
//	--fetch-delay D         least time between two requests to one host (default 1s; 0 for none)
//	--workers N             citations checked at once (default verify.DefaultWorkers)
//
// Everything else takes fetch's defaults: 10 MiB per page, 15 s per request, 45 s per
// fetch, at most 3 redirect hops, robots.txt obeyed, the default login-walled hosts.
func fetchFlags(fs *flag.FlagSet) func() (fetch.Config, int, error) {
	allow := fs.String("fetch-allow", "", "comma-separated `CIDR` ranges the fetcher may reach although private or special")
	delay := fs.Duration("fetch-delay", fetch.DefaultMinDelay, "least `time` between two requests to one host (0 for none)")
	workers := fs.Int("workers", verify.DefaultWorkers, "`number` of citations checked at once")
	return func() (fetch.Config, int, error) {
		prefixes, err := fetch.ParseAllow(*allow)
		if err != nil {
			return fetch.Config{}, 0, fmt.Errorf("--fetch-allow: %w: %w", err, errUsage)
		}
		if *delay < 0 {
			return fetch.Config{}, 0, fmt.Errorf("--fetch-delay %v: want 0 or more: %w", *delay, errUsage)
		}
		if *workers < 1 || *workers > 64 {
			return fetch.Config{}, 0, fmt.Errorf("--workers %d: want 1 to 64: %w", *workers, errUsage)
		}
		cfg := fetch.Config{Allow: prefixes, MinDelay: *delay}
		if *delay == 0 {
			cfg.MinDelay = -1 // fetch: a negative delay means none
		}
		return cfg, *workers, nil
	}
}

// parseFetchFlags adds the fetcher's flags (fetchFlags) to fs, which holds the subcommand's
// own flags, parses args wherever the flags stand among them (parse), and returns the other
// arguments with the fetch.Config and the number of workers the flags give. Its errors are
// parse's and fetchFlags's, and wrap errUsage (or are flag.ErrHelp).
func parseFetchFlags(fs *flag.FlagSet, args []string) (rest []string, cfg fetch.Config, workers int, err error) {
	fetchConfig := fetchFlags(fs)
	if rest, err = parse(fs, args); err != nil {
		return nil, fetch.Config{}, 0, err
	}
	if cfg, workers, err = fetchConfig(); err != nil {
		return nil, fetch.Config{}, 0, err
	}
	return rest, cfg, workers, nil
}
