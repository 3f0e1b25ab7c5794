package approvals

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// TestOnePromptOneDecisionUnderConcurrentSends: two decisions prepared for
// the same prompt before either was sent (a double confirm, two views)
// and sent at the same time: exactly one reaches the agent, the other is
// refused as already decided and nothing of it is journaled.
func TestOnePromptOneDecisionUnderConcurrentSends(t *testing.T) {
	for round := range 5 {
		fx := newFixture(t)
		mt := fx.start(t, "ask")
		d1 := fx.mustPrepare(t, mt, Input{Kind: KindReply, Text: "main"})
		d2 := fx.mustPrepare(t, mt, Input{Kind: KindReply, Text: "release"})
		outs := make([]Outcome, 2)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, d := range []*Decision{d1, d2} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				outs[i] = fx.svc.Send(context.Background(), d)
			}()
		}
		close(start)
		wg.Wait()
		sent := fx.ag.times(d1.MessageID) + fx.ag.times(d2.MessageID)
		if sent != 1 {
			t.Fatalf("round %d: the agent received %d decisions for one prompt (outcomes %s/%s, %s/%s)", round, sent,
				outs[0].Result, outs[0].Problem, outs[1].Result, outs[1].Problem)
		}
		var accepted, decided int
		for _, o := range outs {
			switch {
			case o.Result == ResultAccepted:
				accepted++
			case o.Problem == ProblemDecided && errors.Is(o.Err, ErrAlreadyDecided):
				decided++
			}
		}
		if accepted != 1 || decided != 1 {
			t.Fatalf("round %d: outcomes %+v / %+v, want one accepted and one already-decided", round, outs[0], outs[1])
		}
		if n := len(fx.svc.Journal()); n != 1 {
			t.Fatalf("round %d: journal holds %d decisions, want 1", round, n)
		}
	}
}

// TestServiceSafeForConcurrentUse: a tea.Cmd goroutine sends and
// reconciles while the UI goroutine reads Journal, Version, Prior, Queue,
// Observations and Blocking and a tick refreshes, as the dashboard does.
// Run with -race.
func TestServiceSafeForConcurrentUse(t *testing.T) {
	fx := newFixture(t)
	tasks := []*model.Task{fx.start(t, "ask"), fx.start(t, "ask"), fx.start(t, "deploy")}
	snaps := map[string][]*a2a.Task{}
	for _, mt := range tasks {
		snaps["agent"] = append(snaps["agent"], mt.Snapshot)
	}
	f := fleetOf(snaps)
	items := fx.svc.Queue(f, model.SortAge)
	if len(items) != 3 {
		t.Fatalf("queue = %d items", len(items))
	}
	var decisions []*Decision
	for _, it := range items {
		in := Input{Kind: KindReply, Text: "main"}
		if it.Task.State == a2a.TaskStateAuthRequired {
			in = Input{Kind: KindApprove}
		}
		d, err := fx.svc.Prepare(it, in)
		if err != nil {
			t.Fatal(err)
		}
		decisions = append(decisions, d)
	}
	done := make(chan struct{})
	go func() { // the tea.Cmd side
		defer close(done)
		for _, d := range decisions {
			if out := fx.svc.Send(context.Background(), d); out.Result != ResultAccepted {
				t.Errorf("send: %s/%s %v", out.Result, out.Problem, out.Err)
			}
			fx.svc.Reconcile(context.Background())
		}
	}()
	reads := 0
	for loop := true; loop; reads++ { // the UI side
		select {
		case <-done:
			loop = false
		default:
		}
		for _, e := range fx.svc.Journal() {
			_ = e.Words() + e.Next()
			if len(e.Parts) > 0 {
				_ = e.Parts[0].Text()
			}
		}
		_ = fx.svc.Version()
		for _, it := range fx.svc.Queue(f, model.SortAge) {
			if it.Prior != nil {
				_ = it.Prior.Result + Result(it.AnsweredElsewhere())
			}
		}
		_ = fx.svc.Observations(f)
		_, _ = fx.svc.Refresh() // the tick's tea.Cmd
		_ = len(fx.svc.Blocking())
	}
	if got := len(fx.svc.Journal()); got != 3 {
		t.Fatalf("journal holds %d decisions after %d reads, want 3", got, reads)
	}
}
