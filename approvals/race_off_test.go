//go:build !race

package approvals

// raceEnabled is true in a -race build, whose child processes start
// slowly: tests that start many cut their rounds.
const raceEnabled = false
