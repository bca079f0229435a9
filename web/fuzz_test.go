package web

import (
	"bufio"
	"encoding/json"
	"html/template"
	"os"
	"strings"
	"testing"

	"evidenceledger/match"
)

// FuzzHighlight checks that the excerpt highlighter never loses or invents text, and that
// page text rendered through it never becomes markup.
func FuzzHighlight(f *testing.F) {
	file, err := os.Open("../testdata/quotes/seeds.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var seed struct{ Page, Quote string }
		if err := json.Unmarshal(sc.Bytes(), &seed); err != nil {
			f.Fatalf("seed %s: %v", sc.Text(), err)
		}
		f.Add(seed.Page, seed.Quote)
	}
	f.Add(`<script>alert(1)</script> and "><img src=x onerror=alert(1)> here`, `"><img src=x onerror=alert(1)>`)
	tmpl := template.Must(template.New("x").Funcs(template.FuncMap{"highlight": highlight}).Parse(
		`{{range highlight .E .Q}}{{if .Mark}}<mark>{{.Text}}</mark>{{else}}{{.Text}}{{end}}{{end}}`))
	f.Fuzz(func(t *testing.T, excerpt, quote string) {
		segs := highlight(excerpt, quote)
		var whole strings.Builder
		marked := 0
		for _, s := range segs {
			if s.Text == "" {
				t.Fatalf("empty segment in %+v", segs)
			}
			if s.Mark {
				marked++
			}
			whole.WriteString(s.Text)
		}
		if whole.String() != excerpt {
			t.Fatalf("segments %+v do not rebuild the excerpt %q", segs, excerpt)
		}
		if m, err := match.Quote(excerpt, quote); err == nil && m.Found && marked == 0 {
			t.Fatalf("quote %q found in %q but nothing marked", quote, excerpt)
		}
		var out strings.Builder
		if err := tmpl.Execute(&out, map[string]string{"E": excerpt, "Q": quote}); err != nil {
			t.Fatal(err)
		}
		rest := strings.NewReplacer("<mark>", "", "</mark>", "").Replace(out.String())
		if strings.Contains(rest, "<") {
			t.Fatalf("page text became markup: %q", out.String())
		}
	})
}
