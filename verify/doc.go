// Package verify checks citations at their sources and decides what the results allow.
//
// # Verifiers and adjudication
//
// A [Verifier] checks one citation, its quote matched by package match, and returns a [Report] whose verdict is supported,
// contradicted, not_found or unreachable. [NewDOMVerifier] and [NewTokensVerifier] fetch the
// page themselves, each with its own fetcher and text extractor. [Run.Check]
// ([Checker.NewRun]) runs both on a citation, each judging its own [Capture] of the page,
// kept by the run for every citation of that URL, lets [Adjudicate] compare their verdicts (it never fetches), asks a
// third verifier to fetch afresh when they split or one is off its schema, and opens a
// disagreement seam when they still split. Every [Outcome] carries a residual-risk statement
// ([ResidualRisk]): a match proves the words are on the page, nothing more.
//
// # Seen in a browser
//
// With [Checker.WithRenderer] ([NewRenderer]), each quote a verifier finds on a web page is
// confirmed in headless Chromium, every request answered from the capture: words the
// rendering shows no reader are not found (evidence.SightVerdict), and a page whose text
// only its scripts draw is read with its inline scripts on. Without a browser the note and
// the residual risk of a found quote say that its visibility rests on the style rules
// alone. docs/verification.md, "The rendering verifier", describes it.
//
// # Beyond the quote: consistency and the model tiers
//
// After the quote check, every found quote goes through evidence.CompareClaim (the claim's
// figures, negations and hedges against the page's words; a mismatch opens a contradiction
// seam). With [Checker.WithModels] (a [SupportJudge]: package verify/model's tiers, off by
// default), two cheap model verifiers, isolated by construction, judge whether the stored
// page supports the claim, citing page sentences the program then finds on the page
// itself; on a split a third judges a fresh capture and an adjudicator that sees only the
// verdicts compares. The support judgement is recorded beside the quote status, never
// instead of it; what it adds to the check (seams, the note) is decided here, in
// support.go. docs/models.md describes it.
//
// # Check jobs
//
// [RunBatch] checks a batch's citations in one [Run] with a number of workers, the
// citations of one URL together, and records each check as it completes through a
// [CheckStore] (the ledger); [Jobs] runs such checks in the background
// for the HTTP API and reports their progress ([JobStatus]).
package verify
