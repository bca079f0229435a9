// Package evidence is the domain of the evidence ledger: claims and their citations,
// sources and their classes, statuses, verdicts, seams, the strength rules, and the
// parser that turns pasted research into claims.
//
// The package is pure Go. It does no I/O, reads no clock and imports nothing else of the
// project, so every rule here can be tested on its own and reused by the store, the
// verifiers and the HTTP server.
//
// # Statuses
//
// Research enters as [StatusReported]. A citation becomes [StatusFound] only when its quote
// was found at its URL; [ClaimStatus] derives a claim's status from its citations.
//
// # Strength
//
// [ComputeStrength] computes how strongly the found citations of a claim support it, from the
// classes of their sources and whether those sources are independent (independent).
// Strength is never typed in.
//
// # Parsing research
//
// [ParseResearch] reads a paste (lists with labels, prose with links, footnotes, tables,
// blockquotes or JSON) and returns the claims it states, each with its citations and notes.
// [ParseClaimsJSON] reads research given as JSON, and [ReadRequest] the body of
// POST /api/research in either of its forms. All apply the same notes:
// [NoteNoSource] for a claim without a URL, [NoteNoQuote] for a quote that [QuoteParts]
// refuses (fewer than [MinQuoteLen] letters or digits in a part, or a single word), and
// [NoteNotHTTP] for a URL that will never be fetched. A paste with no claim
// at all fails with an error that matches [ErrNothingUsable]. docs/parser.md describes the
// formats in detail.
package evidence
