// The triage rules, in one file: each statement is sorted as factual, instruction,
// preference, plan, question, code, opinion or heading by an ordered list of rules, and the
// word lists the rules read sit beside them. The order is the rule; split, it would be
// hidden.

package evidence

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is what the memory-write gate takes a statement for. Only [KindFactual] is gated;
// every other kind passes, listed as not gated with the rule that sorted it.
type Kind string

// The kinds of [Triage].
const (
	KindFactual     Kind = "factual"     // may state a fact: figures, dates, names, who did what, what a page says
	KindInstruction Kind = "instruction" // an instruction or an imperative, a rule for the agent or the project
	KindPreference  Kind = "preference"  // the user's or the project's preference, setting or convention
	KindPlan        Kind = "plan"        // a plan or a to-do
	KindQuestion    Kind = "question"    // a question
	KindCode        Kind = "code"        // code, a command, a path or an identifier
	KindOpinion     Kind = "opinion"     // an opinion or a judgement
	KindHeading     Kind = "heading"     // a heading, a label, a lead-in, a reference entry
)

// Triage is the kind of a statement and the rule, in words, that gave it.
type Triage struct {
	Kind Kind   `json:"kind"`
	Rule string `json:"rule"`
}

// Gated reports whether the statement must be verified before it is written to memory.
func (t Triage) Gated() bool { return t.Kind == KindFactual }

// ruleDefault is the rule of a statement no other rule sorted: when in doubt, gate.
const ruleDefault = "no rule shows it is not a factual claim, so it is gated"

// TriageClaim sorts a claim the research parser read (docs/gate.md, "Triage"). A claim that
// cites a URL is factual: whoever wrote it meant it as evidence. Otherwise each sentence of
// its text is sorted with [TriageSentence], and the claim is factual when any sentence is;
// else it takes the kind of its first sentence.
func TriageClaim(c Claim) Triage {
	for _, ct := range c.Citations {
		if strings.TrimSpace(ct.URL) != "" {
			return Triage{KindFactual, "it cites a source, so it is checked"}
		}
	}
	return triageSentences(c.Text)
}

// TriageLeftOut sorts what the parser left out of the claims ([ParseResearchLeftOut]), so
// that nothing the parser skips passes unread: fenced code is code and reference entries
// are labels; a question is a question; a heading or a line in bold alone is a heading
// unless it reads as a statement (it has a finite verb such as is, was or has, or a figure
// beside a past-tense verb), and then it is sorted like a sentence; every other part
// (titles, chatter, lead-ins, quotes with no statement, JSON values) is sorted sentence by
// sentence with [TriageSentence].
func TriageLeftOut(l LeftOut) Triage {
	switch l.Reason {
	case LeftCode:
		return Triage{KindCode, "a fenced code block"}
	case LeftOpenFence:
		return triageSentences(l.Text)
	case LeftReference:
		return Triage{KindHeading, "a reference definition or a Sources entry: it names a source and states nothing itself"}
	case LeftQuestion:
		return Triage{KindQuestion, "a question"}
	case LeftHeading:
		ws := LowerWords(l.Text)
		if !hasAny(ws, finiteVerbs) && !(hasDigit(l.Text) && hasPastTense(ws)) {
			return Triage{KindHeading, "a heading: a label over what follows"}
		}
	case LeftLeadIn:
		if !hasDigit(l.Text) {
			return Triage{KindHeading, "a lead-in ending with a colon"}
		}
	}
	return triageSentences(l.Text)
}

// triageSentences sorts each sentence of s; the first factual one decides, else the first.
func triageSentences(s string) Triage {
	var first *Triage
	for _, sent := range splitSentences(s) {
		t := TriageSentence(sent)
		if t.Gated() {
			return t
		}
		if first == nil {
			first = &t
		}
	}
	if first == nil {
		return Triage{KindHeading, "too short to state anything"}
	}
	return *first
}

