package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"evidenceledger/evidence"
)

// LedgerClaim is a claim as the memory-write gate reads it from the ledger.
type LedgerClaim struct {
	ID       string
	Text     string
	Status   evidence.Status
	Strength evidence.Strength
	// OpenSeams are the open seams about the claim itself.
	OpenSeams []string
	Citations []LedgerCitation
}

// LedgerCitation is a citation of a [LedgerClaim].
type LedgerCitation struct {
	ID     string
	URL    string
	Quote  string
	Status evidence.Status
	// OpenSeams are the open seams about the citation.
	OpenSeams []string
}

// GateLedger is what the gate reads of the ledger. Both lookups return every matching claim
// with all its citations; none is not an error. Any error makes the gate block.
type GateLedger interface {
	// ClaimsWithText returns the claims whose text equals text once both are normalized
	// ([evidence.NormalizeText]).
	ClaimsWithText(ctx context.Context, text string) ([]LedgerClaim, error)
	// ClaimsQuoting returns the claims with a citation whose normalized quote equals quote's.
	ClaimsQuoting(ctx context.Context, quote string) ([]LedgerClaim, error)
}

// ErrGate is wrapped by every error of the gate's input: a hook input or a minimum strength
// that cannot be read. A caller must block on it (fail closed).
var ErrGate = errors.New("the gate cannot read its input")

// GateClaim is one claim the gate read in a text, with its decision.
type GateClaim struct {
	Text      string              `json:"text"`
	Citations []evidence.Citation `json:"citations"`
	Allow     bool                `json:"allow"`
	// Matched are the ledger claims that verify it (found_at_source, no open seam, strong
	// enough); empty when it is blocked.
	Matched []string `json:"matched"`
	// Strength is the highest strength among Matched; "" when blocked.
	Strength evidence.Strength `json:"strength"`
	// Reasons say why it is blocked, one per ledger claim considered; empty when allowed.
	Reasons []string `json:"reasons"`
}

// GateDecision is the gate's answer about a text. Allow is true only when every claim is
// allowed; a text with no claim is allowed with a Note.
type GateDecision struct {
	Allow        bool        `json:"allow"`
	Claims       []GateClaim `json:"claims"`
	Note         string      `json:"note,omitempty"`
	ResidualRisk string      `json:"residual_risk"`
}

// NoteNoClaims is the note of a text in which the gate found no claim.
const NoteNoClaims = "the text states nothing the gate reads as a claim, so there is nothing to verify"

// ParseMinStrength reads a minimum strength: "" (none), low, medium or high. The error wraps
// [ErrGate].
func ParseMinStrength(s string) (evidence.Strength, error) {
	switch st := evidence.Strength(strings.ToLower(strings.TrimSpace(s))); st {
	case evidence.StrengthNone, evidence.StrengthLow, evidence.StrengthMedium, evidence.StrengthHigh:
		return st, nil
	}
	return "", fmt.Errorf("%w: minimum strength %q: want low, medium or high", ErrGate, s)
}

// Gate decides whether text may be written to persistent memory (docs/gate.md). It reads the
// claims of text with [GateClaims] and allows the text only if every claim matches a ledger
// claim that is found_at_source, has no open seam (on it or any of its citations) and has at
// least strength min ("" for no minimum). A ledger claim matches a claim of the text when
// their normalized texts are equal, or when one of the text's citations has the same URL
// (after [evidence.NormalizeURL]) and the same normalized quote as one of its found citations and
// every word of the claim is a word of the ledger claim's text or found quotes; either
// way, every URL the text's claim cites must be a found citation of that ledger claim without
// an open seam (and with the same quote, when the text gives one).
//
// Gate fails closed: when the ledger cannot be read it returns a blocking decision (its
// Claims carry the reason) and the error.
func Gate(ctx context.Context, l GateLedger, text string, min evidence.Strength) (GateDecision, error) {
	claims := GateClaims(text)
	d := GateDecision{Allow: true, Claims: make([]GateClaim, 0, len(claims))}
	var firstErr error
	for _, c := range claims {
		gc, err := gateClaim(ctx, l, c, min)
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("read the ledger for claim %q: %w", c.Text, err)
		}
		d.Allow = d.Allow && gc.Allow
		d.Claims = append(d.Claims, gc)
	}
	if len(claims) == 0 {
		d.Note = NoteNoClaims
	}
	d.ResidualRisk = gateRisk(d, min)
	return d, firstErr
}

