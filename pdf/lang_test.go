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

// langPDFs are the PDFs of testdata/pdf/lang: one sentence whose "sin" is English (a sin
// tax) or, read as Spanish, a negation ("without"), under each /Lang; verify's
// TestPDFDeclaredLanguage checks an elided quote over it against each.
var langPDFs = map[string]string{
	"lang-none.pdf": "",
	"lang-en.pdf":   "/Lang (en-GB)",
	"lang-es.pdf":   "/Lang (es)",
}

// langSentence is the sentence of the lang PDFs: too few function words for the negation
// check to tell its language from the passage alone.
const langSentence = "Lawmakers debated sin taxes, tobacco levies, excise duties."

// TestLangPDFs keeps testdata/pdf/lang equal to its drawings (-update rewrites it).
func TestLangPDFs(t *testing.T) {
	for name, catalog := range langPDFs {
		compareOrWriteIn(t, "../testdata/pdf/lang", name, onePage(catalog, "", "", textAt(72, 700, 12, langSentence)))
	}
}
