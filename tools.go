//go:build tools

// Package tools pins the modules the project depends on until code imports them.
package tools

import (
	_ "github.com/PuerkitoBio/goquery"
	_ "github.com/chromedp/chromedp"
	_ "github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
	_ "github.com/temoto/robotstxt"
	_ "golang.org/x/crypto/argon2"
	_ "golang.org/x/net/html/charset"
	_ "golang.org/x/net/publicsuffix"
	_ "golang.org/x/text/unicode/norm"
	_ "golang.org/x/time/rate"
	_ "modernc.org/sqlite"
)
