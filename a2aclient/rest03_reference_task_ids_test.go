package a2aclient

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// refServer wraps a real SDK server's HTTP handler. It records the
// referenceTaskIds of every message a client sends, as they are on the
// wire, and gives every message in its answers (bodies and SSE events)
// the referenceTaskIds it lacks: those the executor set on it, or those
// the client sent with it. It makes the SDK's 0.3 HTTP+JSON server, whose
// conversion drops the field both ways (a2apb/v0/pbjson), answer as a
// conformant 0.3 REST agent (the JS SDK, say) does; on the other bindings
// the SDK keeps the field and the wrapper changes nothing.
type refServer struct {
	exec atomic.Pointer[sdktest.Exec]
	mu   sync.Mutex
	sent map[string][]a2a.TaskID // messageId -> referenceTaskIds as received
}

func (s *refServer) sentRefs(id string) []a2a.TaskID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent[id]
}

func (s *refServer) wrap(next http.Handler) http.Handler {
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

func (s *refServer) record(body []byte) {
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
func (s *refServer) fill(data []byte) []byte {
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
		ids := s.sentRefs(id)
		if e := s.exec.Load(); ids == nil && e != nil {
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
	s       *refServer
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

// TestSDKDropsReferenceTaskIdsOn03REST documents what
// edge/rest03_reference_task_ids.go works around: the SDK v2.4.0's A2A 0.3
// HTTP+JSON client, alone, sends a message without its referenceTaskIds
// and decodes the messages of a conformant agent's answers without
// theirs. It fails the day the SDK keeps them: delete
// edge/rest03_reference_task_ids.go then.
func TestSDKDropsReferenceTaskIdsOn03REST(t *testing.T) {
	rs := &refServer{}
	a := sdktest.Start(t, sdktest.LegacyREST, false, rs.wrap)
	rs.exec.Store(a.Exec)
	ended := a.Send(t, "done")
	bare := a.Other(t)
	ctx := t.Context()

	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ask"))
	msg.ReferenceTasks = []a2a.TaskID{ended}
	if _, err := bare.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg}); err != nil {
		t.Fatal(err)
	}
	waiting := a.Send(t, "ref:"+string(ended))
	st := a.Stored(t, waiting, a2a.TaskStateAuthRequired).Status.Message
	if sent := rs.sentRefs(msg.ID); sent != nil || st == nil || a.Exec.RefsOf(st.ID) == nil || st.ReferenceTasks != nil {
		t.Fatalf("bare SDK over 0.3 HTTP+JSON: sent referenceTaskIds %v, decoded the status message with %v; "+
			"pinned: none sent, none decoded though the answer carries them", sent, st)
	}
}

// TestReferenceTaskIdsEveryHTTPBinding: referenceTaskIds survive both ways
// on every HTTP binding, including A2A 0.3 HTTP+JSON, where the SDK v2.4.0
// drops them (refFix puts them back): the follow-up we send names the
// ended task on the wire, and the references an agent's tasks carry reach
// the model from sweeps or polls, from streams (snapshot and status
// update) and from Get's history.
func TestReferenceTaskIdsEveryHTTPBinding(t *testing.T) {
	for _, kind := range []sdktest.Kind{sdktest.JSONRPC, sdktest.REST, sdktest.Legacy, sdktest.LegacyREST} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			rs := &refServer{}
			a := sdktest.Start(t, kind, true, rs.wrap)
			rs.exec.Store(a.Exec)
			base := a.Send(t, "ask")
			chained := a.Send(t, "chain:"+string(base))
			// Working and naming base before the watcher looks: a stream
			// opened earlier would get the reference in a status update,
			// not in its snapshot.
			a.Stored(t, chained, a2a.TaskStateWorking)
			o := fast("a", a.URL())
			o.Tasks = []a2a.TaskID{base, chained}
			m, c := runManager(t, []AgentOptions{o}, Options{})
			want := []a2a.TaskID{base}

			for _, src := range []model.Source{model.SourceStream, listedOrPolled(kind)} {
				c.waitFor(t, "the chained task's references via "+src.String(), 10*time.Second, func(evs []model.Event) bool {
					return slices.ContainsFunc(evs, func(e model.Event) bool {
						return e.Kind == model.EventTask && e.Task.ID == chained && e.Source == src &&
							e.Task.Status.Message != nil && slices.Equal(e.Task.Status.Message.ReferenceTasks, want)
					})
				})
			}
			a.Exec.Release()
			c.waitFor(t, "the stream's status update with its references", 10*time.Second, func(evs []model.Event) bool {
				return slices.ContainsFunc(evs, func(e model.Event) bool {
					return e.Kind == model.EventStatus && e.Status.TaskID == chained && e.Source == model.SourceStream &&
						e.Status.Status.State == a2a.TaskStateInputRequired && e.Status.Status.Message != nil &&
						slices.Equal(e.Status.Status.Message.ReferenceTasks, want)
				})
			})

			follow := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ask again"))
			follow.ID, follow.ReferenceTasks = "follow-up-"+string(kind), want
			fu, err := m.Reply(t.Context(), "a", follow)
			if err != nil || fu == nil {
				t.Fatalf("Reply: %v, %v", fu, err)
			}
			if got := rs.sentRefs(follow.ID); !slices.Equal(got, want) {
				t.Fatalf("the follow-up reached the agent with referenceTaskIds %v, want %v", got, want)
			}
			if !sentInCapture(m.Capture("a"), follow.ID, want) {
				t.Errorf("the raw capture does not show the follow-up sent with referenceTaskIds %v", want)
			}
			got, err := m.Get(t.Context(), "a", fu.ID, 10, false)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(got.History, func(h *a2a.Message) bool { return h.ID == follow.ID })
			if i < 0 || !slices.Equal(got.History[i].ReferenceTasks, want) {
				for _, h := range got.History {
					t.Logf("history: %s refs %v", h.ID, h.ReferenceTasks)
				}
				t.Fatalf("Get: the follow-up's history does not hold our message naming %s", base)
			}
		})
	}
}

func listedOrPolled(kind sdktest.Kind) model.Source {
	if kind == sdktest.Legacy {
		return model.SourcePoll
	}
	return model.SourceSweep
}

// sentInCapture reports whether the capture holds a SendMessage whose
// message (a REST body's "message" or a JSON-RPC request's
// params.message) is id with referenceTaskIds want, as it went out.
func sentInCapture(exs []model.Exchange, id string, want []a2a.TaskID) bool {
	for _, ex := range exs {
		_, body, ok := strings.Cut(ex.Request, "\n\n")
		if ex.RPC != "SendMessage" && ex.RPC != "message/send" || !ok {
			continue
		}
		type wireMsg struct {
			ID   string       `json:"messageId"`
			Refs []a2a.TaskID `json:"referenceTaskIds"`
		}
		var req struct {
			Message *wireMsg `json:"message"`
			Params  struct {
				Message *wireMsg `json:"message"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(body), &req) != nil {
			continue
		}
		msg := req.Message
		if msg == nil {
			msg = req.Params.Message
		}
		if msg != nil && msg.ID == id && slices.Equal(msg.Refs, want) {
			return true
		}
	}
	return false
}
