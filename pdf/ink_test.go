package pdf

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateInk = flag.Bool("update", false, "rewrite testdata/pdf/ink from the drawings in ink_test.go")

const inkDir = "../testdata/pdf/ink"

// An ink case is a one-page PDF drawn with a few operators: a sentence a reader sees, or one
// hidden from the reader by a trick, with the quote to look for. testdata/pdf/ink holds each
// as NAME.pdf, and cases.tsv lists them (name, seen or hidden, quote, what it is), for the
// tests of the verify package too.
type inkCase struct {
	name, desc string
	seen       bool
	// byInk: only the ink check sees that the quote is hidden; ledongthuc/pdf, which does
	// not render, reads it, and the verdicts split.
	byInk   bool
	quote   string
	content string
	// extra entries of the page dictionary, the catalog and the page's resources, and
	// objects from 6 on
	page, catalog, resources string
	more                     []string
}

const (
	inkHidden  = "The committee approved the harbour contract in secret"
	inkVisible = "This page also carries a sentence that anyone can read."
)

// pdfString is s as a PDF literal string.
func pdfString(s string) string {
	return "(" + strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(s) + ")"
}

// textAt draws s at (x, y) in Helvetica of size pt.
func textAt(x, y, pt float64, s string) string {
	return fmt.Sprintf("BT /F1 %g Tf %g %g Td %s Tj ET\n", pt, x, y, pdfString(s))
}

// hiddenAt is the hidden sentence drawn with the operators op in force, between q and Q.
func hiddenWith(op string) string {
	return "q " + op + " " + textAt(72, 600, 12, inkHidden) + "Q\n"
}

