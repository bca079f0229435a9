//go:build !race

package web

// raceMemoryFactor is 1 without the race detector: the hammer tests hold the real bound.
const raceMemoryFactor = 1
