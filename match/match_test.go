package match

import (
	"errors"
	"strings"
	"testing"
)

// matchCase is one row of the matching tables: when found, the page's matched text (parts
// joined by " | ") and the excerpt are checked too.
type matchCase struct {
	desc    string
	page    string
	quote   string
	found   bool
	tier    Tier
	matched string
	excerpt string
}

func runMatchCases(t *testing.T, cases []matchCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.desc, func(t *testing.T) {
			m, err := Quote(c.page, c.quote)
			if err != nil {
				t.Fatalf("Quote: %v", err)
			}
			if m.Found != c.found {
				t.Fatalf("Found = %v, want %v (tier %v, spans %v)", m.Found, c.found, m.Tier, m.Spans)
			}
			if !c.found {
				if m.Spans != nil || m.Excerpt != "" {
					t.Errorf("not found but Spans = %v, Excerpt = %q", m.Spans, m.Excerpt)
				}
				return
			}
			if m.Tier != c.tier {
				t.Errorf("Tier = %v, want %v", m.Tier, c.tier)
			}
			var got []string
			for _, s := range m.Spans {
				got = append(got, c.page[s.Start:s.End])
			}
			if g := strings.Join(got, " | "); g != c.matched {
				t.Errorf("matched page text = %q, want %q", g, c.matched)
			}
			if m.Excerpt != c.excerpt {
				t.Errorf("Excerpt = %q, want %q", m.Excerpt, c.excerpt)
			}
			if m.Hint != nil {
				t.Errorf("found but Hint = %+v", m.Hint)
			}
		})
	}
}

