package evidence

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// cits renders a claim's citations as "url | quote" strings.
func cits(c Claim) []string {
	var out []string
	for _, x := range c.Citations {
		out = append(out, x.URL+" | "+x.Quote)
	}
	return out
}

type wantClaim struct {
	text string
	cits []string
}

func checkParse(t *testing.T, in string, want []wantClaim) {
	t.Helper()
	r, err := ParseResearch(in)
	if err != nil {
		t.Fatalf("ParseResearch: %v", err)
	}
	var got []wantClaim
	for _, c := range r.Claims {
		got = append(got, wantClaim{c.Text, cits(c)})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("claims differ\n got: %q\nwant: %q", got, want)
	}
	assertFromInput(t, in, r)
}

func TestParseResearch(t *testing.T) {
	tests := []struct {
		desc string
		in   string
		want []wantClaim
	}{
		{"labelled fields on separate lines",
			"Claim: Acme grew revenue by 4% in 2023.\nSource: https://acme.example/ir/2023\nQuote: \"Revenue increased 4% year over year\"",
			[]wantClaim{{"Acme grew revenue by 4% in 2023.", []string{"https://acme.example/ir/2023 | Revenue increased 4% year over year"}}}},
		{"labelled fields on one line, bold",
			"**Claim:** Acme grew revenue. **Source:** https://acme.example/ir **Quote:** “Revenue increased 4% year over year”",
			[]wantClaim{{"Acme grew revenue.", []string{"https://acme.example/ir | Revenue increased 4% year over year"}}}},
		{"labelled fields separated by pipes",
			"Fact: Acme grew revenue. | URL: https://acme.example/ir | Excerpt: Revenue increased 4% year over year",
			[]wantClaim{{"Acme grew revenue.", []string{"https://acme.example/ir | Revenue increased 4% year over year"}}}},
		{"bold label with colon outside",
			"**Statement**: The plant opened in 1998.\n**Link**: <https://plant.example/history>\n**Evidence**: The plant opened its doors in 1998",
			[]wantClaim{{"The plant opened in 1998.", []string{"https://plant.example/history | The plant opened its doors in 1998"}}}},
		{"numbered labels start new claims",
			"Claim 1: First fact about the plant.\nSource: https://a.example/1\n\nClaim 2: Second fact about the plant.\nSource: https://b.example/2",
			[]wantClaim{{"First fact about the plant.", []string{"https://a.example/1 | "}}, {"Second fact about the plant.", []string{"https://b.example/2 | "}}}},
		{"claim text on the line after its label",
			"Claim:\nThe bridge is 1,280 metres long.\nSource: https://bridge.example/facts",
			[]wantClaim{{"The bridge is 1,280 metres long.", []string{"https://bridge.example/facts | "}}}},
		{"quote continues over two lines",
			"Claim: The bridge is long.\nSource: https://bridge.example/facts\nQuote: \"The bridge spans 1,280 metres\nacross the strait\"",
			[]wantClaim{{"The bridge is long.", []string{"https://bridge.example/facts | The bridge spans 1,280 metres across the strait"}}}},
		{"two quotes for one source",
			"Claim: The bridge is long and old.\nSource: https://bridge.example/facts\nQuote: “The bridge spans 1,280 metres”\nQuote: “It was completed in 1937”",
			[]wantClaim{{"The bridge is long and old.", []string{"https://bridge.example/facts | The bridge spans 1,280 metres", "https://bridge.example/facts | It was completed in 1937"}}}},
		{"sources listed as bullets under the label",
			"Claim: The bridge is long.\nSources:\n- https://a.example/one\n- https://b.example/two\nQuote: “The bridge spans 1,280 metres”",
			[]wantClaim{{"The bridge is long.", []string{"https://a.example/one | ", "https://b.example/two | The bridge spans 1,280 metres"}}}},
		{"claim with no URL keeps its note",
			"Claim: The moon is made of basalt and anorthosite.",
			[]wantClaim{{"The moon is made of basalt and anorthosite.", []string{" | "}}}},
		{"quote with no URL",
			"Claim: The moon is rocky.\nQuote: “The lunar surface is covered in regolith”",
			[]wantClaim{{"The moon is rocky.", []string{" | The lunar surface is covered in regolith"}}}},
		{"source that is a name, not a URL",
			"Claim: The moon is rocky.\nSource: NASA fact sheet",
			[]wantClaim{{"The moon is rocky.", []string{" | "}}}},
		{"inline markdown link with the quote after it",
			"- [Reuters](https://www.reuters.com/a) reported that “profits rose sharply in the third quarter”.",
			[]wantClaim{{"Reuters reported that “profits rose sharply in the third quarter”.", []string{"https://www.reuters.com/a | profits rose sharply in the third quarter"}}}},
		{"quote before its link",
			"- The CEO said “we will double capacity by 2026” ([source](https://acme.example/pr)).",
			[]wantClaim{{"The CEO said “we will double capacity by 2026”.", []string{"https://acme.example/pr | we will double capacity by 2026"}}}},
		{"two quotes with two links pair in order",
			"- Analysts wrote “demand is cooling quickly” (https://a.example/1) and “prices fell for a third month” (https://b.example/2).",
			[]wantClaim{{"Analysts wrote “demand is cooling quickly” and “prices fell for a third month”.", []string{"https://a.example/1 | demand is cooling quickly", "https://b.example/2 | prices fell for a third month"}}}},
		{"short scare quotes are wording, not quotes",
			"- The app was called “magic” by reviewers (https://a.example/review).",
			[]wantClaim{{"The app was called “magic” by reviewers.", []string{"https://a.example/review | "}}}},
		{"German and French quotation marks",
			"- Die Zeitung schrieb „Die Preise steigen weiter“ https://zeit.example/a\n- Le Monde écrit « entre les mailles du filet » https://lemonde.example/b",
			[]wantClaim{
				{"Die Zeitung schrieb „Die Preise steigen weiter“", []string{"https://zeit.example/a | Die Preise steigen weiter"}},
				{"Le Monde écrit « entre les mailles du filet »", []string{"https://lemonde.example/b | entre les mailles du filet"}}}},
		{"apostrophes are not closing quotes",
			"- The CEO’s letter said ‘the company’s margins will recover next year’ https://acme.example/letter",
			[]wantClaim{{"The CEO’s letter said ‘the company’s margins will recover next year’", []string{"https://acme.example/letter | the company’s margins will recover next year"}}}},
		{"Wikipedia URL with parentheses, wrapped in parentheses",
			"- Mozilla has a disambiguation page (https://en.wikipedia.org/wiki/Mozilla_(disambiguation)).",
			[]wantClaim{{"Mozilla has a disambiguation page.", []string{"https://en.wikipedia.org/wiki/Mozilla_(disambiguation) | "}}}},
		{"markdown link to a Wikipedia URL with parentheses",
			"- See the [Bardo museum](https://en.wikipedia.org/wiki/Bardo_National_Museum_(Tunis)) entry.",
			[]wantClaim{{"See the Bardo museum entry.", []string{"https://en.wikipedia.org/wiki/Bardo_National_Museum_(Tunis) | "}}}},
		{"trailing punctuation and angle brackets removed",
			"- Report one: https://a.example/x?y=1;\n- Report two <https://b.example/z>.\n- Report three https://c.example/q, which is long.",
			[]wantClaim{
				{"Report one:", []string{"https://a.example/x?y=1 | "}},
				{"Report two.", []string{"https://b.example/z | "}},
				{"Report three, which is long.", []string{"https://c.example/q | "}}}},
		{"query, fragment and percent escapes stay",
			"- Data at https://data.example/t?id=5&lang=en#sec-2 and https://x.example/a%20b.",
			[]wantClaim{{"Data at and.", []string{"https://data.example/t?id=5&lang=en#sec-2 | ", "https://x.example/a%20b | "}}}},
		{"non-http URLs are kept with a note",
			"- The archive is on FTP: ftp://files.example/pub/report.pdf\n- Contact [press](mailto:press@acme.example) for the filing.",
			[]wantClaim{
				{"The archive is on FTP:", []string{"ftp://files.example/pub/report.pdf | "}},
				{"Contact press for the filing.", []string{"mailto:press@acme.example | "}}}},
		{"footnote markers resolved from a Sources list",
			"Acme was founded in 1990.[1] It employs 5,000 people [2].\n\nSources:\n1. https://acme.example/history\n2. https://acme.example/careers",
			[]wantClaim{
				{"Acme was founded in 1990.", []string{"https://acme.example/history | "}},
				{"It employs 5,000 people.", []string{"https://acme.example/careers | "}}}},
		{"caret footnotes with quotes in the definition",
			"Acme was founded in 1990.[^a]\n\n[^a]: https://acme.example/history — “Acme was founded in 1990 in Ohio”",
			[]wantClaim{{"Acme was founded in 1990.", []string{"https://acme.example/history | Acme was founded in 1990 in Ohio"}}}},
		{"a title in quotes before the URL is not a quote",
			"Acme was founded in 1990 [1].\n\nReferences\n[1] “Our history,” Acme Inc. https://acme.example/history",
			[]wantClaim{{"Acme was founded in 1990.", []string{"https://acme.example/history | "}}}},
		{"superscript markers and parenthesised markers",
			"Acme was founded in 1990.¹ It employs 5,000 people (2).\n\n## Sources\n¹ https://acme.example/history\n(2) https://acme.example/careers",
			[]wantClaim{
				{"Acme was founded in 1990.", []string{"https://acme.example/history | "}},
				{"It employs 5,000 people.", []string{"https://acme.example/careers | "}}}},
		{"unnumbered source bullets are numbered in order",
			"Acme was founded in 1990 [1]. It employs 5,000 people [2].\n\n**Sources:**\n- https://acme.example/history\n- https://acme.example/careers",
			[]wantClaim{
				{"Acme was founded in 1990.", []string{"https://acme.example/history | "}},
				{"It employs 5,000 people.", []string{"https://acme.example/careers | "}}}},
		{"an unresolved marker stays in the text",
			"Acme was founded in 1990 [7].",
			[]wantClaim{{"Acme was founded in 1990 [7].", []string{" | "}}}},
		{"(1) without a sources list is not a marker",
			"Acme makes (1) bricks and (2) tiles.",
			[]wantClaim{{"Acme makes (1) bricks and (2) tiles.", []string{" | "}}}},
		{"abbreviations and decimals do not split sentences",
			"U.S. Steel paid $3.5 billion to Acme Inc. in Jan. 2020 according to Dr. Smith. Prices rose.",
			[]wantClaim{{"U.S. Steel paid $3.5 billion to Acme Inc. in Jan. 2020 according to Dr. Smith.", []string{" | "}}, {"Prices rose.", []string{" | "}}}},
		{"blockquote under its claim with attribution",
			"The army denied a coup.\n\n> “This is not a military takeover of government”\n> — [BBC](https://www.bbc.com/news/1)",
			[]wantClaim{{"The army denied a coup.", []string{"https://www.bbc.com/news/1 | This is not a military takeover of government"}}}},
		{"blockquote without quotation marks and an inline dash attribution",
			"- Profits rose.\n  > Profits rose 12% in the quarter — https://acme.example/q3",
			[]wantClaim{{"Profits rose.", []string{"https://acme.example/q3 | Profits rose 12% in the quarter"}}}},
		{"blockquote quote replaces quoted words of the claim",
			"The CEO called it “a historic quarter for us” in the letter (https://acme.example/letter).\n> Revenue reached a record $4.1 billion",
			[]wantClaim{{"The CEO called it “a historic quarter for us” in the letter.", []string{"https://acme.example/letter | Revenue reached a record $4.1 billion"}}}},
		{"table with columns in any order",
			"| Quote | Source | Claim |\n|:---|---|---:|\n| “Revenue increased 4% this year” | https://acme.example/ir | Acme grew. |\n| | | No source here. |",
			[]wantClaim{{"Acme grew.", []string{"https://acme.example/ir | Revenue increased 4% this year"}}, {"No source here.", []string{" | "}}}},
		{"table without leading pipes and an escaped pipe",
			"Statement | Link\n--- | ---\nA \\| B are two options. | [doc](https://doc.example/a)",
			[]wantClaim{{"A \\| B are two options.", []string{"https://doc.example/a | "}}}},
		{"headings, rules, chatter and questions are not claims",
			"# Findings\n\nHere is what I found:\n\n---\n\n## Background\n\nThe river is 300 km long (https://river.example).\n\nWould you like more detail?\n\nLet me know if you need anything else!",
			[]wantClaim{{"The river is 300 km long.", []string{"https://river.example | "}}}},
		{"a statement that starts like a heading word is still a claim",
			"Summary:\n\nFindings from the survey show that 40% of users left (https://survey.example/r).",
			[]wantClaim{{"Findings from the survey show that 40% of users left.", []string{"https://survey.example/r | "}}}},
		{"a bold label with its quote in a blockquote below",
			"- **Claim**: Acme has 5,000 employees\n  **Source**: [Acme careers](https://acme.example/careers)\n  **Quote**:\n  > Our 5,000 employees work across 12 countries.",
			[]wantClaim{{"Acme has 5,000 employees", []string{"https://acme.example/careers | Our 5,000 employees work across 12 countries."}}}},
		{"a full stop after a link whose text is a domain ends the sentence",
			"Shares fell 12% on Monday ([reuters.com](https://www.reuters.com/markets/x)). The company blamed weak demand ([ft.com](https://www.ft.com/content/abc)).",
			[]wantClaim{
				{"Shares fell 12% on Monday (reuters.com).", []string{"https://www.reuters.com/markets/x | "}},
				{"The company blamed weak demand (ft.com).", []string{"https://www.ft.com/content/abc | "}}}},
		{"setext heading",
			"Findings\n========\nThe river is 300 km long (https://river.example).",
			[]wantClaim{{"The river is 300 km long.", []string{"https://river.example | "}}}},
		{"nested bullets belong to their item",
			"1. The river is 300 km long.\n   - https://river.example/facts\n   - “The river runs for 300 kilometres”\n2. The lake is deep.",
			[]wantClaim{{"The river is 300 km long.", []string{"https://river.example/facts | The river runs for 300 kilometres"}}, {"The lake is deep.", []string{" | "}}}},
		{"code fences other than JSON and text are skipped",
			"```go\nfmt.Println(\"https://not.a.claim\")\n```\n- The river is long (https://river.example).",
			[]wantClaim{{"The river is long.", []string{"https://river.example | "}}}},
		{"windows line endings and a byte-order mark",
			"\ufeffClaim: The river is long.\r\nSource: https://river.example\r\nQuote: “The river runs for 300 kilometres”\r\n",
			[]wantClaim{{"The river is long.", []string{"https://river.example | The river runs for 300 kilometres"}}}},
		{"duplicate citations collapse",
			"Acme was founded in 1990 [1][1] and is based in Ohio [1].\n\n[1]: https://acme.example/history",
			[]wantClaim{{"Acme was founded in 1990 and is based in Ohio.", []string{"https://acme.example/history | "}}}},
		{"a reference that cites itself does not loop",
			"Acme was founded in 1990 [1].\n\n[1]: https://acme.example/history [1]",
			[]wantClaim{{"Acme was founded in 1990.", []string{"https://acme.example/history | "}}}},
		{"JSON pasted whole",
			`[{"claim": "Acme was founded in 1990.", "url": "https://acme.example/history", "quote": "Founded in 1990 in Ohio"}]`,
			[]wantClaim{{"Acme was founded in 1990.", []string{"https://acme.example/history | Founded in 1990 in Ohio"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) { checkParse(t, tt.in, tt.want) })
	}
}

func TestParseResearchNotes(t *testing.T) {
	in := "Claim: No URL here at all.\n\nClaim: Short quote.\nSource: https://a.example\nQuote: too short\n\nClaim: FTP only.\nSource: ftp://a.example/f\nQuote: “a quote long enough to look for”\n\nClaim: Fine.\nSource: https://a.example/ok\nQuote: “a quote long enough to look for”"
	r, err := ParseResearch(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{NoteNoSource, NoteNoQuote, NoteNotHTTP, ""}
	if len(r.Claims) != len(want) {
		t.Fatalf("got %d claims, want %d: %+v", len(r.Claims), len(want), r.Claims)
	}
	for i, c := range r.Claims {
		if got := c.Citations[0].Note; got != want[i] {
			t.Errorf("claim %q: note %q, want %q", c.Text, got, want[i])
		}
	}
}

func TestParseResearchErrors(t *testing.T) {
	tests := []struct {
		desc string
		in   string
		want error
	}{
		{"empty", "", ErrNothingUsable},
		{"only white space", " \n\t\n", ErrNothingUsable},
		{"only chatter and headings", "# Results\n\nHere is what I found:\n\nLet me know if you need more!", ErrNothingUsable},
		{"only a sources list", "Sources:\n1. https://a.example\n2. https://b.example", ErrNothingUsable},
		{"JSON with no claim text", `[{"url": "https://a.example"}]`, ErrNothingUsable},
		{"broken JSON", `{"claims": [{"text": "A"`, ErrBadResearch},
		{"JSON with trailing data", `{"claims": []} extra`, ErrBadResearch},
		{"not UTF-8", "Claim: caf\xe9 prices rose.", ErrBadResearch},
		{"too large", "Claim: x\n" + strings.Repeat("a", MaxPasteBytes), ErrBadResearch},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			r, err := ParseResearch(tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("ParseResearch = %+v, %v; want an error matching %v", r, err, tt.want)
			}
		})
	}
}

func TestParseClaimsJSON(t *testing.T) {
	tests := []struct {
		desc string
		in   string
		want []wantClaim
	}{
		{"API form",
			`{"claims":[{"text":"A is true.","citations":[{"url":"https://a.example","quote":"A is entirely true"}]}]}`,
			[]wantClaim{{"A is true.", []string{"https://a.example | A is entirely true"}}}},
		{"API form, claim without citations",
			`{"claims":[{"text":"A is true.","citations":[]}]}`,
			[]wantClaim{{"A is true.", []string{" | "}}}},
		{"usual key names in any case",
			`[{"Statement":"A is true.","Source_URL":"https://a.example","Excerpt":"A is entirely true"},{"FACT":"B is true.","link":"https://b.example","evidence":"B is entirely true"}]`,
			[]wantClaim{{"A is true.", []string{"https://a.example | A is entirely true"}}, {"B is true.", []string{"https://b.example | B is entirely true"}}}},
		{"camelCase key",
			`[{"claim":"A is true.","sourceUrl":"https://a.example"}]`,
			[]wantClaim{{"A is true.", []string{"https://a.example | "}}}},
		{"lists of URLs and quotes pair by position",
			`[{"claim":"A.","urls":["https://a.example","https://b.example"],"quotes":["first quote here","second quote here"]}]`,
			[]wantClaim{{"A.", []string{"https://a.example | first quote here", "https://b.example | second quote here"}}}},
		{"one quote for two URLs goes to each",
			`[{"claim":"A.","urls":["https://a.example","https://b.example"],"quote":"the same quote on both"}]`,
			[]wantClaim{{"A.", []string{"https://a.example | the same quote on both", "https://b.example | the same quote on both"}}}},
		{"source as a name is not a URL",
			`[{"claim":"A.","source":"Reuters"}]`,
			[]wantClaim{{"A.", []string{" | "}}}},
		{"source as an object",
			`[{"claim":"A.","source":{"name":"Reuters","url":"https://reuters.example/a","quote":"A was reported here"}}]`,
			[]wantClaim{{"A.", []string{"https://reuters.example/a | A was reported here"}}}},
		{"wrapping quotation marks removed from the quote",
			`[{"claim":"A.","url":"https://a.example","quote":"“A was reported here”"}]`,
			[]wantClaim{{"A.", []string{"https://a.example | A was reported here"}}}},
		{"claims under another usual key",
			`{"findings":[{"claim":"A.","url":"https://a.example"}],"summary":"ignored"}`,
			[]wantClaim{{"A.", []string{"https://a.example | "}}}},
		{"a single claim object",
			`{"claim":"A.","url":"https://a.example"}`,
			[]wantClaim{{"A.", []string{"https://a.example | "}}}},
		{"strings as claims, with their URLs",
			`["A is true (https://a.example).", "B is true."]`,
			[]wantClaim{{"A is true.", []string{"https://a.example | "}}, {"B is true.", []string{" | "}}}},
		{"entries without text are skipped, numbers and nulls ignored",
			`[{"url":"https://a.example"}, 5, null, {"claim":"B.","url":null}]`,
			[]wantClaim{{"B.", []string{" | "}}}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			r, err := ParseClaimsJSON([]byte(tt.in))
			if err != nil {
				t.Fatalf("ParseClaimsJSON: %v", err)
			}
			var got []wantClaim
			for _, c := range r.Claims {
				got = append(got, wantClaim{c.Text, cits(c)})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("claims differ\n got: %q\nwant: %q", got, tt.want)
			}
			assertFromInput(t, tt.in, r)
		})
	}
}

