//go:build race

package a2aclient

// raceEnabled: the race detector slows decoding several times over, so
// tests that read a budget's worth of bytes use a smaller budget.
const raceEnabled = true
