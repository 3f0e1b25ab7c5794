package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// One agent that sends far more content than its budget is trimmed,
// least recently updated and terminal first, to under the budget; the
// other agent is untouched; a trimmed task keeps its state and row and
// says it was truncated.
func TestAgentBudgetTrimsOldestFirst(t *testing.T) {
	const budget = 64 << 10
	f := NewFleet(Options{MaxAgentBytes: budget, MaxArtifactBytes: 8 << 10})
	big := strings.Repeat("x", 4<<10)
	var batch []Event
	for i := range 40 {
		e := snap("flood", a2a.TaskID(fmt.Sprint("t", i)), a2a.TaskStateCompleted, i)
		e.Task.Artifacts = []*a2a.Artifact{{ID: "log", Name: "log.txt", Parts: a2a.ContentParts{a2a.NewTextPart(big)}}}
		e.Task.History = []*a2a.Message{textMsg(big)}
		batch = append(batch, e)
	}
	batch = append(batch, withHistory(snap("calm", "c1", a2a.TaskStateCompleted, 1), textMsg(big)))
	f.Apply(batch)
	checkInvariants(t, f)
	flood, calm := f.Agent("flood"), f.Agent("calm")
	if flood.Bytes > budget || flood.Trimmed == 0 {
		t.Fatalf("flood holds %d bytes, %d trimmed; want at most %d", flood.Bytes, flood.Trimmed, budget)
	}
	if calm.Trimmed != 0 || len(f.Task(TaskKey{"calm", "c1"}).Snapshot.History) != 1 {
		t.Errorf("the calm agent was trimmed: %d", calm.Trimmed)
	}
	oldest, newest := f.Task(TaskKey{"flood", "t0"}), f.Task(TaskKey{"flood", "t39"})
	if !oldest.Truncated || len(oldest.Snapshot.History) != 0 || artifactText(oldest, "log") != "" || oldest.State != a2a.TaskStateCompleted {
		t.Errorf("oldest task: truncated %v, %d history, artifact %q, %s", oldest.Truncated, len(oldest.Snapshot.History),
			artifactText(oldest, "log"), oldest.State)
	}
	if newest.Truncated || artifactText(newest, "log") != big {
		t.Errorf("the newest task lost details: truncated %v", newest.Truncated)
	}
	if flood.Trimmed == 0 {
		t.Errorf("nothing counted as trimmed")
	}
}

// Open tasks with huge status messages: the messages are cut to their
// first text, the tasks stay in their panes, and a link to the task one
// waits on survives the cut.
func TestAgentBudgetCutsStatusMessages(t *testing.T) {
	const budget = 32 << 10
	f := NewFleet(Options{MaxAgentBytes: budget})
	f.Apply([]Event{snap("a", "blocker", a2a.TaskStateAuthRequired, 1)})
	var batch []Event
	for i := range 50 {
		msg := textMsg("question " + strings.Repeat("?", 8<<10))
		msg.ID = fmt.Sprint("m", i)
		msg.ReferenceTasks = []a2a.TaskID{"blocker"}
		batch = append(batch, status("a", a2a.TaskID(fmt.Sprint("w", i)), a2a.TaskStateInputRequired, 2+i, msg))
	}
	f.Apply(batch)
	checkInvariants(t, f)
	a := f.Agent("a")
	if a.Bytes > budget || a.Counts[ClassInterrupted] != 51 {
		t.Fatalf("agent holds %d bytes and %d interrupted; want at most %d and 51", a.Bytes, a.Counts[ClassInterrupted], budget)
	}
	w0 := f.Task(TaskKey{"a", "w0"})
	if !w0.Truncated || len(w0.Text) > trimmedMessageBytes || !strings.HasPrefix(w0.Text, "question ") {
		t.Errorf("w0: truncated %v, text %d bytes", w0.Truncated, len(w0.Text))
	}
	if b := f.BlockedBy(w0.Key); b == nil || b.Key.ID != "blocker" {
		t.Errorf("w0 no longer waits on its blocker: %v", b)
	}
	// A status that repeats nothing new is no news; a small one restores
	// nothing it does not carry, and the budget is spent again only by new content.
	f.Apply([]Event{status("a", "w0", a2a.TaskStateWorking, 100, textMsg("resumed"))})
	checkInvariants(t, f)
	if w0.Text != "resumed" {
		t.Errorf("w0 text = %q", w0.Text)
	}
}