// gateClaim decides one claim.
func gateClaim(ctx context.Context, l GateLedger, c evidence.Claim, min evidence.Strength) (GateClaim, error) {
	gc := GateClaim{Text: c.Text, Citations: c.Citations, Matched: []string{}, Reasons: []string{}}
	fail := func(err error) (GateClaim, error) {
		gc.Reasons = []string{"the ledger could not be read, so nothing is allowed: " + err.Error()}
		return gc, err
	}
	byText, err := l.ClaimsWithText(ctx, c.Text)
	if err != nil {
		return fail(err)
	}
	cands := append([]LedgerClaim{}, byText...)
	seen := map[string]bool{}
	for _, lc := range byText {
		seen[lc.ID] = true
	}
	hasURL := false
	for _, ct := range c.Citations {
		if strings.TrimSpace(ct.URL) != "" {
			hasURL = true
		}
		if strings.TrimSpace(ct.URL) == "" || evidence.NormalizeText(ct.Quote) == "" {
			continue
		}
		byQuote, err := l.ClaimsQuoting(ctx, ct.Quote)
		if err != nil {
			return fail(err)
		}
		for _, lc := range byQuote {
			if !seen[lc.ID] && citedBy(lc, ct, false) {
				seen[lc.ID] = true
				cands = append(cands, lc)
			}
		}
	}
	for _, lc := range cands {
		problems := judge(lc, c, min)
		if len(problems) == 0 {
			gc.Matched = append(gc.Matched, lc.ID)
			if lc.Strength.Rank() > gc.Strength.Rank() {
				gc.Strength = lc.Strength
			}
			continue
		}
		gc.Reasons = append(gc.Reasons, fmt.Sprintf("ledger claim %s: %s", lc.ID, strings.Join(problems, "; ")))
	}
	switch {
	case len(gc.Matched) > 0:
		gc.Allow, gc.Reasons = true, []string{}
	case len(cands) > 0:
	case !hasURL:
		gc.Reasons = []string{evidence.NoteNoSource + ": the claim names no URL, and no claim with this text is in the ledger"}
	default:
		gc.Reasons = []string{"not in the ledger: no claim with this text, and no citation with this URL and quote, was recorded; import and check the research first"}
	}
	return gc, nil
}

// judge returns what keeps ledger claim lc from verifying claim c; none when it does.
func judge(lc LedgerClaim, c evidence.Claim, min evidence.Strength) []string {
	var problems []string
	if lc.Status != evidence.StatusFound {
		problems = append(problems, fmt.Sprintf("it is %s, not %s", lc.Status, evidence.StatusFound))
	}
	seams := append([]string{}, lc.OpenSeams...)
	for _, ct := range lc.Citations {
		seams = append(seams, ct.OpenSeams...)
	}
	if len(seams) > 0 {
		problems = append(problems, fmt.Sprintf("open seam %s waits for a person", strings.Join(seams, ", ")))
	}
	if lc.Strength.Rank() < min.Rank() {
		st := string(lc.Strength)
		if st == "" {
			st = "none"
		}
		problems = append(problems, fmt.Sprintf("its strength is %s, below the minimum %s", st, min))
	}
	if evidence.NormalizeText(lc.Text) != evidence.NormalizeText(c.Text) {
		if extra := unfoundWords(lc, c); len(extra) > 0 {
			problems = append(problems, fmt.Sprintf("the text's claim says words the ledger claim and its found quotes do not hold: %s", strings.Join(extra, ", ")))
		}
	}
	for _, ct := range c.Citations {
		if strings.TrimSpace(ct.URL) != "" && !citedBy(lc, ct, true) {
			what := ct.URL
			if evidence.NormalizeText(ct.Quote) != "" {
				what = fmt.Sprintf("%s with the quote %q", ct.URL, ct.Quote)
			}
			problems = append(problems, fmt.Sprintf("the text cites %s, which this claim has not found at its source", what))
		}
	}
	return problems
}

