package evidence

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

const refs3 = "\n\n[1]: https://a.example/1\n[2]: https://b.example/2\n[3]: https://c.example/3"

// TestMarkersBindToTheirSentence: a citation marker cites the sentence it follows, wherever
// it sits after the sentence's last word: before or after the full stop, after a closing
// quotation mark, after white space, several in a row.
func TestMarkersBindToTheirSentence(t *testing.T) {
	tests := []struct {
		desc string
		in   string
		want []wantClaim
	}{
		{"a marker after a closing quote and a space",
			`Netscape said the browser "will also be free." [1] Zawinski "registered the domain in advance" [2]. Later it was "released under a free licence" [3].` + refs3,
			[]wantClaim{
				{`Netscape said the browser "will also be free."`, []string{"https://a.example/1 | will also be free."}},
				{`Zawinski "registered the domain in advance".`, []string{"https://b.example/2 | registered the domain in advance"}},
				{`Later it was "released under a free licence".`, []string{"https://c.example/3 | released under a free licence"}}}},
		{"a second marker after a space",
			`The browser would be free.[1] [2] Zawinski registered "the domain mozilla.org early" [3].` + refs3,
			[]wantClaim{
				{"The browser would be free.", []string{"https://a.example/1 | ", "https://b.example/2 | "}},
				{`Zawinski registered "the domain mozilla.org early".`, []string{"https://c.example/3 | the domain mozilla.org early"}}}},
		{"a marker after the full stop and a space",
			`Acme said "revenue grew by four percent". [1] Its rival said "revenue fell by two percent". [2]` + refs3,
			[]wantClaim{
				{`Acme said "revenue grew by four percent".`, []string{"https://a.example/1 | revenue grew by four percent"}},
				{`Its rival said "revenue fell by two percent".`, []string{"https://b.example/2 | revenue fell by two percent"}}}},
		{"markers in a row, with and without commas",
			"Acme grew.[1][2] Acme shrank. [1], [3] Acme held. [2, 3]" + refs3,
			[]wantClaim{
				{"Acme grew.", []string{"https://a.example/1 | ", "https://b.example/2 | "}},
				{"Acme shrank.", []string{"https://a.example/1 | ", "https://c.example/3 | "}},
				{"Acme held.", []string{"https://b.example/2 | ", "https://c.example/3 | "}}}},
		{"a range of markers",
			"Acme grew [1–3]. Acme shrank [2-3]." + refs3,
			[]wantClaim{
				{"Acme grew.", []string{"https://a.example/1 | ", "https://b.example/2 | ", "https://c.example/3 | "}},
				{"Acme shrank.", []string{"https://b.example/2 | ", "https://c.example/3 | "}}}},
		{"a range of superscripts",
			"Acme grew.¹⁻³ Acme shrank²–³." + refs3,
			[]wantClaim{
				{"Acme grew.", []string{"https://a.example/1 | ", "https://b.example/2 | ", "https://c.example/3 | "}},
				{"Acme shrank.", []string{"https://b.example/2 | ", "https://c.example/3 | "}}}},
		{"plain reference numbers after full stops, with a numbered Sources list",
			"Netscape released the code in 1998.1 Firefox 1.0 shipped in 2004.2 It held \"a quarter of the market\".3\n\nSources\n1. https://a.example/1\n2. https://b.example/2\n3. https://c.example/3",
			[]wantClaim{
				{"Netscape released the code in 1998.", []string{"https://a.example/1 | "}},
				{"Firefox 1.0 shipped in 2004.", []string{"https://b.example/2 | "}},
				{"It held \"a quarter of the market\".", []string{"https://c.example/3 | a quarter of the market"}}}},
		{"a year with a decimal is a number",
			"The index stood at 1998.1 points in 2004.2 and later.\n\nSources\n1. https://a.example/1\n2. https://b.example/2",
			[]wantClaim{{"The index stood at 1998.1 points in 2004.2 and later.", []string{" | "}}}},
		{"plain reference numbers after words",
			"Netscape released its code.1 Firefox shipped in November.2 It held \"a quarter of the market\".3 Version 3.1 followed.\n\nSources\n1. https://a.example/1\n2. https://b.example/2\n3. https://c.example/3",
			[]wantClaim{
				{"Netscape released its code.", []string{"https://a.example/1 | "}},
				{"Firefox shipped in November.", []string{"https://b.example/2 | "}},
				{"It held \"a quarter of the market\".", []string{"https://c.example/3 | a quarter of the market"}},
				{"Version 3.1 followed.", []string{" | "}}}},
		{"plain numbers without a numbered Sources list are text",
			"Netscape released its code.1 Firefox shipped.\n\n[1]: https://a.example/1",
			[]wantClaim{{"Netscape released its code.1 Firefox shipped.", []string{" | "}}}},
		{"a range that names a missing reference is text",
			"Acme grew [2–4]." + refs3,
			[]wantClaim{{"Acme grew [2–4].", []string{" | "}}}},
		{"superscript markers, together and after a space",
			"Acme grew.¹² Acme shrank. ³ Acme held¹." + refs3,
			[]wantClaim{
				{"Acme grew.", []string{"https://a.example/1 | ", "https://b.example/2 | "}},
				{"Acme shrank.", []string{"https://c.example/3 | "}},
				{"Acme held.", []string{"https://a.example/1 | "}}}},
		{"markers before the full stop",
			`Acme said "revenue grew by four percent" [1][2]. Its rival said "revenue fell by two percent" [3].` + refs3,
			[]wantClaim{
				{`Acme said "revenue grew by four percent".`, []string{"https://a.example/1 | revenue grew by four percent", "https://b.example/2 | "}},
				{`Its rival said "revenue fell by two percent".`, []string{"https://c.example/3 | revenue fell by two percent"}}}},
		{"a marker on the next line of the paragraph",
			"Acme grew by four percent.\n[1] Its rival shrank.\n[2]" + refs3,
			[]wantClaim{
				{"Acme grew by four percent.", []string{"https://a.example/1 | "}},
				{"Its rival shrank.", []string{"https://b.example/2 | "}}}},
		{"a link whose text is a number is a marker",
			"Acme grew. [1](https://a.example/1) Its rival shrank. [2](https://b.example/2)",
			[]wantClaim{
				{"Acme grew.", []string{"https://a.example/1 | "}},
				{"Its rival shrank.", []string{"https://b.example/2 | "}}}},
		{"a parenthesis of links after the full stop",
			`Acme said "revenue grew by four percent". ([acme.example](https://a.example/1)) Its rival said "revenue fell by two percent". ([rival.example](https://b.example/2), [wire](https://c.example/3))`,
			[]wantClaim{
				{`Acme said "revenue grew by four percent". (acme.example)`, []string{"https://a.example/1 | revenue grew by four percent"}},
				{`Its rival said "revenue fell by two percent". (rival.example, wire)`, []string{"https://b.example/2 | revenue fell by two percent", "https://c.example/3 | "}}}},
		{"a link that starts a sentence is that sentence's",
			"Acme grew. [Reuters](https://a.example/1) reported a loss.",
			[]wantClaim{
				{"Acme grew.", []string{" | "}},
				{"Reuters reported a loss.", []string{"https://a.example/1 | "}}}},
		{"an unresolved bracket after the stop is not a marker",
			"Acme grew. [7] Its rival shrank [1]." + refs3,
			[]wantClaim{
				{"Acme grew.", []string{" | "}},
				{"[7] Its rival shrank.", []string{"https://a.example/1 | "}}}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) { checkParse(t, tt.in, tt.want) })
	}
}

