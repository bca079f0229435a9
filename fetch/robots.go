package fetch

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/temoto/robotstxt"
)

// maxRobotsBytes is how much of a robots.txt is read and parsed (RFC 9309 §2.5: at least
// 500 KiB).
const maxRobotsBytes = 500 << 10

// robotsRules is what one origin's robots.txt says to this program's product token.
//
// The file is read in two passes. The first pass (this package) does what
// github.com/temoto/robotstxt does not do per RFC 9309: it skips lines that do not parse
// instead of rejecting the whole file, keeps only the groups whose user-agent is exactly
// this product token (or "*" when none is), merges those groups, and writes every rule path
// in one percent-encoding. The second pass hands that cleaned file to robotstxt, which
// parses it and matches paths. Rules with wildcards are matched here, because robotstxt's
// patterns are not anchored at the start of the path and it ranks them by the length of a
// regular expression, not of the rule.
type robotsRules struct {
	// closed, when not "", says why the whole origin is closed (robots.txt unreadable).
	closed string
	// blocked is set when robots.txt could not be fetched because the address guard
	// refused the origin's address.
	blocked *blockedError
	// noHost is set when the resolver answered that the origin's host does not exist.
	noHost     error
	rules      []robotsRule
	wildcards  bool
	data       *robotstxt.RobotsData
	token      string
	crawlDelay time.Duration
}

// robotsRule is one allow or disallow line, its path normalized by normalizeRule.
type robotsRule struct {
	allow   bool
	pattern string // '*' matches any run of octets; a final '$' anchors the end
}

func closedRobots(reason string) *robotsRules { return &robotsRules{closed: reason} }

// parseRobots reads a robots.txt body for the product token. It never fails: lines that do
// not parse are skipped and the rest still apply.
func parseRobots(body []byte, token string) *robotsRules {
	token = strings.ToLower(token)
	body = trimBOM(body)
	var (
		mine, star         []robotsRule
		mineDelay, starDel string
		haveMine           bool
		inAgents           bool // the last record line was a user-agent line
		groupMine          bool
		groupStar          bool
		seenAgent          bool
	)
	for _, line := range splitLines(body) {
		key, value, ok := robotsLine(line)
		if !ok {
			continue
		}
		switch key {
		case "user-agent":
			if !inAgents {
				groupMine, groupStar = false, false
			}
			inAgents, seenAgent = true, true
			switch agent := productToken(value); {
			case strings.HasPrefix(value, "*"):
				groupStar = true
			case agent != "" && agent == token:
				groupMine, haveMine = true, true
			}
		case "allow", "disallow", "crawl-delay":
			if !seenAgent {
				continue // a rule outside any group applies to no one
			}
			inAgents = false
			if key == "crawl-delay" {
				if d, err := strconv.ParseFloat(value, 64); err != nil || math.IsNaN(d) || d < 0 || d > 86400 {
					continue
				}
				if groupMine {
					mineDelay = value
				}
				if groupStar {
					starDel = value
				}
				continue
			}
			if value == "" {
				continue // an empty rule matches nothing
			}
			r := robotsRule{allow: key == "allow", pattern: normalizeRule(value)}
			if groupMine {
				mine = append(mine, r)
			}
			if groupStar {
				star = append(star, r)
			}
		}
	}
	rules, delay := star, starDel
	if haveMine {
		rules, delay = mine, mineDelay
	}
	return compileRobots(rules, delay, token)
}

// compileRobots writes the selected group as a clean robots.txt and has robotstxt parse it.
// Allow lines come first so that robotstxt, which keeps the first of equally long matches,
// lets allow win a tie (RFC 9309 §2.2.2).
func compileRobots(rules []robotsRule, delay, token string) *robotsRules {
	var b strings.Builder
	b.WriteString("User-agent: " + token + "\n")
	if delay != "" {
		b.WriteString("Crawl-delay: " + delay + "\n")
	}
	r := &robotsRules{rules: rules, token: token}
	for _, allow := range []bool{true, false} {
		for _, rule := range rules {
			if rule.allow != allow {
				continue
			}
			if strings.ContainsAny(rule.pattern, "*$") {
				r.wildcards = true
			}
			if allow {
				b.WriteString("Allow: " + rule.pattern + "\n")
			} else {
				b.WriteString("Disallow: " + rule.pattern + "\n")
			}
		}
	}
	data, err := robotstxt.FromString(b.String())
	if err != nil {
		// The cleaned file holds only lines checked above; if robotstxt still refuses it,
		// the rules are matched here alone.
		r.wildcards = true
		return r
	}
	r.data = data
	r.crawlDelay = data.FindGroup(token).CrawlDelay
	return r
}

// trimBOM drops a UTF-8 byte-order mark at the start of a robots.txt, or any first part of
// one (EF, EF BB), as Google's parser does: a file cut or mangled there keeps its rules.
func trimBOM(b []byte) []byte {
	const bom = "\xef\xbb\xbf"
	for n := len(bom); n > 0; n-- {
		if bytes.HasPrefix(b, []byte(bom[:n])) {
			return b[n:]
		}
	}
	return b
}