func TestMatchQuoteTiers(t *testing.T) {
	runMatchCases(t, []matchCase{
		{
			desc:    "exact: the quote's bytes are on the page",
			page:    "The council met on Tuesday and approved the budget for 2024.",
			quote:   "approved the budget for 2024",
			found:   true,
			tier:    TierExact,
			matched: "approved the budget for 2024",
			excerpt: "The council met on Tuesday and approved the budget for 2024.",
		},
		{
			desc:    "exact: surrounding whitespace of the quote is trimmed",
			page:    "The council met on Tuesday and approved the budget.",
			quote:   "  \n approved the budget \t",
			found:   true,
			tier:    TierExact,
			matched: "approved the budget",
			excerpt: "The council met on Tuesday and approved the budget.",
		},
		{
			desc:    "whitespace: NBSP between words (folha: levantado&#160;porque)",
			page:    "O troféu foi levantado\u00a0porque o time venceu.",
			quote:   "foi levantado porque o time",
			found:   true,
			tier:    TierWhitespace,
			matched: "foi levantado\u00a0porque o time",
			excerpt: "O troféu foi levantado\u00a0porque o time venceu.",
		},
		{
			desc:    "whitespace: line break and indent in the middle of a sentence (la-nacion)",
			page:    "la República\n                de Turquía firmó",
			quote:   "la República de Turquía",
			found:   true,
			tier:    TierWhitespace,
			matched: "la República\n                de Turquía",
			excerpt: "la República\n                de Turquía firmó",
		},
		{
			desc:    "whitespace: U+3000 paragraph indent (yahoo-4)",
			page:    "。\u3000\u3000トレンドマイクロは無料のWi-Fiアプリを公開した。",
			quote:   "。 トレンドマイクロは無料のWi-Fiアプリ",
			found:   true,
			tier:    TierWhitespace,
			matched: "。\u3000\u3000トレンドマイクロは無料のWi-Fiアプリ",
			excerpt: "。\u3000\u3000トレンドマイクロは無料のWi-Fiアプリを公開した。",
		},
		{
			desc:    "whitespace: link with space inside and none outside (bbc-1)",
			page:    "on the Iran nuclear deal after an intense sell",
			quote:   "the Iran nuclear deal after an intense",
			found:   true,
			tier:    TierExact,
			matched: "the Iran nuclear deal after an intense",
			excerpt: "on the Iran nuclear deal after an intense sell",
		},
		{
			desc:    "whitespace: a quote with a double space",
			page:    "condemned the attack and said",
			quote:   "condemned the  attack and said",
			found:   true,
			tier:    TierWhitespace,
			matched: "condemned the attack and said",
			excerpt: "condemned the attack and said",
		},
		{
			desc:    "invisible: NBSP and zero-width space (liberation-1: Népal\u00a0:\u200b les images)",
			page:    "Séisme au Népal\u00a0:\u200b les images du drame",
			quote:   "Népal : les images du drame",
			found:   true,
			tier:    TierInvisible,
			matched: "Népal\u00a0:\u200b les images du drame",
			excerpt: "Séisme au Népal\u00a0:\u200b les images du drame",
		},
		{
			desc:    "invisible: right-to-left mark before a handle (medium-3)",
			page:    "as Federico Viticci (\u200f@viticci) wrote last week",
			quote:   "Federico Viticci (@viticci) wrote",
			found:   true,
			tier:    TierInvisible,
			matched: "Federico Viticci (\u200f@viticci) wrote",
			excerpt: "as Federico Viticci (\u200f@viticci) wrote last week",
		},
		{
			desc:    "invisible: U+FEFF inside coordinates (wikipedia-2)",
			page:    "The islands lie near 174°E\ufeff / \ufeff42°S in the Pacific.",
			quote:   "lie near 174°E / 42°S in the Pacific",
			found:   true,
			tier:    TierInvisible,
			matched: "lie near 174°E\ufeff / \ufeff42°S in the Pacific",
			excerpt: "The islands lie near 174°E\ufeff / \ufeff42°S in the Pacific.",
		},
		{
			desc:  "invisible: soft hyphens inside a long word, the quote misspells it",
			page:  "Die Donau\u00addampf\u00adschiff\u00adfahrt fuhr ab.",
			quote: "Die Donaudampfschiffahrt fuhr",
			found: false,
		},
		{
			desc:    "invisible: soft hyphens inside a long word",
			page:    "Die Donau\u00addampf\u00adschiff\u00adfahrt fuhr ab.",
			quote:   "Die Donaudampfschifffahrt fuhr",
			found:   true,
			tier:    TierInvisible,
			matched: "Die Donau\u00addampf\u00adschiff\u00adfahrt fuhr",
			excerpt: "Die Donau\u00addampf\u00adschiff\u00adfahrt fuhr ab.",
		},
		{
			desc:    "invisible: zero-width joiner and word joiner inside words",
			page:    "a hidden\u200dword and an\u2060other one",
			quote:   "hiddenword and another one",
			found:   true,
			tier:    TierInvisible,
			matched: "hidden\u200dword and an\u2060other one",
			excerpt: "a hidden\u200dword and an\u2060other one",
		},
		{
			desc:    "unicode: full-width letters and digits",
			page:    "Ｔｅｃｈ news: ＡＢＣ１２３ released today",
			quote:   "Tech news: ABC123 released",
			found:   true,
			tier:    TierUnicode,
			matched: "Ｔｅｃｈ news: ＡＢＣ１２３ released",
			excerpt: "Ｔｅｃｈ news: ＡＢＣ１２３ released today",
		},
		{
			desc:    "unicode: ligature ﬁ in the page",
			page:    "The ﬁnal ﬁgures were conﬁrmed on Friday.",
			quote:   "The final figures were confirmed",
			found:   true,
			tier:    TierUnicode,
			matched: "The ﬁnal ﬁgures were conﬁrmed",
			excerpt: "The ﬁnal ﬁgures were conﬁrmed on Friday.",
		},
		{
			desc:    "unicode: decomposed accents in the page, composed in the quote",
			page:    "Le ministre a de\u0301clare\u0301 que la loi passera.",
			quote:   "a déclaré que la loi",
			found:   true,
			tier:    TierUnicode,
			matched: "a de\u0301clare\u0301 que la loi",
			excerpt: "Le ministre a de\u0301clare\u0301 que la loi passera.",
		},
		{
			desc:    "punctuation: curly quotes on the page, straight in the quote (breitbart)",
			page:    "labelling \u201cfake news\u201d alongside other claims",
			quote:   "labelling \"fake news\" alongside",
			found:   true,
			tier:    TierPunctuation,
			matched: "labelling \u201cfake news\u201d alongside",
			excerpt: "labelling \u201cfake news\u201d alongside other claims",
		},
		{
			desc:    "punctuation: guillemets with NBSP inside, straight quotes without spaces (lemonde-1)",
			page:    "passer «\u00a0entre les mailles du filet\u00a0» selon lui",
			quote:   "passer \"entre les mailles du filet\" selon",
			found:   true,
			tier:    TierPunctuation,
			matched: "passer «\u00a0entre les mailles du filet\u00a0» selon",
			excerpt: "passer «\u00a0entre les mailles du filet\u00a0» selon lui",
		},
		{
			desc:    "punctuation: typographic apostrophe on the page",
			page:    "It\u2019s the company\u2019s best quarter yet",
			quote:   "It's the company's best quarter",
			found:   true,
			tier:    TierPunctuation,
			matched: "It\u2019s the company\u2019s best quarter",
			excerpt: "It\u2019s the company\u2019s best quarter yet",
		},
		{
			desc:    "punctuation: em dash on the page, spaced hyphen in the quote",
			page:    "The plan\u2014drafted in May\u2014was dropped.",
			quote:   "The plan - drafted in May - was dropped",
			found:   true,
			tier:    TierPunctuation,
			matched: "The plan\u2014drafted in May\u2014was dropped",
			excerpt: "The plan\u2014drafted in May\u2014was dropped.",
		},
		{
			desc:    "punctuation: en dash in a range, double hyphen in the quote",
			page:    "in the years 1914\u20131918 the war",
			quote:   "in the years 1914--1918",
			found:   true,
			tier:    TierPunctuation,
			matched: "in the years 1914\u20131918",
			excerpt: "in the years 1914\u20131918 the war",
		},
		{
			desc:    "punctuation: minus sign",
			page:    "temperatures of \u221240 degrees were measured",
			quote:   "temperatures of -40 degrees",
			found:   true,
			tier:    TierPunctuation,
			matched: "temperatures of \u221240 degrees",
			excerpt: "temperatures of \u221240 degrees were measured",
		},
		{
			desc:    "punctuation: French space before a colon, none in the quote",
			page:    "Séisme au Népal\u00a0: les images du drame",
			quote:   "Népal: les images du drame",
			found:   true,
			tier:    TierPunctuation,
			matched: "Népal\u00a0: les images du drame",
			excerpt: "Séisme au Népal\u00a0: les images du drame",
		},
		{
			desc:    "punctuation: double prime mapped before NFKC",
			page:    "a 27\u2033 screen and a 5\u2032 cable",
			quote:   "a 27\" screen and a 5' cable",
			found:   true,
			tier:    TierPunctuation,
			matched: "a 27\u2033 screen and a 5\u2032 cable",
			excerpt: "a 27\u2033 screen and a 5\u2032 cable",
		},
		{
			desc:    "case: the quote changes capitals",
			page:    "The Prime Minister Said On Monday",
			quote:   "the prime minister said on monday",
			found:   true,
			tier:    TierCase,
			matched: "The Prime Minister Said On Monday",
			excerpt: "The Prime Minister Said On Monday",
		},
		{
			desc:  "case: ß is not ss (in Maßen is not in Massen)",
			page:  "Die STRASSE wurde gesperrt.",
			quote: "Die Straße wurde gesperrt",
			found: false,
		},
		{
			desc:    "case: ß is the lower case of ẞ in a headline in capitals",
			page:    "DIE STRAẞE WURDE GESPERRT.",
			quote:   "Die Straße wurde gesperrt",
			found:   true,
			tier:    TierCase,
			matched: "DIE STRAẞE WURDE GESPERRT",
			excerpt: "DIE STRAẞE WURDE GESPERRT.",
		},
		{
			desc:    "case: Greek final sigma",
			page:    "ΟΔΥΣΣΕΑΣ ΚΑΙ ΠΗΝΕΛΟΠΗ",
			quote:   "Οδυσσεας και Πηνελοπη",
			found:   true,
			tier:    TierCase,
			matched: "ΟΔΥΣΣΕΑΣ ΚΑΙ ΠΗΝΕΛΟΠΗ",
			excerpt: "ΟΔΥΣΣΕΑΣ ΚΑΙ ΠΗΝΕΛΟΠΗ",
		},
		{
			desc:    "case: Turkish dotted capital İ matches i",
			page:    "İSTANBUL BÜYÜKŞEHİR BELEDİYESİ",
			quote:   "istanbul büyükşehir belediyesi",
			found:   true,
			tier:    TierCase,
			matched: "İSTANBUL BÜYÜKŞEHİR BELEDİYESİ",
			excerpt: "İSTANBUL BÜYÜKŞEHİR BELEDİYESİ",
		},
		{
			desc:  "case: Turkish dotless ı is its own letter, not i",
			page:  "kapının önünde bekliyordu",
			quote: "kapinin önünde bekliyordu",
			found: false,
		},
		{
			desc:    "all tiers at once: NBSP, ZWSP, full-width letters, curly quotes and capitals",
			page:    "HE SAID\u00a0\u201cTHE \uFF26\uFF29NAL\u200b WORD\u201d TODAY",
			quote:   "he said \"the final word\" today",
			found:   true,
			tier:    TierCase,
			matched: "HE SAID\u00a0\u201cTHE \uFF26\uFF29NAL\u200b WORD\u201d TODAY",
			excerpt: "HE SAID\u00a0\u201cTHE \uFF26\uFF29NAL\u200b WORD\u201d TODAY",
		},
		{
			desc:  "a ligature in a headline in capitals is a word in mixed case (ﬁNAL)",
			page:  "HE SAID\u00a0\u201cTHE \uFB01NAL\u200b WORD\u201d TODAY",
			quote: "he said \"the final word\" today",
			found: false,
		},
		{
			desc:    "the decoded <img> of 002 is text like any other",
			page:    "from an <img> tag in the controlled document",
			quote:   "from an <img> tag in the controlled",
			found:   true,
			tier:    TierExact,
			matched: "from an <img> tag in the controlled",
			excerpt: "from an <img> tag in the controlled document",
		},
		{
			desc:  "not found: one word differs",
			page:  "The council approved the budget for 2024 on Tuesday.",
			quote: "The council rejected the budget for 2024",
			found: false,
		},
		{
			desc:  "not found: a number differs",
			page:  "The council approved the budget for 2024 on Tuesday.",
			quote: "approved the budget for 2025",
			found: false,
		},
		{
			desc:  "not found: a paraphrase",
			page:  "The council approved the budget for 2024 on Tuesday.",
			quote: "On Tuesday the council passed the 2024 budget",
			found: false,
		},
		{
			desc:  "not found: words glued by the page are not split",
			page:  "the Mexico City Policy4,824 comments",
			quote: "Mexico City Policy 4,824 comments",
			found: false,
		},
		{
			desc:  "not found: the quote adds a space inside a word",
			page:  "the bookkeeper balanced the accounts",
			quote: "the book keeper balanced the",
			found: false,
		},
	})
}