// TestQuotesKeptWhole: a quotation is not cut at the mark of an elided article or at the
// opening mark of a quotation inside it.
func TestQuotesKeptWhole(t *testing.T) {
	tests := []struct {
		desc, in, quote string
	}{
		{"straight quote after l'", `Le journal écrit "Il dit l'"accord est conclu" puis le conseil a approuvé le plan de logement" [1].`,
			`Il dit l'"accord est conclu" puis le conseil a approuvé le plan de logement`},
		{"straight quote after d' inside a quotation", `Le journal écrit "le maire parle d'"un moment décisif" pour la ville" [1].`,
			`le maire parle d'"un moment décisif" pour la ville`},
		{"a quotation opened after d'", `Le maire parle d'"un moment décisif pour la ville" selon le journal [1].`,
			`un moment décisif pour la ville`},
		{"typographic apostrophe and curly quotes", `Le journal écrit “Il dit l’“accord est conclu” puis le conseil a approuvé le plan” [1].`,
			`Il dit l’“accord est conclu” puis le conseil a approuvé le plan`},
		{"nested curly quotes", `He wrote “the so-called “message content” rules were dropped” last year [1].`,
			`the so-called “message content” rules were dropped`},
		{"straight quotes inside curly ones", `He wrote “the so-called "message content" rules were dropped” last year [1].`,
			`the so-called "message content" rules were dropped`},
		{"nested guillemets", `Le Monde écrit « il a dit «non» au conseil hier soir » [1].`,
			`il a dit «non» au conseil hier soir`},
		{"a curly quote closed with an opening mark", `He wrote “the rules were dropped last year“ and left [1].`,
			`the rules were dropped last year`},
		{"two curly quotes, each closed", `He wrote “the rules were dropped” and “the fines were doubled” [1].`,
			`the rules were dropped`},
		{"a plural possessive before the closing mark", `The union said "the players' rights come first" today [1].`,
			`the players' rights come first`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			in := tt.in + refs3
			r, err := ParseResearch(in)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Claims) != 1 || r.Claims[0].Citations[0].Quote != tt.quote || r.Claims[0].Citations[0].URL != "https://a.example/1" {
				t.Fatalf("got %+v\nwant one claim citing https://a.example/1 with the quote %q", r.Claims, tt.quote)
			}
			assertFromInput(t, in, r)
		})
	}
	// In a JSON field the quote is the researcher's string: the outer marks go, the inner stay.
	for _, q := range []string{`"Il dit l'"accord est conclu" puis le conseil a approuvé"`, `“the so-called “message content” rules”`, `«il a dit «non» hier»`} {
		want := strings.TrimSpace(q[len(string([]rune(q)[0])) : len(q)-len(string([]rune(q)[len([]rune(q))-1]))])
		if got := unquote(q); got != want {
			t.Errorf("unquote(%q) = %q, want %q", q, got, want)
		}
	}
}