// Without a budget nothing is trimmed.
func TestAgentBudgetUnlimited(t *testing.T) {
	f := NewFleet(Options{MaxAgentBytes: -1})
	var batch []Event
	for i := range 20 {
		batch = append(batch, status("a", a2a.TaskID(fmt.Sprint("w", i)), a2a.TaskStateWorking, i, textMsg(strings.Repeat("z", 1<<20))))
	}
	f.Apply(batch)
	checkInvariants(t, f)
	if a := f.Agent("a"); a.Trimmed != 0 || a.Bytes < 20<<20 {
		t.Errorf("unlimited: %d trimmed, %d bytes", a.Trimmed, a.Bytes)
	}
}

// Tasks an agent lost count against retention like finished ones: an
// agent that keeps losing open tasks does not grow the fleet; one that
// comes back is kept again.
func TestGoneTasksCountAgainstRetention(t *testing.T) {
	f := NewFleet(Options{MaxTerminalPerAgent: 3})
	var batch []Event
	for i := range 10 {
		id := a2a.TaskID(fmt.Sprint("w", i))
		batch = append(batch, snap("a", id, a2a.TaskStateWorking, i), Event{Kind: EventGone, Agent: "a", Task: &a2a.Task{ID: id}})
	}
	f.Apply(batch)
	checkInvariants(t, f)
	if n := f.Len(); n != 3 {
		t.Errorf("the fleet holds %d tasks of 10 lost, want the newest 3", n)
	}
	back := f.Task(TaskKey{"a", "w9"})
	f.Apply([]Event{status("a", "w9", a2a.TaskStateWorking, 20, nil), snap("a", "d1", a2a.TaskStateCompleted, 21),
		snap("a", "d2", a2a.TaskStateCompleted, 22), snap("a", "d3", a2a.TaskStateCompleted, 23)})
	checkInvariants(t, f)
	if f.Task(TaskKey{"a", "w9"}) != back || back.Gone {
		t.Errorf("the task that came back was evicted")
	}
}

// An interrupted task that is lost leaves the inbox in the batch that
// says so; evicted later, it is not reported leaving again.
func TestEvictedGoneTaskLeavesTheInbox(t *testing.T) {
	f := NewFleet(Options{MaxTerminalPerAgent: 1})
	f.Apply([]Event{snap("a", "ask", a2a.TaskStateInputRequired, 1)})
	res := f.Apply([]Event{{Kind: EventGone, Agent: "a", Task: &a2a.Task{ID: "ask"}}})
	if len(res.Left) != 1 || res.Left[0] != (TaskKey{"a", "ask"}) {
		t.Errorf("left = %v; the lost question should leave the inbox", res.Left)
	}
	res = f.Apply([]Event{snap("a", "d1", a2a.TaskStateCompleted, 5)})
	if f.Task(TaskKey{"a", "ask"}) != nil || len(res.Left) != 0 || res.Evicted != 1 {
		t.Errorf("left = %v evicted %d; the lost question should be evicted, not leave twice", res.Left, res.Evicted)
	}
}

