// Package verify checks citations at their sources and decides what the results allow.
//
// # Matching
//
// [MatchQuote] looks for a quote in the visible text of a page, folding both in [Tier]s
// (exact, whitespace, invisible characters, Unicode compatibility forms, typographic
// punctuation, case) and recording the tier needed; an ellipsis splits a quote into parts that must appear
// in order, close together. A found quote is reported with the page's own words around it;
// one not found gets a [Hint] at most, never a match. docs/matching.md gives the rules.
//
// # Verifiers and adjudication
//
// A [Verifier] checks one citation and returns a [Report] whose verdict is supported,
// contradicted, not_found or unreachable. [NewDOMVerifier] and [NewTokensVerifier] fetch the
// page themselves, each with its own fetcher and text extractor. [Checker.Check] ([NewChecker])
// runs both on a citation, lets [Adjudicate] compare their verdicts (it never fetches), asks a
// third verifier to fetch afresh when they split or one is off its schema, and opens a
// disagreement seam when they still split. Every [Outcome] carries a residual-risk statement
// ([ResidualRisk]): a match proves the words are on the page, nothing more.
//
// # Check jobs
//
// [RunBatch] checks a batch's citations with a number of workers and records each check as
// it completes through a [CheckStore] (the ledger); [Jobs] runs such checks in the background
// for the HTTP API and reports their progress ([JobStatus]).
//
// # The memory-write gate
//
// [Gate] decides whether a text may be written to an agent's persistent memory. It sorts
// every statement of the text with the triage rules of package evidence (only factual claims
// are gated; instructions, preferences, plans, questions, code, opinions and headings pass,
// listed with the rule), looks each factual claim up through a [GateLedger], and allows the
// text only when every one was found at its source, has no open seam and no citation
// not_found, and has at least the strength asked for ([ParseMinStrength]). With a
// [GateCheck] it first imports and checks, on the spot and within a time limit, the cited
// claims the ledger does not hold. gate.go holds the decision; gate_hook.go reads the hook
// inputs of the agents ([ParseHook]) and says which files are memory ([MemoryFiles],
// [ParseMemoryFiles]). docs/gate.md describes it.
package verify