var inkCases = []inkCase{
	// What a reader does not see.
	{name: "white-on-white", desc: "drawn white on the white page", quote: inkHidden, content: hiddenWith("1 1 1 rg")},
	{name: "render-mode-3", desc: "text render mode 3 (invisible)", quote: inkHidden, content: "BT 3 Tr /F1 12 Tf 72 600 Td " + pdfString(inkHidden) + " Tj ET\n"},
	{name: "render-mode-7", desc: "text render mode 7 (a clip only)", quote: inkHidden, content: "q BT 7 Tr /F1 12 Tf 72 600 Td " + pdfString(inkHidden) + " Tj ET Q\n"},
	{name: "outside-left", desc: "left of the media box", quote: inkHidden, content: textAt(-500, 600, 12, inkHidden)},
	{name: "outside-right", desc: "right of the media box", quote: inkHidden, content: textAt(650, 600, 12, inkHidden)},
	{name: "outside-below", desc: "below the media box", quote: inkHidden, content: textAt(72, -40, 12, inkHidden)},
	{name: "outside-crop-box", desc: "inside the media box, outside the crop box", quote: inkHidden, content: textAt(72, 600, 12, inkHidden), page: "/CropBox [0 650 612 792]"},
	{name: "tiny-font", desc: "font size 0.01", quote: inkHidden, content: textAt(72, 600, 0.01, inkHidden)},
	{name: "tiny-matrix", desc: "12 pt through a text matrix that scales it by 0.01", quote: inkHidden, content: "BT /F1 12 Tf 0.01 0 0 0.01 72 600 Tm " + pdfString(inkHidden) + " Tj ET\n"},
	{name: "tiny-ctm", desc: "12 pt through a transformation matrix that scales it by 0.01", quote: inkHidden, content: "q 0.01 0 0 0.01 0 0 cm " + textAt(7200, 60000, 12, inkHidden) + "Q\n"},
	{name: "squashed", desc: "horizontal scaling of 1% (Tz)", quote: inkHidden, content: hiddenWith("1 Tz")},
	{name: "painted-over", desc: "painted over by a white rectangle", quote: inkHidden, content: textAt(72, 600, 12, inkHidden) + "1 1 1 rg 60 590 500 30 re f\n"},
	{name: "painted-over-pattern", desc: "painted over by a patchwork of coloured rectangles", quote: inkHidden, content: textAt(72, 600, 12, inkHidden) +
		"0.2 0.4 0.9 rg 60 590 90 30 re f 0.9 0.3 0.2 rg 150 590 90 30 re f 0.3 0.8 0.3 rg 240 590 90 30 re f 0.9 0.8 0.1 rg 330 590 90 30 re f 0.5 0.2 0.6 rg 420 590 90 30 re f\n"},
	{name: "painted-over-but-a-sliver", byInk: true, desc: "painted over but for the tops of its tallest letters", quote: inkHidden, content: textAt(72, 600, 12, inkHidden) + "1 1 1 rg 60 590 500 16 re f\n"},
	{name: "under-an-annotation", byInk: true, desc: "under a square annotation filled white", quote: inkHidden, content: textAt(72, 600, 12, inkHidden),
		page: "/Annots [6 0 R]", more: []string{"<< /Type /Annot /Subtype /Square /Rect [60 590 560 620] /F 4 /AP << /N 7 0 R >> >>",
			"<< /Type /XObject /Subtype /Form /BBox [0 0 500 30] /Length 22 >>" + streamMark + "1 1 1 rg 0 0 500 30 re f"}},
	{name: "clipped", desc: "clipped to a 1×1 box", quote: inkHidden, content: hiddenWith("72 600 1 1 re W n")},
	{name: "layer-off", desc: "in an optional-content group (layer) that is off", quote: inkHidden,
		content: "/OC /L1 BDC " + textAt(72, 600, 12, inkHidden) + "EMC\n", resources: "/Properties << /L1 6 0 R >>",
		catalog: "/OCProperties << /OCGs [6 0 R] /D << /OFF [6 0 R] >> >>", more: []string{"<< /Type /OCG /Name (Notes) >>"}},
	{name: "under-other-text", desc: "painted over, and other words drawn where it was", quote: inkHidden,
		content: textAt(72, 600, 12, inkHidden) + "1 1 1 rg 60 590 500 30 re f 0 g " + textAt(72, 600, 12, "The board rejected every offer for the harbour land")},
	{name: "actual-text", desc: "only in /ActualText; the glyphs read the opposite", quote: "The mayor gladly accepted the money from the builders",
		content: "/Span << /ActualText (The mayor gladly accepted the money from the builders) >> BDC " + textAt(72, 600, 12, "The mayor never accepted any money from the builders") + "EMC\n"},
	{name: "actual-text-in-layer-on", desc: "only in the /ActualText of a layer that is on; the glyphs read the opposite", quote: "The mayor gladly accepted the money from the builders",
		content: "/OC /L1 BDC " + textAt(72, 600, 12, "The mayor never accepted any money from the builders") + "EMC\n", resources: "/Properties << /L1 6 0 R >>",
		catalog: "/OCProperties << /OCGs [6 0 R] /D << /ON [6 0 R] >> >>", more: []string{"<< /Type /OCG /Name (Main) /ActualText (The mayor gladly accepted the money from the builders) >>"}},
	{name: "actual-text-in-layer-off", desc: "on a layer that is off, with an /ActualText", quote: inkHidden,
		content: "/OC /L1 BDC " + textAt(72, 600, 12, inkHidden) + "EMC\n", resources: "/Properties << /L1 6 0 R >>",
		catalog: "/OCProperties << /OCGs [6 0 R] /D << /OFF [6 0 R] >> >>", more: []string{"<< /Type /OCG /Name (Notes) /ActualText (" + inkHidden + ") >>"}},
	{name: "columns-one-row", desc: "two cells side by side on one baseline, read across the gap", quote: "The council approved the budget was rejected by the court",
		content: textAt(72, 600, 12, "The council approved the budget") + textAt(340, 600, 12, "was rejected by the court")},
	{name: "columns-across", desc: "two columns drawn line by line, read across the gap", quote: "approved the budget was rejected by the regional court", content: twoColumns},

	// What a reader sees: each must still be found.
	{name: "black", desc: "black text", seen: true, quote: "The harbour authority published its accounts in March", content: textAt(72, 600, 12, "The harbour authority published its accounts in March")},
	{name: "grey", desc: "grey text (50%)", seen: true, quote: "The grey sentence is printed lighter but plainly legible", content: "0.5 g " + textAt(72, 600, 12, "The grey sentence is printed lighter but plainly legible")},
	{name: "coloured-background", desc: "dark blue text on a yellow band", seen: true, quote: "Dark words on a yellow band are easy to read",
		content: "1 0.9 0.4 rg 60 590 500 30 re f 0 0 0.4 rg " + textAt(72, 600, 12, "Dark words on a yellow band are easy to read")},
	{name: "white-on-dark", desc: "white text on a dark band", seen: true, quote: "White letters stand out on the dark band of the header",
		content: "0.1 0.1 0.3 rg 60 590 500 30 re f 1 1 1 rg " + textAt(72, 600, 12, "White letters stand out on the dark band of the header")},
	{name: "small-6pt", desc: "a small but readable 6 pt font", seen: true, quote: "The footnote in six point type gives the source of the figures", content: textAt(72, 600, 6, "The footnote in six point type gives the source of the figures")},
	{name: "columns-within", desc: "two columns drawn line by line; the quote runs down one column", seen: true, quote: "approved the budget for the new school after a long debate", content: twoColumns},
	{name: "highlighted", desc: "marked with a yellow highlight multiplied over it", seen: true, quote: "The highlighted clause binds the city to the contract",
		content: textAt(72, 600, 12, "The highlighted clause binds the city to the contract") + "q /Hi gs 1 1 0 rg 70 596 300 14 re f Q\n", resources: "/ExtGState << /Hi << /BM /Multiply >> >>"},
	{name: "struck-through", desc: "struck through by a thin line", seen: true, quote: "The struck clause was withdrawn before the vote",
		content: textAt(72, 600, 12, "The struck clause was withdrawn before the vote") + "0 g 70 603 280 0.8 re f\n"},
	{name: "white-after-many-cells", desc: "white text on a dark band drawn after 1,100 other cells", seen: true, quote: "The last cell of the long table is printed white on navy",
		content: manyCells(1100) + "0.1 0.1 0.3 rg 60 590 500 30 re f 1 1 1 rg " + textAt(72, 600, 12, "The last cell of the long table is printed white on navy")},
	{name: "rotated", desc: "text turned a quarter", seen: true, quote: "The margin note runs up the side of the page", content: "BT /F1 10 Tf 0 1 -1 0 300 200 Tm (The margin note runs up the side of the page) Tj ET\n"},
	{name: "form-xobject", desc: "text in a form XObject, moved by its matrix", seen: true, quote: "The form draws this sentence from its own stream",
		content: "q /Fm1 Do Q\n", resources: "/XObject << /Fm1 6 0 R >>",
		more: []string{formXObject("BT /F1 12 Tf 72 700 Td (The form draws this sentence from its own stream) Tj ET")}},
	{name: "layer-on", desc: "in an optional-content group (layer) that is on", seen: true, quote: "The layer that is on shows this sentence to everyone",
		content: "/OC /L1 BDC " + textAt(72, 600, 12, "The layer that is on shows this sentence to everyone") + "EMC\n", resources: "/Properties << /L1 6 0 R >>",
		catalog: "/OCProperties << /OCGs [6 0 R] /D << /ON [6 0 R] >> >>", more: []string{"<< /Type /OCG /Name (Main) >>"}},
	{name: "white-then-black", desc: "drawn white, then again in black further down", seen: true, quote: inkHidden, content: hiddenWith("1 1 1 rg") + textAt(72, 500, 12, inkHidden)},
	{name: "actual-text-agrees", desc: "/ActualText that spells what the glyphs say", seen: true, quote: "The treasurer signed the annual report in June",
		content: "/Span << /ActualText (The treasurer signed the annual report in June) >> BDC " + textAt(72, 600, 12, "The treasurer signed the annual report in June") + "EMC\n"},
}

