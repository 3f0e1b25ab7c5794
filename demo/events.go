package demo

import (
	"context"
	"iter"
	"regexp"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// yieldFn is the yield of an executor's event sequence.
type yieldFn = func(a2a.Event, error) bool

// submitted is the first event of a new task: the SDK's submitted task,
// stamped so ListTasks' statusTimestampAfter sees it.
func submitted(ec *a2asrv.ExecutorContext) *a2a.Task {
	t := a2a.NewSubmittedTask(ec, ec.Message)
	now := time.Now()
	t.Status.Timestamp = &now
	return t
}

// say is an agent message on the task made of text and optional data.
func say(ec a2a.TaskInfoProvider, text string, data ...any) *a2a.Message {
	parts := []*a2a.Part{a2a.NewTextPart(text)}
	for _, d := range data {
		parts = append(parts, a2a.NewDataPart(d))
	}
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, parts...)
}

// status is a status update with an agent message.
func status(ec a2a.TaskInfoProvider, state a2a.TaskState, text string, data ...any) *a2a.TaskStatusUpdateEvent {
	return a2a.NewStatusUpdateEvent(ec, state, say(ec, text, data...))
}

// artifact is a complete, one-chunk artifact with a fixed id and name.
func artifact(ec a2a.TaskInfoProvider, id a2a.ArtifactID, name string, parts ...*a2a.Part) *a2a.TaskArtifactUpdateEvent {
	ev := a2a.NewArtifactEvent(ec, parts...)
	ev.Artifact.ID = id
	ev.Artifact.Name = name
	ev.LastChunk = true
	return ev
}

// textOf joins the text parts of a message.
func textOf(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range m.Parts {
		if t := p.Text(); t != "" {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(t)
		}
	}
	return b.String()
}

// dataField returns the first string field key found in the message's data
// parts.
func dataField(m *a2a.Message, key string) string {
	if m == nil {
		return ""
	}
	for _, p := range m.Parts {
		if obj, ok := p.Data().(map[string]any); ok {
			if s, ok := obj[key].(string); ok && s != "" {
				return s
			}
		}
	}
	return ""
}

var commitRE = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)

// commitIn finds a commit hash in text (or the data field "commit").
func commitIn(m *a2a.Message) string {
	if c := dataField(m, "commit"); c != "" {
		return c
	}
	return commitRE.FindString(strings.ToLower(textOf(m)))
}

// pause waits d unless ctx ends first; it reports whether the time passed.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// cancelByRequest is the Cancel half of every demo executor: the task ends
// CANCELED with a short note, keeping whatever artifacts it already wrote.
type cancelByRequest struct{}

// Cancel implements a2asrv.AgentExecutor.
func (cancelByRequest) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield yieldFn) {
		yield(status(ec, a2a.TaskStateCanceled, "Canceled on request; artifacts written so far are kept."), nil)
	}
}
