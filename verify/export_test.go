package verify

import "evidenceledger/fetch/fetchtest"

// The loopback helpers of loopback_test.go, for the tests of package verify_test, which
// check pages into a real ledger.
var (
	LoopbackFetchConfig = fetchtest.Config
	NewLoopbackSite     = newPageServer
	ReadCorpusPage      = readCorpusPage
)

// LoopbackSite is the test site of newPageServer.
type LoopbackSite = pageServer

// ReportHTML is the page a LoopbackSite serves at /report.
const ReportHTML = supportedHTML
