package web

import (
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var rePairRow = regexp.MustCompile(`<tr><td class="quote">(.*?)</td><td class="source">(.*?)</td>`)

// previewPairs returns the preview's rows as "quote → source" strings, as the person reads
// them (markup removed, entities decoded).
func previewPairs(body string) []string {
	tags := regexp.MustCompile(`<[^>]*>`)
	var out []string
	for _, m := range rePairRow.FindAllStringSubmatch(body, -1) {
		out = append(out, html.UnescapeString(tags.ReplaceAllString(m[1], ""))+" → "+html.UnescapeString(tags.ReplaceAllString(m[2], "")))
	}
	return out
}

// TestPreviewShowsPairing: the preview shows, for every quote, the source it will be
// checked against and the marker of the paste that named it, as the markers bind them: a
// marker after a closing quote and a space cites its own sentence, not the next one.
func TestPreviewShowsPairing(t *testing.T) {
	f := newPageFixture(t, "")
	b := f.browser(t)
	b.signIn("olga", opPassword)
	paste := `Netscape said the browser "will also be free of charge." [1] Zawinski "registered the domain in advance" [2]. The page says "the <b>source</b> code is public" [3].

[1]: https://netscape.example/press
[2]: https://jwz.example/mozilla
[3]: https://linkedin.example/in/someone
`
	p := b.post("/paste/preview", url.Values{"text": {paste}})
	if p.status != 200 {
		t.Fatalf("preview: %d %s", p.status, p.body)
	}
	got := previewPairs(p.body)
	want := []string{
		"“will also be free of charge.” → https://netscape.example/press from [1]",
		"“registered the domain in advance” → https://jwz.example/mozilla from [2]",
		"“the <b>source</b> code is public” → https://linkedin.example/in/someone from [3]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("preview pairs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if strings.Contains(p.body, "<b>source</b>") {
		t.Fatal("a quote's markup reached the HTML unescaped")
	}
	// A citation without a source says it is not checked; one without a quote says so.
	p = b.post("/paste/preview", url.Values{"text": {"Claim: The river is 300 km long.\nQuote: \"The river runs for 300 kilometres\"\n\nClaim: The lake is deep.\nSource: https://lake.example/facts\n"}})
	got = previewPairs(p.body)
	want = []string{"“The river runs for 300 kilometres” → no source: not checked", "no quote → https://lake.example/facts"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("preview pairs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPreviewShowsJSONNotRead: the values of a JSON paste the reader does not read and that
// may hold a source or a quote are listed by name, escaped, also when no claim was found.
func TestPreviewShowsJSONNotRead(t *testing.T) {
	f := newPageFixture(t, "")
	b := f.browser(t)
	b.signIn("olga", opPassword)
	paste := `[{"claim": "The plan adds 4,000 homes by 2030.", "source_uri": "https://council.example/plan", "supporting_text": "The plan provides for 4,000 new homes by 2030", "page_link": "https://mirror.example/plan", "passage": "<script>x</script> the plan provides for new homes", "id": "c1"}]`
	p := b.post("/paste/preview", url.Values{"text": {paste}})
	if p.status != 200 {
		t.Fatalf("preview: %d %s", p.status, p.body)
	}
	if got := previewPairs(p.body); len(got) != 1 || got[0] != "“The plan provides for 4,000 new homes by 2030” → https://council.example/plan" {
		t.Fatalf("preview pairs %q", got)
	}
	for _, want := range []string{
		`<h3>2 value(s) of the JSON not read</h3>`,
		`<li><code class="wrap">[0].page_link</code>: https://mirror.example/plan</li>`,
		`<li><code class="wrap">[0].passage</code>: &lt;script&gt;x&lt;/script&gt; the plan provides for new homes</li>`,
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("preview lacks %s\n%s", want, p.body)
		}
	}
	if strings.Contains(p.body, "[0].id") || strings.Contains(p.body, "<script>x") {
		t.Error("the preview lists a short value as not read, or shows raw markup")
	}
	// No claim at all: the problem, and the members that were not read.
	p = b.post("/paste/preview", url.Values{"text": {`[{"title": "Housing plan", "page": "https://council.example/plan", "passage": "The plan provides for 4,000 new homes by 2030"}]`}})
	if p.status != 422 || !strings.Contains(p.body, `class="problem"`) || !strings.Contains(p.body, `<code class="wrap">[0].page</code>`) || !strings.Contains(p.body, `<code class="wrap">[0].passage</code>`) {
		t.Fatalf("preview of JSON without a claim: %d %s", p.status, p.body)
	}
}
