package sdktest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// RefServer wraps a real SDK server's HTTP handler. It records the
// referenceTaskIds of every message a client sends, as they are on the
// wire, and gives every message in its answers (bodies and SSE events)
// the referenceTaskIds it lacks: those the executor set on it, or those
// the client sent with it. It makes the SDK's 0.3 HTTP+JSON server, whose
// conversion drops the field both ways (a2apb/v0/pbjson), answer as a
// conformant 0.3 REST agent (the JS SDK, say) does; on the other bindings
// the SDK keeps the field and the wrapper changes nothing.
type RefServer struct {
	Exec atomic.Pointer[Exec] // the agent's executor (the references it set); store it after Start
	mu   sync.Mutex
	sent map[string][]a2a.TaskID // messageId -> referenceTaskIds as received
}

// SentRefs returns the referenceTaskIds of the message with messageId
// id as the server received it, nil for none.
func (s *RefServer) SentRefs(id string) []a2a.TaskID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent[id]
}

// Wrap is the server in front of next, for Start's wrap.
func (s *RefServer) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Body != nil {
			body, _ := io.ReadAll(r.Body)
			s.record(body)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		rw := &refWriter{ResponseWriter: w, s: s}
		next.ServeHTTP(rw, r)
		rw.finish()
	})
}

func (s *RefServer) record(body []byte) {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return
	}
	eachMessage(v, func(m map[string]any, id string) {
		list, _ := m["referenceTaskIds"].([]any)
		var ids []a2a.TaskID
		for _, x := range list {
			s, _ := x.(string)
			ids = append(ids, a2a.TaskID(s))
		}
		if ids != nil {
			s.mu.Lock()
			if s.sent == nil {
				s.sent = map[string][]a2a.TaskID{}
			}
			s.sent[id] = ids
			s.mu.Unlock()
		}
	})
}

// fill adds the missing referenceTaskIds to the messages in one JSON value.
func (s *RefServer) fill(data []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return data
	}
	changed := false
	eachMessage(v, func(m map[string]any, id string) {
		if _, ok := m["referenceTaskIds"]; ok {
			return
		}
		ids := s.SentRefs(id)
		if e := s.Exec.Load(); ids == nil && e != nil {
			ids = e.RefsOf(id)
		}
		if ids != nil {
			m["referenceTaskIds"], changed = ids, true
		}
	})
	if !changed {
		return data
	}
	out, err := json.Marshal(v)
	if err != nil {
		return data
	}
	return out
}

// eachMessage calls f on every JSON object with a string messageId.
func eachMessage(v any, f func(m map[string]any, id string)) {
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			eachMessage(x, f)
		}
	case map[string]any:
		if id, ok := v["messageId"].(string); ok && id != "" {
			f(v, id)
		}
		for _, x := range v {
			eachMessage(x, f)
		}
	}
}

// refWriter rewrites a JSON body as a whole and an SSE stream event by event.
type refWriter struct {
	http.ResponseWriter
	s       *RefServer
	decided bool
	sse     bool
	buf     []byte
}

func (w *refWriter) decide() {
	if !w.decided {
		w.decided = true
		w.sse = strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream")
		w.Header().Del("Content-Length")
	}
}

func (w *refWriter) WriteHeader(code int) {
	w.decide()
	w.ResponseWriter.WriteHeader(code)
}

func (w *refWriter) Write(p []byte) (int, error) {
	w.decide()
	w.buf = append(w.buf, p...)
	if w.sse {
		for {
			i := bytes.Index(w.buf, []byte("\n\n"))
			if i < 0 {
				break
			}
			ev := w.buf[:i+2]
			w.buf = w.buf[i+2:]
			if _, err := w.ResponseWriter.Write(w.fillEvent(ev)); err != nil {
				return 0, err
			}
		}
	}
	return len(p), nil
}

func (w *refWriter) fillEvent(ev []byte) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(ev, []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			out = append(append(append(out, "data: "...), w.s.fill(bytes.TrimSuffix(d, []byte("\n")))...), '\n')
			continue
		}
		out = append(out, line...)
	}
	return out
}

func (w *refWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *refWriter) finish() {
	w.decide()
	if len(w.buf) > 0 {
		if !w.sse {
			w.buf = w.s.fill(w.buf)
		}
		w.ResponseWriter.Write(w.buf)
	}
}
