package evidence

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestTriageTable sorts every labelled line of the memory files under testdata/gate/triage
// (files in the shapes agents keep: CLAUDE.md, AGENTS.md, GEMINI.md, MEMORY.md, a memories/
// folder) and prints the precision and recall of "factual". Each NAME.labels holds one line
// per statement of NAME: "F" (a factual claim) or "N" (not a claim), a tab, and the line as
// NAME holds it. A factual line sorted as not a claim fails the test: that is the error that
// lets a fabrication into memory. A line wrongly gated is counted, not failed.
func TestTriageTable(t *testing.T) {
	files, err := filepath.Glob("../testdata/gate/triage/*.labels")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../testdata/gate/triage/*/*.labels")
	files = append(files, more...)
	if len(files) < 5 {
		t.Fatalf("want the labelled memory files in ../testdata/gate/triage, found %d", len(files))
	}
	var tp, fp, fn, tn int
	var held [4]int // tp, fp, fn, tn of holdout.md, written after the rules were tuned
	for _, lf := range files {
		tp0, fp0, fn0, tn0 := tp, fp, fn, tn
		md, err := os.ReadFile(strings.TrimSuffix(lf, ".labels"))
		if err != nil {
			t.Fatal(err)
		}
		lines := map[string]bool{}
		for _, l := range strings.Split(string(md), "\n") {
			lines[l] = true
		}
		f, err := os.Open(lf)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		factual := 0
		for sc.Scan() {
			label, line, ok := strings.Cut(sc.Text(), "\t")
			if !ok || (label != "F" && label != "N") || !lines[line] {
				t.Fatalf("%s: bad label line %q (want F or N, a tab, and a line of the file)", lf, sc.Text())
			}
			sorted, err := TriageText(line)
			if err != nil {
				t.Fatalf("%s: %q: %v", lf, line, err)
			}
			gated := false
			var why []string
			for _, s := range sorted {
				gated = gated || s.Gated()
				why = append(why, fmt.Sprintf("%s (%s)", s.Kind, s.Rule))
			}
			switch {
			case label == "F" && gated:
				tp++
				factual++
			case label == "F":
				fn++
				t.Errorf("%s: a factual claim let through: %q sorted as %s", filepath.Base(lf), line, strings.Join(why, "; "))
			case gated:
				fp++
				t.Logf("%s: gated although not a claim: %q: %s", filepath.Base(lf), line, strings.Join(why, "; "))
			default:
				tn++
			}
		}
		f.Close()
		if strings.HasSuffix(lf, "holdout.md.labels") {
			held = [4]int{tp - tp0, fp - fp0, fn - fn0, tn - tn0}
		}
		// Read whole, the file gates exactly its factual lines: context (headings, lists,
		// paragraphs) changes nothing.
		sorted, err := TriageText(string(md))
		if err != nil {
			t.Fatal(err)
		}
		gated := 0
		for _, s := range sorted {
			if s.Gated() {
				gated++
			}
		}
		if gated < factual {
			t.Errorf("%s read whole gates %d statements; its lines alone gate %d", filepath.Base(lf), gated, factual)
		}
	}
	total := tp + fp + fn + tn
	if total < 150 || (tp+fn)*2 < total {
		t.Errorf("the table has %d labelled lines, %d factual; want at least 150, half of them factual", total, tp+fn)
	}
	precision := float64(tp) / float64(max(tp+fp, 1))
	recall := float64(tp) / float64(max(tp+fn, 1))
	fmt.Printf("triage of %d labelled memory lines (%d factual): precision of factual %.3f (%d wrongly gated), recall %.3f (%d factual let through)\n",
		total, tp+fn, precision, fp, recall, fn)
	fmt.Printf("of which held out (holdout.md, labelled after the rules were written, never tuned on): %d lines (%d factual): precision %.3f (%d wrongly gated), recall %.3f (%d let through)\n",
		held[0]+held[1]+held[2]+held[3], held[0]+held[2], float64(held[0])/float64(max(held[0]+held[1], 1)), held[1], float64(held[0])/float64(max(held[0]+held[2], 1)), held[2])
}

func TestTriageSentence(t *testing.T) {
	tests := []struct {
		desc, text string
		want       Kind
	}{
		{"an ordinary preference", "- The user prefers tabs over spaces.", KindPreference},
		{"an imperative with a command", "- Run `go test ./...` before committing.", KindInstruction},
		{"remember to: an instruction", "- Remember to ask before deleting files.", KindInstruction},
		{"remember that: the fact it wraps", "Remember that Acme's fiscal year ends in March.", KindFactual},
		{"I think: the fact it wraps", "I think Acme was founded in 1999.", KindFactual},
		{"I think: an opinion it wraps", "I think tabs are nicer.", KindOpinion},
		{"a version name is not the imperative go", "Go 1.22 was released in February 2024.", KindFactual},
		{"a noun that looks like an imperative", "Use of solar power grew 24% in 2023.", KindFactual},
		{"set as a noun", "Set theory was founded by Cantor in 1874.", KindFactual},
		{"a brand in camel case is not a path", "macOS uses a case-insensitive file system by default.", KindFactual},
		{"a reported fact about the user is still a fact", "I read that Paris is the capital of France.", KindFactual},
		{"a fact without a figure", "Paris is the capital of France.", KindFactual},
		{"a name and a role", "Olga is the maintainer.", KindFactual},
		{"a bare value under an unknown key", "CEO: Jane Doe", KindFactual},
		{"a figure under an unknown key", "Founded: 1999", KindFactual},
		{"a setting", "Editor: Neovim", KindPreference},
		{"a setting with a version", "Python version: 3.12", KindPreference},
		{"a note label wraps a fact", "Note: Acme was sold in 2021.", KindFactual},
		{"a command line", "go test ./...", KindCode},
		{"a path alone", "cmd/ledger/main.go", KindCode},
		{"a question", "Is the staging database still shared?", KindQuestion},
		{"a task box", "[ ] Add retries to the fetcher", KindPlan},
		{"a task box over a fact", "[x] Acme was sold in 2021", KindFactual},
		{"a plan", "We will migrate to Postgres next quarter.", KindPlan},
		{"a judgement", "The old checkout flow is a mess.", KindOpinion},
		{"a comparison with a figure is a fact", "Postgres is better than MySQL at 95% of the TPC-C tests.", KindFactual},
		{"a rule of the project", "Commits must be signed.", KindInstruction},
		{"a law is not a rule of the project", "Companies must file accounts within nine months.", KindFactual},
		{"a condition and an imperative", "If the build fails, run go clean -cache.", KindInstruction},
		{"a condition and a fact", "After the merger, Acme had 400 staff.", KindFactual},
		{"a short label", "Coding style", KindHeading},
		{"a short line with names is not a label", "Ann Lee chairs Acme", KindFactual},
		{"a preference of most people is a survey result", "Most Americans prefer coffee (Gallup, 2023).", KindFactual},
		{"a clause with a fact after an instruction", "Read the report: revenue grew 12% in 2023.", KindFactual},
		{"a dash joins a fact to a label", "Acme Ltd - registered office: 1 Park Row, Leeds.", KindFactual},
		{"courtesy", "Thanks!", KindHeading},
		{"a fact in an instruction's that-clause", "Tell the user that Acme was founded in 1999.", KindFactual},
		{"a convention in a that-clause", "Make sure that the build is green.", KindInstruction},
		{"a fact the user was told", "The user said that Acme moved to York.", KindFactual},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			if got := TriageSentence(tt.text); got.Kind != tt.want || got.Rule == "" {
				t.Fatalf("TriageSentence(%q) = %+v; want %s", tt.text, got, tt.want)
			}
		})
	}
}

func TestTriageText(t *testing.T) {
	text := "# Acme was founded in 1999\n\n## Conventions\n\n**Acme was sold in 2021**\n\nAcme moved to York\n\n" +
		"```sh\ngo test ./...\n```\n\n> Acme employs 40 people.\n\nWhat is Acme's revenue?\n\n- Use tabs.\n" +
		"- Acme grew 4% in 2023 ([report](https://acme.example/ir)): “Revenue increased 4%”.\n\n```\nAcme has 12 shops.\n"
	sorted, err := TriageText(text)
	if err != nil {
		t.Fatal(err)
	}
	gated := map[string]bool{}
	kinds := map[string]Kind{}
	for _, s := range sorted {
		kinds[s.Text] = s.Kind
		if s.Gated() {
			gated[s.Text] = true
		}
	}
	for _, want := range []string{"Acme was founded in 1999", "**Acme was sold in 2021**", "Acme moved to York", "Acme employs 40 people.", "Acme grew 4% in 2023 (report):.", "Acme has 12 shops."} {
		found := false
		for g := range gated {
			if strings.Contains(g, strings.Trim(want, "*.:()")) || g == want {
				found = true
			}
		}
		if !found {
			t.Errorf("%q is not gated; sorted: %+v", want, sorted)
		}
	}
	if kinds["go test ./..."] != KindCode || kinds["## Conventions"] != KindHeading || kinds["What is Acme's revenue?"] != KindQuestion || kinds["Use tabs."] != KindInstruction {
		t.Errorf("kinds: %v", kinds)
	}
	// JSON: values the claim reader does not read are sorted too.
	sorted, err = TriageText(`{"notes": "Acme was sold in 2021.", "claims": [{"text": "Acme was founded in 1999.", "url": "https://acme.example/about", "quote": "founded in 1999 in Leeds"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(sorted) != 2 || !sorted[0].Gated() || sorted[1].Left == nil || sorted[1].Left.Reason != LeftJSON || !sorted[1].Gated() {
		t.Errorf("JSON: %+v", sorted)
	}
	// The same inside a fenced json block of a Markdown text.
	sorted, err = TriageText("# Notes\n\n```json\n" + `{"notes": "Acme was sold in 2021.", "claims": [{"text": "Acme was founded in 1999.", "url": "https://acme.example/about", "quote": "founded in 1999 in Leeds"}]}` + "\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	var gatedTexts []string
	for _, s := range sorted {
		if s.Gated() {
			gatedTexts = append(gatedTexts, s.Text)
		}
	}
	if len(gatedTexts) != 2 || gatedTexts[1] != "Acme was sold in 2021." {
		t.Errorf("fenced JSON: gated %q; want the claim and the notes value", gatedTexts)
	}
	if _, err := TriageText(`{"claims": [`); !errors.Is(err, ErrBadResearch) {
		t.Errorf("broken JSON: %v; want ErrBadResearch", err)
	}
}

// FuzzTriageText checks that nothing before a factual sentence can hide it: whatever text
// comes first, a factual sentence after it is gated, unless the whole cannot be read (the
// gate then blocks all of it).
func FuzzTriageText(f *testing.F) {
	files, _ := filepath.Glob("../testdata/gate/triage/*.md")
	more, _ := filepath.Glob("../testdata/gate/triage/*/*.md")
	for _, file := range append(files, more...) {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("```\n")
	f.Add("## Sources\n")
	f.Add("| a | b |\n|---|---|\n")
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) || len(text) > 64<<10 {
			return
		}
		a, errA := TriageText(text)
		b, errB := TriageText(text)
		if (errA == nil) != (errB == nil) || len(a) != len(b) {
			t.Fatalf("not deterministic")
		}
		sorted, err := TriageText(text + "\n\nAcme was sold to Beta in 2021.\n")
		if err != nil {
			if !errors.Is(err, ErrBadResearch) {
				t.Fatalf("error %v does not match ErrBadResearch", err)
			}
			return
		}
		for _, s := range sorted {
			if s.Gated() && strings.Contains(s.Text, "2021") {
				return
			}
			if s.Claim != nil {
				for _, c := range s.Claim.Citations {
					if c.URL != "" && !s.Gated() {
						t.Fatalf("a claim with a URL is not gated: %+v", s)
					}
				}
			}
		}
		t.Fatalf("the factual sentence after %q is not gated: %+v", text, sorted)
	})
}

