package evidence

import (
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
)

// lang is a set of languages, one bit each.
type lang uint16

const (
	langEN lang = 1 << iota
	langDE
	langFR
	langES
	langIT
	langPT
	langNL
	langCS
	langPL
	langRU
)

// negationWords are the words that negate what they stand in, lower case, each with the
// languages in which it does. The corpus languages (English, Czech, German, Spanish, French,
// Portuguese) and a few neighbours (Italian, Dutch, Polish, Russian).
var negationWords = map[string]lang{
	// English; also every word ending in n't (isn't, can't, won't)
	"not": langEN, "no": langEN | langES | langIT, "never": langEN, "nor": langEN,
	"neither": langEN, "without": langEN, "none": langEN, "nothing": langEN, "nobody": langEN,
	"nowhere": langEN, "cannot": langEN, "no-one": langEN, "sans": langEN | langFR,
	// German
	"nicht": langDE, "kein": langDE, "keine": langDE, "keinen": langDE, "keinem": langDE,
	"keiner": langDE, "keines": langDE, "nie": langDE | langPL, "niemals": langDE,
	"nichts": langDE, "niemand": langDE, "ohne": langDE, "weder": langDE, "nirgends": langDE,
	// French; also the elision n' (n'est, n'a)
	"ne": langFR | langCS, "pas": langFR, "jamais": langFR | langPT, "aucun": langFR,
	"aucune": langFR, "ni": langFR | langES, "rien": langFR, "non": langFR | langIT,
	"nul": langFR, "nulle": langFR,
	// Spanish
	"nunca": langES | langPT, "jamás": langES, "sin": langES, "ningún": langES,
	"ninguno": langES, "ninguna": langES, "nada": langES | langPT, "nadie": langES,
	"tampoco": langES,
	// Italian
	"mai": langIT, "senza": langIT, "nessuno": langIT, "nessuna": langIT, "niente": langIT,
	"nulla": langIT, "né": langIT, "neanche": langIT, "nemmeno": langIT, "neppure": langIT,
	// Portuguese
	"não": langPT, "sem": langPT, "nem": langPT, "nenhum": langPT, "nenhuma": langPT,
	"ninguém": langPT,
	// Dutch
	"niet": langNL, "geen": langNL, "nooit": langNL, "zonder": langNL, "niets": langNL,
	// Czech
	"nikdy": langCS, "bez": langCS | langPL, "ani": langCS, "žádný": langCS, "žádná": langCS,
	"žádné": langCS, "nic": langCS | langPL, "nikdo": langCS, "není": langCS, "nejsou": langCS,
	"nebyl": langCS, "nebyla": langCS, "nebylo": langCS, "nemá": langCS, "nemůže": langCS,
	// Polish
	"nigdy": langPL, "żaden": langPL, "żadna": langPL, "żadne": langPL, "nikt": langPL,
	// Russian
	"не": langRU, "нет": langRU, "ни": langRU, "никогда": langRU, "ничего": langRU,
	"ничто": langRU, "никто": langRU, "нигде": langRU, "без": langRU, "нельзя": langRU,
}

// invertingWords are not negations as words go, but leaving one out turns what a passage
// says around just as well: verbs of denial, refusal and failure ("failed to"), and the
// adverbs that mean "almost not". "The plan would … raise taxes" is not what "the plan would
// hardly raise taxes" says. The claim comparison does not use them ("denies" is no "not").
var invertingWords = map[string]lang{
	"deny": langEN, "denies": langEN, "denied": langEN, "denying": langEN, "refused": langEN,
	"refuses": langEN, "refusing": langEN, "unable": langEN, "hardly": langEN,
	"scarcely": langEN, "barely": langEN, "seldom": langEN, "rarely": langEN, "fail": langEN,
	"fails": langEN, "failed": langEN, "failing": langEN,
	"kaum": langDE, "guère": langFR, "apenas": langES,
}

// homographs are negations that are also a common word of another language, with the
// languages of that other word: English "sin" (Spanish "without"), Portuguese "no" ("in
// the"), Italian "ne" (a pronoun), French "mai" (May), English "nic" and "sem" (initialisms),
// Portuguese "apenas" ("only"), Czech "ni" (a pronoun). Such a word is a negation unless the
// passage is in one of those other languages and in none in which the word negates.
var homographs = map[string]lang{
	"sin": langEN, "no": langPT, "ne": langIT, "mai": langFR, "nic": langEN, "sem": langEN,
	"apenas": langPT, "ni": langCS,
}

