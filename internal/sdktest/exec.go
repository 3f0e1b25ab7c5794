package sdktest

import (
	"context"
	"iter"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Exec is a small agent. The first word of the message decides:
//
//	done        working, a summary.json artifact, completed
//	ask         input-required (the execution ends)
//	hold        working, then waits for Release(), then completed
//	at:NANOS    input-required with status timestamp NANOS on every event
//	chatty:N    N working updates, then completed
//	big:N       input-required with an N-byte status message
//	bigwork:N   working with an N-byte status message, waits for Release(),
//	            then completed
//	ref:ID      auth-required, its status message naming task ID in referenceTaskIds
//	chain:ID    working naming task ID in referenceTaskIds, waits for
//	            Release(), then input-required naming it again
//	answer      (a reply on an input-required task) completed
type Exec struct {
	mu      sync.Mutex
	gate    chan struct{}
	Started chan a2a.TaskID         // the id of every task it began, while there is room (100)
	refs    map[string][]a2a.TaskID // messageId -> referenceTaskIds of the messages it sent
}

// withRefs sets msg's referenceTaskIds and remembers them by messageId.
func (e *Exec) withRefs(msg *a2a.Message, ids ...a2a.TaskID) {
	msg.ReferenceTasks = ids
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.refs == nil {
		e.refs = map[string][]a2a.TaskID{}
	}
	e.refs[msg.ID] = ids
}

// RefsOf returns the referenceTaskIds of the message the agent sent
// with messageId id.
func (e *Exec) RefsOf(id string) []a2a.TaskID {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.refs[id]
}

// NewExec returns an executor whose held tasks wait for Release.
func NewExec() *Exec {
	return &Exec{gate: make(chan struct{}), Started: make(chan a2a.TaskID, 100)}
}

// Release lets every held task go on.
func (e *Exec) Release() {
	e.mu.Lock()
	defer e.mu.Unlock()
	close(e.gate)
	e.gate = make(chan struct{})
}

func (e *Exec) gateCh() chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.gate
}

func msgText(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range m.Parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

func statusEv(ec *a2asrv.ExecutorContext, st a2a.TaskState, at time.Time, text string) *a2a.TaskStatusUpdateEvent {
	var msg *a2a.Message
	if text != "" {
		msg = a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(text))
	}
	ev := a2a.NewStatusUpdateEvent(ec, st, msg)
	ev.Status.Timestamp = &at
	return ev
}

// Execute runs the task the message's first word names (see Exec).
func (e *Exec) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		word := strings.Fields(msgText(ec.Message) + " _")[0]
		gate := e.gateCh() // taken before the task exists, so no release is missed
		at := time.Now()
		if n, ok := strings.CutPrefix(word, "at:"); ok {
			v, _ := strconv.ParseInt(n, 10, 64)
			at = time.Unix(0, v).UTC()
		}
		if ec.StoredTask == nil {
			t := a2a.NewSubmittedTask(ec, ec.Message)
			t.Status.Timestamp = &at
			if !yield(t, nil) {
				return
			}
		}
		select {
		case e.Started <- ec.TaskID:
		default:
		}
		switch {
		case strings.HasPrefix(word, "bigwork:"):
			n, _ := strconv.Atoi(strings.TrimPrefix(word, "bigwork:"))
			if !yield(statusEv(ec, a2a.TaskStateWorking, time.Now(), strings.Repeat("w", n)), nil) {
				return
			}
			select {
			case <-gate:
			case <-ctx.Done():
				return
			}
			yield(statusEv(ec, a2a.TaskStateCompleted, time.Now(), "done"), nil)
		case strings.HasPrefix(word, "big:"):
			n, _ := strconv.Atoi(strings.TrimPrefix(word, "big:"))
			yield(statusEv(ec, a2a.TaskStateInputRequired, time.Now(), strings.Repeat("y", n)), nil)
		case word == "ask":
			yield(statusEv(ec, a2a.TaskStateInputRequired, time.Now(), "Which branch?"), nil)
		case strings.HasPrefix(word, "ref:"):
			ev := statusEv(ec, a2a.TaskStateAuthRequired, time.Now(), "waiting on another task")
			e.withRefs(ev.Status.Message, a2a.TaskID(strings.TrimPrefix(word, "ref:")))
			yield(ev, nil)
		case strings.HasPrefix(word, "chain:"):
			ref := a2a.TaskID(strings.TrimPrefix(word, "chain:"))
			ev := statusEv(ec, a2a.TaskStateWorking, time.Now(), "waiting on another task")
			e.withRefs(ev.Status.Message, ref)
			if !yield(ev, nil) {
				return
			}
			select {
			case <-gate:
			case <-ctx.Done():
				return
			}
			ev = statusEv(ec, a2a.TaskStateInputRequired, time.Now(), "look at the other task first")
			e.withRefs(ev.Status.Message, ref)
			yield(ev, nil)
		case strings.HasPrefix(word, "at:"):
			yield(statusEv(ec, a2a.TaskStateInputRequired, at, "same time"), nil)
		case word == "hold":
			if !yield(statusEv(ec, a2a.TaskStateWorking, time.Now(), "holding"), nil) {
				return
			}
			select {
			case <-gate:
			case <-ctx.Done():
				return
			}
			yield(statusEv(ec, a2a.TaskStateCompleted, time.Now(), "released"), nil)
		case strings.HasPrefix(word, "chatty:"):
			n, _ := strconv.Atoi(strings.TrimPrefix(word, "chatty:"))
			select {
			case <-gate:
			case <-ctx.Done():
				return
			}
			for i := 0; i < n; i++ {
				if !yield(statusEv(ec, a2a.TaskStateWorking, time.Now(), ""), nil) {
					return
				}
			}
			yield(statusEv(ec, a2a.TaskStateCompleted, time.Now(), ""), nil)
		default: // done, answer
			if !yield(statusEv(ec, a2a.TaskStateWorking, time.Now(), "running"), nil) {
				return
			}
			art := a2a.NewArtifactEvent(ec, a2a.NewDataPart(map[string]any{"passed": 11, "failed": 1}))
			art.Artifact.Name = "summary.json"
			if !yield(art, nil) {
				return
			}
			yield(statusEv(ec, a2a.TaskStateCompleted, time.Now(), "done"), nil)
		}
	}
}

// Cancel cancels the task.
func (e *Exec) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(statusEv(ec, a2a.TaskStateCanceled, time.Now(), "canceled"), nil)
	}
}
