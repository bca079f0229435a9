package verify

import (
	"os"
	"testing"

	"evidenceledger/pdf"
)

// TestMain serves the PDF workers this test binary starts (pdf.ExtractPDFText runs the
// program itself again), then runs the tests.
func TestMain(m *testing.M) {
	if pdf.IsWorker() {
		os.Exit(pdf.RunWorker())
	}
	os.Exit(m.Run())
}