// allowed reports whether the escaped path (with its query) may be fetched. An empty path
// is "/" (RFC 9309 §2.2.2 matches the path of the URL, and the path of http://host is "/"),
// so http://host and http://host?x=1 are matched as /. "/robots.txt" itself is always
// allowed.
func (r *robotsRules) allowed(path string) bool {
	if path == "" || path[0] != '/' {
		path = "/" + path
	}
	if path == "/robots.txt" {
		return true
	}
	if r.closed != "" {
		return false
	}
	p := normalizePath(path)
	if r.wildcards {
		return matchRules(r.rules, p)
	}
	return r.data.TestAgent(p, r.token)
}

// matchRules applies RFC 9309 §2.2.2: the longest matching rule wins, allow wins a tie, and a
// path no rule matches is allowed.
func matchRules(rules []robotsRule, path string) bool {
	best, allow := -1, true
	for _, r := range rules {
		if !matchPattern(r.pattern, path) {
			continue
		}
		n := len(r.pattern)
		if n > best || (n == best && r.allow) {
			best, allow = n, r.allow
		}
	}
	return allow
}

// matchPattern matches a rule against the start of a path: '*' is any run of octets and a
// final '$' requires the path to end there.
func matchPattern(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(path, parts[0]) {
		return false
	}
	rest := path[len(parts[0]):]
	if len(parts) == 1 {
		return !anchored || rest == ""
	}
	for i, part := range parts[1:] {
		last := i == len(parts)-2
		if last && anchored {
			return strings.HasSuffix(rest, part)
		}
		j := strings.Index(rest, part)
		if j < 0 {
			return false
		}
		rest = rest[j+len(part):]
	}
	return true
}

// splitLines splits on LF, CR LF and CR (RFC 9309 §2.2).
func splitLines(b []byte) []string {
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.Split(s, "\n")
}

// robotsLine splits a record into its lowercased key and its value, without comment or
// surrounding space. Like the reference parser it accepts a few common misspellings and a
// missing colon when the line is just "key value".
func robotsLine(line string) (key, value string, ok bool) {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	line = strings.TrimSpace(line)
	if line == "" {
		return "", "", false
	}
	if i := strings.IndexByte(line, ':'); i >= 0 {
		key, value = line[:i], line[i+1:]
	} else if f := strings.Fields(line); len(f) == 2 {
		key, value = f[0], f[1]
	} else {
		return "", "", false
	}
	key = strings.ToLower(strings.TrimSpace(key))
	value = strings.TrimSpace(value)
	switch key {
	case "user-agent", "useragent", "user agent":
		return "user-agent", value, true
	case "allow":
		return "allow", value, true
	case "disallow", "dissallow", "disalow", "diasllow", "disallaw":
		return "disallow", value, true
	case "crawl-delay", "crawldelay":
		return "crawl-delay", value, true
	}
	return "", "", false
}

// productToken returns the lowercased product token at the start of a user-agent value: its
// leading letters, '-' and '_' (RFC 9309 §2.2.1), so "FooBot/1.2" and "FooBot extra" are
// "foobot".
func productToken(v string) string {
	end := 0
	for end < len(v) {
		c := v[end]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_' {
			end++
			continue
		}
		break
	}
	return strings.ToLower(v[:end])
}

// normalizeRule writes a rule path in the percent-encoding normalizePath gives paths, keeping
// '*' and a final '$' as wildcards. A rule that starts with neither '/' nor '*' gets a '/'.
func normalizeRule(rule string) string {
	anchored := strings.HasSuffix(rule, "$")
	if anchored {
		rule = rule[:len(rule)-1]
	}
	parts := strings.Split(rule, "*")
	for i, p := range parts {
		parts[i] = normalizePath(p)
	}
	out := strings.Join(parts, "*")
	// Trailing '*' adds nothing to a prefix match.
	if !anchored {
		out = strings.TrimRight(out, "*")
		if out == "" {
			out = "/"
		}
	}
	if !strings.HasPrefix(out, "/") && !strings.HasPrefix(out, "*") {
		out = "/" + out
	}
	if anchored {
		out += "$"
	}
	return out
}

// normalizePath percent-encodes a path the way RFC 9309 §2.2.2 compares them: octets outside
// US-ASCII, controls, space and the characters robots.txt gives a meaning ('*', '$', '#')
// are encoded; encodings of unreserved characters are decoded; other encodings keep
// upper-case hex.
func normalizePath(p string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '%' && i+2 < len(p) && isHex(p[i+1]) && isHex(p[i+2]):
			v := unhex(p[i+1])<<4 | unhex(p[i+2])
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(hex[v>>4])
				b.WriteByte(hex[v&15])
			}
			i += 2
		case c <= ' ' || c >= 0x7f || c == '*' || c == '$' || c == '#' || c == '%' || c == '"' || c == '<' || c == '>' || c == '\\' || c == '^' || c == '`' || c == '{' || c == '|' || c == '}':
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}
