package pdf

import (
	"os"
	"testing"
)

// TestMain serves the PDF workers this test binary starts (ExtractPDFText runs the program
// itself again), then runs the tests.
func TestMain(m *testing.M) {
	if IsWorker() {
		os.Exit(RunWorker())
	}
	os.Exit(m.Run())
}