func TestParseClaimsJSONErrors(t *testing.T) {
	tests := []struct {
		desc string
		in   string
		want error
		hint string
	}{
		{"not JSON", `claims: none`, ErrBadResearch, "does not parse"},
		{"a string", `"just text"`, ErrNothingUsable, "is a string"},
		{"an empty list", `[]`, ErrNothingUsable, "no claim"},
		{"an object without claims", `{"summary":"x"}`, ErrNothingUsable, "no claim"},
		{"two values", `[] []`, ErrBadResearch, "after the JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			_, err := ParseClaimsJSON([]byte(tt.in))
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.hint) {
				t.Fatalf("error %v, want one matching %v that mentions %q", err, tt.want, tt.hint)
			}
		})
	}
}

func TestReadRequestShapes(t *testing.T) {
	tests := []struct {
		desc string
		in   string
		want []wantClaim
	}{
		{"text form is a paste",
			`{"text":"Claim: A is true.\nSource: https://a.example"}`,
			[]wantClaim{{"A is true.", []string{"https://a.example | "}}}},
		{"claims form",
			`{"claims":[{"text":"A is true.","citations":[{"url":"https://a.example","quote":"A is entirely true"}]}]}`,
			[]wantClaim{{"A is true.", []string{"https://a.example | A is entirely true"}}}},
		{"a text with a URL is a claim object, not a paste",
			`{"text":"A is true.","url":"https://a.example"}`,
			[]wantClaim{{"A is true.", []string{"https://a.example | "}}}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			_, r, err := ReadRequest([]byte(tt.in))
			if err != nil {
				t.Fatalf("ReadRequest: %v", err)
			}
			var got []wantClaim
			for _, c := range r.Claims {
				got = append(got, wantClaim{c.Text, cits(c)})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("claims differ\n got: %q\nwant: %q", got, tt.want)
			}
		})
	}
	if _, _, err := ReadRequest([]byte(`{"text": 5`)); !errors.Is(err, ErrBadResearch) {
		t.Errorf("broken body: error %v, want ErrBadResearch", err)
	}
}