func TestMatchQuoteEllipsis(t *testing.T) {
	page := "The minister said the reform would start in spring. Critics were unconvinced. " +
		"She added that every school would get new funds before the end of the year."
	far := "The minister said the reform would start in spring. " + strings.Repeat("Filler words here. ", 40) +
		"She added that every school would get new funds."
	runMatchCases(t, []matchCase{
		{
			desc:    "unicode ellipsis joins two parts",
			page:    page,
			quote:   "the reform would start in spring … every school would get new funds",
			found:   true,
			tier:    TierExact,
			matched: "the reform would start in spring | every school would get new funds",
			excerpt: page,
		},
		{
			desc:    "three dots",
			page:    page,
			quote:   "the reform would start... every school would get",
			found:   true,
			tier:    TierExact,
			matched: "the reform would start | every school would get",
			excerpt: page,
		},
		{
			desc:    "bracketed ellipsis [...]",
			page:    page,
			quote:   "The minister said [...] Critics were unconvinced",
			found:   true,
			tier:    TierExact,
			matched: "The minister said | Critics were unconvinced",
			excerpt: page,
		},
		{
			desc:    "bracketed ellipsis […] and (…) and case folding in a part",
			page:    page,
			quote:   "the minister said […] critics were unconvinced (…) every school would",
			found:   true,
			tier:    TierCase,
			matched: "The minister said | Critics were unconvinced | every school would",
			excerpt: page,
		},
		{
			desc:    "bracketed four dots [....]",
			page:    page,
			quote:   "The minister said [....] Critics were unconvinced",
			found:   true,
			tier:    TierExact,
			matched: "The minister said | Critics were unconvinced",
			excerpt: page,
		},
		{
			desc:    "spaced dots . . .",
			page:    page,
			quote:   "The minister said . . . Critics were unconvinced",
			found:   true,
			tier:    TierExact,
			matched: "The minister said | Critics were unconvinced",
			excerpt: page,
		},
		{
			desc:    "leading and trailing ellipses are dropped",
			page:    page,
			quote:   "… the reform would start in spring …",
			found:   true,
			tier:    TierExact,
			matched: "the reform would start in spring",
			excerpt: page,
		},
		{
			desc:  "parts out of order",
			page:  page,
			quote: "every school would get new funds … the reform would start in spring",
			found: false,
		},
		{
			desc:  "parts too far apart",
			page:  far,
			quote: "the reform would start in spring … every school would get new funds",
			found: false,
		},
		{
			desc:  "one part missing",
			page:  page,
			quote: "the reform would start in spring … every hospital would get new funds",
			found: false,
		},
		{
			desc:    "a later first part completes the chain when the earliest cannot",
			page:    "alpha beta gamma. " + strings.Repeat("x ", 700) + "alpha beta gamma delta epsilon",
			quote:   "alpha beta gamma … delta epsilon",
			found:   true,
			tier:    TierExact,
			matched: "alpha beta gamma | delta epsilon",
			excerpt: strings.Repeat("x ", 59) + "x alpha beta gamma delta epsilon",
		},
		{
			desc:  "a middle part close to the first is too far from the last",
			page:  "one two three four five six seven. " + "middle part here " + strings.Repeat("y ", 650) + "middle part here and the end of it all",
			quote: "one two three four … middle part here … the end of it all",
			found: false,
		},
	})
}

