//go:build race

package hub_test

// raceEnabled: the race detector makes every goroutine several times
// slower; the tests that run fifty dashboards run fewer.
const raceEnabled = true