// unfoundWords are the words of claim c's text (URLs, citation markers and field labels
// removed), each once and in order, that are neither words of ledger claim lc's text nor of
// the quotes of its found citations without an open seam. A claim matched by citation
// rather than by text must state nothing else: a changed number, a negation or a clause
// appended to a verified quote is not verified by it.
func unfoundWords(lc LedgerClaim, c evidence.Claim) []string {
	parts := []string{lc.Text}
	for _, ct := range lc.Citations {
		if ct.Status == evidence.StatusFound && len(ct.OpenSeams) == 0 {
			parts = append(parts, ct.Quote)
		}
	}
	have := map[string]bool{}
	for _, w := range words(strings.Join(parts, " ")) {
		have[w] = true
	}
	var extra []string
	for _, w := range contentWords(stripLabel(c.Text)) {
		if !have[w] {
			have[w] = true
			extra = append(extra, w)
		}
	}
	return extra
}

// citedBy reports whether lc has a citation with ct's URL (after NormalizeURL) and, when ct
// has a quote, the same normalized quote. With found, that citation must also be
// found_at_source with no open seam.
func citedBy(lc LedgerClaim, ct evidence.Citation, found bool) bool {
	u, q := evidence.NormalizeURL(ct.URL), evidence.NormalizeText(ct.Quote)
	for _, lct := range lc.Citations {
		if evidence.NormalizeURL(lct.URL) != u || (q != "" && evidence.NormalizeText(lct.Quote) != q) {
			continue
		}
		if !found || (lct.Status == evidence.StatusFound && len(lct.OpenSeams) == 0) {
			return true
		}
	}
	return false
}

// gateRisk is the residual-risk statement of a decision.
func gateRisk(d GateDecision, min evidence.Strength) string {
	floor := ""
	if min != "" {
		floor = fmt.Sprintf(" at strength %s or above", min)
	}
	limits := "The gate reads claims with a deterministic parser: statements inside fenced code blocks, Markdown headings, reference lists and JSON members it does not know are not read as claims."
	switch {
	case len(d.Claims) == 0:
		return "Nothing was verified: the gate found no claim in the text. " + limits
	case d.Allow:
		return fmt.Sprintf("Allowed means each of the %d claims the gate read matches a ledger claim that is found_at_source with no open seam%s: the quoted words were in the visible text of the cited pages when they were fetched. It does not show that the claims are true, that the pages still say so, or that a quote supports its claim in its context. %s", len(d.Claims), floor, limits)
	}
	return fmt.Sprintf("Blocked means at least one claim could not be matched to a ledger claim that is found_at_source with no open seam%s. It does not show that any claim is false: it may be unchecked, waiting for a person, or worded differently from the ledger.", floor)
}

// Text rules of GateClaims.
var (
	reGateURL     = regexp.MustCompile(`(?i)\]\([^)\s]*(?:\s+"[^"]*")?\)|<(?:https?|ftp|mailto):[^>\s]*>|\b(?:https?|ftp)://\S+|\bmailto:\S+|\bwww\.\S+`)
	reGateMarker  = regexp.MustCompile(`\[\^[A-Za-z0-9_-]{1,32}\]|\[\d{1,4}(?:\s*,\s*\d{1,4})*\]|[⁰¹²³⁴⁵⁶⁷⁸⁹]+`)
	reGateChat    = regexp.MustCompile(`(?i)^\W*(sure|certainly|of course|great question|good question|hope this helps|i hope|let me|feel free|thanks|thank you|happy to|i'll|i’ll|i will|i searched|i looked|i found|i've|i’ve|here is|here are|here's|here’s|below is|below are|would you like|if you (?:want|need|would|'d|’d))\b`)
	reGateFence   = regexp.MustCompile("^\\s*(```+|~~~+)")
	reGateHeading = regexp.MustCompile(`^\s{0,3}#{1,6}(\s|$)`)
	reGateRule    = regexp.MustCompile(`^\s*(?:(?:\*\s*){3,}|(?:-\s*){3,}|(?:_\s*){3,}|=+)\s*$`)
	reGateTable   = regexp.MustCompile(`^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$`)
	reGateDef     = regexp.MustCompile(`^\s{0,3}\[\^?[A-Za-z0-9_-]{1,32}\]:`)
	reGateList    = regexp.MustCompile(`^\s*(?:[-*+•]|\d{1,4}[.)]|\(\d{1,4}\))\s+`)
	reGateQuote   = regexp.MustCompile(`^\s*>\s?`)
	reGateAttrib  = regexp.MustCompile(`^\s*(?:—|–|--|~)`)
	reGateLabel   = regexp.MustCompile(`(?i)^\s*(?:\*\*|__)?\s*(claim|fact|statement|finding|assertion|quote|quotes|excerpt|evidence|supporting quote|supporting evidence|exact quote|verbatim quote|key quote|quotation|snippet|source|sources|source url|source link|url|urls|link|links|reference|references|citation|citations)\s*(?:#?\d{1,4})?\s*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?`)
	reGateURLLbl  = regexp.MustCompile(`(?i)^(source|sources|source url|source link|url|urls|link|links|reference|references|citation|citations)\b`)
	reGateRefs    = regexp.MustCompile(`(?i)^\s{0,3}(?:#{1,6}\s*)?(?:\*\*|__)?\s*(sources?|references?|citations?|footnotes?|notes|works cited|bibliography|sources cited|links)\s*(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?\s*$`)
	reGateSplit   = regexp.MustCompile(`[.!?]["”’»)]*\s+`)
)

