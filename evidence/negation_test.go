package evidence

import "testing"

// TestNegation: the text an ellipsis leaves out is read as a reader sees it, word by word,
// in the language of the passage around it.
func TestNegation(t *testing.T) {
	for _, c := range []struct {
		desc, omitted, passage, want string
	}{
		{"a plain not", " not ", "The new drug is not safe for children under five.", "not"},
		{"a soft hyphen inside never", " nev\u00ader ", "The plan would nev\u00ader raise taxes on families.", "never"},
		{"a zero-width space inside not", " n\u200bot ", "The company has n\u200bot paid the fine.", "not"},
		{"a word joiner inside cannot", " can\u2060not ", "Patients can\u2060not book online.", "cannot"},
		{"full-width letters", " ｎｏｔ ", "The minister has ｎｏｔ approved the budget.", "not"},
		{"a typographic apostrophe in isn't", " isn’t ", "The United States isn’t at risk.", "isn't"},
		{"capitals", " NEVER ", "SHE WOULD NEVER SUPPORT THE BILL", "never"},
		{"denied", " denied ", "The spokesman denied that the company had paid.", "denied"},
		{"refused", " refused ", "The court refused to hear the appeal.", "refused"},
		{"failed, before to", " failed ", "The government failed to meet its target.", "failed"},
		{"hardly", " hardly ", "The rules will hardly change how banks lend.", "hardly"},
		{"scarcely", " scarcely ", "The rules will scarcely change how banks lend.", "scarcely"},
		{"neither … nor", " neither ", "It was neither cheap nor quick to build.", "neither"},
		{"without", " without ", "The bill passed without a vote.", "without"},
		{"won't", " won't ", "The bank won't cut rates.", "won't"},
		{"n't glued to a verb", " didn't ", "He didn't sign the decree.", "didn't"},
		{"Russian не", " не ", "Правительство не поддержало этот законопроект.", "не"},
		{"Russian нет", " нет ", "У нас нет денег на это.", "нет"},
		{"German nicht", " nicht ", "Die Regierung hat das Gesetz nicht beschlossen.", "nicht"},
		{"German keine", " keine ", "Der Bericht enthält keine Hinweise.", "keine"},
		{"German niemals", " niemals ", "Er hat das niemals gesagt.", "niemals"},
		{"German kaum", " kaum ", "Die Preise sind kaum gestiegen.", "kaum"},
		{"French ne", " ne sera ", "Le projet de loi ne sera pas adopté.", "ne"},
		{"French n' elision", " n'a jamais ", "Le ministre n'a jamais signé ce décret.", "n'a"},
		{"French sans", " sans ", "La loi a été votée sans débat par le Sénat.", "sans"},
		{"French aucun", " aucun ", "Il n'y a aucun doute pour le ministre.", "aucun"},
		{"Spanish sin in a Spanish passage", " sin ", "El gobierno aprobó la reforma sin el apoyo de la oposición.", "sin"},
		{"Spanish nunca", " nunca ", "El presidente nunca firmó el decreto.", "nunca"},
		{"Spanish no in a Spanish passage", " no ", "El gobierno no aprobó la reforma de las pensiones.", "no"},
		{"Italian non", " non ", "Il governo non ha approvato la legge di bilancio.", "non"},
		{"Italian mai in an Italian passage", " mai ", "Il ministro non ha mai firmato il decreto con la Camera.", "mai"},
		{"Portuguese não", " não ", "O governo não aprovou a reforma da previdência.", "não"},
		{"Portuguese nunca", " nunca ", "O presidente nunca assinou o decreto.", "nunca"},
		{"Chinese 不", "不", "政府不同意这个计划。", "不"},
		{"Japanese ない", "ない", "政府はこの計画に同意しない。", "ない"},
		{"an ambiguous word in a passage of no known language", " sin ", "Revenue sin", "sin"},

		{"no-one is one word, and a negation", " no-one ", "The minister said no-one supported the bill.", "no-one"},
		{"non-profit is one word", " a non-profit ", "The hospital is run by a non-profit trust.", ""},
		{"non-profit with U+2010", " a non\u2010profit ", "The hospital is run by a non\u2010profit trust.", ""},
		{"No. 10 is a number", " No. 10 ", "The prime minister returned to No. 10 Downing Street.", ""},
		{"no.5 is a number", " no.5 ", "The team of the year was no.5 in the table of the league.", ""},
		{"original sin in English", " original sin ", "The doctrine of original sin was central to the debate.", ""},
		{"Nottingham", " Nottingham ", "He moved to Nottingham in 1998.", ""},
		{"notable", " notable ", "It was a notable victory for the party.", ""},
		{"knot", " knot ", "Tie the rope with a knot at the end.", ""},
		{"nothingness is not nothing", " nothingness ", "The poem is about the nothingness of it all.", ""},
		{"Portuguese no is in the", " no ", "O presidente discursou no Congresso sobre a reforma da previdência.", ""},
		{"French mai is May", " en mai ", "La loi a été votée en mai par l'Assemblée nationale et le Sénat.", ""},
		{"English NIC", " NIC ", "The server has a second NIC that is used for the backup network.", ""},
		{"Portuguese apenas is only", " apenas ", "O governo aprovou apenas a reforma da previdência, disse o ministro.", ""},
	} {
		t.Run(c.desc, func(t *testing.T) {
			if got := Negation(c.omitted, c.passage, ""); got != c.want {
				t.Fatalf("Negation(%q, %q) = %q, want %q", c.omitted, c.passage, got, c.want)
			}
		})
	}
}