// TestMatchQuoteEllipsisOnePassage: the parts of a quote must lie in one passage. Parts
// each within reach of the one before but chained across the page (the text left out totals
// more than MaxEllipsisGap runes) are not a match; the same parts close together are.
func TestMatchQuoteEllipsisOnePassage(t *testing.T) {
	quote := "one two three four … middle part here … the end of it all"
	chained := "one two three four. " + strings.Repeat("y ", 250) + "middle part here " +
		strings.Repeat("z ", 250) + "the end of it all"
	m, err := Quote(chained, quote)
	if err != nil {
		t.Fatal(err)
	}
	if m.Found {
		t.Fatalf("found %v across %d runes left out; want not found (limit %d in all)", m.Spans, 1000, MaxEllipsisGap)
	}
	close := "one two three four. " + strings.Repeat("y ", 140) + "middle part here " +
		strings.Repeat("z ", 140) + "the end of it all"
	if m, err = Quote(close, quote); err != nil || !m.Found {
		t.Fatalf("560 runes left out in all: found=%v err=%v, want found", m.Found, err)
	}
	if got := close[m.Spans[1].Start:m.Spans[1].End]; got != "middle part here" {
		t.Fatalf("middle span = %q", got)
	}
}

func TestMatchQuoteTooShort(t *testing.T) {
	for _, c := range []struct {
		desc  string
		quote string
	}{
		{"empty", ""},
		{"only whitespace", " \n\t\u00a0 "},
		{"eleven runes", "abcdefghijk"},
		{"eleven runes padded with spaces", "   abcdefghijk   "},
		{"twelve runes only with the ellipsis", "abcde … fghij"},
		{"only ellipses", "… ... […] (…) ..."},
		{"eleven CJK runes", "一二三四五六七八九十一"},
	} {
		t.Run(c.desc, func(t *testing.T) {
			_, err := Quote("abcdefghijk abcde fghij 一二三四五六七八九十一", c.quote)
			if !errors.Is(err, ErrQuoteTooShort) {
				t.Fatalf("err = %v, want ErrQuoteTooShort", err)
			}
		})
	}
	if _, err := Quote("twelve letter", "twelve letter"); err != nil {
		t.Fatalf("twelve letters: %v", err)
	}
}

