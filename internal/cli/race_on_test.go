//go:build race

package cli

// raceEnabled: under the race detector every process it starts is
// several times slower; the tests that repeat a run for timing races
// run it once.
const raceEnabled = true

// skipUnderRace skips a test that measures memory: the plain go test
// ./... runs it; under the race detector it finds no data race the
// others miss and costs CI minutes.
func skipUnderRace(t interface{ Skip(...any) }, what string) {
	t.Skip(what + ": run by the plain go test; skipped under the race detector")
}
