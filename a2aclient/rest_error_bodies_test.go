package a2aclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
)

// TestSDKReadsOnlyJSONErrorBodies documents what edge/rest_error_bodies.go
// works around: the SDK v2.4.0's REST clients, alone, read the error
// answers of the JS SDK (application/a2a+json), of RFC 9457 problem
// details and of the SDK's own 0.3 REST server (application/problem+json)
// as ErrServerError: the agent said TaskNotFound. It fails the day the
// SDK reads them: delete edge/rest_error_bodies.go then.
func TestSDKReadsOnlyJSONErrorBodies(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind agentKind
		wrap func(http.Handler) http.Handler
	}{
		{"js-a2a+json", kindREST, reshapeErrors(jsShape)},
		{"rfc9457-problem+json", kindREST, reshapeErrors(problemShape)},
		{"go-0.3-problem+json", kindLegacyREST, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := startAgent(t, tc.kind, false, tc.wrap)
			_, err := a.other(t).GetTask(t.Context(), &a2a.GetTaskRequest{ID: "no-such-task"})
			if !errors.Is(err, a2a.ErrServerError) || errors.Is(err, a2a.ErrTaskNotFound) {
				t.Fatalf("bare SDK GetTask(unknown) = %v; pinned: ErrServerError, not ErrTaskNotFound", err)
			}
		})
	}
}

// REST errors keep their A2A meaning whatever media type and shape the
// agent sends them in: application/json google.rpc.Status (the Go SDK),
// application/a2a+json (the JS SDK, spec §11.1), application/problem+json
// with a google.rpc.Status body (the Go SDK's 0.3 REST server) and RFC 9457
// problem details (spec §6.4). The SDK v2.4.0 alone returns ErrServerError
// for all but the first.
func TestRESTErrorShapes(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind agentKind
		wrap func(http.Handler) http.Handler
		raw  string // what the capture must still show of the error body
	}{
		{"go-json", kindREST, nil, `"reason":"TASK_NOT_FOUND"`},
		{"js-a2a+json", kindREST, reshapeErrors(jsShape), `"reason":"TASK_NOT_FOUND"`},
		{"rfc9457-problem+json", kindREST, reshapeErrors(problemShape), `"type":"https://a2a-protocol.org/errors/task-not-found"`},
		{"go-0.3-problem+json", kindLegacyREST, nil, `"reason":"TASK_NOT_FOUND"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := startAgent(t, tc.kind, true, tc.wrap)
			m := New([]AgentOptions{fast("a", a.url())}, Options{})
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

			done := a.send(t, "done")
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
	for _, shape := range []func(int, goStatus) (string, []byte){nil, jsShape, problemShape} {
		var wrap func(http.Handler) http.Handler
		if shape != nil {
			wrap = reshapeErrors(shape)
		}
		a := startAgent(t, kindREST, true, wrap)
		m := New([]AgentOptions{fast("a", a.url())}, Options{})
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

// goStatus is the google.rpc.Status the Go SDK's REST server sends.
type goStatus struct {
	Error struct {
		Code    int    `json:"code"`
		Status  string `json:"status"`
		Message string `json:"message"`
		Details []struct {
			Reason string `json:"reason"`
		} `json:"details"`
	} `json:"error"`
}

func (g goStatus) reason() string {
	for _, d := range g.Error.Details {
		if d.Reason != "" {
			return d.Reason
		}
	}
	return ""
}

// jsShape is what @a2a-js/sdk 1.3.0 sends, byte for byte (observed:
// 404, Content-Type "application/a2a+json; charset=utf-8", body
// {"error":{"code":404,"status":"NOT_FOUND","message":"Task not found: nope","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}).
func jsShape(code int, g goStatus) (string, []byte) {
	type info struct {
		Type   string `json:"@type"`
		Reason string `json:"reason"`
		Domain string `json:"domain"`
	}
	var body struct {
		Error struct {
			Code    int    `json:"code"`
			Status  string `json:"status"`
			Message string `json:"message"`
			Details []info `json:"details"`
		} `json:"error"`
	}
	body.Error.Code, body.Error.Status, body.Error.Message = code, g.Error.Status, g.Error.Message
	body.Error.Details = []info{{"type.googleapis.com/google.rpc.ErrorInfo", g.reason(), "a2a-protocol.org"}}
	b, _ := json.Marshal(body)
	return "application/a2a+json; charset=utf-8", b
}

// problemShape is RFC 9457 problem details as spec §6.4 shows them, the
// error named by "type".
func problemShape(code int, g goStatus) (string, []byte) {
	slug := strings.ToLower(strings.ReplaceAll(g.reason(), "_", "-"))
	b, _ := json.Marshal(map[string]any{
		"type": "https://a2a-protocol.org/errors/" + slug, "title": g.Error.Status,
		"status": code, "detail": g.Error.Message,
	})
	return "application/problem+json", b
}

// reshapeErrors re-serves the Go server's error answers (status >= 400)
// in another shape; everything else, streams included, passes through.
func reshapeErrors(shape func(int, goStatus) (string, []byte)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rw := &errorCatcher{ResponseWriter: w}
			next.ServeHTTP(rw, r)
			if rw.code == 0 {
				return
			}
			var g goStatus
			if err := json.Unmarshal(rw.buf.Bytes(), &g); err != nil || g.reason() == "" {
				w.WriteHeader(rw.code)
				w.Write(rw.buf.Bytes())
				return
			}
			ctype, body := shape(rw.code, g)
			w.Header().Set("Content-Type", ctype)
			w.Header().Del("Content-Length")
			w.WriteHeader(rw.code)
			w.Write(body)
		})
	}
}

// errorCatcher holds back an error answer for reshapeErrors.
type errorCatcher struct {
	http.ResponseWriter
	code int
	buf  bytes.Buffer
}

func (e *errorCatcher) WriteHeader(code int) {
	if code >= 400 {
		e.code = code
		return
	}
	e.ResponseWriter.WriteHeader(code)
}

func (e *errorCatcher) Write(p []byte) (int, error) {
	if e.code != 0 {
		return e.buf.Write(p)
	}
	return e.ResponseWriter.Write(p)
}

func (e *errorCatcher) Flush() {
	if f, ok := e.ResponseWriter.(http.Flusher); ok && e.code == 0 {
		f.Flush()
	}
}