// The marker binder's invariant, checked by FuzzMarkerBinding on any text: split into
// sentences (sentenceRanges), every citation marker (a resolved marker span, or a link whose
// text is a number) lies in the same sentence as the last character before it that is
// neither white space, a comma or semicolon between markers, nor part of another marker: a
// marker cites what it follows and never starts a sentence. The "last character before it" is
// computed here by a plain backward scan, independent of the binder's forward rules.
func checkMarkerBinding(t *testing.T, text string) {
	t.Helper()
	checkMarkerBindingWith(t, text, false)
	checkMarkerBindingWith(t, text, true)
}

// checkMarkerBindingWith checks the invariant with references 1, 2, 3, 12 and a; with
// numbered set, as from a numbered Sources list, so (1) and plain numbers after a full stop
// are markers too.
func checkMarkerBindingWith(t *testing.T, text string, numbered bool) {
	t.Helper()
	p := &parser{refs: map[string]*reference{}}
	for _, id := range []string{"1", "2", "3", "12", "a"} {
		p.refs[id] = &reference{lines: []string{"https://ref.example/" + id}}
	}
	spans := scanInline(text, p.refs, numbered)
	ranges := sentenceRanges(text, spans)
	// the sentences cover text in order, apart from the white space between them
	pos := 0
	for _, r := range ranges {
		if r[0] < pos || r[1] < r[0] || strings.TrimSpace(text[pos:r[0]]) != "" {
			t.Fatalf("sentence ranges %v do not cover %q in order", ranges, text)
		}
		pos = r[1]
	}
	if pos != len(text) {
		t.Fatalf("sentence ranges %v end at %d, text at %d: %q", ranges, pos, len(text), text)
	}
	in := func(at int) int {
		for i, r := range ranges {
			if at >= r[0] && at < r[1] {
				return i
			}
		}
		return -1
	}
	marker := make([]bool, len(text)) // bytes inside a marker
	for _, sp := range spans {
		if isMarkerSpan(text, sp) {
			for k := sp.start; k < sp.end; k++ {
				marker[k] = true
			}
		}
	}
	for _, sp := range spans {
		if !isMarkerSpan(text, sp) {
			continue
		}
		b := sp.start - 1
		for b >= 0 && (marker[b] || strings.IndexByte(" \t\n,;", text[b]) >= 0) {
			b--
		}
		if b < 0 {
			continue // the text opens with markers: they belong to its first sentence
		}
		if got, want := in(sp.start), in(b); got != want || in(sp.end-1) != want {
			t.Fatalf("marker %q at %d is in sentence %d, the text before it (%q) in sentence %d\ntext: %q\nsentences: %q",
				text[sp.start:sp.end], sp.start, got, text[max(0, b-20):b+1], want, text, quoteRanges(text, ranges))
		}
	}
}