// TestNegationDeclaredLanguage: the language the page declares decides for a word that is a
// negation in one language and a common word in another, where the passage is too short to
// tell; a tag of a language the lists do not have leaves the passage to tell.
func TestNegationDeclaredLanguage(t *testing.T) {
	for _, c := range []struct {
		desc, omitted, passage, lang, want string
	}{
		{"sin on an English page", " sin ", "Revenue sin", "en", ""},
		{"sin on a British English page", " sin ", "Revenue sin", "en-GB", ""},
		{"sin on a Spanish page", " sin ", "Revenue sin", "es", "sin"},
		{"mai on a French page", " en mai ", "Votée en mai", "fr-FR", ""},
		{"mai on an Italian page", " mai ", "Votata mai", "it", "mai"},
		{"no on a Brazilian page", " no ", "Discursou no Congresso", "pt-BR", ""},
		{"no on a Spanish page", " no ", "Discursou no Congresso", "es", "no"},
		{"an underscore tag", " sin ", "Revenue sin", "en_US", ""},
		{"a tag in capitals", " sin ", "Revenue sin", "EN", ""},
		{"a language the lists lack: the passage tells", " sin ", "The doctrine of original sin was central to the debate.", "ja", ""},
		{"a language the lists lack, a short passage: every list", " sin ", "Revenue sin", "ja", "sin"},
		{"a declared language does not hide a plain negation", " not ", "It is not", "fr", "not"},
		{"a declaration that does not fit the passage does not overrule its words", " no ", "The board said no to the merger of the two banks on Friday.", "pt", "no"},
		{"sin declared English, in a passage that reads Spanish", " sin ", "El gobierno aprobó la reforma sin el apoyo de la oposición.", "en", "sin"},
	} {
		t.Run(c.desc, func(t *testing.T) {
			if got := Negation(c.omitted, c.passage, c.lang); got != c.want {
				t.Fatalf("Negation(%q, %q, %q) = %q, want %q", c.omitted, c.passage, c.lang, got, c.want)
			}
		})
	}
}

// TestPassageLanguages: the language of a passage is read from its function words, and is
// not told for a passage without enough of them.
func TestPassageLanguages(t *testing.T) {
	for _, c := range []struct {
		passage string
		want    lang
	}{
		{"The doctrine of original sin was central to the debate.", langEN},
		{"El gobierno aprobó la reforma sin el apoyo de la oposición.", langES},
		{"O presidente discursou no Congresso sobre a reforma da previdência.", langPT},
		{"Die Regierung hat das Gesetz nicht beschlossen, sagte er.", langDE},
		{"Revenue rose sharply", 0},
	} {
		if got := passageLanguages(c.passage); got != c.want {
			t.Errorf("passageLanguages(%q) = %b, want %b", c.passage, got, c.want)
		}
	}
}

// TestIsNegation: the claim comparison's words are the negation particles, not the inverting
// verbs.
func TestIsNegation(t *testing.T) {
	for w, want := range map[string]bool{"not": true, "never": true, "isn't": true, "nicht": true,
		"não": true, "не": true, "denies": false, "hardly": false, "notable": false} {
		if got := IsNegation(w); got != want {
			t.Errorf("IsNegation(%q) = %v, want %v", w, got, want)
		}
	}
}