// Ten busy agents and a calm one: all together hold no more than
// MaxFleetBytes, though each is far under MaxAgentBytes; the busy ones
// are trimmed to an even share and say why; the calm one, under its
// share, keeps all it holds.
func TestFleetBudgetSharesOut(t *testing.T) {
	const fleet = 256 << 10
	f := NewFleet(Options{MaxAgentBytes: 8 << 20, MaxFleetBytes: fleet, MaxArtifactBytes: 8 << 10})
	big := strings.Repeat("x", 4<<10)
	var batch []Event
	for a := range 10 {
		for i := range 20 {
			e := snap(fmt.Sprint("busy", a), a2a.TaskID(fmt.Sprint("t", i)), a2a.TaskStateCompleted, i)
			e.Task.History = []*a2a.Message{textMsg(big)}
			batch = append(batch, e)
		}
	}
	batch = append(batch, withHistory(snap("calm", "c1", a2a.TaskStateCompleted, 1), textMsg(big)))
	f.Apply(batch)
	checkInvariants(t, f)
	if f.bytes > fleet {
		t.Fatalf("the fleet holds %d bytes; want at most %d", f.bytes, fleet)
	}
	if calm := f.Agent("calm"); calm.Trimmed != 0 {
		t.Errorf("the calm agent was trimmed: %d", calm.Trimmed)
	}
	for a := range 10 {
		busy := f.Agent(fmt.Sprint("busy", a))
		if busy.Trimmed == 0 || busy.Bytes > fleet/10 {
			t.Errorf("%s holds %d bytes, %d trimmed; want at most %d", busy.Name, busy.Bytes, busy.Trimmed, fleet/10)
		}
		if note := f.AgentNote(busy); !strings.Contains(note, "its share") {
			t.Errorf("%s: note %q", busy.Name, note)
		}
	}
	// One agent alone may use the whole fleet's budget.
	f = NewFleet(Options{MaxAgentBytes: 8 << 20, MaxFleetBytes: fleet, MaxArtifactBytes: 8 << 10})
	batch = batch[:0]
	for i := range 40 {
		e := snap("alone", a2a.TaskID(fmt.Sprint("t", i)), a2a.TaskStateCompleted, i)
		e.Task.History = []*a2a.Message{textMsg(big)}
		batch = append(batch, e)
	}
	f.Apply(batch)
	checkInvariants(t, f)
	if a := f.Agent("alone"); a.Trimmed != 0 || a.Bytes < 160<<10 {
		t.Errorf("a lone agent under the fleet's budget: %d bytes, %d trimmed", a.Bytes, a.Trimmed)
	}
}

// A task the agent no longer knows leaves the open panes, active and
// interrupted, in the batch that says so (the inbox drops it: there is
// nothing left to answer) and is shown among the finished ones, as
// gone; one the agent tells of again goes back to the pane of its state.
func TestGoneTaskLeavesTheOpenPanes(t *testing.T) {
	f := NewFleet(Options{})
	f.Apply([]Event{snap("a", "run", a2a.TaskStateWorking, 1), snap("a", "ask", a2a.TaskStateInputRequired, 2)})
	res := f.Apply([]Event{{Kind: EventGone, Agent: "a", Task: &a2a.Task{ID: "run"}}, {Kind: EventGone, Agent: "a", Task: &a2a.Task{ID: "ask"}}})
	checkInvariants(t, f)
	for _, c := range []Class{ClassActive, ClassInterrupted} {
		if n := f.Count(c, Query{}); n != 0 {
			t.Errorf("%v pane holds %d tasks after both were gone, want 0", c, n)
		}
	}
	if n := f.Count(ClassTerminal, Query{}); n != 2 {
		t.Errorf("the finished pane holds %d tasks, want the 2 gone ones", n)
	}
	if len(res.Left) != 1 || res.Left[0] != (TaskKey{"a", "ask"}) {
		t.Errorf("left = %v, want the gone question", res.Left)
	}
	run := f.Task(TaskKey{"a", "run"})
	if run == nil || !run.Gone || run.State != a2a.TaskStateWorking {
		t.Fatalf("the gone task = %+v, want it held, gone, its last state kept", run)
	}
	res = f.Apply([]Event{status("a", "ask", a2a.TaskStateInputRequired, 3, nil)})
	checkInvariants(t, f)
	if ask := f.Task(TaskKey{"a", "ask"}); ask.Gone || ask.Class != ClassInterrupted || len(res.Entered) != 1 {
		t.Errorf("the question told of again: gone %v class %v entered %v, want it back in the inbox", ask.Gone, ask.Class, res.Entered)
	}
}
