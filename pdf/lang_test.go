package pdf

import (
	"strings"
	"testing"
)

// TestCatalogLang: both engines read the language a PDF's catalog declares (/Lang), as
// written, and keep nothing that is not a language tag.
func TestCatalogLang(t *testing.T) {
	cases := []struct {
		name, catalog, want string
	}{
		{"a literal string", "/Lang (es-MX)", "es-MX"},
		{"a UTF-16 string with its byte order mark", "/Lang <FEFF00700074002D00420052>", "pt-BR"},
		{"a string padded with spaces", "/Lang (  de )", "de"},
		{"none", "", ""},
		{"an empty string", "/Lang ()", ""},
		{"a name where a string belongs, read as PDFium reads it", "/Lang /fr", "fr"},
		{"a number", "/Lang 7", ""},
		{"a sentence, not a tag", "/Lang (the language of this report)", ""},
		{"a tag of 35 characters, the longest kept", "/Lang (" + strings.Repeat("a", maxLangTag) + ")", strings.Repeat("a", maxLangTag)},
		{"one character more", "/Lang (" + strings.Repeat("a", maxLangTag+1) + ")", ""},
	}
	engines := []struct {
		name    string
		extract func([]byte) (Text, error)
	}{{NamePDFium, ExtractPDFium}, {NamePDFText, ExtractPDFText}}
	for _, c := range cases {
		body := onePage(c.catalog, "", "", helloContent)
		for _, e := range engines {
			txt, err := e.extract(body)
			if err != nil {
				t.Fatalf("%s, %s: %v", c.name, e.name, err)
			}
			if txt.Lang != c.want {
				t.Errorf("%s, %s: Lang %q, want %q", c.name, e.name, txt.Lang, c.want)
			}
			if !strings.Contains(txt.Body, "says hello") {
				t.Errorf("%s, %s: the text was not read: %q", c.name, e.name, txt.Body)
			}
		}
	}
}

// langPDFs are the PDFs of testdata/pdf/lang, each a /Lang over one sentence. Three hold an
// English sentence whose "sin" is English (a sin tax) or, read as Spanish, a negation
// ("without"), too short for the passage to tell its language; the fourth declares English
// over a Spanish sentence whose words do tell. verify's TestPDFDeclaredLanguage checks an
// elided quote over each.
var langPDFs = map[string]struct{ catalog, sentence string }{
	"lang-none.pdf":       {"", langSentence},
	"lang-en.pdf":         {"/Lang (en-GB)", langSentence},
	"lang-es.pdf":         {"/Lang (es)", langSentence},
	"lang-en-over-es.pdf": {"/Lang (en)", "Aprobaron la reforma sin votos de la oposicion en el pleno."},
}

// langSentence is the English sentence of the lang PDFs: too few function words for the
// negation check to tell its language from the passage alone.
const langSentence = "Lawmakers debated sin taxes, tobacco levies, excise duties."

// TestLangPDFs keeps testdata/pdf/lang equal to its drawings (-update rewrites it).
func TestLangPDFs(t *testing.T) {
	for name, p := range langPDFs {
		compareOrWriteIn(t, "../testdata/pdf/lang", name, onePage(p.catalog, "", "", textAt(72, 700, 12, p.sentence)))
	}
}
