package a2aclient

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// stuckStreams wraps a real SDK server so that its SSE streams never end:
// when the handler is done the connection stays open, silent, until the
// client goes. With replayOnly it also passes on only the first event (the
// task snapshot a subscribe replays), as a Go SDK agent does when a
// subscribe attaches in the instant an execution stops.
type stuckStreams struct {
	replayOnly bool
	mu         sync.Mutex
	held       int // streams held open after their handler returned
}

func (s *stuckStreams) heldOpen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

func (s *stuckStreams) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &stuckWriter{ResponseWriter: w, replayOnly: s.replayOnly}
		next.ServeHTTP(sw, r)
		if !sw.sse {
			return
		}
		s.mu.Lock()
		s.held++
		s.mu.Unlock()
		<-r.Context().Done()
	})
}

type stuckWriter struct {
	http.ResponseWriter
	replayOnly bool
	sse        bool
	buf        []byte
	events     int
}

func (w *stuckWriter) Write(p []byte) (int, error) {
	w.sse = w.sse || strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream")
	if !w.sse || !w.replayOnly {
		return w.ResponseWriter.Write(p)
	}
	w.buf = append(w.buf, p...)
	for w.events == 0 {
		i := bytes.Index(w.buf, []byte("\n\n"))
		if i < 0 {
			break
		}
		w.events++
		if _, err := w.ResponseWriter.Write(w.buf[:i+2]); err != nil {
			return 0, err
		}
	}
	return len(p), nil // later events are swallowed
}

func (w *stuckWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// streamsOf reads a watcher's stream count and whether it streams id.
func streamsOf(m *Manager, agent string, id a2a.TaskID) (n int, streaming bool) {
	w := m.watchers[agent]
	w.mu.Lock()
	defer w.mu.Unlock()
	if t := w.tasks.get(id); t != nil {
		streaming = t.streaming
	}
	return w.streams, streaming
}

// TestStuckStreamsAreClosed: a stream the server never closes is closed by
// the watcher once sweeps or polls show it stuck, which frees its
// MaxStreams slot (a second task gets streamed) and brings the task's
// final state to the model. replay-only: the stream replays the working
// task and stays silent while the task completes (a sweep shows a state
// the stream never reported). hold-open: the stream reports the task
// interrupted, then stays open with nothing more to come (silent for more
// than two sweep intervals).
func TestStuckStreamsAreClosed(t *testing.T) {
	for _, kind := range []sdktest.Kind{sdktest.JSONRPC, sdktest.Legacy, sdktest.LegacyREST} {
		for _, replayOnly := range []bool{true, false} {
			name := string(kind) + "/hold-open"
			if replayOnly {
				name = string(kind) + "/replay-only"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				ss := &stuckStreams{replayOnly: replayOnly}
				a := sdktest.Start(t, kind, true, ss.wrap)
				// replay-only: the stream misses the completion; hold-open:
				// it reports the completion and then never closes.
				first, final := a.Send(t, "hold"), a2a.TaskStateCompleted
				o := fast("a", a.URL())
				o.MaxStreams = 1
				o.Tasks = []a2a.TaskID{first}
				m, c := runManager(t, []AgentOptions{o}, Options{})
				c.waitFor(t, "the first task streamed", 10*time.Second, func(evs []model.Event) bool {
					return hasFrom(evs, first, model.SourceStream, "") // its snapshot: submitted or working
				})
				a.Exec.Release()
				second := a.Send(t, "hold") // waits on a new gate: active until the test ends
				m.Watch("a", second)
				c.waitFor(t, "the first task's final state", 10*time.Second, func(evs []model.Event) bool {
					return hasTask(evs, "a", first, final)
				})
				c.waitFor(t, "the second task streamed in the freed slot", 10*time.Second, func(evs []model.Event) bool {
					return hasFrom(evs, second, model.SourceStream, "")
				})
				if n, on := streamsOf(m, "a", first); n != 1 || on {
					t.Errorf("after the stuck stream: %d streams open, the first task streaming=%v; want 1 (the second task's) and false", n, on)
				}
				if ss.heldOpen() == 0 && !replayOnly {
					t.Error("no stream was held open by the server: the test did not exercise a stuck stream")
				}
			})
		}
	}
}

// hasFrom reports whether a snapshot of id in state st (any if "") came
// from src.
func hasFrom(evs []model.Event, id a2a.TaskID, src model.Source, st a2a.TaskState) bool {
	for _, e := range evs {
		if e.Kind == model.EventTask && e.Task.ID == id && e.Source == src && (st == "" || e.Task.Status.State == st) {
			return true
		}
	}
	return false
}

// TestCloseStuckStreamsRules: which open streams a round closes. The
// server tests above cannot tell the two rules apart (a stream that
// missed a terminal state is also silent on a terminal task); here each
// rule is checked alone, with times given, not waited for.
func TestCloseStuckStreamsRules(t *testing.T) {
	const sweep = time.Second
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		state  a2a.TaskState // what the watcher knows now
		stream a2a.TaskState // what the stream last reported
		seen   a2a.TaskState // what a sweep showed at t0 ("" = no sweep)
		seenTs time.Duration // its status timestamp, from the stream's
		heard  time.Duration // the stream's last event, before t0
		after  time.Duration // when the round runs, after t0
		closed bool
	}{
		{"moved on, still unreported by the next round", a2a.TaskStateWorking, a2a.TaskStateSubmitted, a2a.TaskStateWorking, 1, 0, sweep, true},
		{"moved on, round too soon", a2a.TaskStateWorking, a2a.TaskStateSubmitted, a2a.TaskStateWorking, 1, 0, sweep / 4, false},
		{"sweep older than the stream", a2a.TaskStateWorking, a2a.TaskStateInputRequired, a2a.TaskStateWorking, -1, 0, sweep, false},
		{"sweep agrees with the stream", a2a.TaskStateWorking, a2a.TaskStateWorking, a2a.TaskStateWorking, 1, 0, sweep, false},
		{"interrupted, silent for 2.5 sweeps: kept (a human is answering)", a2a.TaskStateInputRequired, a2a.TaskStateInputRequired, "", 0, 2 * sweep, sweep / 2, false},
		{"interrupted, silent for an hour: kept", a2a.TaskStateAuthRequired, a2a.TaskStateAuthRequired, "", 0, time.Hour, 0, false},
		{"terminal, silent for 2.5 sweeps", a2a.TaskStateCompleted, a2a.TaskStateCompleted, "", 0, 2 * sweep, sweep / 2, true},
		{"interrupted, heard 1.5 sweeps ago", a2a.TaskStateInputRequired, a2a.TaskStateInputRequired, "", 0, sweep, sweep / 2, false},
		{"active and silent for long", a2a.TaskStateWorking, a2a.TaskStateWorking, "", 0, time.Hour, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWatcher(AgentOptions{Name: "a", SweepInterval: sweep}.withDefaults(), &emitter{ch: make(chan model.Event, 1)}, slog.New(slog.DiscardHandler), 1)
			stopped := false
			sub := &openStream{stop: func() { stopped = true }, state: tc.stream, ts: t0, heard: t0.Add(-tc.heard)}
			w.tasks.m["x"] = &memo{seen: true, state: tc.state, open: sub}
			if tc.seen != "" {
				sub.compare(tc.seen, t0.Add(tc.seenTs), t0)
			}
			w.closeStuckStreams(t0.Add(tc.after))
			if stopped != tc.closed || (sub.why != "") != tc.closed {
				t.Fatalf("closed = %v (%q), want %v", stopped, sub.why, tc.closed)
			}
		})
	}
}
