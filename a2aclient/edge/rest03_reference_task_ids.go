package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
)

// The SDK's A2A 0.3 HTTP+JSON conversion (github.com/a2aproject/a2a-go/v2
// v2.4.0, a2apb/v0/pbjson messageToWire and messageFromWire, used by its
// 0.3 REST client) never copies Message.referenceTaskIds, though its wire
// type has the field: a follow-up reached a 0.3 REST agent without naming
// the task it follows, and the references in such an agent's tasks never
// reached the model, so chains through it could not be linked. (0.3
// JSON-RPC and the v1.0 bindings keep them.) On such an interface
// rest03RefsInterceptor gives each call a refFix; rest03Refs, the
// RoundTripper, writes the sent message's referenceTaskIds back into the
// request JSON and records those of every message in the answer by
// messageId; the interceptor's After puts them back on the decoded task,
// message, status update or listing where the SDK left them out. A
// message without a messageId cannot be matched and stays as decoded.
// TestSDKDropsReferenceTaskIdsOn03REST
// (rest03_reference_task_ids_test.go, beside this file, the bare SDK
// against a real SDK server) pins the SDK's side: the day it fails, the
// SDK keeps the field itself and this file and its test go, with
// TestReferenceTaskIdsEveryHTTPBinding
// (a2aclient/rest03_reference_task_ids_test.go), which checks the fix
// through a2aclient's wiring.

// rest03RefsInterceptor attaches a refFix to every call while the agent's
// interface is A2A 0.3 HTTP+JSON, and puts back what the SDK's decoding
// dropped.
type rest03RefsInterceptor struct {
	sdk.PassthroughInterceptor
	legacy *atomic.Bool // the agent's interface is A2A 0.3 HTTP+JSON
}

// REST03RefsInterceptor is the SDK interceptor of the fix, for an agent
// whose chosen interface is A2A 0.3 HTTP+JSON while legacy is true.
func REST03RefsInterceptor(legacy *atomic.Bool) sdk.CallInterceptor {
	return &rest03RefsInterceptor{legacy: legacy}
}

// Before implements sdk.CallInterceptor.
func (i *rest03RefsInterceptor) Before(ctx context.Context, req *sdk.Request) (context.Context, any, error) {
	if i.legacy.Load() {
		ctx = context.WithValue(ctx, refFixKey{}, newRefFix(req.Payload))
	}
	return ctx, nil, nil
}

// After implements sdk.CallInterceptor.
func (i *rest03RefsInterceptor) After(ctx context.Context, resp *sdk.Response) error {
	if f := refFixFrom(ctx); f != nil && resp.Payload != nil {
		f.restore(resp.Payload)
	}
	return nil
}

// rest03Refs applies the call's refFix to its request and its answer.
type rest03Refs struct{ next http.RoundTripper }

// REST03RefsLayer is the RoundTripper of the fix, above next.
func REST03RefsLayer(next http.RoundTripper) http.RoundTripper { return rest03Refs{next} }

// RoundTrip implements http.RoundTripper.
func (t rest03Refs) RoundTrip(req *http.Request) (*http.Response, error) {
	f := refFixFrom(req.Context())
	if f == nil {
		return t.next.RoundTrip(req)
	}
	resp, err := t.next.RoundTrip(f.rewrite(req))
	if err != nil || resp.StatusCode != http.StatusOK { // an error body has no messages
		return resp, err
	}
	resp.Body = &refsBody{rc: resp.Body, f: f, sse: isSSE(resp)}
	return resp, nil
}

// refsBody records the referenceTaskIds of a body's messages: of an SSE
// event as soon as it ends, of a unary answer once it is read to the end
// or closed (the SDK decodes it before it returns, and so before After).
type refsBody struct {
	rc   io.ReadCloser
	f    *refFix
	sse  bool
	ev   sseEvents
	keep []byte // the unary answer, or the SSE event being read
	done bool   // read to the end, failed or closed
}

func (b *refsBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if b.done {
		return n, err
	}
	for q := p[:n]; len(q) > 0; {
		event, rest, ended := q, []byte(nil), false
		if b.sse {
			event, rest, ended = b.ev.next(q)
		}
		b.keep = append(b.keep, event...)
		if ended {
			b.f.scanSSE(b.keep)
			b.keep = b.keep[:0]
		}
		q = rest
	}
	if err == io.EOF {
		b.finish()
	} else if err != nil {
		b.done, b.keep = true, nil
	}
	return n, err
}

func (b *refsBody) Close() error {
	b.finish()
	return b.rc.Close()
}

func (b *refsBody) finish() {
	if !b.done && !b.sse {
		b.f.scan(b.keep)
	}
	b.done, b.keep = true, nil
}

// maxRefFix bounds the messageId -> referenceTaskIds pairs one call (a
// long stream, say) keeps; past it the map starts over.
const maxRefFix = 4096

var refsField = []byte(`"referenceTaskIds"`)