// twoColumns is two columns of three lines, drawn line by line across the page.
var twoColumns = textAt(72, 600, 12, "The council approved the budget") + textAt(340, 600, 12, "was rejected by the regional court") +
	textAt(72, 586, 12, "for the new school after a long") + textAt(340, 586, 12, "on appeal because the notice was") +
	textAt(72, 572, 12, "debate that lasted until midnight.") + textAt(340, 572, 12, "never published in the gazette.")

// manyCells draws n small grey squares in the lower part of the page.
func manyCells(n int) string {
	var b strings.Builder
	b.WriteString("0.85 g ")
	for i := range n {
		fmt.Fprintf(&b, "%d %d 4 4 re f ", 20+(i%100)*5, 40+(i/100)*5)
	}
	return b.String() + "\n"
}

// formXObject is a form XObject drawing content with the page's font, moved down 100 pt.
func formXObject(content string) string {
	return fmt.Sprintf("<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Matrix [1 0 0 1 0 -100] /Resources << /Font << /F1 5 0 R >> >> /Length %d >>", len(content)) + streamMark + content
}

// pdf draws the case: a US Letter page with the visible sentence at its top and the case's
// content below.
func (c inkCase) pdf() []byte {
	content := textAt(72, 720, 12, inkVisible) + c.content
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R " + c.catalog + " >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> " + c.resources + " >> " + c.page + " >>",
		fmt.Sprintf("<< /Length %d >>", len(content)) + streamMark + content,
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	}
	return pdfObjects(append(objs, c.more...)...)
}