// TriageSentence sorts one sentence by the rules below, tried in order; the first that
// applies decides, and a sentence no rule sorts is factual. Markup (list markers, emphasis,
// backticks, heading marks) is ignored.
//
//  1. Fewer than three letters or digits: a heading. Ending with "?": a question.
//  2. A task-list box ("[ ]", "[x]"): a plan, unless what follows is factual.
//  3. "Key: value": a note label (Note, Remember, Important, ...) sorts the value; a setting
//     (Editor, Shell, Timezone, Package manager, ...) is a preference; a plan label (TODO,
//     Next, ...) or a rule label (Rule, Convention, Style, ...) gives its kind unless the
//     value is factual; a command label (Build, Test, Run, ...) is code when the value is;
//     any other key sorts the value, and a bare value under an unknown key is factual.
//  4. Clauses joined by "; " or a spaced dash are sorted one by one; any factual one makes
//     the sentence factual.
//  5. A wrapper ("remember that", "note that", "I think", "it seems") sorts what it wraps,
//     and a that-clause that states something factual makes the whole factual ("Tell the
//     user that Acme was founded in 1999").
//  6. Code: a command line (a lowercase command name such as go, git, npm, make, with no
//     verb like is or was), code punctuation (:=, =>, {, ...), or a lone path or identifier.
//  7. An instruction: an imperative verb first (run, use, ask, avoid, ...; not when followed
//     by "of" or a verb such as is), never/always/don't/please first, a condition followed
//     by an imperative ("If the build fails, run ..."), or a modal (must, should, need to,
//     never, ...) after the agent (you, the agent, Claude, ...) or a part of the project
//     (tests, commits, error messages, ...).
//  8. A plan: TODO/FIXME/Next/Later first, "need to"/"should" without a subject, or
//     we/I/let's with will, going to, plan to, want to.
//  9. A preference or convention: a preference word (prefers, favourite, preferred) or a
//     note about the user themselves (the user, I, my) without a figure, a that-clause or a
//     reporting verb (read, heard, learned); or the project (the project, this repo, we,
//     CI, ...) or a part of it, in the present tense, without a figure.
//  10. An opinion: an opinion opener (IMO, personally, honestly) without a figure, or an
//     evaluative word (cleaner, overkill, confusing, better than) after is/are/seems
//     without a figure.
//  11. A short label: at most four words, no figure, no verb, no name after the first word.
//  12. Only courtesy words (thanks, ok, done): a heading.
//
// Any figure (a digit) keeps rules 9 to 11 from applying: figures are what facts are made of.
func TriageSentence(s string) Triage { return triageSentence(s, 0) }

// maxTriageDepth bounds how many wrappers, task boxes, keys and that-clauses the rules look
// through in one sentence; a sentence wrapped deeper is gated. It keeps triage linear on any
// input ("maybe maybe maybe …").
const maxTriageDepth = 4

// ruleDeep is the rule of a sentence wrapped deeper than maxTriageDepth.
const ruleDeep = "wrapped too deeply to read (more than four wrappers, keys or clauses), so it is gated"

func triageSentence(s string, depth int) Triage {
	if depth > maxTriageDepth {
		return Triage{KindFactual, ruleDeep}
	}
	t := cleanSentence(s)
	if letterCount(t) < 3 {
		return Triage{KindHeading, "too short to state anything"}
	}
	if strings.HasSuffix(strings.TrimRight(t, "*_ )\"”’"), "?") {
		return Triage{KindQuestion, "a question"}
	}
	if rest, ok := cutBox(t); ok {
		if r := triageSentence(rest, depth+1); r.Gated() {
			return r
		}
		return Triage{KindPlan, "a task-list item"}
	}
	if strings.HasSuffix(t, ":") && !hasDigit(t) {
		return Triage{KindHeading, "a label or a lead-in ending with a colon"}
	}
	if r, ok := triageKeyValue(t, depth); ok {
		return r
	}
	clauses := splitClauses(t)
	if len(clauses) > 1 {
		var first *Triage
		for _, c := range clauses {
			r := triageClause(c, depth)
			if r.Gated() {
				return r
			}
			if first == nil || first.Kind == KindHeading {
				first = &r
			}
		}
		return *first
	}
	return triageClause(t, depth)
}

