package a2aclient

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// maxRefFix bounds the messageId -> referenceTaskIds pairs one call (a
// long stream, say) keeps; past it the map starts over.
const maxRefFix = 4096

var refsField = []byte(`"referenceTaskIds"`)

// refFix restores, for one call on an A2A 0.3 HTTP+JSON interface, the
// Message.referenceTaskIds the SDK v2.4.0 drops in both directions (its
// a2apb/v0/pbjson conversion never copies the field). authInterceptor
// attaches it to the call's context in Before (with the referenceTaskIds
// of the message being sent, if any); captureTransport writes those into
// the outgoing message JSON and records the referenceTaskIds of every
// message object in the response bodies and SSE events, by messageId; the
// interceptor's After puts them back on the decoded messages that lack
// them. A message with no messageId cannot be matched and stays as the
// SDK decoded it.
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