func TestMatchQuoteExcerptContext(t *testing.T) {
	before := strings.Repeat("alpha ", 40) // 240 runes
	after := strings.Repeat(" omega", 40)
	page := before + "the quoted sentence is here" + after
	m, err := Quote(page, "the quoted sentence is here")
	if err != nil || !m.Found {
		t.Fatalf("Quote: found=%v err=%v", m.Found, err)
	}
	want := strings.Repeat("alpha ", 20) + "the quoted sentence is here" + strings.Repeat(" omega", 20)
	if m.Excerpt != want {
		t.Fatalf("Excerpt = %q\nwant     %q", m.Excerpt, want)
	}
	h := m.Highlight[0]
	if m.Excerpt[h.Start:h.End] != "the quoted sentence is here" {
		t.Fatalf("Highlight %v marks %q", h, m.Excerpt[h.Start:h.End])
	}
	if page[m.ExcerptSpan.Start:m.ExcerptSpan.End] != m.Excerpt {
		t.Fatalf("ExcerptSpan %v does not locate the excerpt", m.ExcerptSpan)
	}

	// Text without spaces (Chinese) is cut at the rune count.
	cjk := strings.Repeat("中", 200) + "这是被引用的一句话在这里" + strings.Repeat("文", 200)
	m, err = Quote(cjk, "这是被引用的一句话在这里")
	if err != nil || !m.Found {
		t.Fatalf("Quote CJK: found=%v err=%v", m.Found, err)
	}
	if want := strings.Repeat("中", 120) + "这是被引用的一句话在这里" + strings.Repeat("文", 120); m.Excerpt != want {
		t.Fatalf("CJK Excerpt = %q", m.Excerpt)
	}
}