// triageClause applies rules 5 to 12 of TriageSentence to one clause.
func triageClause(c string, depth int) Triage {
	if depth > maxTriageDepth {
		return Triage{KindFactual, ruleDeep}
	}
	c = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(c), ".!;,"))
	raw := strings.Fields(c)
	ws := LowerWords(c)
	if len(ws) == 0 || letterCount(c) < 3 {
		return Triage{KindHeading, "too short to state anything"}
	}
	digit := hasDigit(c)
	// 5. wrappers
	for _, w := range wrappers {
		if n := prefixLen(ws, w.words); n > 0 && n < len(ws) {
			rest := strings.Join(raw[min(n, len(raw)):], " ")
			r := triageClause(rest, depth+1)
			if r.Gated() {
				return Triage{KindFactual, "a statement behind “" + strings.Join(w.words, " ") + "” is still a statement; it is gated"}
			}
			if w.opinion {
				return Triage{KindOpinion, "an opinion: it starts with “" + strings.Join(w.words, " ") + "”"}
			}
			return r
		}
	}
	// 5b. a that-clause stating something: "Tell the user that Acme was founded in 1999."
	if i := strings.Index(strings.ToLower(c), " that "); i > 0 {
		rest := c[i+len(" that "):]
		if rw := LowerWords(rest); len(rw) >= 3 && (hasAny(rw, finiteVerbs) || hasPastTense(rw) || hasDigit(rest)) {
			if r := triageClause(rest, depth+1); r.Gated() {
				return Triage{KindFactual, "a statement in a that-clause is still a statement; it is gated"}
			}
		}
	}
	// 6. code
	if commands[raw[0]] && !hasAny(ws, finiteVerbs) && len(ws) <= 12 {
		return Triage{KindCode, "a command line: it starts with the command " + raw[0]}
	}
	for _, m := range codeMarks {
		if strings.Contains(c, m) {
			return Triage{KindCode, "code: it holds " + m}
		}
	}
	if len(raw) == 1 && isIdentifier(raw[0]) {
		return Triage{KindCode, "a path or an identifier"}
	}
	// 7. instructions
	if r, ok := triageInstruction(ws, c); ok {
		return r
	}
	// 8. plans
	if planStarts[ws[0]] || prefixLen(ws, []string{"to", "do"}) > 0 {
		return Triage{KindPlan, "a plan or a to-do: it starts with “" + ws[0] + "”"}
	}
	if (ws[0] == "need" || ws[0] == "should" || ws[0] == "must") && len(ws) > 1 {
		return Triage{KindPlan, "a to-do: “" + ws[0] + "” with no subject"}
	}
	if planSubjects[ws[0]] && len(ws) > 1 {
		for _, m := range planModals {
			if prefixLen(ws[1:], m) > 0 {
				return Triage{KindPlan, "a plan: “" + ws[0] + " " + strings.Join(m, " ") + "”"}
			}
		}
		if strings.HasSuffix(ws[0], "'ll") || ws[0] == "let's" {
			return Triage{KindPlan, "a plan: “" + ws[0] + "”"}
		}
	}
	if digit {
		return Triage{KindFactual, "it holds a figure: " + ruleDefault}
	}
	// 9. preferences and conventions
	if hasAny(ws, preferenceWords) {
		return Triage{KindPreference, "a preference: it says what is preferred"}
	}
	if n := prefixAny(ws, userSubjects); n > 0 && !hasAny(ws, reportingWords) && !hasWord(ws, "that") && !hasWord(ws, "which") && !hasWord(ws, "who") {
		return Triage{KindPreference, "a note about the user themselves"}
	}
	if n := prefixAny(ws, projectSubjects); n > 0 && n < len(ws) && !pastTense(ws[n]) {
		return Triage{KindPreference, "a convention of the project: “" + strings.Join(ws[:n], " ") + "” in the present tense"}
	}
	if n := partSubjectLen(ws); n > 0 && n < len(ws) && presentOrModal(ws[n]) {
		return Triage{KindPreference, "a convention of the project's " + strings.Join(ws[:n], " ")}
	}
	if isPath(raw[0]) && len(raw) > 1 && presentOrModal(strings.ToLower(raw[1])) {
		return Triage{KindPreference, "a convention about " + raw[0]}
	}
	// 10. opinions
	if n := prefixAny(ws, opinionStarts); n > 0 {
		return Triage{KindOpinion, "an opinion: it starts with “" + strings.Join(ws[:n], " ") + "”"}
	}
	for i, w := range ws {
		if !copulas[w] {
			continue
		}
		for j := i + 1; j < len(ws) && j <= i+3; j++ {
			if evaluative[ws[j]] {
				return Triage{KindOpinion, "a judgement: “" + w + " … " + ws[j] + "”"}
			}
		}
	}
	// 11. short labels
	if len(ws) <= 4 && !hasAny(ws, finiteVerbs) && !hasPastTense(ws) && namesAfterFirst(raw) == 0 {
		return Triage{KindHeading, "a short label with no verb"}
	}
	// 12. courtesy
	if allWordsIn(ws, courtesy) {
		return Triage{KindHeading, "courtesy words only"}
	}
	return Triage{KindFactual, ruleDefault}
}

