//go:build race

package hub_test

// raceEnabled: the race detector makes every goroutine several times
// slower; the tests that run fifty dashboards run fewer.
const raceEnabled = true

// skipUnderRace skips a test that measures memory or sizes: the plain
// go test ./... runs it; under the race detector it finds no data race
// the others miss and costs CI minutes.
func skipUnderRace(t interface{ Skip(...any) }, what string) {
	t.Skip(what + ": run by the plain go test; skipped under the race detector")
}
