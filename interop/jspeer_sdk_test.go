package interop

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
)

// These tests pin the JS peer's behaviour with the raw Go SDK client, on
// every binding the peer serves, so a2atop's own tests can rely on it.

var jsBindings = []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolGRPC}

// eachJSBinding runs f once per binding against one shared 1.0 peer with
// gRPC on; each subtest gets its own bearer token, hence its own task scope.
func eachJSBinding(t *testing.T, f func(t *testing.T, c *sdk.Client, rec *recorder)) {
	peer := startPeer(t, "--grpc", "--step-ms=15")
	for _, b := range jsBindings {
		t.Run(string(b), func(t *testing.T) {
			c, rec := sdkClient(t, peer.URL, clientOpts{Binding: b, Token: t.Name()})
			f(t, c, rec)
		})
	}
}

func TestJSPeerSubscribeInterruptedStaysOpen(t *testing.T) {
	eachJSBinding(t, func(t *testing.T, c *sdk.Client, _ *recorder) {
		task := send(t, c, "", "ask", false)
		if task.Status.State != a2a.TaskStateInputRequired {
			t.Fatalf("ask: state %s, want INPUT_REQUIRED", task.Status.State)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		events := make(chan a2a.Event, 64)
		errs := make(chan error, 1)
		go func() {
			defer close(events)
			for ev, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}) {
				if err != nil {
					errs <- err
					return
				}
				events <- ev
			}
		}()
		first, ok := <-events
		if !ok {
			t.Fatalf("SubscribeToTask on an INPUT_REQUIRED task ended without a snapshot: %v", <-errs)
		}
		snap, isTask := first.(*a2a.Task)
		if !isTask || snap.Status.State != a2a.TaskStateInputRequired {
			t.Fatalf("first event %T %+v, want the INPUT_REQUIRED task snapshot", first, first)
		}
		// The stream stayed open: the continuation caused by a reply on the
		// same task arrives on it.
		send(t, c, task.ID, "staging", true)
		var states []a2a.TaskState
		for ev := range events {
			if su, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
				states = append(states, su.Status.State)
				if su.Status.State == a2a.TaskStateCompleted {
					break
				}
			}
		}
		if len(states) == 0 || states[len(states)-1] != a2a.TaskStateCompleted {
			t.Fatalf("subscription after the reply saw states %v (err %v), want ... COMPLETED", states, drainErr(errs))
		}
	})
}

func drainErr(errs chan error) error {
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// TestJSPeerSubscribeTerminal pins what a subscribe on a COMPLETED task
// looks like per binding. The peer answers -32004 / FAILED_PRECONDITION
// UNSUPPORTED_OPERATION everywhere, but the raw Go SDK client sees:
//   - JSON-RPC: an empty stream and no error, because the error comes as a
//     plain application/json body (HTTP 200), not as an SSE frame, and the
//     SDK's SSE reader skips lines without "data:";
//   - HTTP+JSON: ErrServerError, because the SDK parses REST error bodies
//     only when Content-Type starts with application/json and the peer
//     sends application/a2a+json (as spec §11.1 recommends);
//   - gRPC: ErrUnsupportedOperation.
func TestJSPeerSubscribeTerminal(t *testing.T) {
	eachJSBinding(t, func(t *testing.T, c *sdk.Client, rec *recorder) {
		task := send(t, c, "", "run", false)
		if task.Status.State != a2a.TaskStateCompleted {
			t.Fatalf("run: state %s, want COMPLETED", task.Status.State)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var gotErr error
		n := 0
		for _, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}) {
			if err != nil {
				gotErr = err
				break
			}
			n++
		}
		last := lastExchange(rec)
		switch binding(t) {
		case a2a.TransportProtocolJSONRPC:
			if n != 0 || gotErr != nil {
				t.Fatalf("SDK over JSON-RPC: %d events, err %v; pinned: 0 events, no error", n, gotErr)
			}
			if e := rpcErrorIn(last.Body); e == nil || e.Code != -32004 || last.Status != 200 {
				t.Fatalf("raw answer %d %q, want HTTP 200 with JSON-RPC error -32004", last.Status, last.Body)
			}
		case a2a.TransportProtocolHTTPJSON:
			if !errors.Is(gotErr, a2a.ErrServerError) {
				t.Fatalf("SDK over REST: err %v; pinned: ErrServerError (a2a+json error body not parsed)", gotErr)
			}
			if last.Status != 400 || restReason(last.Body) != "UNSUPPORTED_OPERATION" {
				t.Fatalf("raw answer %d %q, want 400 with reason UNSUPPORTED_OPERATION", last.Status, last.Body)
			}
		case a2a.TransportProtocolGRPC:
			if !errors.Is(gotErr, a2a.ErrUnsupportedOperation) {
				t.Fatalf("SDK over gRPC: %d events, err %v; want ErrUnsupportedOperation", n, gotErr)
			}
		}
	})
}

