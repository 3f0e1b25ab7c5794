package approvals

import (
	"bytes"
	"context"
	"sync"
	"testing"
)

// TestResetFollowTakesTheHubsJournalInPlace: a Service attached to a hub
// (bob's) follows three decisions (another operator's); the hub then holds only the last one's lines
// (the others left its memory) and the Service takes them in place of
// its own while readers read it: it then holds what a Service that
// followed those lines alone holds, at the same position, counts the
// two it let go, reports nothing new of the decision it kept, and
// follows the hub's next lines as before.
func TestResetFollowTakesTheHubsJournalInPlace(t *testing.T) {
	var tp tap
	fx := newFixture(t, func(o *Options) { o.OnJournal = tp.on })
	var ids []string
	decide := func() {
		t.Helper()
		it := fx.start(t, "ask")
		o := fx.svc.Send(context.Background(), fx.mustPrepare(t, it, Input{Kind: KindReply, Text: "yes"}))
		if o.Result != ResultAccepted {
			t.Fatalf("reply: %s", o.Words())
		}
		ids = append(ids, o.MessageID)
	}
	for range 3 {
		decide()
	}
	mirror, err := Open(Options{Hub: &refusingHub{}, Approver: "bob@test", Agents: []Agent{{Name: "agent", URL: fx.ag.srv.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	all := tp.all()
	if err := mirror.Follow(all); err != nil {
		t.Fatal(err)
	}
	if r, err := mirror.Refresh(); err != nil || len(r.Decisions) != 3 {
		t.Fatalf("the mirror reports %d decisions made elsewhere (%v); want 3", len(r.Decisions), err)
	}
	var held []JournalLine
	for _, l := range all {
		if bytes.Contains(l.Raw, []byte(`"id":"`+ids[2]+`"`)) {
			held = append(held, l)
		}
	}
	if len(held) < 2 {
		t.Fatalf("the last decision has %d lines; want its decision and outcome", len(held))
	}

	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10_000 {
				select {
				case <-stop:
					return
				default:
				}
				if es := mirror.Journal(); len(es) != 3 && len(es) != 1 {
					t.Errorf("a reader saw %d entries: a part of each journal", len(es))
					return
				}
				mirror.Followed()
			}
		}()
	}
	if err := mirror.ResetFollow(held); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()

	alone, err := Open(Options{Hub: &refusingHub{}, Approver: "bob@test", Agents: []Agent{{Name: "agent", URL: fx.ag.srv.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := alone.Follow(held); err != nil {
		t.Fatal(err)
	}
	if got, want := entryWords(mirror.Journal()), entryWords(alone.Journal()); got != want {
		t.Errorf("after ResetFollow the journal is:\n%s\none that followed those lines alone:\n%s", got, want)
	}
	if n, h := mirror.Followed(); n != held[len(held)-1].N || h != LineHash(held[len(held)-1].Raw) {
		t.Errorf("Followed = %d %s; want the last line taken, %d", n, h, held[len(held)-1].N)
	}
	if got := mirror.Forgotten(); got != 2 {
		t.Errorf("Forgotten = %d; want the 2 decisions let go", got)
	}
	if r, err := mirror.Refresh(); err != nil || len(r.Decisions) != 0 {
		t.Errorf("Refresh after ResetFollow reports %d decisions (%v); want none: the one kept did not change", len(r.Decisions), err)
	}
	if _, ok := mirror.Entry(ids[0]); ok {
		t.Error("the mirror still holds a decision the hub let go")
	}

	decide()
	if err := mirror.Follow(tp.all()); err != nil {
		t.Fatal(err)
	}
	if e, ok := mirror.Entry(ids[3]); !ok || e.Result != ResultAccepted {
		t.Errorf("the hub's next decision after the reset: %+v %v", e, ok)
	}
	if r, _ := mirror.Refresh(); len(r.Decisions) != 1 || r.Decisions[0].MessageID != ids[3] {
		t.Errorf("Refresh after the next decision reports %d decisions; want it", len(r.Decisions))
	}
	if err := fx.svc.ResetFollow(nil); err == nil {
		t.Error("ResetFollow on a Service that keeps its own journal file: no error")
	}
}
