//go:build race

package cli

// raceEnabled: under the race detector every process it starts is
// several times slower; the tests that repeat a run for timing races
// run it once.
const raceEnabled = true