// TestInkPDFs keeps testdata/pdf/ink equal to the drawings (go test ./fetch -run
// TestInkPDFs -update rewrites it).
func TestInkPDFs(t *testing.T) {
	var tsv bytes.Buffer
	tsv.WriteString("# name\tseen|hidden\tquote\twhat it is (written by go test ./pdf -run TestInkPDFs -update)\n")
	for _, c := range inkCases {
		want := "hidden"
		if c.seen {
			want = "seen"
		}
		fmt.Fprintf(&tsv, "%s\t%s\t%s\t%s\n", c.name, want, c.quote, c.desc)
		compareOrWrite(t, c.name+".pdf", c.pdf())
	}
	compareOrWrite(t, "cases.tsv", tsv.Bytes())
}

func compareOrWrite(t *testing.T, name string, b []byte) {
	t.Helper()
	compareOrWriteIn(t, inkDir, name, b)
}

// compareOrWriteIn is compareOrWrite for a file of dir.
func compareOrWriteIn(t *testing.T, dir, name string, b []byte) {
	t.Helper()
	path := filepath.Join(dir, name)
	if *updateInk {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, b) {
		t.Errorf("%s differs from its drawing (%v): run go test ./pdf -run 'TestInkPDFs|TestLangPDFs' -update", path, err)
	}
}

// quoteSpan is a place of a quote in a text: Body, or Alt when alt.
type quoteSpan struct {
	start, end int
	alt        bool
}

// findQuote returns every place of quote in the text (Body, then Alt), none across a column
// gap.
func findQuote(txt Text, quote string) []quoteSpan {
	var out []quoteSpan
	for _, alt := range []bool{false, true} {
		body, breaks := txt.Body, txt.Breaks
		if alt {
			body, breaks = txt.Alt, txt.AltBreaks
		}
		for from := 0; body != ""; {
			i := strings.Index(body[from:], quote)
			if i < 0 {
				break
			}
			i += from
			across := false
			for _, b := range breaks {
				across = across || b >= i && b < i+len(quote)
			}
			if !across {
				out = append(out, quoteSpan{i, i + len(quote), alt})
			}
			from = i + 1
		}
	}
	return out
}

// TestInkCases reads every ink case with both engines: a quote a reader sees must be in the
// text (and, for PDFium, pass the ink check), a hidden one must not be in the text, or, for
// PDFium, must fail the ink check. It logs which rule caught each hidden quote.
func TestInkCases(t *testing.T) {
	for _, c := range inkCases {
		pdf := c.pdf()
		for _, e := range pdfEngines {
			t.Run(c.name+"/"+e.name, func(t *testing.T) {
				txt, err := e.extract(pdf, DefaultLimits)
				if err != nil {
					t.Fatalf("%s: %v", c.desc, err)
				}
				if !strings.Contains(txt.Body, inkVisible) {
					t.Errorf("the visible sentence is not read: %q", txt.Body)
				}
				places := findQuote(txt, c.quote)
				found := len(places) > 0
				how := "left out of the text"
				seen := found
				if found && e.name == NamePDFium {
					seen = false
					for _, q := range places {
						glyphs, ok := txt.GlyphsIn(q.start, q.end, q.alt)
						if !ok || len(glyphs) == 0 {
							t.Fatalf("no glyphs for the quote at %d-%d of %q", q.start, q.end, txt.Body)
						}
						reps, err := CheckInk(pdf, [][]Glyph{glyphs})
						if err != nil {
							t.Fatal(err)
						}
						rep := reps[0]
						seen = seen || rep.Seen()
						how = fmt.Sprintf("read, but %d of its %d characters have no ink", len(rep.Unseen), rep.Checked)
					}
				}
				switch {
				case c.seen && !seen:
					t.Errorf("%s: a quote a reader sees is not seen (found in the text: %v): %q", c.desc, found, txt.Body)
				case !c.seen && seen && c.byInk && e.name == NamePDFText:
					t.Logf("%s: read: only the ink check sees it", c.desc)
				case !c.seen && seen:
					t.Errorf("%s: the hidden quote counts as seen: %q", c.desc, txt.Body)
				case !c.seen:
					t.Logf("%s: %s", c.desc, how)
				}
			})
		}
	}
}

