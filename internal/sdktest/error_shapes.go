package sdktest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// GoStatus is the google.rpc.Status the Go SDK's REST server sends.
type GoStatus struct {
	Error struct {
		Code    int    `json:"code"`
		Status  string `json:"status"`
		Message string `json:"message"`
		Details []struct {
			Reason string `json:"reason"`
		} `json:"details"`
	} `json:"error"`
}

// Reason is the first ErrorInfo reason of the status, "" when none.
func (g GoStatus) Reason() string {
	for _, d := range g.Error.Details {
		if d.Reason != "" {
			return d.Reason
		}
	}
	return ""
}

// Shape turns the Go server's error answer (its status code and body)
// into another agent's: the Content-Type and the body to send.
type Shape func(code int, g GoStatus) (string, []byte)

// JSShape is what @a2a-js/sdk 1.3.0 sends, byte for byte (observed:
// 404, Content-Type "application/a2a+json; charset=utf-8", body
// {"error":{"code":404,"status":"NOT_FOUND","message":"Task not found: nope","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}).
func JSShape(code int, g GoStatus) (string, []byte) {
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
	body.Error.Details = []info{{"type.googleapis.com/google.rpc.ErrorInfo", g.Reason(), "a2a-protocol.org"}}
	b, _ := json.Marshal(body)
	return "application/a2a+json; charset=utf-8", b
}

// ProblemShape is RFC 9457 problem details as spec §6.4 shows them, the
// error named by "type".
func ProblemShape(code int, g GoStatus) (string, []byte) {
	slug := strings.ToLower(strings.ReplaceAll(g.Reason(), "_", "-"))
	b, _ := json.Marshal(map[string]any{
		"type": "https://a2a-protocol.org/errors/" + slug, "title": g.Error.Status,
		"status": code, "detail": g.Error.Message,
	})
	return "application/problem+json", b
}

// ReshapeErrors re-serves the Go server's error answers (status >= 400)
// in another shape; everything else, streams included, passes through.
func ReshapeErrors(shape Shape) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rw := &errorCatcher{ResponseWriter: w}
			next.ServeHTTP(rw, r)
			if rw.code == 0 {
				return
			}
			var g GoStatus
			if err := json.Unmarshal(rw.buf.Bytes(), &g); err != nil || g.Reason() == "" {
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

// errorCatcher holds back an error answer for ReshapeErrors.
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
