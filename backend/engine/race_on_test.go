//go:build race

package engine

// raceEnabled is true when the tests run under the race detector (several
// times slower): the longest tests take fewer rounds.
const raceEnabled = true
