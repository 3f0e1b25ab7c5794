//go:build race

package a2aclient

// raceEnabled: the race detector slows decoding several times over; the
// tests whose outcome is then timing skip under it.
const raceEnabled = true

// skipUnderRace skips a test that measures memory or counts calls: the
// plain go test ./... runs it; under the race detector it would find no
// data race the others miss, and its bound, reached in the time the
// detector leaves, costs CI minutes.
func skipUnderRace(t interface{ Skip(...any) }, what string) {
	t.Skip(what + ": run by the plain go test; skipped under the race detector")
}
