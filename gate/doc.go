// Package gate decides whether a text may be written to an agent's persistent memory: nothing
// unverified passes.
//
// [Evaluate] sorts every statement of the text with the triage rules of package evidence (only
// factual claims are gated; instructions, preferences, plans, questions, code, opinions and
// headings pass, listed with the rule), looks each factual claim up through a [Ledger]
// ([StoreLedger] presents the store as one), and allows the text only when every one was found
// at its source, has no open seam and no citation not_found, and has at least the strength
// asked for ([ParseMinStrength]). With a [Check] it first imports and checks, on the spot and
// within a time limit, the cited claims the ledger does not hold. gate.go holds the decision
// and sametext.go the exact match of a sentence with a verified text; hook.go reads the hook
// inputs of the agents ([ParseHook]) and says which files are memory ([MemoryFiles],
// [ParseMemoryFiles]); file.go computes what a tool leaves in a memory file and what of it is
// gated ([MemoryFiles.Plan], [ChangedText]); shell.go reads shell commands for what they
// write. docs/gate.md describes it.
//
// store.go adapts package ledger's read model and import to [Ledger] and [Importer]; the
// HTTP API and `ledger gate` both call the gate through it, so the command does not import
// package web.
package gate
