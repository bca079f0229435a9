package match

import (
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/bidi"

	"evidenceledger/evidence"
)

// bidiClass is what a bidi control does to the order in which text is shown.
type bidiClass int

const (
	notBidi        bidiClass = iota
	bidiMark                 // LRM U+200E, RLM U+200F, ALM U+061C: a zero-width letter of a direction
	bidiEmbedding            // LRE U+202A, RLE U+202B: opens an embedding
	bidiIsolate              // LRI U+2066, RLI U+2067, FSI U+2068: opens an isolate
	bidiOverride             // LRO U+202D, RLO U+202E: opens an override, which reorders letters
	bidiPop                  // PDF U+202C: closes the last embedding or override
	bidiPopIsolate           // PDI U+2069: closes the last isolate and what it holds
)

// maxBidiDepth is the deepest nesting of embeddings, overrides and isolates that the Unicode
// bidi algorithm keeps; deeper ones are ignored, as there.
const maxBidiDepth = 125

func bidiKind(r rune) bidiClass {
	switch r {
	case '\u200e', '\u200f', '\u061c':
		return bidiMark
	case '\u202a', '\u202b':
		return bidiEmbedding
	case '\u2066', '\u2067', '\u2068':
		return bidiIsolate
	case '\u202d', '\u202e':
		return bidiOverride
	case '\u202c':
		return bidiPop
	case '\u2069':
		return bidiPopIsolate
	}
	return notBidi
}

// presentBidi returns the bidi controls that are in s, at their offsets. Every control but
// ALM (U+061C) is encoded with the lead byte 0xE2, which a byte search finds fast.
func presentBidi(s string) []bidiControl {
	var out []bidiControl
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], 0xE2)
		if j < 0 {
			break
		}
		r, size := utf8.DecodeRuneInString(s[i+j:])
		if bidiKind(r) != notBidi {
			out = append(out, bidiControl{off: int32(i + j), r: r, present: true})
		}
		i += j + max(size, 1)
	}
	if strings.Contains(s, "\u061c") {
		for i := 0; i < len(s); {
			j := strings.Index(s[i:], "\u061c")
			if j < 0 {
				break
			}
			out = append(out, bidiControl{off: int32(i + j), r: '\u061c', present: true})
			i += j + len("\u061c")
		}
		slices.SortFunc(out, func(a, b bidiControl) int { return int(a.off - b.off) })
	}
	return out
}

// markOverrides sets, on each control of ctl (in text order), whether an override is open
// after it, following how the bidi algorithm nests embeddings, overrides and isolates. The
// page text has no paragraph breaks (its whitespace is folded), so a control stays open to
// the end of the text unless closed.
func markOverrides(ctl []bidiControl) {
	var stack []bidiClass
	overrides := 0
	for k := range ctl {
		switch kind := bidiKind(ctl[k].r); kind {
		case bidiEmbedding, bidiIsolate, bidiOverride:
			if len(stack) < maxBidiDepth {
				stack = append(stack, kind)
				if kind == bidiOverride {
					overrides++
				}
			}
		case bidiPop:
			if n := len(stack); n > 0 && stack[n-1] != bidiIsolate {
				if stack[n-1] == bidiOverride {
					overrides--
				}
				stack = stack[:n-1]
			}
		case bidiPopIsolate:
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i] == bidiIsolate {
					for _, s := range stack[i:] {
						if s == bidiOverride {
							overrides--
						}
					}
					stack = stack[:i]
					break
				}
			}
		}
		ctl[k].override = overrides > 0
	}
}

// bidiRefuses reports whether bidi controls change how the span [i, j) of the folded text
// hay is shown, so that a reader does not see its letters in that order: an embedding,
// override or isolate control, or the end of one, inside the span; an override open where
// the span starts; or a bidi mark inside the span on a page that holds right-to-left
// letters (rtl reports it), or with a digit after it before the next letter (a mark moves
// the digits and punctuation beside it: "abc ‏1 2" is shown "abc 2 1").
func (ff *foldFacts) bidiRefuses(hay string, i, j int, rtl func() bool) bool {
	ctl := ff.bidi
	if len(ctl) == 0 {
		return false
	}
	// The first control that is not before the span: a dropped control at i stood before
	// the span's first rune.
	k := sort.Search(len(ctl), func(k int) bool {
		if ctl[k].present {
			return int(ctl[k].off) >= i
		}
		return int(ctl[k].off) > i
	})
	if k > 0 && ctl[k-1].override {
		return true
	}
	for ; k < len(ctl) && int(ctl[k].off) < j; k++ {
		c := ctl[k]
		if bidiKind(c.r) != bidiMark {
			return true
		}
		from := int(c.off)
		if c.present {
			from += utf8.RuneLen(c.r)
		}
		if rtl() || digitBeforeLetter(hay[from:j]) {
			return true
		}
	}
	return false
}

// digitBeforeLetter reports whether s holds a numeral before its first letter.
func digitBeforeLetter(s string) bool {
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			return false
		case evidence.IsNumeral(r):
			return true
		}
	}
	return false
}

// hasRightToLeft reports whether s holds a character written right to left (bidi class R or
// AL: Hebrew, Arabic, Syriac, Thaana, N'Ko, ...), the bidi marks RLM and ALM left aside.
func hasRightToLeft(s string) bool {
	for i := 0; i < len(s); {
		if s[i] < 0xD6 { // below the first lead byte of right-to-left letters (U+0590)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if bidiKind(r) == notBidi {
			if c := bidiClassOf(r); c == bidi.R || c == bidi.AL {
				return true
			}
		}
		i += size
	}
	return false
}

func bidiClassOf(r rune) bidi.Class {
	p, _ := bidi.LookupRune(r)
	return p.Class()
}