// refFix is, for one call, the referenceTaskIds of the message it sends
// and those read on the wire in its answer, by messageId. Safe for
// concurrent use.
type refFix struct {
	outID   string       // messageId of the message being sent
	outRefs []a2a.TaskID // its referenceTaskIds

	mu sync.Mutex
	in map[string][]a2a.TaskID // messageId -> referenceTaskIds read on the wire
}

type refFixKey struct{}

func refFixFrom(ctx context.Context) *refFix {
	f, _ := ctx.Value(refFixKey{}).(*refFix)
	return f
}

// newRefFix builds the fix for one call whose request payload is req.
func newRefFix(req any) *refFix {
	f := &refFix{}
	if sm, ok := req.(*a2a.SendMessageRequest); ok && sm != nil && sm.Message != nil && len(sm.Message.ReferenceTasks) > 0 {
		f.outID, f.outRefs = sm.Message.ID, sm.Message.ReferenceTasks
	}
	return f
}

// rewrite returns req with the sent message's referenceTaskIds put back
// into its JSON body, or req itself when there is nothing to add.
func (f *refFix) rewrite(req *http.Request) *http.Request {
	if f.outID == "" || req.GetBody == nil || req.Method != http.MethodPost {
		return req
	}
	rc, err := req.GetBody()
	if err != nil {
		return req
	}
	body, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return req
	}
	fixed := addOutRefs(body, f.outID, f.outRefs)
	if fixed == nil {
		return req
	}
	r2 := req.Clone(req.Context())
	r2.Body = io.NopCloser(bytes.NewReader(fixed))
	r2.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(fixed)), nil }
	r2.ContentLength = int64(len(fixed))
	if req.Body != nil {
		req.Body.Close() // a RoundTripper closes the body it was given
	}
	return r2
}

// addOutRefs returns body, a 0.3 REST SendMessageRequest, with refs as
// its message's referenceTaskIds, or nil when the message is not the one
// named id or already carries the field.
func addOutRefs(body []byte, id string, refs []a2a.TaskID) []byte {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil || top["message"] == nil {
		return nil
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(top["message"], &msg) != nil || msg == nil || msg["referenceTaskIds"] != nil {
		return nil
	}
	var got string
	if json.Unmarshal(msg["messageId"], &got) != nil || got != id {
		return nil
	}
	var err error
	if msg["referenceTaskIds"], err = marshalNoEscape(refs); err != nil {
		return nil
	}
	if top["message"], err = marshalNoEscape(msg); err != nil {
		return nil
	}
	out, err := marshalNoEscape(top)
	if err != nil {
		return nil
	}
	return out
}

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// scanSSE records the referenceTaskIds in one SSE event (its data lines).
func (f *refFix) scanSSE(ev []byte) {
	if !bytes.Contains(ev, refsField) {
		return
	}
	var data []byte
	for _, line := range bytes.Split(ev, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		v, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		if len(data) > 0 {
			data = append(data, '\n')
		}
		data = append(data, bytes.TrimPrefix(v, []byte(" "))...)
	}
	f.scan(data)
}

// scan records the referenceTaskIds of every message object in a JSON
// body: any object with a string messageId and a referenceTaskIds array.
func (f *refFix) scan(body []byte) {
	if !bytes.Contains(body, refsField) {
		return
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.walk(v)
}

func (f *refFix) walk(v any) {
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			f.walk(x)
		}
	case map[string]any:
		id, _ := v["messageId"].(string)
		if list, ok := v["referenceTaskIds"].([]any); ok && id != "" {
			var ids []a2a.TaskID
			for _, x := range list {
				if s, ok := x.(string); ok && s != "" {
					ids = append(ids, a2a.TaskID(s))
				}
			}
			if len(ids) > 0 {
				if f.in == nil || len(f.in) >= maxRefFix {
					f.in = map[string][]a2a.TaskID{}
				}
				f.in[id] = ids
			}
		}
		for _, x := range v {
			f.walk(x)
		}
	}
}

// restore puts the recorded referenceTaskIds back on the messages of a
// decoded result or stream event that lack them.
func (f *refFix) restore(payload any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.in) == 0 {
		return
	}
	msg := func(m *a2a.Message) {
		if m != nil && m.ID != "" && len(m.ReferenceTasks) == 0 {
			if ids := f.in[m.ID]; ids != nil {
				m.ReferenceTasks = append([]a2a.TaskID(nil), ids...)
			}
		}
	}
	task := func(t *a2a.Task) {
		if t == nil {
			return
		}
		msg(t.Status.Message)
		for _, h := range t.History {
			msg(h)
		}
	}
	switch p := payload.(type) {
	case *a2a.Task:
		task(p)
	case *a2a.Message:
		msg(p)
	case *a2a.TaskStatusUpdateEvent:
		if p != nil {
			msg(p.Status.Message)
		}
	case *a2a.ListTasksResponse:
		if p != nil {
			for _, t := range p.Tasks {
				task(t)
			}
		}
	}
}
