package fetch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readTestdata(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", path))
	if err != nil {
		tb.Fatalf("read testdata: %v", err)
	}
	return string(b)
}

// TestRobotsRules holds cases written from RFC 9309 and from the behaviour the reference
// (Google) robots.txt parser's test suite describes.
func TestRobotsRules(t *testing.T) {
	rfc := readTestdata(t, "robots/rfc9309-example.txt")
	groups := readTestdata(t, "robots/google-groups.txt")
	broken := readTestdata(t, "robots/parse-errors.txt")
	wild := readTestdata(t, "robots/wildcards.txt")
	tests := []struct {
		desc   string
		robots string
		agent  string
		path   string
		want   bool
	}{
		{"RFC 9309 §5.1: foobot may fetch its allowed page", rfc, "foobot", "/example/page.html", true},
		{"RFC 9309 §5.1: foobot may fetch the allowed gif", rfc, "foobot", "/example/allowed.gif", true},
		{"RFC 9309 §5.1: foobot is closed elsewhere", rfc, "foobot", "/other", false},
		{"RFC 9309 §5.1: barbot shares a group with bazbot", rfc, "barbot", "/example/page.html", false},
		{"RFC 9309 §5.1: bazbot has barbot's rules", rfc, "bazbot", "/example/page.html", false},
		{"RFC 9309 §5.1: bazbot may fetch other paths", rfc, "bazbot", "/example/", true},
		{"RFC 9309 §5.1: quxbot's empty group allows all", rfc, "quxbot", "/example/", true},
		{"RFC 9309 §5.1: others fall to * and its gif rule", rfc, "otherbot", "/a/b.gif", false},
		{"RFC 9309 §5.1: $ anchors the end", rfc, "otherbot", "/a/b.gif?x=1", true},
		{"RFC 9309 §5.1: others are closed from /example/", rfc, "otherbot", "/example/x", false},
		{"RFC 9309 §5.1: others may fetch /publications/", rfc, "otherbot", "/publications/x", true},
		{"RFC 9309 §2.2.1: the product token matches without case", "User-agent: FooBot\nDisallow: /\n", "foobot", "/x", false},
		{"RFC 9309 §2.2.1: a longer agent name is another crawler", "User-agent: foo\nDisallow: /\n", "foobot", "/x", true},
		{"RFC 9309 §2.2.1: only the product token of a line counts", "User-agent: FooBot/1.2 (extra)\nDisallow: /\n", "foobot", "/x", false},
		{"reference: 'FOO BAR' is the product token FOO", "User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n", "foo", "/a/", false},
		{"reference: 'FOO BAR' allows foo /x/", "User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n", "foo", "/x/", true},
		{"RFC 9309 §2.2.1: groups for the same agent merge", "User-agent: a\nDisallow: /x\n\nUser-agent: b\nDisallow: /\n\nUser-agent: a\nDisallow: /y\n", "a", "/y", false},
		{"RFC 9309 §2.2.1: a matching group hides *", "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", "foobot", "/x/page", true},
		{"RFC 9309 §2.2.1: and its own rules apply", "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", "foobot", "/y/page", false},
		{"RFC 9309 §2.2.1: no group, no rules", "User-agent: FooBot\nDisallow: /\n", "barbot", "/", true},
		{"reference groups: rules before any user-agent apply to no one", groups, "foobot", "/foo/bar/", false},
		{"reference groups: FooBot /x/", groups, "foobot", "/x/", true},
		{"reference groups: FooBot's second group merges", groups, "foobot", "/z/", true},
		{"reference groups: FooBot /y/", groups, "foobot", "/y/", false},
		{"reference groups: blank lines do not end a group", groups, "barbot", "/w/", true},
		{"reference groups: BarBot /y/", groups, "barbot", "/y/", true},
		{"reference groups: BarBot /z/", groups, "barbot", "/z/", false},
		{"reference groups: BazBot shares FooBot's last group", groups, "bazbot", "/z/", true},
		{"reference groups: BazBot elsewhere", groups, "bazbot", "/x/", false},
		{"reference: sitemap lines do not end a group", "User-agent: BarBot\nSitemap: https://a.test/s.xml\nUser-agent: *\nDisallow: /\n", "barbot", "/", false},
		{"reference: unknown lines do not end a group", "User-agent: FooBot\nInvalid-Unknown-Line: x\nUser-agent: *\nDisallow: /\n", "foobot", "/", false},
		{"reference: keys are case-insensitive", "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n", "foobot", "/x/y", true},
		{"reference: keys are case-insensitive (disallow)", "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n", "foobot", "/a", false},
		{"reference: paths are case-sensitive", "User-agent: FooBot\nDisallow: /x/\n", "foobot", "/X/", true},
		{"reference: missing colon is accepted", "user-agent FooBot\ndisallow /\n", "foobot", "/a", false},
		{"reference: misspelt disallow is accepted", "User-agent: FooBot\nDissallow: /\n", "foobot", "/a", false},
		{"reference: unknown keys do nothing", "foo: FooBot\nbar: /\n", "foobot", "/a", true},
		{"reference: a BOM is skipped", "\ufeffUser-agent: FooBot\nDisallow: /\n", "foobot", "/a", false},
		{"reference: CR line ends", "User-agent: FooBot\rDisallow: /\r", "foobot", "/a", false},
		{"reference: a comment ends the rule", "User-agent: *\n# disallow: /\ndisallow: /foo/quz#qux\nallow: /\n", "x", "/foo/quz", false},
		{"reference: a comment line is nothing", "User-agent: *\n# disallow: /\ndisallow: /foo/quz#qux\nallow: /\n", "x", "/foo/bar", true},
		{"RFC 9309 §2.2.2: longest match wins (allow)", "User-agent: *\nAllow: /x/page.html\nDisallow: /x/\n", "x", "/x/page.html", true},
		{"RFC 9309 §2.2.2: longest match wins (disallow)", "User-agent: *\nAllow: /x/page.html\nDisallow: /x/\n", "x", "/x/", false},
		{"RFC 9309 §2.2.2: allow wins a tie", "User-agent: *\nDisallow: /folder\nAllow: /folder\n", "x", "/folder/page", true},
		{"RFC 9309 §2.2.2: allow wins a tie, any order", "User-agent: *\nAllow: /\nDisallow: /\n", "x", "/page", true},
		{"reference: wildcard rule longer than the allow", "User-agent: *\nAllow: /page\nDisallow: /*.html\n", "x", "/page.html", false},
		{"reference: wildcard rule does not match", "User-agent: *\nAllow: /page\nDisallow: /*.html\n", "x", "/page", true},
		{"reference: longer allow beats the wildcard", "User-agent: *\nAllow: /x/page.\nDisallow: /*.html\n", "x", "/x/page.html", true},
		{"reference: wildcard one longer than allow", "User-agent: *\nAllow: /page\nDisallow: /*.htm\n", "x", "/page.htm", false},
		{"RFC 9309 §2.2.2: a wildcard rule as long as the allow ties, allow wins", "User-agent: *\nAllow: /page\nDisallow: /*.ht\n", "x", "/page.htm", true},
		{"reference: /$ allows only the root", "User-agent: *\nAllow: /$\nDisallow: /\n", "x", "/", true},
		{"reference: /$ does not open the rest", "User-agent: *\nAllow: /$\nDisallow: /\n", "x", "/page.html", false},
		{"reference: empty rules are ignored", "User-agent: *\nAllow:\nDisallow:\n", "x", "/", true},
		{"reference: * in the middle", "User-agent: *\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", "x", "/foo/bar/quz", false},
		{"reference: * in the middle, other path", "User-agent: *\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", "x", "/foo/quz", true},
		{"reference: $ closes only the exact path", "User-agent: *\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "x", "/foo/bar", false},
		{"reference: $ leaves longer paths open", "User-agent: *\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "x", "/foo/bar/baz", true},
		{"wildcards are anchored at the start of the path", wild, "x", "/a/fish.php", false},
		{"a wildcard rule opens its path", wild, "x", "/fishing.php", true},
		{"$ after a wildcard", wild, "x", "/docs/a.pdf", false},
		{"a rule with * inside the query", wild, "x", "/search?lang=en&q=x", false},
		{"RFC 9309 §2.2.3: %2A in a rule is a literal *", wild, "x", "/path/file-with-a-*.html", false},
		{"RFC 9309 §2.2.3: %2A matches the literal * only", wild, "x", "/path/file-with-a-%2A.html", false},
		{"RFC 9309 §2.2.2: UTF-8 rule matches the encoded path", wild, "x", "/foo/bar/%E3%83%84", false},
		{"RFC 9309 §2.2.2: encoded rule matches the encoded path", "User-agent: *\nDisallow: /foo/bar/%E3%83%84\n", "x", "/foo/bar/%e3%83%84", false},
		{"RFC 9309 §2.2.2: encoded unreserved characters are decoded", "User-agent: *\nDisallow: /foo/bar/%62%61%7A\n", "x", "/foo/bar/baz", false},
		{"RFC 9309 §2.2.2: encoded reserved characters are not decoded", "User-agent: *\nDisallow: /a%2Fb\n", "x", "/a/b", true},
		{"RFC 9309 §2.2.2: query strings are matched", "User-agent: *\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\nDisallow: /\n", "x", "/foo/bar?qux=taz&baz=http://foo.bar?tar&par", true},
		{"RFC 9309 §2.2.2: rules without a leading slash get one", "User-agent: *\nDisallow: private\n", "x", "/private/x", false},
		{"RFC 9309 §2.5: /robots.txt is always allowed", "User-agent: *\nDisallow: /\n", "x", "/robots.txt", true},
		{"RFC 9309 §2.2: lines that do not parse are skipped", broken, "evidence-ledger", "/private/x", false},
		{"parse errors: an allow after a comment applies", broken, "evidence-ledger", "/private/open/x", true},
		{"parse errors: a missing colon still applies", broken, "evidence-ledger", "/closed", false},
		{"parse errors: other paths are open", broken, "evidence-ledger", "/public", true},
		{"an empty path is /: Disallow: / with a wildcard rule beside it", "User-agent: *\nDisallow: /\nAllow: /*.css$\n", "x", "", false},
		{"an empty path with a query is /?x=1", "User-agent: *\nDisallow: /\nAllow: /*.css$\n", "x", "?x=1", false},
		{"an empty path is / without wildcards too", "User-agent: *\nDisallow: /\n", "x", "", false},
		{"an empty path is allowed where / is", "User-agent: *\nDisallow: /private\nAllow: /*.css$\n", "x", "", true},
		{"a whole byte-order mark is dropped", "\xef\xbb\xbfUser-agent: *\nDisallow: /\n", "x", "/a", false},
		{"a partial byte-order mark (EF BB) is dropped", "\xef\xbbUser-agent: *\nDisallow: /\n", "x", "/a", false},
		{"a partial byte-order mark (EF) is dropped", "\xefUser-agent: *\nDisallow: /\n", "x", "/a", false},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			if got := parseRobots([]byte(tc.robots), tc.agent).allowed(tc.path); got != tc.want {
				t.Errorf("robots.txt:\n%s\nallowed(%q) for %q = %v, want %v", tc.robots, tc.path, tc.agent, got, tc.want)
			}
		})
	}
}