// GateClaims returns the claims of a text that is about to be written to memory: every claim
// evidence.ParseResearch finds, with its citations, and then every further sentence the
// parser did not take into a claim (a title-like line, a bold line, a sentence it takes for
// chatter), as a claim with no source. Not claims: blank lines, Markdown headings, rules,
// table separator and header rows, fenced code, link and footnote definitions, reference
// lists under a Sources (References, Notes, ...) heading, URL fields (Source: ...),
// blockquote attribution lines, questions, lead-ins ending with a colon, and sentences with
// fewer than three letters or digits. A sentence counts as taken when every word of it
// (URLs, citation markers and a leading field label removed) is a word of one parsed claim's
// text or quotes. A text that is JSON is read only as the parser reads it.
func GateClaims(text string) []evidence.Claim {
	res, err := evidence.ParseResearch(text)
	if err != nil {
		res.Claims = nil
	}
	if err == nil && evidence.IsJSON(text) {
		return res.Claims
	}
	sets := make([]map[string]bool, len(res.Claims))
	for i, c := range res.Claims {
		sets[i] = map[string]bool{}
		parts := []string{c.Text}
		for _, ct := range c.Citations {
			parts = append(parts, ct.Quote)
		}
		for _, w := range words(strings.Join(parts, " ")) {
			sets[i][w] = true
		}
	}
	claims := res.Claims
	for _, s := range gateSentences(text) {
		ws := contentWords(stripLabel(s))
		if len(ws) == 0 || covered(ws, sets) || (reGateChat.MatchString(s) && !strings.ContainsFunc(s, unicode.IsDigit)) {
			continue
		}
		claims = append(claims, evidence.Claim{Text: s, Status: evidence.StatusReported,
			Citations: []evidence.Citation{{Status: evidence.StatusReported, Note: evidence.NoteNoSource}}})
		set := map[string]bool{}
		for _, w := range ws {
			set[w] = true
		}
		sets = append(sets, set)
	}
	return claims
}

