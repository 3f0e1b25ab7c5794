package a2aclient

import (
	"context"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// openStream is what a watcher knows about one open SubscribeToTask
// stream, so it does not rely on the server to close it. A Go SDK agent
// (v2.4.0, internal/taskexec Resubscribe) asked to subscribe in the
// instant an execution stops can replay the task and then stay open with
// nothing more to come: such a stream would hold one of the MaxStreams
// slots for ever while the task moves on unreported. All fields are
// guarded by the watcher's mu.
type openStream struct {
	stop  context.CancelFunc
	state a2a.TaskState // the last state the stream reported (the known one when it opened)
	ts    time.Time     // and its status timestamp
	heard time.Time     // when the stream last said anything, or opened
	lag   time.Time     // since when a sweep or poll shows a state the stream has not reported; zero if none
	why   string        // set when we closed it
}

// opened records a new subscribe on id, whose cancel is stop.
func (w *watcher) opened(id a2a.TaskID, stop context.CancelFunc) *openStream {
	w.mu.Lock()
	defer w.mu.Unlock()
	sub := &openStream{stop: stop, heard: time.Now()}
	if m := w.tasks.get(id); m != nil {
		sub.state, sub.ts = m.state, m.ts
		m.open = sub
	}
	return sub
}

// heard notes one event of the stream sub on id.
func (w *watcher) heard(id a2a.TaskID, sub *openStream, ev a2a.Event) {
	var st *a2a.TaskStatus
	switch e := ev.(type) {
	case *a2a.Task:
		if e.ID == id {
			st = &e.Status
		}
	case *a2a.TaskStatusUpdateEvent:
		if e.TaskID == id {
			st = &e.Status
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	sub.heard = time.Now()
	if st != nil {
		sub.state, sub.lag = model.NormalizeState(st.State), time.Time{}
		if st.Timestamp != nil {
			sub.ts = *st.Timestamp
		}
	}
}

// closed ends the record of sub on id and says why we closed it ("" if we
// did not).
func (w *watcher) closed(id a2a.TaskID, sub *openStream) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if m := w.tasks.get(id); m != nil && m.open == sub {
		m.open = nil
	}
	return sub.why
}

// compare notes what a sweep, poll or GetTask says of a streamed task: a
// state the stream has not reported, at a status timestamp not older than
// the stream's, means the task may have moved on without the stream.
func (sub *openStream) compare(st a2a.TaskState, ts, now time.Time) {
	switch {
	case sub == nil:
	case st == sub.state || ts.Before(sub.ts):
		sub.lag = time.Time{}
	case sub.lag.IsZero():
		sub.lag = now
	}
}

// closeStuckStreams closes the streams the server will not close for us;
// each then ends as any stream does (GetTask, and a new subscribe only if
// the task is still active). A stream is stuck when a sweep or poll showed
// a state it has not reported and it has still not reported it half a
// sweep interval later (by the next round), or when the task is terminal
// and the stream has said nothing for two sweep intervals (a stream must
// close at a terminal state). A stream on an interrupted task that only
// stays silent is kept: agents such as the JavaScript SDK's keep it open
// on purpose and send the outcome of the human's reply on it, and a
// person may take long to answer. If such a stream is in fact stuck, it
// holds its slot until the task moves on, and the first rule closes it.
// Called with w.mu held, once per round.
func (w *watcher) closeStuckStreams(now time.Time) {
	for _, m := range w.tasks.m {
		sub := m.open
		if sub == nil || sub.why != "" {
			continue
		}
		c := model.ClassOf(m.state)
		switch {
		case !sub.lag.IsZero() && now.Sub(sub.lag) >= w.o.SweepInterval/2:
			sub.why = "the task moved on to " + string(m.state) + " and the stream did not say so"
		case c == model.ClassTerminal && now.Sub(sub.heard) > 2*w.o.SweepInterval:
			sub.why = "the task is " + string(m.state) + " and the stream has been silent for " + now.Sub(sub.heard).Round(time.Millisecond).String()
		default:
			continue
		}
		sub.stop()
	}
}