// unspacedNegations are the negating characters and endings of Chinese and Japanese, found
// anywhere in a text since those scripts do not separate words.
var unspacedNegations = []string{"不", "没", "沒", "无", "無", "未", "非", "别", "勿", "ない", "ません"}

// IsNegation reports whether the lower-case word w negates in one of the languages of the
// negation lists (not the inverting words such as "denied"), or ends in n't; the claim
// comparison uses it word by word.
func IsNegation(w string) bool {
	return negationWords[w] != 0 || strings.HasSuffix(w, "n't")
}

// Negation returns the first negation in omitted, the text an ellipsis leaves out of a
// quote, or "" when there is none. omitted is read as a reader sees it: invisible
// characters (soft hyphens, zero-width spaces) dropped and compatibility forms folded
// ([FoldCompat]: full-width ｎｏｔ is not), then split into words, a hyphen or apostrophe
// between letters keeping a word whole ("non-profit" is one word and no negation). A word
// negates when it is in the lists of negations (negationWords: not, never, nicht, jamais,
// sin, não, не, ...) or of inverting words (invertingWords: denied, refused, hardly,
// failed, kaum, ...), ends in n't, or is a French n' elision; "No."
// before a number ("No. 10") is an abbreviation, not a negation. The negating characters
// of Chinese and Japanese (不, 没, ない, ...) count wherever they stand.
//
// A word that negates in one language and is a common word of another (homographs: "sin",
// "no", "mai", ...) counts unless passage, the text the quote stands in, is written in that
// other language and not in one where the word negates: "original sin" in an English
// passage is no negation, "sin" in a Spanish one is. The language is the
// language the page declares (docLang, a BCP 47 tag such as "en-GB" or "pt-BR", "" when
// there is none) when it is one of the lists' languages, else from the passage's function
// words; when neither tells, every list applies.
func Negation(omitted, passage, docLang string) string {
	text := seenLower(omitted)
	for _, n := range unspacedNegations {
		if strings.Contains(text, n) {
			return n
		}
	}
	ws := Words(text)
	var langs lang
	guessed := false
	for _, w := range ws {
		word := w.Text
		if strings.HasSuffix(word, "n't") || strings.HasPrefix(word, "n'") && len(word) > 2 {
			return word
		}
		neg := negationWords[word] | invertingWords[word]
		if neg == 0 {
			continue
		}
		if word == "no" && numberAbbreviation(text[w.End:]) {
			continue // "No. 10": the abbreviation of numero
		}
		if other := homographs[word]; other != 0 {
			if !guessed {
				langs, guessed = readingLanguages(docLang, passage), true
			}
			if langs&other != 0 && langs&neg == 0 {
				continue
			}
		}
		return word
	}
	return ""
}

// readingLanguages is the languages a passage is read in: the one the page declares
// (docLang) and, when the passage's own function words tell, theirs too. A page whose
// declaration does not fit its text (a template's lang="pt" over an English article) is
// read in both, so a homograph is no negation only when neither says it is one: the
// declaration may spare the check a guess, never overrule what the words show.
func readingLanguages(docLang, passage string) lang {
	return tagLanguage(docLang) | passageLanguages(passage)
}

// tagLanguages maps the primary subtag of a language tag to the lists' languages.
var tagLanguages = map[string]lang{
	"en": langEN, "de": langDE, "fr": langFR, "es": langES, "it": langIT, "pt": langPT,
	"nl": langNL, "cs": langCS, "pl": langPL, "ru": langRU,
}

// tagLanguage returns the language of the lists a BCP 47 tag names by its primary subtag
// ("en-GB" → English), or 0 for a tag of another language, a malformed one or "".
func tagLanguage(tag string) lang {
	primary, _, _ := strings.Cut(strings.TrimSpace(tag), "-")
	primary, _, _ = strings.Cut(primary, "_")
	return tagLanguages[strings.ToLower(primary)]
}

// seenLower is text as a reader sees it, lower case: invisible characters dropped,
// compatibility forms folded, typographic apostrophes made '.
func seenLower(text string) string { return strings.ToLower(seen(text)) }

// seen is text as a reader sees it: invisible characters dropped, compatibility forms
// folded, typographic apostrophes made '.
func seen(text string) string {
	text = strings.Map(func(r rune) rune {
		switch {
		case IsInvisible(r):
			return -1
		case r == '’' || r == 'ʼ':
			return '\''
		}
		return r
	}, text)
	return FoldCompat(text)
}

