package model

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

var fuzzStates = []a2a.TaskState{
	a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired,
	a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected,
	a2a.TaskStateUnspecified, "input-required", "auth-required", "completed", "TASK_STATE_PAUSED", "\xff",
}

var fuzzHealth = []Health{HealthConnecting, HealthStreaming, HealthSweeping, HealthPolling, HealthBackoff, HealthUnreachable, HealthUnauthorized}

// fuzzReader turns fuzz bytes into small numbers; past the end it gives 0.
type fuzzReader struct {
	b []byte
	i int
}

func (r *fuzzReader) n(m int) int {
	if r.i >= len(r.b) {
		return 0
	}
	v := int(r.b[r.i])
	r.i++
	return v % m
}

func (r *fuzzReader) more() bool { return r.i < len(r.b) }

func fuzzID(r *fuzzReader) a2a.TaskID { return a2a.TaskID(fmt.Sprint("t", r.n(6))) }

// fuzzEvent reads one event: a few agents and task ids, so events
// collide; timestamps that repeat, go back and go missing; references
// between tasks that form chains and cycles.
func fuzzEvent(r *fuzzReader) Event {
	agent := fmt.Sprint("ag", r.n(3))
	var stamp *time.Time
	if s := r.n(16); s > 0 {
		stamp = ts(s)
	}
	at := *ts(r.n(32))
	status := func() a2a.TaskStatus {
		st := a2a.TaskStatus{State: fuzzStates[r.n(len(fuzzStates))], Timestamp: stamp}
		switch r.n(4) {
		case 1:
			st.Message = &a2a.Message{ID: fmt.Sprint("m", r.n(4)), Parts: a2a.ContentParts{a2a.NewTextPart("deploy?")}}
		case 2:
			st.Message = &a2a.Message{ID: fmt.Sprint("m", r.n(4)), ReferenceTasks: []a2a.TaskID{fuzzID(r)},
				Metadata: map[string]any{"waitsOn": string(fuzzID(r))}}
		}
		return st
	}
	switch r.n(7) {
	case 0, 1:
		tk := &a2a.Task{ID: fuzzID(r), ContextID: "c", Status: status()}
		for range r.n(4) {
			tk.History = append(tk.History, &a2a.Message{ID: fmt.Sprint("h", r.n(8)), ReferenceTasks: []a2a.TaskID{fuzzID(r)}})
		}
		if r.n(2) == 1 {
			tk.Metadata = map[string]any{"waitsOn": []any{string(fuzzID(r)), 3.0}}
		}
		if r.n(3) == 1 {
			tk.Artifacts = []*a2a.Artifact{{ID: "summary", Parts: a2a.ContentParts{
				a2a.NewDataPart(map[string]any{"failed": float64(r.n(3)), "passed": 11.0}), a2a.NewTextPart("0123456789")}}}
		}
		return Event{Kind: EventTask, Agent: agent, At: at, Source: SourceSweep, Task: tk}
	case 2, 3:
		return Event{Kind: EventStatus, Agent: agent, At: at, Source: SourceStream,
			Status: &a2a.TaskStatusUpdateEvent{TaskID: fuzzID(r), ContextID: "c", Status: status()}}
	case 4:
		return Event{Kind: EventArtifact, Agent: agent, At: at, Artifact: &a2a.TaskArtifactUpdateEvent{
			TaskID: fuzzID(r), Append: r.n(2) == 1, LastChunk: r.n(2) == 1,
			Artifact: &a2a.Artifact{ID: a2a.ArtifactID(fmt.Sprint("a", r.n(2))), Parts: a2a.ContentParts{a2a.NewTextPart("chunk-é-")}}}}
	case 5:
		return Event{Kind: EventHealth, Agent: agent, Health: &HealthUpdate{State: fuzzHealth[r.n(len(fuzzHealth))]}}
	default:
		if r.n(2) == 0 {
			return Event{Kind: EventGone, Agent: agent, Task: &a2a.Task{ID: fuzzID(r)}}
		}
		return Event{Kind: EventAgent, Agent: agent, Info: &AgentInfo{CardName: fmt.Sprint("card", r.n(2))}}
	}
}

func FuzzApply(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte("planner waits on deployer: chains, cycles and terminal tasks"))
	f.Add([]byte{2, 0, 3, 1, 0, 3, 2, 2, 0, 1, 1, 2, 1, 0, 3, 2, 2, 1, 0, 0, 2, 2, 0, 3, 4, 4, 4, 4, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzReader{b: data}
		fl := NewFleet(Options{MaxHistory: 2, MaxArtifactBytes: 24, MaxTerminalPerAgent: 3, MaxAgentBytes: 600, MaxFleetBytes: 900,
			ChainKeys: map[string]string{"ag1": "waitsOn", "ag2": "waitsOn"}})
		final := map[*Task]a2a.TaskState{}
		filters := []Query{{Filter: ParseFilter("deploy")}, {Filter: ParseFilter("agent:ag1 state:input-required"), Sort: SortAge}}
		for r.more() {
			batch := make([]Event, 1+r.n(8))
			for i := range batch {
				batch[i] = fuzzEvent(r)
			}
			res := fl.Apply(batch)
			for _, k := range res.Entered {
				if tk := fl.Task(k); tk == nil || tk.Class != ClassInterrupted {
					t.Fatalf("Entered %v is not interrupted", k)
				}
			}
			for _, k := range res.Left {
				if tk := fl.Task(k); tk != nil && tk.Class == ClassInterrupted {
					t.Fatalf("Left %v is still interrupted", k)
				}
			}
			for _, a := range fl.agents {
				for _, tk := range heldTasks(fl, a) {
					if st, ok := final[tk]; ok && (tk.State != st || tk.Class != ClassTerminal) {
						t.Fatalf("terminal task %v left %s for %s", tk.Key, st, tk.State)
					}
					if tk.Class == ClassTerminal {
						final[tk] = tk.State
					}
				}
			}
			if r.n(2) == 0 { // sometimes query between batches, sometimes not
				checkInvariants(t, fl)
				for _, q := range filters {
					for c := ClassUnknown; c <= ClassTerminal; c++ {
						rows := fl.Page(c, q, 0, fl.Len()+1)
						n := 0
						for _, a := range fl.agents {
							for _, tk := range heldTasks(fl, a) {
								if tk.Class == c && q.Filter.Match(tk) {
									n++
									if !slices.Contains(rows, tk) {
										t.Fatalf("filtered pane misses %v", tk.Key)
									}
								}
							}
						}
						if n != len(rows) || n != fl.Count(c, q) {
							t.Fatalf("filtered pane: %d rows, Count %d, want %d", len(rows), fl.Count(c, q), n)
						}
					}
				}
				for _, tk := range fl.Interrupted(SortUpdated) {
					_ = fl.RowHint(tk)
				}
			}
		}
		checkInvariants(t, fl)
	})
}