// TestParseLargePaste checks that a paste of 2,000 claims parses whole and in order.
func TestParseLargePaste(t *testing.T) {
	in := manyClaims(2000)
	r, err := ParseResearch(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Claims) != 2000 {
		t.Fatalf("got %d claims, want 2000", len(r.Claims))
	}
	for i, c := range []int{0, 999, 1999} {
		want := fmt.Sprintf("Company %d reported revenue of %d million in 2023.", c, c*7)
		if r.Claims[c].Text != want {
			t.Errorf("claim %d (%d): %q, want %q", c, i, r.Claims[c].Text, want)
		}
	}
}

// manyClaims builds a paste of n claims in mixed styles.
func manyClaims(n int) string {
	var b strings.Builder
	b.WriteString("Here is what I found:\n\n")
	for i := 0; i < n; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "%d. **Claim:** Company %d reported revenue of %d million in 2023.\n   **Source:** https://company%d.example/ir/2023-annual-report_(final)\n   **Quote:** “Revenue for the year was %d million dollars”\n\n", i+1, i, i*7, i, i*7)
		case 1:
			fmt.Fprintf(&b, "- Company %d reported revenue of %d million in 2023. [Annual report](https://company%d.example/ir) states “revenue for the year was %d million dollars”.\n\n", i, i*7, i, i*7)
		case 2:
			fmt.Fprintf(&b, "Company %d reported revenue of %d million in 2023.[%d]\n\n", i, i*7, i)
		case 3:
			fmt.Fprintf(&b, "Company %d reported revenue of %d million in 2023.\n> “Revenue for the year was %d million dollars” — https://company%d.example/ir\n\n", i, i*7, i*7, i)
		}
	}
	b.WriteString("\nSources:\n")
	for i := 2; i < n; i += 4 {
		fmt.Fprintf(&b, "[%d] https://company%d.example/filings/%d\n", i, i, i)
	}
	return b.String()
}

func BenchmarkParse2000Claims(b *testing.B) {
	in := manyClaims(2000)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseResearch(in); err != nil {
			b.Fatal(err)
		}
	}
}
