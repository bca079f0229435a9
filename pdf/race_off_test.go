//go:build !race

package pdf

// raceBuild reports that the tests run under the race detector (race_on_test.go).
const raceBuild = false
