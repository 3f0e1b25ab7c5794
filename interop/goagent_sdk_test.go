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
//     execution stops it may replay the last events and close instead);
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
			subscribeErr := func(id a2a.TaskID) (int, error) {
				n := 0
				for _, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id}) {
					if err != nil {
						return n, err
					}
					n++
				}
				return n, nil
			}
			// Right after the execution stops, a subscribe may still attach
			// and replay the last events, then close; later it fails. Either
			// way the stream does not stay open (it returns here).
			asked := send(t, c, "", "ask", false)
			if n, err := subscribeErr(asked.ID); !errors.Is(err, a2a.ErrTaskNotFound) && (err != nil || n == 0) {
				t.Errorf("subscribe on INPUT_REQUIRED: %d events, err %v; pinned: ErrTaskNotFound (-32001 no active execution), or a replay that closes", n, err)
			}
			done := send(t, c, "", "run", false)
			if n, err := subscribeErr(done.ID); !errors.Is(err, a2a.ErrTaskNotFound) && (err != nil || n == 0) {
				t.Errorf("subscribe on COMPLETED: %d events, err %v; pinned: ErrTaskNotFound, or a replay that closes", n, err)
			}
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