func covered(ws []string, sets []map[string]bool) bool {
	for _, set := range sets {
		all := true
		for _, w := range ws {
			if !set[w] {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// words are the lowercased runs of letters and digits of s once URLs, link targets and
// citation markers are removed.
func words(s string) []string {
	s = reGateURL.ReplaceAllString(s, " ")
	s = reGateMarker.ReplaceAllString(s, " ")
	return strings.FieldsFunc(strings.ToLower(norm.NFKC.String(s)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// fieldWords name citation fields and pointers to them ("see", "via"); they are not part of
// what a sentence states.
var fieldWords = map[string]bool{
	"source": true, "sources": true, "url": true, "urls": true, "link": true, "links": true,
	"reference": true, "references": true, "citation": true, "citations": true, "quote": true,
	"quotes": true, "quotation": true, "excerpt": true, "evidence": true, "snippet": true,
	"see": true, "via": true, "claim": true, "fact": true, "statement": true, "finding": true,
	"assertion": true,
}

// contentWords are the words of s without fieldWords.
func contentWords(s string) []string {
	var out []string
	for _, w := range words(s) {
		if !fieldWords[w] {
			out = append(out, w)
		}
	}
	return out
}

func stripLabel(s string) string {
	if m := reGateLabel.FindStringIndex(s); m != nil {
		return s[m[1]:]
	}
	return s
}

// gateSentences splits text into the sentences GateClaims considers (see there).
func gateSentences(text string) []string {
	lines := strings.Split(strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n"), "\n")
	var units []string
	var para []string
	flush := func() {
		if len(para) > 0 {
			units = append(units, strings.Join(para, " "))
			para = nil
		}
	}
	fence, refs := "", false
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if m := reGateFence.FindStringSubmatch(line); m != nil {
			flush()
			fence = m[1]
			continue
		}
		switch {
		case t == "":
			flush()
			continue
		case reGateRefs.MatchString(t):
			flush()
			refs = true
			continue
		case reGateHeading.MatchString(t):
			flush()
			refs = false
			continue
		case refs, reGateRule.MatchString(t), reGateTable.MatchString(t), reGateDef.MatchString(t):
			flush()
			continue
		case strings.HasPrefix(t, "|") && i+1 < len(lines) && reGateTable.MatchString(lines[i+1]):
			flush()
			continue
		}
		body := reGateQuote.ReplaceAllString(line, "")
		if reGateAttrib.MatchString(body) && reGateURL.MatchString(body) {
			flush()
			continue
		}
		if lbl := reGateLabel.FindStringSubmatch(reGateList.ReplaceAllString(body, "")); lbl != nil && reGateURLLbl.MatchString(lbl[1]) {
			flush()
			continue
		}
		if strings.HasPrefix(t, "|") {
			flush()
			for _, cell := range strings.Split(strings.ReplaceAll(t, `\|`, "\x00"), "|") {
				if cell = strings.TrimSpace(strings.ReplaceAll(cell, "\x00", "|")); cell != "" && !reGateURL.MatchString(cell) {
					units = append(units, cell)
				}
			}
			continue
		}
		if reGateList.MatchString(body) || reGateQuote.MatchString(line) || reGateLabel.MatchString(body) {
			flush()
			body = reGateList.ReplaceAllString(body, "")
		}
		para = append(para, strings.TrimSpace(body))
	}
	flush()
	var out []string
	for _, u := range units {
		u = reGateMarker.ReplaceAllString(u, "")
		for _, s := range splitSentences(u) {
			s = strings.TrimSpace(s)
			bare := strings.TrimRight(s, "*_ \"”’)")
			if bare == "" || strings.HasSuffix(bare, "?") || strings.HasSuffix(bare, ":") || letters(s) < 3 {
				continue
			}
			out = append(out, s)
		}
	}
	return out
}

func splitSentences(s string) []string {
	var out []string
	start := 0
	for _, m := range reGateSplit.FindAllStringIndex(s, -1) {
		out = append(out, s[start:m[1]])
		start = m[1]
	}
	return append(out, s[start:])
}

func letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

// HookInput is what a coding agent's pre-write hook receives on stdin, as the gate reads it.
type HookInput struct {
	ToolName string
	// FilePath is the file the tool writes; "" when the tool names none.
	FilePath string
	// Texts are the texts the tool would write: content (a whole file), new_string (an
	// edit), or each edits[].new_string (several edits), in that order.
	Texts []string
}

// maxHookBytes bounds the hook input.
const maxHookBytes = 2*evidence.MaxPasteBytes + 64<<10

// ParseHook reads the JSON a pre-write hook receives:
//
//	{"tool_name": "...", "tool_input": {"file_path": "...", "content": "...",
//	  "new_string": "...", "edits": [{"old_string": "...", "new_string": "..."}]}}
//
// Other members are ignored. The error wraps [ErrGate] when the input is not one JSON
// object, is too large or not UTF-8, when tool_input is present but not an object, when a
// text member or file_path is not a string, when edits is not an array of objects, or when
// the tool writes text but names no file_path (so the gate cannot tell whether it is memory).
func ParseHook(data []byte) (HookInput, error) {
	if len(data) > maxHookBytes {
		return HookInput{}, fmt.Errorf("%w: the hook input is more than %d bytes; write the memory file in smaller pieces", ErrGate, maxHookBytes)
	}
	if !utf8.Valid(data) {
		return HookInput{}, fmt.Errorf("%w: the hook input is not UTF-8 text", ErrGate)
	}
	var raw struct {
		ToolName  json.RawMessage `json:"tool_name"`
		ToolInput json.RawMessage `json:"tool_input"`
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&raw); err != nil {
		return HookInput{}, fmt.Errorf("%w: the hook input is not a JSON object (%v); the hook must pass its JSON on stdin", ErrGate, err)
	}
	if dec.More() {
		return HookInput{}, fmt.Errorf("%w: data after the hook's JSON object; pass one object", ErrGate)
	}
	var in HookInput
	if err := optString(raw.ToolName, "tool_name", &in.ToolName); err != nil {
		return HookInput{}, err
	}
	if len(raw.ToolInput) == 0 || string(raw.ToolInput) == "null" {
		return in, nil
	}
	var ti struct {
		FilePath  json.RawMessage `json:"file_path"`
		Content   json.RawMessage `json:"content"`
		NewString json.RawMessage `json:"new_string"`
		Edits     json.RawMessage `json:"edits"`
	}
	if err := json.Unmarshal(raw.ToolInput, &ti); err != nil {
		return HookInput{}, fmt.Errorf("%w: tool_input is not a JSON object (%v)", ErrGate, err)
	}
	if err := optString(ti.FilePath, "tool_input.file_path", &in.FilePath); err != nil {
		return HookInput{}, err
	}
	for _, m := range []struct {
		raw  json.RawMessage
		name string
	}{{ti.Content, "tool_input.content"}, {ti.NewString, "tool_input.new_string"}} {
		var s string
		if err := optString(m.raw, m.name, &s); err != nil {
			return HookInput{}, err
		}
		if m.raw != nil && string(m.raw) != "null" {
			in.Texts = append(in.Texts, s)
		}
	}
	if len(ti.Edits) > 0 && string(ti.Edits) != "null" {
		var edits []struct {
			NewString json.RawMessage `json:"new_string"`
		}
		if err := json.Unmarshal(ti.Edits, &edits); err != nil {
			return HookInput{}, fmt.Errorf("%w: tool_input.edits is not an array of objects (%v)", ErrGate, err)
		}
		for i, e := range edits {
			var s string
			if err := optString(e.NewString, fmt.Sprintf("tool_input.edits[%d].new_string", i), &s); err != nil {
				return HookInput{}, err
			}
			in.Texts = append(in.Texts, s)
		}
	}
	if len(in.Texts) > 0 && strings.TrimSpace(in.FilePath) == "" {
		return HookInput{}, fmt.Errorf("%w: the tool writes text but tool_input names no file_path, so the gate cannot tell whether it is memory", ErrGate)
	}
	return in, nil
}

// optString decodes an optional JSON string member into dst.
func optString(raw json.RawMessage, name string, dst *string) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%w: %s is not a JSON string", ErrGate, name)
	}
	return nil
}

// DefaultMemoryFiles are the memory-file patterns of `ledger gate --hook`: memory files and
// folders, and AGENTS.md, the file of standing instructions coding agents read at every start.
const DefaultMemoryFiles = "**/MEMORY.md,**/AGENTS.md,**/memory/**,**/memories/**,**/*.memory.md"

// MemoryFiles is a list of glob patterns that name memory files. A pattern is matched against
// the whole path with forward slashes, case-insensitively; "**" matches any number of path
// segments (also none), and within a segment "*", "?" and "[...]" work as in path.Match. A
// pattern without a slash matches a file name in any folder.
type MemoryFiles []string

// ParseMemoryFiles reads comma-separated patterns. The error wraps [ErrGate] for an empty
// list or a pattern path.Match refuses.
func ParseMemoryFiles(list string) (MemoryFiles, error) {
	var m MemoryFiles
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		for _, seg := range strings.Split(p, "/") {
			if _, err := path.Match(seg, ""); err != nil {
				return nil, fmt.Errorf("%w: memory-file pattern %q: %v", ErrGate, p, err)
			}
		}
		if !strings.Contains(p, "/") {
			p = "**/" + p
		}
		m = append(m, strings.ToLower(p))
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("%w: no memory-file pattern given; pass GLOB,... (default %s)", ErrGate, DefaultMemoryFiles)
	}
	return m, nil
}

// Match reports whether file (a path with / or \ separators) matches one of the patterns.
func (m MemoryFiles) Match(file string) bool {
	file = strings.ToLower(strings.ReplaceAll(file, "\\", "/"))
	segs := strings.Split(strings.TrimLeft(file, "/"), "/")
	for _, p := range m {
		if matchSegs(strings.Split(strings.TrimLeft(p, "/"), "/"), segs) {
			return true
		}
	}
	return false
}

func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if matchSegs(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}