func quoteRanges(text string, ranges [][2]int) []string {
	var out []string
	for _, r := range ranges {
		out = append(out, text[r[0]:r[1]])
	}
	return out
}

// FuzzMarkerBinding checks the binder's invariant (checkMarkerBinding) on any text, and on
// generated paragraphs: sentence k, written in one of several citation styles, cites
// reference k, so each claim must carry exactly its own reference's URL.
func FuzzMarkerBinding(f *testing.F) {
	seedPastes(f, func(path string) bool { return strings.HasSuffix(path, ".md") })
	for _, s := range []string{
		`Netscape said "will also be free." [1] Zawinski "registered it" [2].`,
		"It was free.[1] [2] Zawinski left.", "A. [1], [2] B.¹² C. ³ D [1–3].",
		"Acme grew. [1](https://x.example) B. ([a](https://y.example)) C.",
		"Free. \n[1]\n\n[2] Next.", "“Quoted.” [a] Next [12].",
		"Done in 2004.1 2 Next.\"3 Then (1).", "Code.\"2 The 3.5 and 1998.1 points.12",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkMarkerBinding(t, text)
		checkGeneratedBinding(t, []byte(text))
	})
}

// citation styles for checkGeneratedBinding: %[1]s is the sentence's words, %[2]s its
// reference number, %[3]s its superscript.
var citeStyles = []string{
	"%[1]s.[%[2]s]", "%[1]s [%[2]s].", "%[1]s. [%[2]s]", "%[1]s.%[3]s", "%[1]s. %[3]s",
	`%[1]s "said so plainly today." [%[2]s]`, `%[1]s "said so plainly today" [%[2]s].`,
	"%[1]s.[%[2]s][%[2]s]", "%[1]s. [%[2]s], [%[2]s]", "%[1]s%[3]s.", "%[1]s. [%[2]s](https://n.example/%[2]s)",
	`%[1]s “said so plainly today.”[%[2]s]`,
}

// checkGeneratedBinding builds a paragraph from b: each byte picks the style of one sentence
// (at most nine), each sentence cites its own reference, and the claims must pair each
// sentence with its reference alone.
func checkGeneratedBinding(t *testing.T, b []byte) {
	t.Helper()
	if len(b) == 0 {
		return
	}
	b = b[:min(len(b), 9)]
	var sb strings.Builder
	var defs strings.Builder
	for i, c := range b {
		n := fmt.Sprint(i + 1)
		style := citeStyles[int(c)%len(citeStyles)]
		if c&0x80 != 0 {
			sb.WriteString("\n")
		} else if i > 0 {
			sb.WriteString(" ")
		}
		fmt.Fprintf(&sb, style, "Sentence "+strings.Repeat("x", i+1)+" holds", n, superscript(i+1))
		fmt.Fprintf(&defs, "\n[%s]: https://ref.example/%s", n, n)
	}
	in := sb.String() + "\n" + defs.String()
	r, err := ParseResearch(in)
	if err != nil {
		t.Fatalf("ParseResearch(%q): %v", in, err)
	}
	if len(r.Claims) != len(b) {
		t.Fatalf("%d claims from %d sentences: %q\n%+v", len(r.Claims), len(b), in, r.Claims)
	}
	for i, c := range r.Claims {
		if !strings.Contains(c.Text, "Sentence "+strings.Repeat("x", i+1)+" holds") {
			t.Fatalf("claim %d is %q: %q", i+1, c.Text, in)
		}
		for _, ct := range c.Citations {
			u := ct.URL
			if u != fmt.Sprintf("https://ref.example/%d", i+1) && u != fmt.Sprintf("https://n.example/%d", i+1) {
				t.Fatalf("claim %d (%q) cites %q: %q", i+1, c.Text, u, in)
			}
		}
	}
}

