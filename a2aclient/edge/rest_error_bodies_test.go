package edge

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
)

// The parser's edges: what it leaves alone and what it repairs.
func TestA2AErrorBody(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       string // reason in the rewritten body, "" = left alone
	}{
		{"jsonrpc", `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"x"}}`, ""},
		{"no reason", `{"error":{"code":500,"status":"INTERNAL","message":"boom","details":[]}}`, ""},
		{"unknown reason", `{"error":{"code":400,"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"NOPE","domain":"a2a-protocol.org"}]}}`, ""},
		{"other domain", `{"error":{"code":404,"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"example.com"}]}}`, ""},
		{"error string", `{"error":"not found"}`, ""},
		{"html", `<html>502</html>`, ""},
		{"problem about:blank", `{"type":"about:blank","title":"Bad Gateway","status":502}`, ""},
		{"no domain, number metadata", `{"error":{"code":404,"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","metadata":{"attempt":2}}]}}`, "TASK_NOT_FOUND"},
		{"problem with -error", `{"type":"https://a2a-protocol.org/errors/task-not-cancelable-error","detail":"ended","status":400}`, "TASK_NOT_CANCELABLE"},
	} {
		out := a2aErrorBody([]byte(tc.body), 400)
		if tc.want == "" {
			if out != nil {
				t.Errorf("%s: rewritten to %s, want it left alone", tc.name, out)
			}
			continue
		}
		var g sdktest.GoStatus
		if err := json.Unmarshal(out, &g); err != nil || g.Reason() != tc.want || !bytes.Contains(out, []byte(`"domain":"a2a-protocol.org"`)) {
			t.Errorf("%s: rewritten to %s, want reason %s in domain a2a-protocol.org", tc.name, out, tc.want)
		}
	}
}

// TestSDKReadsOnlyJSONErrorBodies documents what rest_error_bodies.go
// works around: the SDK v2.4.0's REST clients, alone, read the error
// answers of the JS SDK (application/a2a+json), of RFC 9457 problem
// details and of the SDK's own 0.3 REST server (application/problem+json)
// as ErrServerError: the agent said TaskNotFound. It fails the day the
// SDK reads them: delete rest_error_bodies.go then. The same client over
// RESTErrorBodiesLayer reads TaskNotFound.
func TestSDKReadsOnlyJSONErrorBodies(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind sdktest.Kind
		wrap func(http.Handler) http.Handler
	}{
		{"js-a2a+json", sdktest.REST, sdktest.ReshapeErrors(sdktest.JSShape)},
		{"rfc9457-problem+json", sdktest.REST, sdktest.ReshapeErrors(sdktest.ProblemShape)},
		{"go-0.3-problem+json", sdktest.LegacyREST, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := sdktest.Start(t, tc.kind, false, tc.wrap)
			_, err := a.Other(t).GetTask(t.Context(), &a2a.GetTaskRequest{ID: "no-such-task"})
			if !errors.Is(err, a2a.ErrServerError) || errors.Is(err, a2a.ErrTaskNotFound) {
				t.Fatalf("bare SDK GetTask(unknown) = %v; pinned: ErrServerError, not ErrTaskNotFound", err)
			}
			fixed := a.Bare(t, RESTErrorBodiesLayer(http.DefaultTransport))
			if _, err := fixed.GetTask(t.Context(), &a2a.GetTaskRequest{ID: "no-such-task"}); !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Fatalf("SDK GetTask(unknown) over RESTErrorBodiesLayer = %v; want ErrTaskNotFound", err)
			}
		})
	}
}
