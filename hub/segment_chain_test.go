package hub_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/model"
)

// TestHubSignsAcrossRotations: a hub whose journal rotates at 2 KiB
// and signs a checkpoint every 3 records, under a two-person policy.
// alice votes through it; notes rotate the journal; the hub restarts
// (it reads the open segment alone, and its chain check links it to the
// segment before); dave's vote after the restart sends the approval once,
// naming both. The key of GET /v1/me, before and after the restart,
// verifies every checkpoint of every segment, the walk of all segments
// finds no break and nothing unsigned, and checkpoints were signed in
// several segments.
func TestHubSignsAcrossRotations(t *testing.T) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	opts := func(journal string) func(*hub.Options) {
		return func(o *hub.Options) {
			if journal != "" {
				o.Journal.JournalPath = journal
			}
			withFourEyes(o, "alice", "dave")
			o.Journal.Checkpoints = &approvals.Checkpoints{Key: key, Every: 3}
			o.Journal.Segment = approvals.SegmentPolicy{Size: 2 << 10}
		}
	}
	fx := newFixture(t, opts(""))
	alice := fx.attach("alice")
	id := fx.ag.Start("deploy production")
	alice.waitFor("the deploy reaches the inbox", func(f *model.Fleet) bool { return alice.inInbox(f, id) })
	if o := alice.voteOn(id, approvals.KindApprove, "rollout window ok"); o.Result != approvals.ResultVoted {
		t.Fatalf("alice: %s (%v)", o.Words(), o.Err)
	}
	to := []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateCompleted, a2a.TaskStateFailed,
		a2a.TaskStateCanceled, a2a.TaskStateRejected}
	other := fx.ag.Start("ask")
	alice.waitFor("the question", func(f *model.Fleet) bool { return alice.inInbox(f, other) })
	for i, st := range to { // one note each: the hub writes a repeat once
		if err := alice.svc.NoteLeft("agent", other, a2a.TaskStateInputRequired, st, fmt.Sprintf("note %d %0200d", i, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if c := alice.svc.Chain(); c.Broken() {
		t.Errorf("alice's view of the hub's chain is broken: %+v", c.Breaks)
	}
	fx.stop()
	files, err := approvals.SegmentFiles(fx.journal)
	if err != nil || len(files) < 3 {
		t.Fatalf("segments %v %v, want 3 or more", files, err)
	}

	again := newFixtureOn(t, fx.ag, 100*time.Millisecond, opts(fx.journal))
	dave := again.attach("dave")
	if dave.me.JournalKey != approvals.KeyText(key.Public().(ed25519.PublicKey)) {
		t.Fatalf("after the restart /v1/me names key %q", dave.me.JournalKey)
	}
	dave.waitFor("the deploy reaches the inbox", func(f *model.Fleet) bool { return dave.inInbox(f, id) })
	dave.waitVotes(id, "1 of 2 · alice ")
	if o := dave.voteOn(id, approvals.KindApprove, "diff checked"); o.Result != approvals.ResultAccepted || o.Votes.Names() != "alice, dave" {
		t.Fatalf("dave after the restart: %s (%v) %+v", o.Words(), o.Err, o.Votes)
	}
	if got := namesSent(fx.ag, id); len(got) != 1 || got[0] != "alice,dave" {
		t.Errorf("the agent received %q, want one approval naming alice and dave", got)
	}
	again.stop()

	pub, err := approvals.ParseKeyText(dave.me.JournalKey)
	if err != nil {
		t.Fatal(err)
	}
	files, _ = approvals.SegmentFiles(fx.journal)
	c, err := approvals.VerifyJournal(pub, files...)
	if err != nil {
		t.Fatal(err)
	}
	signedIn := 0
	for _, f := range files {
		if b, _ := os.ReadFile(f); bytes.Contains(b, []byte(`"type":"checkpoint"`)) {
			signedIn++
		}
	}
	if c.Broken() || !c.Trusted || c.Unsigned != 0 || c.Checkpoints < len(files) || signedIn < 3 {
		t.Fatalf("the hub's %d segments (%d with a checkpoint), verified with the key of /v1/me: %d checkpoints, %d unsigned, breaks %+v",
			len(files), signedIn, c.Checkpoints, c.Unsigned, c.Breaks)
	}
	wrong, _, _ := ed25519.GenerateKey(rand.Reader)
	if c, _ := approvals.VerifyJournal(wrong, files...); c.First(true) == nil || c.First(true).Kind != approvals.BreakSignature {
		t.Fatalf("another key verifies the hub's checkpoints: %+v", c)
	}
}