func superscript(n int) string {
	digits := []rune("⁰¹²³⁴⁵⁶⁷⁸⁹")
	var out []rune
	for _, c := range fmt.Sprint(n) {
		if unicode.IsDigit(c) {
			out = append(out, digits[c-'0'])
		}
	}
	return string(out)
}

// pairing renders claims as the .pairing files of testdata/pairing write them: each claim's
// text, then one indented line per citation, "URL | quote"; a blank line between claims.
func pairing(r Research) string {
	var b strings.Builder
	for i, c := range r.Claims {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(c.Text + "\n")
		for _, ct := range c.Citations {
			b.WriteString("  " + ct.URL + " | " + ct.Quote + "\n")
		}
	}
	return b.String()
}

// TestPairingGolden: a paste in the style of each research tool (footnotes after closing
// quotes and spaces, parentheses of links after the full stop, superscripts and a Works
// cited list, Markdown footnotes with elided quotes, a report with ranges and nested
// quotes), with the pairing of every claim, quote and source written by hand in NAME.pairing.
// The files are never regenerated: a difference is a change in what is checked against what.
func TestPairingGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/pairing/*.md")
	if len(files) < 5 {
		t.Fatalf("found %d pastes in testdata/pairing, want one per style", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(path, ".md") + ".pairing")
			if err != nil {
				t.Fatal(err)
			}
			r, err := ParseResearch(string(in))
			if err != nil {
				t.Fatal(err)
			}
			if got := pairing(r); got != string(want) {
				t.Errorf("pairing differs from the written one\ngot:\n%s\nwant:\n%s", got, want)
			}
			assertFromInput(t, string(in), r)
			checkMarkerBinding(t, string(in))
		})
	}
}

// TestPreviewVia: the preview says through which marker of the paste each citation got its
// URL, and nothing for a URL written in the claim or a field.
func TestPreviewVia(t *testing.T) {
	in := "Acme said \"revenue grew by four percent.\" [1] Its rival grew ²³. Claim: no.\n\n- Acme sells bricks (https://bricks.example/a).\n\nClaim: Acme sells tiles.\nSource: https://tiles.example/b [1]\n\n```json\n[{\"text\": \"Acme sells roofs.\", \"url\": \"https://roofs.example/c\"}]\n```\n" + refs3
	pv, err := ReadPastePreview([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, c := range pv.Research.Claims {
		for j, ct := range c.Citations {
			got = append(got, ct.URL+" "+pv.Via[i][j])
		}
	}
	want := []string{"https://a.example/1 [1]", "https://b.example/2 [2]", "https://c.example/3 [3]", " ",
		"https://bricks.example/a ", "https://tiles.example/b ", "https://a.example/1 [1]", "https://roofs.example/c "}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("via:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// checkVia checks that the preview's markers are in step with the claims and citations, and
// that each names a reference of the paste.
func checkVia(t *testing.T, in string) {
	t.Helper()
	pv, err := parsePreview(in)
	if err != nil {
		return
	}
	if len(pv.Via) != len(pv.Research.Claims) {
		t.Fatalf("%d via lists for %d claims", len(pv.Via), len(pv.Research.Claims))
	}
	for i, c := range pv.Research.Claims {
		if len(pv.Via[i]) != len(c.Citations) {
			t.Fatalf("claim %d: %d via for %d citations", i, len(pv.Via[i]), len(c.Citations))
		}
		for j, v := range pv.Via[i] {
			if v != "" && (c.Citations[j].URL == "" && c.Citations[j].Quote == "" || !strings.HasPrefix(v, "[") || !strings.HasSuffix(v, "]")) {
				t.Fatalf("claim %d citation %d: via %q for %+v", i, j, v, c.Citations[j])
			}
		}
	}
}
