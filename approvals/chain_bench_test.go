package approvals

import (
	"crypto/ed25519"
	"crypto/rand"
	"testing"
)

// BenchmarkVerifyJournal100k: `a2atop journal verify` of a clean journal
// of 100,002 records (decisions, outcomes, states as a send leaves them)
// signed by a checkpoint every 100 records, as a hub's is.
func BenchmarkVerifyJournal100k(b *testing.B) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	path, size := writeSignedJournal(b, 33_334, &Checkpoints{Key: key})
	pub := key.Public().(ed25519.PublicKey)
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		c, err := VerifyJournal(pub, path)
		if err != nil || c.Broken() || c.Records < 100_000 || c.Checkpoints < 1000 {
			b.Fatalf("%v %+v", err, c)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/verify")
}
