package verify

// The loopback helpers of loopback_test.go, for the tests of package verify_test, which
// check pages into a real ledger.
var (
	LoopbackFetchConfig = testFetchConfig
	NewLoopbackSite     = newPageServer
	ReadCorpusPage      = readCorpusPage
)

// LoopbackSite is the test site of newPageServer.
type LoopbackSite = pageServer

// ReportHTML is the page a LoopbackSite serves at /report.
const ReportHTML = supportedHTML

// The scripted chat-completions server of model_server_test.go, for the tests of package
// verify_test that record the model tier into a real ledger.
var (
	NewChatServer    = newChatServer
	VerdictJSON      = verdictJSON
	AdjudicationJSON = adjudicationJSON
)

type (
	// ChatServer is the scripted chat-completions server.
	ChatServer = chatServer
	// ChatSeen is one request it received.
	ChatSeen = chatSeen
	// ChatAnswer is what its script answers.
	ChatAnswer = chatAnswer
)

// ReportSentence is a sentence of ReportHTML, as a model verifier would cite it.
const ReportSentence = reportSentence