func TestMatchQuoteHint(t *testing.T) {
	page := "Opening remarks. The council approved the budget for 2024 on Tuesday after a long debate. " +
		"Unrelated closing words follow here."
	for _, c := range []struct {
		desc    string
		quote   string
		hint    string
		minSim  int
		maxSim  int
		hasHint bool
	}{
		{"one word changed", "The council rejected the budget for 2024 on Tuesday", "The council approved the budget for 2024 on Tuesday", 85, 90, true},
		{"number changed", "approved the budget for 2025 on Tuesday after", "approved the budget for 2024 on Tuesday after", 85, 90, true},
		{"words swapped", "the budget approved the council for 2024", "The council approved the budget for 2024", 100, 100, true},
		{"nothing alike", "zebras migrate across the savannah every winter", "", 0, 0, false},
	} {
		t.Run(c.desc, func(t *testing.T) {
			m, err := Quote(page, c.quote)
			if err != nil {
				t.Fatal(err)
			}
			if m.Found {
				t.Fatalf("found at tier %v; similarity must never count as found", m.Tier)
			}
			if (m.Hint != nil) != c.hasHint {
				t.Fatalf("Hint = %+v, want hint: %v", m.Hint, c.hasHint)
			}
			if !c.hasHint {
				return
			}
			if m.Hint.Text != c.hint {
				t.Errorf("Hint.Text = %q, want %q", m.Hint.Text, c.hint)
			}
			if page[m.Hint.Span.Start:m.Hint.Span.End] != m.Hint.Text {
				t.Errorf("Hint.Span %v does not locate the hint", m.Hint.Span)
			}
			if m.Hint.Similarity < c.minSim || m.Hint.Similarity > c.maxSim {
				t.Errorf("Similarity = %d, want %d..%d", m.Hint.Similarity, c.minSim, c.maxSim)
			}
		})
	}
}

func TestTierString(t *testing.T) {
	want := []string{"exact", "whitespace", "invisible", "unicode", "punctuation", "case"}
	for i, w := range want {
		if got := Tier(i).String(); got != w {
			t.Errorf("Tier(%d) = %q, want %q", i, got, w)
		}
	}
	if got := Tier(9).String(); got != "Tier(9)" {
		t.Errorf("Tier(9) = %q", got)
	}
}