// numberAbbreviation reports whether rest, the text after a word "no", is a point and a
// number ("No. 10", "no.5").
func numberAbbreviation(rest string) bool {
	if !strings.HasPrefix(rest, ".") {
		return false
	}
	rest = strings.TrimLeft(rest[1:], " \u00a0")
	r, _ := utf8.DecodeRuneInString(rest)
	return isDecimal(r)
}

// functionWords are frequent words of each language, none of them a negation, that tell the
// language of a passage. Words shared by several languages count for each.
var functionWords = map[lang][]string{
	langEN: {"the", "of", "and", "to", "is", "was", "that", "for", "with", "are", "were", "this",
		"be", "by", "has", "have", "had", "from", "which", "would", "will", "it", "its", "as",
		"at", "on", "an", "or", "they", "their", "said", "he", "she"},
	langDE: {"der", "die", "das", "und", "ist", "den", "dem", "des", "ein", "eine", "einen",
		"mit", "von", "zu", "auf", "für", "sich", "auch", "wird", "werden", "hat", "wurde", "im",
		"nach", "bei", "aus", "oder", "sie", "er", "es"},
	langFR: {"le", "la", "les", "de", "des", "du", "en", "que", "et", "est", "une", "un", "dans", "pour", "qui", "sur",
		"au", "aux", "par", "avec", "ce", "cette", "il", "elle", "sont", "été", "plus", "mais",
		"ou", "leur", "ont", "son", "sa", "ses"},
	langES: {"el", "la", "los", "las", "de", "del", "en", "que", "un", "y", "es", "una", "por", "con", "para", "se", "al",
		"lo", "su", "sus", "como", "más", "pero", "fue", "está", "este", "esta", "entre",
		"también", "han", "ha"},
	langIT: {"il", "la", "gli", "un", "di", "della", "del", "delle", "dei", "è", "che", "per", "con", "una",
		"sono", "nel", "nella", "alla", "anche", "come", "più", "ma", "questo", "questa",
		"stato", "ha", "hanno"},
	langPT: {"o", "os", "de", "do", "da", "dos", "das", "em", "que", "um", "uma", "para", "com", "é", "ao",
		"na", "nas", "nos", "pelo", "pela", "mais", "mas", "foi", "está", "como", "também",
		"seu", "sua", "ele", "ela", "este", "esta"},
	langNL: {"de", "het", "een", "van", "en", "dat", "op", "te", "voor", "met", "zijn", "ook", "aan",
		"bij", "worden", "werd", "maar", "deze", "dit", "wordt"},
	langCS: {"je", "se", "na", "že", "to", "jsou", "byl", "byla", "pro", "jako", "ale", "by",
		"od", "po", "jeho", "také", "který", "která", "které", "podle", "si", "jsem"},
	langPL: {"i", "w", "się", "że", "jest", "do", "jak", "po", "co", "to", "na", "jego",
		"który", "która", "przez", "oraz", "być", "są"},
	langRU: {"и", "в", "на", "что", "с", "по", "это", "как", "он", "она", "к", "из", "у",
		"за", "от", "для", "то", "был", "была"},
}

// functionWordLangs is functionWords by word.
var functionWordLangs = func() map[string]lang {
	m := map[string]lang{}
	for l, ws := range functionWords {
		for _, w := range ws {
			m[w] |= l
		}
	}
	return m
}()

// passageLanguages returns the languages a passage is written in, read from its function
// words, or 0 when it cannot be told: the languages with at least a third of the weight of
// the heaviest (a word shared by k languages weighs 1/k in each), when one language has at
// least two of its words in the passage.
func passageLanguages(passage string) lang {
	// words counts each language's function words; weight the same with a word of k
	// languages counting 1/k for each, in units of wordShare (divisible by every k up to 6),
	// so that the words many languages share ("la", "de") point to where they are frequent
	// together without making each of those languages as likely as the one whose own words
	// the passage holds.
	const wordShare = 60
	var words, weight [16]int
	for _, w := range Words(seenLower(passage)) {
		ls := functionWordLangs[w.Text]
		share := wordShare / max(1, bits.OnesCount16(uint16(ls)))
		for b := 0; ls != 0; b++ {
			if ls&1 != 0 {
				words[b]++
				weight[b] += share
			}
			ls >>= 1
		}
	}
	if slices.Max(words[:]) < 2 {
		return 0
	}
	top := slices.Max(weight[:])
	var out lang
	for b, h := range weight {
		if h > 0 && 3*h >= top {
			out |= 1 << b
		}
	}
	return out
}
