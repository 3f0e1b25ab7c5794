package a2aclient

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"a2atop/internal/sdktest"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
)

// REST errors keep their A2A meaning whatever media type and shape the
// agent sends them in: application/json google.rpc.Status (the Go SDK),
// application/a2a+json (the JS SDK, spec §11.1), application/problem+json
// with a google.rpc.Status body (the Go SDK's 0.3 REST server) and RFC 9457
// problem details (spec §6.4). The SDK v2.4.0 alone returns ErrServerError
// for all but the first.
func TestRESTErrorShapes(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind sdktest.Kind
		wrap func(http.Handler) http.Handler
		raw  string // what the capture must still show of the error body
	}{
		{"go-json", sdktest.REST, nil, `"reason":"TASK_NOT_FOUND"`},
		{"js-a2a+json", sdktest.REST, sdktest.ReshapeErrors(sdktest.JSShape), `"reason":"TASK_NOT_FOUND"`},
		{"rfc9457-problem+json", sdktest.REST, sdktest.ReshapeErrors(sdktest.ProblemShape), `"type":"https://a2a-protocol.org/errors/task-not-found"`},
		{"go-0.3-problem+json", sdktest.LegacyREST, nil, `"reason":"TASK_NOT_FOUND"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := sdktest.Start(t, tc.kind, true, tc.wrap)
			m := New([]AgentOptions{fast("a", a.URL())}, Options{})
			ctx := t.Context()

			_, err := m.Get(ctx, "a", "no-such-task", 0, false)
			wantA2AError(t, "Get(unknown)", err, a2a.ErrTaskNotFound, -32001, 404)
			if d := Describe(err); !strings.Contains(d, "task not found") {
				t.Errorf("Describe = %q, want the words for a missing task", d)
			}
			ex := m.Capture("a")
			if last := ex[len(ex)-1]; last.Status != 404 || !strings.Contains(last.Response, tc.raw) {
				t.Errorf("capture shows %d %q; want the body as the agent sent it (%s)", last.Status, last.Response, tc.raw)
			}

			msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello"))
			msg.TaskID = "no-such-task"
			_, err = m.Reply(ctx, "a", msg)
			wantA2AError(t, "Reply(unknown task)", err, a2a.ErrTaskNotFound, -32001, 404)

			done := a.Send(t, "done")
			waitState(t, m, done, a2a.TaskStateCompleted)
			now, err := m.Cancel(ctx, "a", done)
			wantA2AError(t, "Cancel(completed)", err, a2a.ErrTaskNotCancelable, -32002, 400)
			if now == nil || now.Status.State != a2a.TaskStateCompleted {
				t.Errorf("Cancel(completed) returned %v, want the completed task", now)
			}
		})
	}
}

func wantA2AError(t *testing.T, what string, err, sentinel error, code, status int) {
	t.Helper()
	var c coded
	if !errors.Is(err, sentinel) || !asInterface(err, &c) || c.RPCCode() != code || c.HTTPStatus() != status {
		t.Errorf("%s = %v (RPCCode %d, HTTPStatus %d); want %v / %d / HTTP %d",
			what, err, rpcCode(err), httpStatus(err), sentinel, code, status)
	}
	if errors.Is(err, a2a.ErrServerError) {
		t.Errorf("%s is still ErrServerError: %v", what, err)
	}
}

func rpcCode(err error) int {
	var c coded
	if asInterface(err, &c) {
		return c.RPCCode()
	}
	return 0
}

func httpStatus(err error) int {
	var c coded
	if asInterface(err, &c) {
		return c.HTTPStatus()
	}
	return 0
}

// Errors the Manager has no operation for (push configs) classify the same
// in every shape as the Go SDK's own application/json answer.
func TestRESTErrorShapesPushConfig(t *testing.T) {
	var want error
	for _, shape := range []sdktest.Shape{nil, sdktest.JSShape, sdktest.ProblemShape} {
		var wrap func(http.Handler) http.Handler
		if shape != nil {
			wrap = sdktest.ReshapeErrors(shape)
		}
		a := sdktest.Start(t, sdktest.REST, true, wrap)
		m := New([]AgentOptions{fast("a", a.URL())}, Options{})
		w, err := m.ready(t.Context(), "a")
		if err != nil {
			t.Fatal(err)
		}
		err = w.call(t.Context(), "GetTaskPushConfig", func(ctx context.Context, cl *sdk.Client) error {
			_, err := cl.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: "t", ID: "c"})
			return err
		})
		if err == nil || errors.Is(err, a2a.ErrServerError) {
			t.Fatalf("GetTaskPushConfig = %v, want a classified A2A error", err)
		}
		if want == nil {
			want = err
			continue
		}
		if rpcCode(err) != rpcCode(want) || httpStatus(err) != httpStatus(want) {
			t.Errorf("GetTaskPushConfig = %v (%d, HTTP %d); the plain Go server gives %v (%d, HTTP %d)",
				err, rpcCode(err), httpStatus(err), want, rpcCode(want), httpStatus(want))
		}
	}
}
