package edge

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient/a2aerr"
)

// restErrorBodies makes an HTTP error answer that names an A2A error
// readable by the SDK. The SDK's REST client (github.com/a2aproject/a2a-go/v2
// v2.4.0, internal/rest FromRESTError) reads an error body only when its
// Content-Type starts with application/json and only as a google.rpc.Status
// whose ErrorInfo has domain a2a-protocol.org and string metadata; the JS
// SDK (and spec §11.1) send application/a2a+json, the SDK's own 0.3 REST
// server sends application/problem+json, and spec §6.4 shows RFC 9457
// problem details whose "type" names the error. Anything else becomes
// a2a.ErrServerError, and TaskNotFound, TaskNotCancelable or
// UnsupportedOperation lose their meaning. So when the body names a known
// A2A reason, the SDK gets it as application/json google.rpc.Status with a
// clean ErrorInfo; the capture below keeps the bytes as they came.
// TestSDKReadsOnlyJSONErrorBodies (rest_error_bodies_test.go, beside
// this file, the bare SDK against a real SDK server, then the same
// client over this layer) pins the SDK's side: the day it fails, the
// SDK reads these answers itself and this file and its test go;
// TestRESTErrorShapes and TestRESTErrorShapesPushConfig
// (a2aclient/rest_error_bodies_test.go) check the fix through
// a2aclient's wiring.
type restErrorBodies struct{ next http.RoundTripper }

// RESTErrorBodiesLayer is the fix, above next.
func RESTErrorBodiesLayer(next http.RoundTripper) http.RoundTripper { return restErrorBodies{next} }

// RoundTrip implements http.RoundTripper.
func (t restErrorBodies) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err == nil && !isSSE(resp) {
		fixRESTError(resp)
	}
	return resp, err
}

// restErrorBytes bounds how much of an HTTP error body is read to
// recover its A2A error; a longer body goes to the SDK as it is.
const restErrorBytes = 64 << 10

const (
	errorInfoType = "type.googleapis.com/google.rpc.ErrorInfo"
	a2aDomain     = "a2a-protocol.org"
)

// a2aReasons maps an ErrorInfo reason (TASK_NOT_FOUND, ...) to the SDK's
// sentinel, with the SDK's own spelling of each reason.
var a2aReasons = func() map[string]error {
	m := map[string]error{}
	for _, err := range a2aerr.Sentinels() {
		m[a2a.ErrorReason(err)] = err
	}
	return m
}()

// fixRESTError re-presents resp, when it is an error answer whose body
// names a known A2A reason, as the google.rpc.Status the SDK reads.
func fixRESTError(resp *http.Response) {
	if resp.StatusCode < 400 || resp.Body == nil {
		return
	}
	orig := resp.Body
	buf, err := io.ReadAll(io.LimitReader(orig, restErrorBytes+1))
	var fixed []byte
	if err == nil && len(buf) <= restErrorBytes {
		fixed = a2aErrorBody(buf, resp.StatusCode)
	}
	if fixed == nil {
		// As it came: what was read, then the rest (and its error).
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(buf), orig), orig}
		return
	}
	resp.Body = readCloser{bytes.NewReader(fixed), orig}
	resp.Header.Set("Content-Type", "application/json")
	resp.Header.Del("Content-Length")
	resp.ContentLength = int64(len(fixed))
}

type readCloser struct {
	io.Reader
	io.Closer
}

// statusBody is a google.rpc.Status error body, or RFC 9457 problem
// details, or a JSON-RPC answer (left alone).
type statusBody struct {
	Error   json.RawMessage `json:"error"`
	JSONRPC string          `json:"jsonrpc"`
	Type    string          `json:"type"`   // RFC 9457
	Title   string          `json:"title"`  // RFC 9457
	Detail  string          `json:"detail"` // RFC 9457
}

type statusError struct {
	Code    int               `json:"code"`
	Status  string            `json:"status"`
	Message string            `json:"message"`
	Details []json.RawMessage `json:"details"`
}

type errorInfo struct {
	Type     string         `json:"@type"`
	Reason   string         `json:"reason"`
	Domain   string         `json:"domain"`
	Metadata map[string]any `json:"metadata"`
}

// a2aErrorBody returns body rewritten as the google.rpc.Status the SDK
// reads, or nil when body names no known A2A error.
func a2aErrorBody(body []byte, httpStatus int) []byte {
	var b statusBody
	if json.Unmarshal(body, &b) != nil || b.JSONRPC != "" {
		return nil
	}
	var se statusError
	if len(b.Error) > 0 && json.Unmarshal(b.Error, &se) != nil {
		return nil // "error" is not an object: nothing we can read
	}
	reason, meta, rest := "", map[string]string(nil), make([]json.RawMessage, 0, len(se.Details))
	for _, raw := range se.Details {
		var info errorInfo
		if reason == "" && json.Unmarshal(raw, &info) == nil && strings.HasSuffix(info.Type, "google.rpc.ErrorInfo") &&
			(info.Domain == a2aDomain || info.Domain == "") && a2aReasons[info.Reason] != nil {
			reason, meta = info.Reason, stringMeta(info.Metadata)
			continue
		}
		rest = append(rest, raw)
	}
	if reason == "" && b.Type != "" {
		reason = problemReason(b.Type)
	}
	if reason == "" {
		return nil
	}
	if se.Message == "" {
		se.Message = b.Detail
	}
	if se.Message == "" {
		se.Message = b.Title
	}
	if se.Code == 0 {
		se.Code = httpStatus
	}
	info, err := json.Marshal(struct {
		Type     string            `json:"@type"`
		Reason   string            `json:"reason"`
		Domain   string            `json:"domain"`
		Metadata map[string]string `json:"metadata,omitempty"`
	}{errorInfoType, reason, a2aDomain, meta})
	if err != nil {
		return nil
	}
	se.Details = append([]json.RawMessage{info}, rest...)
	out, err := json.Marshal(struct {
		Error statusError `json:"error"`
	}{se})
	if err != nil {
		return nil
	}
	return out
}

// problemReason reads an RFC 9457 "type" such as
// https://a2a-protocol.org/errors/task-not-found as TASK_NOT_FOUND.
func problemReason(typ string) string {
	slug := typ[strings.LastIndexAny(typ, "/#:")+1:]
	r := strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(slug))
	for _, c := range []string{r, strings.TrimSuffix(r, "_ERROR")} {
		if a2aReasons[c] != nil {
			return c
		}
	}
	return ""
}

// stringMeta keeps ErrorInfo metadata as strings (the SDK drops an
// ErrorInfo whose metadata holds anything else).
func stringMeta(m map[string]any) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		switch v := v.(type) {
		case string:
			out[k] = v
		case float64:
			out[k] = strconv.FormatFloat(v, 'f', -1, 64)
		default:
			b, _ := json.Marshal(v)
			out[k] = string(b)
		}
	}
	return out
}
