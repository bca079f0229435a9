// Package match decides whether a quote is on a page: it looks for the quote in the page's
// visible text and reports where, at which folding tier, with the page's own words around it.
//
// [Quote] ([PageText.Match], to match many quotes against one page folded once) folds the
// page and the quote in [Tier]s (exact, whitespace, invisible characters, Unicode
// compatibility forms that keep their letters and digits, typographic punctuation, case) and
// records the tier needed. A match starts and ends at word boundaries; an ellipsis splits a
// quote into parts that must appear in order, within one passage, without leaving out a
// negation. A found quote is reported with the page's own words around it; one not found gets
// a [Hint] at most, never a match. The case rule is also offered to the memory-write gate
// ([CaseMayDiffer]). docs/matching.md gives the rules.
//
// The package is pure: it reads strings and imports no I/O package (cmd/ledger's TestLayout
// holds it), so the rule that makes a quote "found" can be read and tested alone.
package match
