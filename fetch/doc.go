// Package fetch fetches public web pages and reads their visible text, for checking quotes
// at their source.
//
// A [Fetcher] opens only what is public (docs/design.md §2, law 2):
//
//   - http and https only, no credentials in the URL, ports 80 and 443 (Config.Ports);
//   - every address actually dialled is checked in the dialer's Control hook, after name
//     resolution, so DNS rebinding cannot lead past it: loopback, private, link-local
//     (169.254.169.254 too), CGNAT, multicast, reserved and documentation ranges and every
//     IPv6 form of them (unique-local, link-local, IPv4-mapped, IPv4-compatible, NAT64,
//     6to4, Teredo) are refused unless Config.Allow (the --fetch-allow flag, see
//     [ParseAllow]) opens them;
//   - login-walled hosts (Config.LoginWalled, [DefaultLoginWalled]) are never fetched, on
//     the first URL or any redirect hop; 401 and 403 mean "needs a login";
//   - robots.txt is obeyed per RFC 9309 on every hop, and when it cannot be read (5xx,
//     429, timeout, network error, more than 5 redirects) the origin is closed;
//   - at most 3 redirects, each hop checked again; loops end with [KindRedirectLoop].
//
// Limits: a byte cap after decompression (the body is cut and marked truncated), a timeout
// per hop that also bounds the body read (cutting off slow drips) and one for the whole
// fetch, HTML/XHTML/plain text and PDF only, no proxy, no cookies, no Authorization header. Each
// host sees one request at a time, spaced by Config.MinDelay or its robots.txt Crawl-delay
// (capped); Config.Concurrency bounds requests in flight. A Fetcher keeps no per-URL state
// but robots.txt (cached per origin, as RFC 9309 allows): fetching a page again requests it
// again, and a check run keeps its own captures (verify.Run).
//
// A page that does not exist is told apart from one that cannot be read: a 404 or 410
// ([KindGone]) and the resolver's definite "no such host" ([KindNoHost]) are [Error.Absent];
// a temporary DNS failure, a timeout, a 5xx or a robots.txt that cannot be read are not. Host
// names are checked (login wall) after the UTS #46 mapping the HTTP client applies, so the
// name checked is the name dialled.
//
// A [Result] carries what the ledger stores as evidence: the raw body and its SHA-256, the
// final URL, every hop with status and dialled IP, the content type, the fetch time and the
// truncation flag. Failures are a *[Error] with a [Kind] and a Reason in plain words.
//
// [ExtractDOM] and [ExtractTokens] read a body's visible text over separate trees (goquery's
// HTML5 document, and a tree of the package's own built from the x/net/html tokenizer), so
// two verifiers do not share a parsing bug. Both decode the charset first (a BOM, then valid
// UTF-8 whatever is declared, then the declared charset, then windows-1252), apply the page's
// CSS (style attributes, <style> elements, and through [Result.Extract] the linked sheets
// that Fetch fetched into [Result.Sheets], each through the same checks as a page) and drop
// what it hides, and fail with [ErrCharset] or [ErrNoText] when a page's text cannot be
// read; [ErrTruncated] says a body was cut at the cap or the CSS at one of its limits
// (docs/fetch.md, "Style sheets").
//
// PDFs ([IsPDF]) have their own cap (Config.MaxPDFBytes); the fetcher returns their bytes,
// and package pdf reads them (docs/pdf.md).
package fetch
