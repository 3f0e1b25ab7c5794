package approvals

import (
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// What follows an accepted message depends on the task's state now: a
// task that ended is not worth watching, one that asks again needs an answer.
func TestAcceptedNextFollowsTheState(t *testing.T) {
	tests := []struct {
		state a2a.TaskState
		want  string
	}{
		{"", "watch the task"},
		{a2a.TaskStateWorking, "watch the task"},
		{a2a.TaskStateFailed, "nothing more to do: the task has ended (failed)"},
		{a2a.TaskStateCompleted, "nothing more to do: the task has ended (completed)"},
		{a2a.TaskStateRejected, "nothing more to do: the task has ended (rejected)"},
		{a2a.TaskStateInputRequired, "the task waits again (input-required)"},
	}
	for _, tt := range tests {
		o := Outcome{Result: ResultAccepted, State: tt.state}
		if got := o.Next(); !strings.HasPrefix(got, tt.want) {
			t.Errorf("Next() at %q = %q, want it to start %q", tt.state, got, tt.want)
		}
		e := Entry{Result: ResultAccepted, States: []StateChange{{To: tt.state}}}
		if got := e.Next(); tt.state != "" && !strings.HasPrefix(got, tt.want) {
			t.Errorf("Entry.Next() at %q = %q, want it to start %q", tt.state, got, tt.want)
		}
	}
}