func TestRobotsCrawlDelay(t *testing.T) {
	tests := []struct {
		desc, robots, agent string
		want                float64
	}{
		{"own group", "User-agent: *\nCrawl-delay: 9\nUser-agent: foo\nCrawl-delay: 2.5\n", "foo", 2.5},
		{"falls back to *", "User-agent: *\nCrawl-delay: 9\nUser-agent: foo\nCrawl-delay: 2.5\n", "bar", 9},
		{"unparsable value skipped", "User-agent: *\nCrawl-delay: soon\nDisallow: /x\n", "bar", 0},
		{"negative value skipped", "User-agent: *\nCrawl-delay: -3\n", "bar", 0},
		{"NaN skipped", "User-agent: *\nCrawl-delay: NaN\n", "bar", 0},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			if got := parseRobots([]byte(tc.robots), tc.agent).crawlDelay.Seconds(); got != tc.want {
				t.Errorf("crawl delay = %vs, want %vs", got, tc.want)
			}
		})
	}
}

// FuzzRobots checks that any robots.txt parses without panic, that /robots.txt stays open,
// and that the matcher of this package agrees with robotstxt's where robotstxt is correct:
// rules without wildcards.
func FuzzRobots(f *testing.F) {
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "robots", "*.txt"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no robots.txt seeds in testdata/robots: %v", err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "/example/page.html")
		f.Add(b, "/private/x?q=1")
	}
	f.Fuzz(func(t *testing.T, body []byte, path string) {
		r := parseRobots(body, "evidence-ledger")
		if !r.allowed("/robots.txt") {
			t.Fatal("/robots.txt must always be allowed")
		}
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		got := r.allowed(path)
		if r.wildcards || r.data == nil || path == "/robots.txt" {
			return
		}
		if want := matchRules(r.rules, normalizePath(path)); got != want {
			t.Fatalf("robotstxt says %v, RFC 9309 matching says %v for %q", got, want, path)
		}
	})
}
