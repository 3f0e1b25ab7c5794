package approvals

import (
	"testing"
	"time"
)

// TestWatchSeesAnotherProcessWrite: a dashboard's Service watches its
// journal file; another process (a real one: this test binary run as
// TestDecideChild) answers a prompt through the same journal. The watch
// fires, with no clock involved, and the Refresh it calls for finds the
// other process's decision. After stop the channel is closed.
func TestWatchSeesAnotherProcessWrite(t *testing.T) {
	fx := newFixture(t)
	changes, stop, ok := fx.svc.Watch()
	if !ok {
		t.Fatal("Watch: no file-change notification for a journal file on Linux")
	}
	mt := fx.start(t, "ask")
	c := startChild(t, fx, mt.Key.ID, "reply", "bob@test")
	c.Say(t, "go")
	if r := c.result(t); r.Result != ResultAccepted {
		t.Fatalf("the other process's reply: %+v", r)
	}
	for {
		select {
		case <-changes:
		case <-time.After(10 * time.Second):
			t.Fatal("after 10 s: no notification of the other process's write")
		}
		r, err := fx.svc.Refresh()
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Decisions) > 0 {
			if d := r.Decisions[0]; d.TaskID != mt.Key.ID || d.Approver != "bob@test" || !d.Elsewhere {
				t.Fatalf("refreshed decision %+v, want bob's on %s from elsewhere", d, mt.Key.ID)
			}
			break
		}
	}
	stop()
	for range changes { // closed once stopped
	}
}
