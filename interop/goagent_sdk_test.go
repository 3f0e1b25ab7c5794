package interop

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestGoPeerDifferences pins, with the raw Go SDK client on every binding,
// how a Go SDK server differs from the JS peer (TestJSPeer*):
//   - SubscribeToTask on an INPUT_REQUIRED task fails (-32001 "no active
//     execution", read by the client as ErrTaskNotFound) instead of
//     returning a snapshot and staying open (in the instant after the
//     execution stops it may replay the stored task and close, or hang:
//     a Go SDK race that a client must survive with a deadline);
//   - SubscribeToTask on a COMPLETED task fails the same way (the spec and
//     the JS SDK say UnsupportedOperation, -32004);
//   - a second CancelTask returns the CANCELED task, as on the JS peer;
//   - without a server interceptor, a message to a task in AUTH_REQUIRED is
//     refused (-32603 "execution already in progress"): the execution that
//     asked is still running.
func TestGoPeerDifferences(t *testing.T) {
	ga := startGoAgent(t, false)
	for _, b := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolGRPC} {
		t.Run(string(b), func(t *testing.T) {
			c, _ := sdkClient(t, ga.URL, clientOpts{Binding: b, Token: t.Name()})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			// subscribeOnce subscribes with its own deadline and reports
			// the events seen, the error, and whether the stream stayed
			// open until the deadline.
			subscribeOnce := func(id a2a.TaskID) (n int, hung bool, err error) {
				sctx, scancel := context.WithTimeout(ctx, time.Second)
				defer scancel()
				for _, err := range c.SubscribeToTask(sctx, &a2a.SubscribeToTaskRequest{ID: id}) {
					if err != nil {
						return n, sctx.Err() != nil, err
					}
					n++
				}
				return n, sctx.Err() != nil, nil
			}
			// Once the execution that wrote the task has stopped, a
			// subscribe fails with ErrTaskNotFound. In the instant before
			// (the Go SDK v2.4.0 still lists the execution while it closes
			// its queue) a subscribe may attach, replay the stored task,
			// and then close, or stay open with nothing more to come
			// (seen on gRPC under -race: internal/taskexec Resubscribe
			// versus the queue's teardown). Both are accepted only with the
			// replay, and only until the agent gives the settled answer.
			settled := func(what string, id a2a.TaskID) {
				t.Helper()
				for attempt := 1; ; attempt++ {
					n, hung, err := subscribeOnce(id)
					if errors.Is(err, a2a.ErrTaskNotFound) {
						if attempt > 1 {
							t.Logf("subscribe on %s settled to ErrTaskNotFound after %d attempts", what, attempt)
						}
						return
					}
					if n == 0 || (err != nil && !hung) || attempt == 10 {
						t.Errorf("subscribe on %s: %d events, err %v, open until the deadline %v (attempt %d); pinned: ErrTaskNotFound (-32001 no active execution), after at most a replay while the execution stops", what, n, err, hung, attempt)
						return
					}
					t.Logf("subscribe on %s attempt %d: replayed %d events, then %s", what, attempt, n, map[bool]string{true: "stayed open", false: "closed"}[hung])
					time.Sleep(50 * time.Millisecond)
				}
			}
			asked := send(t, c, "", "ask", false)
			settled("INPUT_REQUIRED", asked.ID)
			done := send(t, c, "", "run", false)
			settled("COMPLETED", done.ID)
			long := send(t, c, "", "long", true)
			waitState(t, c, long.ID, a2a.TaskStateWorking)
			for i := range 2 {
				got, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: long.ID})
				if err != nil || got.Status.State != a2a.TaskStateCanceled {
					t.Fatalf("cancel #%d: %v %v, want CANCELED", i+1, stateOf(got), err)
				}
			}
			if _, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: done.ID}); !errors.Is(err, a2a.ErrTaskNotCancelable) {
				t.Errorf("cancel of COMPLETED: %v, want ErrTaskNotCancelable", err)
			}
			gate := send(t, c, "", "approve-me", true)
			waitState(t, c, gate.ID, a2a.TaskStateAuthRequired)
			_, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: textMsg(gate.ID, "approve")})
			if !errors.Is(err, a2a.ErrInternalError) {
				t.Errorf("message to AUTH_REQUIRED without a hand-off: %v; pinned: ErrInternalError (-32603 execution in progress)", err)
			}
			if _, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: gate.ID}); err != nil {
				t.Errorf("cancel of the AUTH_REQUIRED task: %v", err)
			}
		})
	}
}
