package approvals

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestRetryOnlyWhileRetryable: a Decision carrying a later attempt is sent
// only while its journal entry is unknown or not-delivered, so a stale
// Retry (built before the first retry was accepted) cannot go out again.
func TestRetryOnlyWhileRetryable(t *testing.T) {
	fx := newFixture(t, func(o *Options) { o.SendTimeout = 300e6 })
	mt := fx.start(t, "ask")
	d := fx.mustPrepare(t, mt, Input{Kind: KindReply, Text: "main"})
	fx.ag.holdBefore.Store(true)
	if out := fx.svc.Send(context.Background(), d); out.Result != ResultUnknown {
		t.Fatalf("held send: %s/%s %v", out.Result, out.Problem, out.Err)
	}
	fx.ag.holdBefore.Store(false)
	r1, err := fx.svc.Retry(d.MessageID)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := fx.svc.Retry(d.MessageID) // a second view built the same retry
	if err != nil {
		t.Fatal(err)
	}
	if out := fx.svc.Send(context.Background(), r1); out.Result != ResultAccepted {
		t.Fatalf("retry: %s/%s %v", out.Result, out.Problem, out.Err)
	}
	before := len(records(t, fx.path))
	out := fx.svc.Send(context.Background(), r2)
	if out.Result != ResultRefused || out.Problem != ProblemDecided || !errors.Is(out.Err, ErrAlreadyDecided) {
		t.Fatalf("stale retry: %s/%s %v, want refused already-decided", out.Result, out.Problem, out.Err)
	}
	if n := fx.ag.times(d.MessageID); n != 1 {
		t.Fatalf("the agent received the decision %d times", n)
	}
	if after := len(records(t, fx.path)); after != before {
		t.Fatalf("the stale retry wrote %d journal records", after-before)
	}
}

// TestNoNewDecisionWhileOutcomeOpen: after a timeout the decision may
// have reached the agent. A new decision on the same prompt, even one
// the operator confirmed again, would carry a new messageId the agent
// cannot tell from a repeat; it is refused until the first is reconciled,
// in Prepare and in Send (for one prepared before the timeout).
func TestNoNewDecisionWhileOutcomeOpen(t *testing.T) {
	fx := newFixture(t, func(o *Options) { o.SendTimeout = 300e6 })
	mt := fx.start(t, "ask")
	d1 := fx.mustPrepare(t, mt, Input{Kind: KindReply, Text: "main"})
	d2 := fx.mustPrepare(t, mt, Input{Kind: KindReply, Text: "release", Again: true})
	fx.ag.holdAfter.Store(true) // delivered, but the answer is lost
	out := fx.svc.Send(context.Background(), d1)
	fx.ag.holdAfter.Store(false)
	if out.Result != ResultUnknown {
		t.Fatalf("held send: %s/%s %v", out.Result, out.Problem, out.Err)
	}
	if _, err := fx.svc.Prepare(fx.svc.ItemFor(mt), Input{Kind: KindReply, Text: "release", Again: true}); !errors.Is(err, ErrOutcomeOpen) {
		t.Fatalf("Prepare again while the first is unknown: %v", err)
	}
	o2 := fx.svc.Send(context.Background(), d2)
	if o2.Result != ResultRefused || o2.Problem != ProblemOpen || !errors.Is(o2.Err, ErrOutcomeOpen) || !strings.Contains(o2.Next(), "reconcile") {
		t.Fatalf("Send of a second decision while the first is unknown: %s/%s %v (%s)", o2.Result, o2.Problem, o2.Err, o2.Next())
	}
	if n := fx.ag.times(d2.MessageID); n != 0 {
		t.Fatalf("the second decision reached the agent %d times", n)
	}
	if rs := fx.svc.Reconcile(context.Background()); len(rs) != 1 || rs[0].Result != ResultAccepted {
		t.Fatalf("reconcile = %+v", rs)
	}
	if _, err := fx.svc.Prepare(fx.svc.ItemFor(mt), Input{Kind: KindReply, Text: "release"}); !errors.Is(err, ErrAlreadyDecided) {
		t.Fatalf("once reconciled, a new decision still needs confirming again: %v", err)
	}
}

// gateSender lets a test stop one GetTask after it has read the task and
// before its answer returns.
type gateSender struct {
	Sender
	armed   atomic.Bool
	read    chan struct{} // closed once the gated GetTask has its answer
	release chan struct{}
}

func (g *gateSender) Get(ctx context.Context, agent string, id a2a.TaskID, h int, arts bool) (*a2a.Task, error) {
	t, err := g.Sender.Get(ctx, agent, id, h, arts)
	if g.armed.CompareAndSwap(true, false) {
		close(g.read)
		<-g.release
	}
	return t, err
}

// TestRetryWhileReconciling: a reconcile that read "not delivered" must
// not record that after a Retry sent meanwhile was accepted. The decision
// is held while it is reconciled: the Retry is refused, nothing is sent,
// and retrying after the reconcile delivers it once.
func TestRetryWhileReconciling(t *testing.T) {
	g := &gateSender{read: make(chan struct{}), release: make(chan struct{})}
	fx := newFixture(t, func(o *Options) { o.SendTimeout = 300e6; g.Sender = o.Sender; o.Sender = g })
	mt := fx.start(t, "ask")
	d := fx.mustPrepare(t, mt, Input{Kind: KindReply, Text: "main"})
	fx.ag.holdBefore.Store(true)
	if out := fx.svc.Send(context.Background(), d); out.Result != ResultUnknown {
		t.Fatalf("held send: %s/%s %v", out.Result, out.Problem, out.Err)
	}
	fx.ag.holdBefore.Store(false)
	r, err := fx.svc.Retry(d.MessageID)
	if err != nil {
		t.Fatal(err)
	}
	g.armed.Store(true)
	done := make(chan []Outcome)
	go func() { done <- fx.svc.Reconcile(context.Background()) }()
	<-g.read // the reconcile has seen the task still waiting
	out := fx.svc.Send(context.Background(), r)
	close(g.release)
	rs := <-done
	if out.Result != ResultRefused || out.Problem != ProblemInFlight || fx.ag.times(d.MessageID) != 0 {
		t.Fatalf("retry during reconcile: %s/%s %v, received %d", out.Result, out.Problem, out.Err, fx.ag.times(d.MessageID))
	}
	if len(rs) != 1 || rs[0].Result != ResultNotDelivered {
		t.Fatalf("reconcile = %+v", rs)
	}
	r, err = fx.svc.Retry(d.MessageID)
	if err != nil {
		t.Fatal(err)
	}
	if out := fx.svc.Send(context.Background(), r); out.Result != ResultAccepted {
		t.Fatalf("retry after reconcile: %s/%s %v", out.Result, out.Problem, out.Err)
	}
	if e, _ := fx.svc.Entry(d.MessageID); e.Result != ResultAccepted || fx.ag.times(d.MessageID) != 1 {
		t.Fatalf("final: %s, received %d", e.Result, fx.ag.times(d.MessageID))
	}
}