func TestJSPeerCancel(t *testing.T) {
	eachJSBinding(t, func(t *testing.T, c *sdk.Client, rec *recorder) {
		task := send(t, c, "", "long", true)
		waitState(t, c, task.ID, a2a.TaskStateWorking)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		got, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID})
		if err != nil || got.Status.State != a2a.TaskStateCanceled {
			t.Fatalf("first cancel: %v %v, want CANCELED", stateOf(got), err)
		}
		again, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID})
		if err != nil || again.Status.State != a2a.TaskStateCanceled {
			t.Fatalf("second cancel: %v %v, want the CANCELED task and no error", stateOf(again), err)
		}
		done := send(t, c, "", "run", false)
		_, err = c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: done.ID})
		want := a2a.ErrTaskNotCancelable
		if binding(t) == a2a.TransportProtocolHTTPJSON {
			want = a2a.ErrServerError // see TestJSPeerSubscribeTerminal
			if last := lastExchange(rec); last.Status != 400 || restReason(last.Body) != "TASK_NOT_CANCELABLE" {
				t.Fatalf("raw answer %d %q, want 400 TASK_NOT_CANCELABLE", last.Status, last.Body)
			}
		}
		if !errors.Is(err, want) {
			t.Fatalf("cancel of a COMPLETED task: %v, want %v", err, want)
		}
		// Canceling an interrupted task works too.
		asked := send(t, c, "", "ask", false)
		got, err = c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: asked.ID})
		if err != nil || got.Status.State != a2a.TaskStateCanceled {
			t.Fatalf("cancel of an INPUT_REQUIRED task: %v %v, want CANCELED", stateOf(got), err)
		}
	})
}

func TestJSPeerAuthRequiredByMessage(t *testing.T) {
	eachJSBinding(t, func(t *testing.T, c *sdk.Client, _ *recorder) {
		for _, tc := range []struct {
			reply string
			want  a2a.TaskState
		}{{"approve", a2a.TaskStateCompleted}, {"deny: not today", a2a.TaskStateFailed}} {
			task := send(t, c, "", "approve-me", false)
			if task.Status.State != a2a.TaskStateAuthRequired {
				t.Fatalf("approve-me: state %s, want AUTH_REQUIRED", task.Status.State)
			}
			res := send(t, c, task.ID, tc.reply, false)
			if res.ID != task.ID || res.Status.State != tc.want {
				t.Fatalf("reply %q: task %s state %s, want %s on the same task %s", tc.reply, res.ID, res.Status.State, tc.want, task.ID)
			}
		}
	})
}

func TestJSPeerArtifactsAndFinalStates(t *testing.T) {
	eachJSBinding(t, func(t *testing.T, c *sdk.Client, _ *recorder) {
		run := send(t, c, "", "run passed=11 failed=1", false)
		var summary map[string]any
		for _, a := range run.Artifacts {
			if a.Name == "summary.json" && len(a.Parts) == 1 {
				summary, _ = a.Parts[0].Data().(map[string]any)
			}
		}
		if summary["passed"] != float64(11) || summary["failed"] != float64(1) {
			t.Fatalf("summary.json artifact = %v (artifacts %d), want {passed:11 failed:1}", summary, len(run.Artifacts))
		}
		if s := send(t, c, "", "fail", false).Status.State; s != a2a.TaskStateFailed {
			t.Fatalf("fail: %s", s)
		}
		if s := send(t, c, "", "reject", false).Status.State; s != a2a.TaskStateRejected {
			t.Fatalf("reject: %s", s)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: textMsg("", "hello")})
		if _, ok := res.(*a2a.Message); err != nil || !ok {
			t.Fatalf("hello: %T %v, want a direct Message", res, err)
		}
	})
}

// binding is the binding of the current eachJSBinding subtest.
func binding(t *testing.T) a2a.TransportProtocol {
	name := t.Name()
	return a2a.TransportProtocol(name[strings.LastIndex(name, "/")+1:])
}

func lastExchange(rec *recorder) exchange {
	ex := rec.exchanges()
	if len(ex) == 0 {
		return exchange{}
	}
	return ex[len(ex)-1]
}

// restReason is the ErrorInfo reason of a google.rpc.Status error body.
func restReason(body []byte) string {
	var env struct {
		Error struct {
			Details []struct {
				Reason string `json:"reason"`
			} `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) != nil {
		return ""
	}
	for _, d := range env.Error.Details {
		if d.Reason != "" {
			return d.Reason
		}
	}
	return ""
}
