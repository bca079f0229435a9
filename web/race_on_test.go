//go:build race

package web

// raceMemoryFactor scales the memory bounds of the hammer tests: the race detector's shadow
// memory multiplies a process's resident size (about 5 to 10 times, per its documentation).
const raceMemoryFactor = 8