// TestTriagePathologicalIsFast sorts 256 KiB of each pattern that makes the rules look
// through one wrapper after another; each takes well under a second, and what is wrapped
// deeper than the rules look is gated.
func TestTriagePathologicalIsFast(t *testing.T) {
	for name, unit := range map[string]string{
		"wrappers":     "maybe ",
		"that-clauses": "tell them that we said that ",
		"keys":         "note: ",
		"task boxes":   "todo: [ ] ",
		"clauses":      "use tabs; ",
		"sentences":    "Use tabs. ",
		"lines":        "- Use tabs.\n",
	} {
		// Linear, whatever the machine: a text sixteen times longer costs under 64 times the
		// work (a quadratic rule would cost 256), work being the test thread's CPU time
		// (workCPU); each size is the best of three runs.
		timed := func(size int) (time.Duration, []Sorted, error) {
			text := strings.Repeat(unit, size/len(unit)) + "Acme was sold in 2021."
			best := time.Duration(1<<63 - 1)
			var sorted []Sorted
			var err error
			for range 3 {
				best = min(best, workCPU(t, func() { sorted, err = TriageText(text) }))
			}
			return best, sorted, err
		}
		small, _, _ := timed(16 << 10)
		took, sorted, err := timed(256 << 10)
		if took > 64*small {
			t.Errorf("%s: 256 KiB took %v, 16 KiB %v: not linear", name, took, small)
		}
		if err != nil || !anyGated(sorted) {
			t.Errorf("%s: nothing gated (%v)", name, err)
		}
	}
	if got := TriageSentence(strings.Repeat("maybe ", maxTriageDepth+2) + "use tabs"); !got.Gated() {
		t.Errorf("deep wrappers: %+v; want gated as too deep", got)
	}
}

func anyGated(sorted []Sorted) bool {
	for _, s := range sorted {
		if s.Gated() {
			return true
		}
	}
	return false
}
