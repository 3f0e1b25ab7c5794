package edge

import (
	"bytes"
	"encoding/json"
	"testing"

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
