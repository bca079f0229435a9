// Package pdf reads the text of PDF documents with two independent engines and checks that a
// found quote's characters are drawn visibly.
//
// [ExtractPDFium] reads with PDFium (Chrome's PDF engine) compiled to WebAssembly and run
// by wazero, in-process; [ExtractPDFText] reads with github.com/ledongthuc/pdf in a child
// process, this same program started again as a PDF worker. A program whose PDFs may be
// read by that engine serves its workers explicitly, first thing in main (a test binary in
// TestMain):
//
//	if pdf.IsWorker() {
//		os.Exit(pdf.RunWorker())
//	}
//
// Nothing is done at import time. Each engine is bounded by [Limits] and lays out its text
// by one rule (running headers dropped, hyphens joined, pages kept: [Text]); errors wrap
// [ErrEncrypted], [ErrScanned], [ErrDamaged] or [ErrLimit]. [CheckInk] renders the
// characters PDFium read a quote from and reports which of them no reader sees.
// docs/pdf.md describes the rules and the figures.
//
// The package imports nothing of this module's: the fetcher hands over a PDF's bytes, and
// package verify pairs each verifier's HTML extractor with one of these engines.
package pdf