// triageInstruction applies rule 7.
func triageInstruction(ws []string, c string) (Triage, bool) {
	if imperativeAt(ws, 0) {
		return Triage{KindInstruction, "an instruction: it starts with the imperative “" + ws[0] + "”"}, true
	}
	if n := prefixAny(ws, instructionStarts); n > 0 && n < len(ws) {
		return Triage{KindInstruction, "an instruction: it starts with “" + strings.Join(ws[:n], " ") + "”"}, true
	}
	if ws[0] == "no" && len(ws) > 1 && ws[1] != "one" && !hasAny(ws, finiteVerbs) && !hasPastTense(ws) && !hasDigit(c) {
		return Triage{KindInstruction, "a prohibition: “no " + ws[1] + "”"}, true
	}
	if ws[0] == "only" && imperativeAt(ws, 1) {
		return Triage{KindInstruction, "an instruction: “only " + ws[1] + "”"}, true
	}
	if conditions[ws[0]] {
		if _, after, ok := strings.Cut(c, ","); ok {
			aw := LowerWords(after)
			if len(aw) > 0 && (imperativeAt(aw, 0) || prefixAny(aw, instructionStarts) > 0) {
				return Triage{KindInstruction, "an instruction under a condition: “" + ws[0] + " …, " + aw[0] + " …”"}, true
			}
		}
	}
	if n := prefixAny(ws, agentSubjects); n > 0 && n < len(ws) {
		if m := prefixAny(ws[n:], modals); m > 0 {
			return Triage{KindInstruction, "an instruction to the agent: “" + strings.Join(ws[:n+m], " ") + "”"}, true
		}
	}
	if n := partSubjectLen(ws); n > 0 && n < len(ws) {
		if m := prefixAny(ws[n:], modals); m > 0 {
			return Triage{KindInstruction, "a rule of the project: “" + strings.Join(ws[:n+m], " ") + "”"}, true
		}
	}
	if n := prefixAny(ws, projectSubjects); n > 0 && n < len(ws) {
		if m := prefixAny(ws[n:], modals); m > 0 {
			return Triage{KindInstruction, "a rule of the project: “" + strings.Join(ws[:n+m], " ") + "”"}, true
		}
	}
	return Triage{}, false
}

// triageKeyValue applies rule 3 to "Key: value" with a key of at most four words.
func triageKeyValue(t string, depth int) (Triage, bool) {
	k, v, ok := strings.Cut(t, ": ")
	if !ok {
		return Triage{}, false
	}
	kw := LowerWords(k)
	if len(kw) == 0 || len(kw) > 4 || strings.TrimSpace(v) == "" {
		return Triage{}, false
	}
	key := strings.Join(kw, " ")
	val := triageSentence(v, depth+1)
	vw := LowerWords(v)
	switch {
	case noteKeys[key]:
		return val, true
	case (settingKeys[key] || settingKeys[kw[len(kw)-1]]) && len(vw) <= 8 && !hasAny(vw, finiteVerbs) && !hasPastTense(vw):
		return Triage{KindPreference, "a setting: " + k}, true
	case val.Gated():
		return val, true
	case planKeys[key]:
		return Triage{KindPlan, "a plan or a to-do under “" + k + "”"}, true
	case ruleKeys[key]:
		return Triage{KindInstruction, "a rule under “" + k + "”"}, true
	case commandKeys[key] || commandKeys[kw[0]]:
		if val.Kind == KindCode || val.Kind == KindHeading {
			return Triage{KindCode, "a command under “" + k + "”"}, true
		}
		return val, true
	case val.Kind == KindHeading:
		return Triage{KindFactual, "a value given to “" + k + "” may be a fact; it is gated"}, true
	}
	return val, true
}

// splitSentences splits a text into sentences at ., ! or ? followed by white space and a
// capital letter or a digit, except after an abbreviation or inside a number.
func splitSentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		j := i + 1
		for j < len(s) && strings.IndexByte(")]\"'*_", s[j]) >= 0 {
			j++
		}
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if r != '”' && r != '’' && r != '»' {
				break
			}
			j += size
		}
		k := j
		for k < len(s) && (s[k] == ' ' || s[k] == '\n' || s[k] == '\t') {
			k++
		}
		if k == j || k >= len(s) || (c == '.' && isAbbreviation(s, i)) {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(s[k:]); !unicode.IsUpper(r) && !unicode.IsDigit(r) && !strings.ContainsRune("“\"‘«„*[`", r) {
			continue
		}
		if t := strings.TrimSpace(s[start:j]); t != "" {
			out = append(out, t)
		}
		start = k
		i = k - 1
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

var (
	clauseBreaks = strings.NewReplacer(" — ", "\x00", " – ", "\x00", " -- ", "\x00", " - ", "\x00", "; ", "\x00")
	markup       = strings.NewReplacer("**", "", "__", "", "`", "", "~~", "")
)

// splitClauses splits a sentence at "; " and at a dash with spaces around it.
func splitClauses(s string) []string {
	s = clauseBreaks.Replace(s)
	var out []string
	for _, c := range strings.Split(s, "\x00") {
		if strings.TrimSpace(c) != "" {
			out = append(out, c)
		}
	}
	return out
}

// cleanSentence removes the markup TriageSentence ignores: list markers, heading marks,
// emphasis, backticks, and leading emoji or symbols.
func cleanSentence(s string) string {
	t := strings.TrimSpace(s)
	t = strings.TrimLeft(t, "#>")
	t = strings.TrimSpace(t)
	if loc := reList.FindStringIndex(t); loc != nil && !strings.HasPrefix(t, "[") {
		t = t[loc[1]:]
	}
	t = markup.Replace(t)
	t = strings.TrimLeftFunc(t, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '[' && r != '"' && r != '“' && r != '(' && r != '$' && r != '.' && r != '/' && r != '~' && r != '-'
	})
	return strings.TrimSpace(t)
}

