//go:build race

package pdf

// raceBuild reports that the tests run under the race detector, whose shadow memory counts
// in a PDF worker's RLIMIT_DATA (the worker is this test binary, started again).
const raceBuild = true
