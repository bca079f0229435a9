package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/fetch/fetchtest"
	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// inversionWorld is a ledger holding three claims found at a loopback page, word for word
// its sentences, and the URL of that page.
func inversionWorld(t *testing.T) (*ledger.Store, string) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", http.NotFound)
	mux.HandleFunc("/news", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><body><p>Acme sued Beta over the harbour contract in March. The claim against Beta was not dismissed.</p>
<p>Sales rose 12 percent in 2020 and fell 5 percent in 2021.</p><p>Acme paid 5 mW of licence fees.</p></body></html>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	url := srv.URL + "/news"
	ctx := context.Background()
	st, err := ledger.Open(ctx, t.TempDir(), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var claims []map[string]any
	for _, s := range []string{"Acme sued Beta over the harbour contract in March.", "The claim against Beta was not dismissed.",
		"Sales rose 12 percent in 2020 and fell 5 percent in 2021.", "Acme paid 5 mW of licence fees."} {
		claims = append(claims, map[string]any{"text": s, "citations": []map[string]string{{"url": url, "quote": strings.TrimSuffix(s, ".")}}})
	}
	body, _ := json.Marshal(map[string]any{"claims": claims})
	_, res, err := evidence.ReadRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.ImportResearch(ctx, "user:olga", body, res)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verify.RunBatch(ctx, st, verify.NewChecker(fetchtest.Config()), "system", b.ID, false, 2, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range b.Claims {
		if c, err := st.Claim(ctx, c.ID); err != nil || c.Status != evidence.StatusFound || len(c.OpenSeams) != 0 {
			t.Fatalf("claim %q after the check: %+v %v; want found with no seam", c.Text, c, err)
		}
	}
	return st, url
}

// TestGateInversions is the inversion table of docs/gate.md: with "Acme sued Beta over the
// harbour contract in March." and its neighbours verified, each way of turning one around is
// blocked, written bare, citing the verified URL and quote, and after a check on the spot of
// the inverted sentence (which finds the quote: it is on the page) asked again bare; the
// verified texts themselves pass, and the blocked ones are offered the verified text.
func TestGateInversions(t *testing.T) {
	st, url := inversionWorld(t)
	ctx := context.Background()
	l := StoreLedger(st)
	const (
		sued  = "Acme sued Beta over the harbour contract in March"
		claim = "The claim against Beta was not dismissed"
		sales = "Sales rose 12 percent in 2020 and fell 5 percent in 2021"
		fees  = "Acme paid 5 mW of licence fees"
	)
	pass := []string{sued + ".", claim + ".", sales + ".", fees + ".", "acme sued Beta over the harbour contract in March",
		"Acme sued Beta over the harbour contract in March ([news](" + url + ")): “" + sued + "”.",
		"Acme sued Beta over the harbour contract ([news](" + url + ")): “" + sued + "”."}
	for _, text := range pass {
		if d, err := Evaluate(ctx, l, text, Options{}); err != nil || !d.Allow {
			t.Errorf("%q: %+v %v; want allowed", text, d, err)
		}
	}
	block := []struct{ desc, text, quote string }{
		{"roles swapped", "Beta sued Acme over the harbour contract in March.", sued},
		{"a negation dropped", "The claim against Beta was dismissed.", claim},
		{"figures swapped", "Sales rose 5 percent in 2020 and fell 12 percent in 2021.", sales},
		{"verbs swapped", "Sales fell 12 percent in 2020 and rose 5 percent in 2021.", sales},
		{"years swapped", "Sales rose 12 percent in 2021 and fell 5 percent in 2020.", sales},
		{"a unit's case changed", "Acme paid 5 MW of licence fees.", fees},
		{"a name's case changed", "Acme sued BETA over the harbour contract in March.", sued},
	}
	check := Options{Check: &Check{Store: StoreImporter(st), Checker: verify.NewChecker(fetchtest.Config()), Actor: "user:gate"}}
	for _, tt := range block {
		t.Run(tt.desc, func(t *testing.T) {
			cited := strings.TrimSuffix(tt.text, ".") + " ([news](" + url + ")): “" + tt.quote + "”."
			for _, c := range []struct {
				how  string
				text string
				opt  Options
			}{{"bare", tt.text, Options{}}, {"cited", cited, Options{}}, {"checked", cited, check}, {"bare after the check", tt.text, Options{}}} {
				d, err := Evaluate(ctx, l, c.text, c.opt)
				if err != nil || d.Allow || len(d.Claims) != 1 {
					t.Fatalf("%s: %+v %v; want blocked", c.how, d, err)
				}
				if got := d.Claims[0]; !sameWords(got.Instead, tt.quote) || !strings.Contains(strings.Join(got.Next, " "), "write instead the verified text") {
					t.Fatalf("%s: offered %q (next %q); want the verified text %q", c.how, got.Instead, got.Next, tt.quote)
				}
			}
		})
	}
}

func sameWords(a, b string) bool {
	return evidence.NormalizeText(strings.TrimSuffix(a, ".")) == evidence.NormalizeText(strings.TrimSuffix(b, "."))
}
