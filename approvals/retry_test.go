package approvals

import (
	"context"
	"errors"
	"testing"
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
