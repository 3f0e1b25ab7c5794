package hub

import (
	"fmt"
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// maxNoteText bounds the words of a note the hub journals.
const maxNoteText = 500

// noteKey is one note the hub journaled: an operator's, on a task, from
// a state to another. The same note again writes nothing.
type noteKey struct {
	operator, agent string
	task            a2a.TaskID
	from, to        a2a.TaskState
}

// states are the task states a note may name, normalized; "" is a task
// whose state the dashboard no longer knew.
var states = []a2a.TaskState{a2a.TaskStateUnspecified, a2a.TaskStateSubmitted, a2a.TaskStateWorking,
	a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired, a2a.TaskStateCompleted, a2a.TaskStateFailed,
	a2a.TaskStateCanceled, a2a.TaskStateRejected}

// checkNote says why the hub does not journal n, with the status; "" and
// write true when it does, false when it journaled the same note
// already. A note names a task the hub's fleet holds, leaving a state
// that waits on a person (the inbox's) for a task state. It runs on the
// loop, and marks the note journaled (forget undoes it when the write
// fails): so an operator has at most a few notes on each task the
// fleet holds, whatever it sends.
func (h *Hub) checkNote(op *Operator, n *NoteRequest) (status int, refusal string, write bool) {
	n.From, n.To = model.NormalizeState(n.From), model.NormalizeState(n.To)
	switch {
	case model.ClassOf(n.From) != model.ClassInterrupted:
		return http.StatusBadRequest, fmt.Sprintf("a note says a task left the inbox: from %s or %s, not %.40q",
			a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired, n.From), false
	case !slices.Contains(states, n.To):
		return http.StatusBadRequest, fmt.Sprintf("the note's %.40q is not a task state", n.To), false
	case h.fleet.Task(model.TaskKey{Agent: n.Agent, ID: n.Task}) == nil:
		return http.StatusNotFound, fmt.Sprintf("the hub does not hold task %s of agent %s; a note is on a task the hub shows", n.Task, n.Agent), false
	}
	k := noteKey{op.Name, n.Agent, n.Task, n.From, n.To}
	if _, dup := h.noted[k]; dup {
		return 0, "", false
	}
	h.pruneNotes()
	h.noted[k] = struct{}{}
	n.Text = cut(n.Text, maxNoteText)
	return 0, "", true
}

// forgetNote undoes checkNote's mark of a note that was not written.
func (h *Hub) forgetNote(op *Operator, n NoteRequest) {
	_ = h.call(h.context(), func() { delete(h.noted, noteKey{op.Name, n.Agent, n.Task, n.From, n.To}) })
}

// pruneNotes drops the marks of notes on tasks the fleet no longer
// holds, once there are more marks than the fleet has tasks. It runs on
// the loop.
func (h *Hub) pruneNotes() {
	if len(h.noted) <= 2*h.fleet.Len()+64 {
		return
	}
	for k := range h.noted {
		if h.fleet.Task(model.TaskKey{Agent: k.agent, ID: k.task}) == nil {
			delete(h.noted, k)
		}
	}
}

// cut is s cut to at most n bytes, on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