// cutBox cuts a task-list box from the start of t.
func cutBox(t string) (string, bool) {
	for _, b := range []string{"[ ]", "[x]", "[X]", "☐", "☑", "✅", "✔"} {
		if rest, ok := strings.CutPrefix(t, b); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

func letterCount(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

func hasDigit(s string) bool { return strings.ContainsFunc(s, unicode.IsDigit) }

func hasAny(ws []string, set map[string]bool) bool {
	for _, w := range ws {
		if set[w] {
			return true
		}
	}
	return false
}

func hasWord(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

func allWordsIn(ws []string, set map[string]bool) bool {
	for _, w := range ws {
		if !set[w] {
			return false
		}
	}
	return len(ws) > 0
}

// prefixLen returns len(p) when ws starts with the words p, else 0.
func prefixLen(ws, p []string) int {
	if len(p) == 0 || len(ws) < len(p) {
		return 0
	}
	for i := range p {
		if ws[i] != p[i] {
			return 0
		}
	}
	return len(p)
}

// prefixAny returns the length of the longest phrase of ps that ws starts with.
func prefixAny(ws []string, ps [][]string) int {
	best := 0
	for _, p := range ps {
		if n := prefixLen(ws, p); n > best {
			best = n
		}
	}
	return best
}

// partSubjectLen returns the length of a subject naming a part of the project ("tests",
// "all error messages", "the commit messages"), or 0.
func partSubjectLen(ws []string) int {
	i := 0
	if i < len(ws) && determiners[ws[i]] {
		i++
	}
	if i < len(ws) && (ws[i] == "new" || ws[i] == "exported" || ws[i] == "public") {
		i++
	}
	if n := prefixAny(ws[i:], projectParts); n > 0 {
		return i + n
	}
	return 0
}

func imperativeAt(ws []string, i int) bool {
	if i >= len(ws) || !imperatives[ws[i]] {
		return false
	}
	if i+1 < len(ws) && (notAfterImperative[ws[i+1]] || hasDigit(ws[i+1])) {
		return false
	}
	if ws[i] == "go" && (i+1 >= len(ws) || !goParticles[ws[i+1]]) {
		return false
	}
	if i+2 < len(ws) && finiteVerbs[ws[i+2]] && !clauseOpeners[ws[i+1]] {
		return false
	}
	return i+1 < len(ws)
}

// pastTense reports whether w reads as a verb in the past tense.
func pastTense(w string) bool {
	return pastForms[w] || (len(w) > 4 && strings.HasSuffix(w, "ed"))
}

func hasPastTense(ws []string) bool {
	for _, w := range ws {
		if pastTense(w) {
			return true
		}
	}
	return false
}

// presentOrModal reports whether w reads as a verb in the present tense or a modal.
func presentOrModal(w string) bool {
	if pastTense(w) {
		return false
	}
	return presentVerbs[w] || prefixAny([]string{w}, modals) > 0 || (len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"))
}

// namesAfterFirst counts the capitalized words after the first: names.
func namesAfterFirst(raw []string) int {
	n := 0
	for _, w := range raw[1:] {
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) {
			n++
		}
	}
	return n
}

// isPath reports whether w reads as a path, a file name or a qualified name: a slash, an
// underscore, a dot or parentheses inside it.
func isPath(w string) bool {
	w = strings.Trim(w, ".,;:!?\"“”'")
	if strings.ContainsAny(w, "/_\\") || strings.Contains(w, "()") {
		return true
	}
	i := strings.IndexByte(w, '.')
	return i > 0 && i < len(w)-1 && !hasDigit(w[i-1:i+2])
}

// isIdentifier reports whether w reads as a path, a file name or an identifier: a slash, an
// underscore, a dot or parentheses inside it, or a capital letter after a lowercase one.
func isIdentifier(w string) bool {
	w = strings.Trim(w, ".,;:!?\"“”'")
	if w == "" {
		return false
	}
	if strings.ContainsAny(w, "/_\\") || strings.Contains(w, "()") || strings.Contains(w, "--") {
		return true
	}
	if i := strings.IndexByte(w, '.'); i > 0 && i < len(w)-1 && !hasDigit(w[i-1:i+2]) {
		return true
	}
	lower := false
	for _, r := range w {
		if unicode.IsUpper(r) && lower {
			return true
		}
		lower = unicode.IsLower(r)
	}
	return false
}

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

func phrases(ps ...string) [][]string {
	out := make([][]string, len(ps))
	for i, p := range ps {
		out[i] = strings.Fields(p)
	}
	return out
}

// The word lists of the rules. They are lowercase; apostrophes are straight.
var (
	finiteVerbs        = set("is", "are", "was", "were", "has", "had", "have", "will", "did", "does", "am", "isn't", "aren't", "wasn't", "weren't", "hasn't", "hadn't", "won't")
	pastForms          = set("was", "were", "had", "did", "began", "won", "made", "got", "went", "came", "became", "sold", "bought", "grew", "rose", "fell", "lost", "raised", "wrote", "took", "gave", "left", "met", "paid", "built", "ran", "said", "told", "found", "led", "held", "spent", "drew", "chose", "broke", "hit", "cut", "set", "put", "shut", "quit", "split", "spread", "beat", "bid", "cost", "hurt", "let")
	presentVerbs       = set("use", "uses", "follow", "follows", "target", "targets", "require", "requires", "keep", "keeps", "store", "stores", "live", "lives", "run", "runs", "build", "builds", "avoid", "avoids", "have", "has", "is", "are", "depend", "depends", "vendor", "vendors", "pin", "pins", "go", "goes", "stay", "stays", "say", "says", "get", "gets", "take", "takes", "return", "returns", "wrap", "wraps", "start", "starts", "end", "ends", "need", "needs", "want", "wants", "do", "does", "don't", "doesn't", "never", "always", "only", "belong", "belongs", "come", "comes", "sit", "sits")
	commands           = set("go", "git", "npm", "npx", "pnpm", "yarn", "make", "docker", "kubectl", "cargo", "pip", "pip3", "python", "python3", "node", "curl", "wget", "ledger", "bash", "sh", "zsh", "cd", "ls", "rm", "mkdir", "cp", "mv", "cat", "grep", "rg", "sed", "awk", "export", "sudo", "apt", "apt-get", "brew", "gofmt", "staticcheck", "golangci-lint", "terraform", "helm", "gh", "uv", "poetry", "pytest", "jest", "deno", "bun", "rustc", "mvn", "gradle", "dotnet", "psql", "sqlite3", "ssh", "scp", "tar", "chmod", "echo", "touch", "just", "ruff", "black", "eslint", "prettier", "tsc", "$")
	codeMarks          = []string{":=", "=>", "==", "!=", "&&", "||", "();", "{", "}", "</", "/>", "#include", "func (", "def ", "SELECT ", "$ "}
	imperatives        = set("run", "use", "ask", "remember", "prefer", "avoid", "keep", "write", "add", "make", "check", "commit", "push", "pull", "read", "update", "put", "call", "follow", "ensure", "test", "name", "place", "open", "close", "start", "stop", "wait", "try", "build", "install", "document", "review", "skip", "leave", "mark", "send", "log", "return", "handle", "format", "lint", "respond", "reply", "answer", "explain", "cite", "include", "mention", "link", "tell", "confirm", "verify", "treat", "report", "delete", "remove", "create", "rename", "move", "copy", "squash", "rebase", "merge", "tag", "deploy", "release", "bump", "pin", "set", "configure", "enable", "disable", "wrap", "split", "limit", "store", "save", "load", "print", "show", "hide", "give", "take", "get", "fetch", "look", "search", "consider", "stick", "favor", "favour", "default", "refer", "reuse", "rerun", "restart", "clean", "drop", "don't", "do", "be", "go", "double-check", "think", "stay", "prefix", "suffix", "quote", "escape", "sign", "encrypt", "note", "watch", "mock", "stub", "assume", "expect", "double", "summarize", "list", "label", "group", "sort", "pass", "pick", "choose", "edit", "change", "replace", "fix", "refactor", "measure", "benchmark", "profile", "communicate", "fail", "say", "speak", "match", "gate", "block", "allow", "deny", "retry", "flag", "lead", "spell", "greet", "address", "translate", "type")
	goParticles        = set("to", "ahead", "back", "through", "over", "with", "for", "easy", "slow", "straight", "via")
	notAfterImperative = set("of", "is", "are", "was", "were", "has", "had", "have", "'s", "'re")
	clauseOpeners      = set("sure", "that", "if", "whether", "when", "how", "what", "why", "it", "this")
	instructionStarts  = phrases("never", "always", "don't", "dont", "do not", "please", "pls", "make sure", "be sure", "be careful", "must", "must not", "mustn't", "no need to", "prefer", "avoid", "remember to", "try to", "feel free to")
	conditions         = set("if", "when", "whenever", "before", "after", "once", "unless", "while", "for")
	modals             = phrases("must", "mustn't", "must not", "should", "shouldn't", "should not", "shall", "need to", "needs to", "has to", "have to", "always", "never", "can't", "cannot", "may not", "are to", "is to", "do not", "don't", "does not", "doesn't", "are not allowed", "is not allowed", "may only", "can only", "only")
	agentSubjects      = phrases("you", "we", "i", "the agent", "agents", "an agent", "the assistant", "assistant", "assistants", "claude", "codex", "gemini", "the model", "models", "the ai", "ai", "copilot", "the bot", "the llm")
	planStarts         = set("todo", "to-do", "fixme", "wip", "tbd", "next", "later", "tomorrow", "eventually", "someday", "plan", "planned", "pending", "backlog", "followup", "follow-up")
	planSubjects       = set("we", "i", "i'll", "we'll", "let's", "you'll", "we're", "i'm")
	planModals         = phrases("will", "are going to", "am going to", "going to", "plan to", "plan on", "intend to", "want to", "are planning", "am planning", "might", "may", "could", "hope to", "should", "need to", "have to", "must")
	preferenceWords    = set("prefers", "prefer", "preferred", "preference", "preferences", "favorite", "favourite", "favourites", "favorites", "dislikes", "rather")
	userSubjects       = phrases("the user", "user", "the user's", "user's", "i", "i'm", "i've", "i'd", "my", "me", "the owner", "the owner's", "the human", "the human's")
	reportingWords     = set("read", "heard", "learned", "learnt", "saw", "found", "told", "noticed", "discovered", "according", "reported", "says", "said", "claims", "claimed", "confirmed")
	projectSubjects    = phrases("the project", "this project", "our project", "the repo", "this repo", "our repo", "the repository", "this repository", "the codebase", "this codebase", "our codebase", "we", "our team", "the team", "ci", "the ci", "our ci", "the build", "the app", "this app", "our app", "the service", "this service", "the library", "this library", "the module", "this module", "the package", "this package", "every package", "each package", "the monorepo", "this monorepo", "the workspace", "our code", "the code", "this file", "this document")
	determiners        = set("the", "all", "every", "each", "our", "any", "new", "a", "an")
	projectParts       = phrases("test", "tests", "test names", "test files", "commits", "commit", "commit messages", "branches", "branch names", "migrations", "errors", "error messages", "docs", "documentation", "comments", "doc comments", "functions", "methods", "files", "file names", "packages", "pull requests", "prs", "pr", "imports", "logs", "logging", "variables", "names", "naming", "indentation", "linter", "lint", "formatting", "config", "configuration", "secrets", "dependencies", "deps", "handlers", "endpoints", "routes", "templates", "benchmarks", "fixtures", "golden files", "releases", "tags", "changelog", "readme", "interfaces", "structs", "types", "code", "helpers", "scripts", "builds", "api", "schema", "queries", "sql", "styles", "css", "components", "hooks", "settings", "env vars", "environment variables", "keys", "tokens", "passwords", "issues", "reviews", "code reviews", "checks", "ci jobs", "pipelines", "generated code", "vendored code", "mocks", "stubs", "fuzz tests", "pages", "forms", "constants", "enums", "tabs", "spaces", "line length", "lines", "the main branch", "main", "summaries", "answers", "replies", "responses", "messages", "reports", "explanations", "examples", "memory files")
	wrappers           = []struct {
		words   []string
		opinion bool // the wrapper itself says it is an opinion ("I think")
	}{
		{[]string{"remember", "that"}, false}, {[]string{"note", "that"}, false}, {[]string{"keep", "in", "mind", "that"}, false},
		{[]string{"keep", "in", "mind"}, false}, {[]string{"don't", "forget", "that"}, false}, {[]string{"fyi"}, false},
		{[]string{"bear", "in", "mind", "that"}, false}, {[]string{"it", "turns", "out"}, false}, {[]string{"turns", "out"}, false},
		{[]string{"important"}, false}, {[]string{"nb"}, false}, {[]string{"apparently"}, false}, {[]string{"reportedly"}, false},
		{[]string{"i", "think", "that"}, true}, {[]string{"i", "think"}, true}, {[]string{"i", "believe", "that"}, true}, {[]string{"i", "believe"}, true},
		{[]string{"i", "guess"}, true}, {[]string{"i", "suspect"}, true}, {[]string{"it", "seems", "that"}, true}, {[]string{"it", "seems"}, true},
		{[]string{"i'm", "pretty", "sure"}, true}, {[]string{"i'm", "fairly", "sure"}, true}, {[]string{"probably"}, true}, {[]string{"maybe"}, true},
	}
	opinionStarts = phrases("imo", "imho", "in my opinion", "in my view", "personally", "honestly", "frankly", "arguably", "i feel", "i love", "i hate", "i like", "i'd say", "to me")
	copulas       = set("is", "are", "was", "were", "seems", "seem", "looks", "look", "feels", "feel", "be", "'s", "sounds", "gets", "becomes", "felt", "seemed")
	evaluative    = set("good", "bad", "great", "nice", "nicer", "cleaner", "clean", "ugly", "elegant", "messy", "mess", "overkill", "overengineered", "over-engineered", "confusing", "clunky", "annoying", "awesome", "terrible", "awful", "better", "worse", "fine", "ok", "okay", "simpler", "readable", "unreadable", "pointless", "fragile", "flaky", "brittle", "painful", "pleasant", "neat", "cool", "boring", "overrated", "underrated", "beautiful", "horrible", "sane", "insane", "reasonable", "unreasonable", "questionable", "dubious", "silly", "weird", "odd", "strange", "lovely", "gross", "nasty", "hacky", "sloppy", "solid", "smart", "clever", "dumb", "stupid", "wrong", "worthwhile", "useless", "useful", "helpful", "unhelpful", "excellent", "poor", "mediocre", "amazing", "impressive", "disappointing", "frustrating", "tedious", "verbose", "concise", "idiomatic", "unidiomatic", "easier", "harder", "nicest", "cleanest", "worst", "ideal", "unnecessary", "necessary", "overcomplicated", "convoluted", "fun", "tidy", "untidy", "fiddly", "risky", "premature", "cumbersome", "redundant", "magical", "smelly", "wasteful")
	courtesy      = set("thanks", "thank", "you", "ok", "okay", "done", "noted", "got", "it", "sure", "hi", "hello", "cheers", "yes", "no", "yep", "nope", "great", "cool", "perfect", "will", "do", "understood")
	noteKeys      = set("note", "notes", "remember", "important", "reminder", "fyi", "nb", "tip", "warning", "caution", "heads up", "context", "memory", "fact", "facts")
	settingKeys   = set("editor", "ide", "shell", "os", "terminal", "language", "languages", "timezone", "time zone", "tz", "package manager", "formatter", "linter", "indentation", "indent", "style", "theme", "font", "tone", "format", "default branch", "branch", "framework", "stack", "name", "preferred name", "pronouns", "locale", "units", "browser", "keyboard", "layout", "editor theme", "test runner", "runner", "go version", "node version", "python version", "line length", "quotes", "naming", "commit style", "license", "model", "voice", "language level", "output format", "answer style", "response style", "reply style", "verbosity", "date format", "currency", "project", "repo", "repository", "module", "workspace", "scope", "goal", "purpose", "status", "priority", "area", "topic", "component")
	planKeys      = set("todo", "to do", "to-do", "next", "next step", "next steps", "plan", "plans", "later", "wip", "fixme", "backlog", "follow up", "follow-up", "open", "pending", "tomorrow", "ideas", "idea")
	ruleKeys      = set("rule", "rules", "convention", "conventions", "style", "policy", "guideline", "guidelines", "instruction", "instructions", "always", "never", "do", "don't", "avoid", "must", "should", "requirement", "requirements", "workflow", "process", "procedure", "gotcha", "gotchas", "pitfall")
	commandKeys   = set("build", "test", "tests", "lint", "run", "command", "commands", "cmd", "install", "setup", "set up", "deploy", "format", "bench", "benchmark", "start", "dev", "usage", "check", "typecheck", "migrate", "serve", "release", "debug", "generate", "regenerate")
)

// Sorted is one statement of a text with its triage: a claim the parser read (Claim is set),
// or a part it left out (Left is set). Text is the claim's text or the left-out part.
type Sorted struct {
	Text  string
	Claim *Claim
	Left  *LeftOut
	Triage
}

// TriageText reads text with [ParseResearchLeftOut] and sorts every claim with [TriageClaim]
// and every left-out part with [TriageLeftOut]: claims first, in reading order, then the
// left-out parts. A text with nothing in it gives none. The error is ParseResearch's when
// the text cannot be read at all (it matches ErrBadResearch); ErrNothingUsable is not an
// error here, since a text may hold no claim.
func TriageText(text string) ([]Sorted, error) {
	res, left, err := ParseResearchLeftOut(text)
	if err != nil && !errors.Is(err, ErrNothingUsable) {
		return nil, err
	}
	out := make([]Sorted, 0, len(res.Claims)+len(left))
	for i := range res.Claims {
		c := &res.Claims[i]
		out = append(out, Sorted{Text: c.Text, Claim: c, Triage: TriageClaim(*c)})
	}
	for i := range left {
		l := &left[i]
		out = append(out, Sorted{Text: l.Text, Left: l, Triage: TriageLeftOut(*l)})
	}
	return out, nil
}