// TestOrderPage holds the column rules on fragments placed by hand (12 pt lines, 14 pt
// high): the lines as laid out, with "‖" where a column gap separates two of them.
func TestOrderPage(t *testing.T) {
	at := func(line int, x0, x1, base float64, s string) pdfFrag {
		return pdfFrag{Text: s, Line: line, X0: x0, X1: x1, Base: base, Height: 14}
	}
	tests := []struct {
		desc  string
		frags []pdfFrag
		want  string
	}{
		{"one column: lines in order", []pdfFrag{at(0, 72, 400, 700, "a b"), at(1, 72, 380, 686, "c d"), at(2, 72, 200, 672, "e")}, "a b | c d | e"},
		{"two columns drawn line by line: read column by column, the first flowing into the second",
			[]pdfFrag{at(0, 72, 250, 700, "L1"), at(0, 330, 500, 700, "R1"), at(1, 72, 250, 686, "L2"), at(1, 330, 500, 686, "R2")}, "L1 | L2 | R1 | R2"},
		{"two cells on one baseline: a gap", []pdfFrag{at(0, 72, 250, 700, "A"), at(0, 330, 500, 700, "B")}, "A ‖ B"},
		{"a heading across both columns closes them", []pdfFrag{at(0, 72, 250, 700, "L1"), at(0, 330, 500, 700, "R1"), at(1, 72, 500, 660, "Heading"), at(2, 72, 400, 640, "next")},
			"L1 ‖ R1 | Heading | next"},
		{"columns drawn one after the other: the second flows on from the first",
			[]pdfFrag{at(0, 72, 250, 700, "L1"), at(1, 72, 250, 686, "L2"), at(2, 330, 500, 700, "R1"), at(3, 330, 500, 686, "R2")}, "L1 | L2 | R1 | R2"},
		{"a superscript on its own engine line goes on with the line",
			[]pdfFrag{at(0, 72, 120, 700, "ebb"), {Text: "SM", Line: 1, X0: 120, X1: 130, Base: 704, Height: 10}, at(2, 130, 400, 700, "is a mark")}, "ebb SM is a mark"},
		// A table's columns read like text columns: its last cell of a column runs on into the
		// top of the next (docs/pdf.md); cells side by side never join.
		{"a table: each column read down",
			[]pdfFrag{at(0, 72, 150, 700, "Name"), at(0, 300, 360, 700, "Age"), at(1, 72, 150, 686, "Ann"), at(1, 300, 360, 686, "41")}, "Name | Ann | Age | 41"},
		{"a table of one row: every cell apart",
			[]pdfFrag{at(0, 72, 150, 700, "Name"), at(0, 300, 360, 700, "Age"), at(0, 400, 460, 700, "City")}, "Name ‖ Age ‖ City"},
		{"fragments without a place keep their order", []pdfFrag{{Text: "x", Line: 0}, {Text: "y", Line: 1}}, "x | y"},
	}
	for _, tc := range tests {
		var b strings.Builder
		for i, l := range orderPage(tc.frags) {
			if i > 0 {
				if l.gap {
					b.WriteString(" ‖ ")
				} else {
					b.WriteString(" | ")
				}
			}
			b.WriteString(l.text)
		}
		if b.String() != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.desc, b.String(), tc.want)
		}
	}
}

// TestInkShareOfCorpus confirms every found quote of the printed corpus with the ink check
// and holds the least share of its box a character's ink covers to twice inkShare at
// least: the threshold leaves a margin for real text. The share is printed (docs/pdf.md).
func TestInkShareOfCorpus(t *testing.T) {
	rows, err := os.ReadFile(filepath.Join(pdfDir, "quotes.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	least, chars := 1.0, 0
	for _, n := range pdfCorpusPrinted {
		pdf := readPDFFile(t, n+".pdf")
		txt, err := ExtractPDFium(pdf)
		if err != nil {
			t.Fatal(err)
		}
		var quotes [][]Glyph
		for _, row := range strings.Split(string(rows), "\n") {
			cols := strings.SplitN(row, "\t", 4)
			if len(cols) != 4 || cols[0] != n+".pdf" || cols[1] != "found" {
				continue
			}
			places := findQuote(txt, cols[3])
			if len(places) == 0 {
				t.Fatalf("%s: %q is not in the text", n, cols[3])
			}
			g, ok := txt.GlyphsIn(places[0].start, places[0].end, false)
			if !ok {
				t.Fatalf("%s: no glyphs for %q", n, cols[3])
			}
			quotes = append(quotes, g)
		}
		reps, err := CheckInk(pdf, quotes)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range reps {
			if !r.Seen() {
				t.Errorf("%s: quote %d: %d of %d characters unseen", n, i, len(r.Unseen), r.Checked)
			}
			chars += r.Checked
			least = min(least, r.minShare)
		}
	}
	t.Logf("%d characters of the corpus quotes: the least ink covers %.0f%% of its box", chars, 100*least)
	if least < 2*inkShare {
		t.Errorf("a character's ink covers only %.1f%% of its box, within twice the threshold (%.0f%%)", 100*least, 100*inkShare)
	}
}
