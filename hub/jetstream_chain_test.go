package hub_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/approvals/jetstore"
	"a2atop/hub"
	"a2atop/internal/agenttest"
)

// chainedJournal is a file journal a hub with key wrote: n notes, a
// checkpoint after every two.
func chainedJournal(t *testing.T, key ed25519.PrivateKey, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	svc, err := approvals.Open(approvals.Options{JournalPath: path, Checkpoints: &approvals.Checkpoints{Key: key, Every: 2}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := svc.NoteLeft("agent", a2a.TaskID(fmt.Sprint("old", i)), a2a.TaskStateInputRequired, a2a.TaskStateWorking, "n"); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	svc.Close()
	return path
}

// TestHubsOnNATSWithKeysStartAndDecide: a one-hub journal, hash-chained
// and signed, is migrated into a real three-node JetStream record; three
// hubs, each with its signing key (as serve gives them), start on it,
// decide a race of prompts exactly once each, stop (a hub signs at
// shutdown), and three more start again on the same record. No hub
// refuses the record as a broken chain: on a shared record the stream
// is the record (its sequence is one order for every hub, with deletes
// and purges denied), and every Service says so.
func TestHubsOnNATSWithKeysStartAndDecide(t *testing.T) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	c := startNATSCluster(t)
	_, j := c.shared(t, "migrate")
	if _, err := approvals.Migrate(chainedJournal(t, key, 5), j); err != nil {
		t.Fatal(err)
	}
	ag := agenttest.StartAgent(t)
	withKey := func(_ *jetstore.Store, o *hub.Options) {
		o.Journal.Checkpoints = &approvals.Checkpoints{Key: key, Every: 2}
	}
	for round := range 2 {
		fxs := teamOnNATS(t, c, ag, withKey)
		dashes := []*dash{fxs[0].attach("alice"), fxs[1].attach("dave"), fxs[2].attach("frank", asFrank)}
		raceRounds(t, ag, dashes, 3)
		for k, d := range dashes {
			if ch := d.svc.Chain(); ch.Broken() || ch.Shared == "" {
				t.Errorf("round %d, the dashboard on hub %d sees the record's chain as %+v, want it said to be the stream's order", round, k+1, ch)
			}
		}
		for k, fx := range fxs {
			ch := fx.h.Service().Chain()
			if ch.Broken() || !strings.Contains(ch.Shared, jetstore.StreamName) {
				t.Errorf("round %d, hub %d: the chain on the shared record: %+v", round, k+1, ch)
			}
			fx.stop()
		}
	}
}
