package model

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func keys(ts []*Task) []TaskKey {
	var out []TaskKey
	for _, t := range ts {
		out = append(out, t.Key)
	}
	return out
}

func sameKeys(a []*Task, want ...TaskKey) bool {
	if len(a) != len(want) {
		return false
	}
	for i := range a {
		if a[i].Key != want[i] {
			return false
		}
	}
	return true
}

func withHistory(e Event, msgs ...*a2a.Message) Event {
	e.Task.History = msgs
	return e
}

func withMeta(e Event, k string, v any) Event {
	e.Task.Metadata = map[string]any{k: v}
	return e
}

func TestChains(t *testing.T) {
	var (
		kP = TaskKey{"planner", "p1"}
		kD = TaskKey{"deployer", "d1"}
		kU = TaskKey{"release-bot", "u1"}
		kR = TaskKey{"code-reviewer", "r1"}
	)
	chainKeys := map[string]string{"release-bot": "waitsOn", "legacy": "blockedBy"}
	tests := []struct {
		name    string
		events  []Event
		of      TaskKey
		want    []TaskKey
		blocked *TaskKey
	}{
		{
			name:   "chain of one: an unlinked interrupted task",
			events: []Event{status("code-reviewer", "r1", a2a.TaskStateInputRequired, 1, textMsg("branch?"))},
			of:     kR, want: []TaskKey{kR},
		},
		{
			name: "chain of two across agents, from the root",
			events: []Event{
				status("deployer", "d1", a2a.TaskStateAuthRequired, 1, textMsg("approve deploy of 9f3c2e1 to staging?")),
				status("planner", "p1", a2a.TaskStateAuthRequired, 2, textMsg("waiting on the deployer", "d1")),
			},
			of: kP, want: []TaskKey{kP, kD}, blocked: &kD,
		},
		{
			name: "chain of two across agents, from the leaf",
			events: []Event{
				status("planner", "p1", a2a.TaskStateAuthRequired, 2, textMsg("waiting", "d1")),
				status("deployer", "d1", a2a.TaskStateAuthRequired, 1, textMsg("approve?")),
			},
			of: kD, want: []TaskKey{kP, kD},
		},
		{
			name: "chain of three: status refs, history refs and a metadata key",
			events: []Event{
				status("deployer", "d1", a2a.TaskStateAuthRequired, 1, textMsg("approve?")),
				withHistory(snap("planner", "p1", a2a.TaskStateAuthRequired, 2), textMsg("old"), textMsg("asked the deployer", "d1")),
				withMeta(snap("release-bot", "u1", a2a.TaskStateAuthRequired, 3), "waitsOn", "p1"),
			},
			of: kP, want: []TaskKey{kU, kP, kD}, blocked: &kD,
		},
		{
			name: "a metadata key with a list of ids, the first known one wins",
			events: []Event{
				status("planner", "p1", a2a.TaskStateAuthRequired, 2, textMsg("waiting")),
				withMeta(snap("release-bot", "u1", a2a.TaskStateAuthRequired, 3), "waitsOn", []any{"nope", 7.0, "p1"}),
			},
			of: kU, want: []TaskKey{kU, kP}, blocked: &kP,
		},
		{
			name: "a metadata key is only read for the agent it is configured for",
			events: []Event{
				status("planner", "p1", a2a.TaskStateAuthRequired, 2, textMsg("waiting")),
				withMeta(snap("code-reviewer", "r1", a2a.TaskStateAuthRequired, 3), "waitsOn", "p1"),
			},
			of: kR, want: []TaskKey{kR},
		},
		{
			name: "a cycle ends the chain without looping",
			events: []Event{
				status("planner", "p1", a2a.TaskStateAuthRequired, 1, textMsg("a", "d1")),
				status("deployer", "d1", a2a.TaskStateAuthRequired, 2, textMsg("b", "p1")),
			},
			of: kP, want: []TaskKey{kP, kD}, blocked: &kD,
		},
		{
			name: "a task that names itself is a chain of one",
			events: []Event{
				status("planner", "p1", a2a.TaskStateAuthRequired, 1, textMsg("a", "p1")),
			},
			of: kP, want: []TaskKey{kP},
		},
		{
			name:   "a missing link is a chain of one",
			events: []Event{status("planner", "p1", a2a.TaskStateAuthRequired, 1, textMsg("a", "never-seen"))},
			of:     kP, want: []TaskKey{kP},
		},
		{
			name: "a working blocker is BlockedBy but not part of the chain",
			events: []Event{
				status("deployer", "d1", a2a.TaskStateWorking, 1, textMsg("deploying")),
				status("planner", "p1", a2a.TaskStateAuthRequired, 2, textMsg("waiting", "d1")),
			},
			of: kP, want: []TaskKey{kP}, blocked: &kD,
		},
		{
			name: "a finished task blocks nothing (a refinement names its predecessor)",
			events: []Event{
				status("deployer", "d1", a2a.TaskStateCompleted, 1, nil),
				status("planner", "p1", a2a.TaskStateAuthRequired, 2, textMsg("waiting", "d1")),
			},
			of: kP, want: []TaskKey{kP},
		},
		{
			name: "the same id on two agents: the interrupted one is the blocker",
			events: []Event{
				status("deployer", "x", a2a.TaskStateAuthRequired, 1, nil),
				status("test-runner", "x", a2a.TaskStateWorking, 5, nil),
				status("planner", "p1", a2a.TaskStateAuthRequired, 2, textMsg("waiting", "x")),
			},
			of: kP, want: []TaskKey{kP, {"deployer", "x"}}, blocked: &TaskKey{"deployer", "x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFleet(Options{ChainKeys: chainKeys})
			f.Apply(tt.events)
			if got := f.Chain(tt.of); !sameKeys(got, tt.want...) {
				t.Errorf("Chain(%v) = %v, want %v", tt.of, keys(got), tt.want)
			}
			b := f.BlockedBy(tt.of)
			switch {
			case tt.blocked == nil && b != nil:
				t.Errorf("BlockedBy = %v, want nil", b.Key)
			case tt.blocked != nil && (b == nil || b.Key != *tt.blocked):
				t.Errorf("BlockedBy = %v, want %v", b, *tt.blocked)
			}
			checkInvariants(t, f)
		})
	}
}

func TestChainFollowsChanges(t *testing.T) {
	f := NewFleet(Options{})
	f.Apply([]Event{
		status("deployer", "d1", a2a.TaskStateAuthRequired, 1, textMsg("approve?")),
		status("planner", "p1", a2a.TaskStateAuthRequired, 2, textMsg("waiting", "d1")),
		status("planner", "p2", a2a.TaskStateAuthRequired, 3, textMsg("waiting too", "d1")),
	})
	kD := TaskKey{"deployer", "d1"}
	if w := f.Waiters(kD); !sameKeys(w, TaskKey{"planner", "p1"}, TaskKey{"planner", "p2"}) {
		t.Fatalf("Waiters = %v", keys(w))
	}
	if got := f.RowHint(f.Task(TaskKey{"planner", "p1"})); got != "waiting on deployer · d1" {
		t.Errorf("RowHint = %q", got)
	}
	// approved out of band: the deployer moves on, the chain falls apart
	f.Apply([]Event{status("deployer", "d1", a2a.TaskStateWorking, 4, nil)})
	if ch := f.Chain(TaskKey{"planner", "p1"}); len(ch) != 1 {
		t.Errorf("chain after the leaf resumed = %v", keys(ch))
	}
	if w := f.Waiters(kD); len(w) != 0 {
		t.Errorf("Waiters of a working task = %v", keys(w))
	}
	f.Apply([]Event{status("deployer", "d1", a2a.TaskStateCompleted, 5, nil)})
	if b := f.BlockedBy(TaskKey{"planner", "p1"}); b != nil {
		t.Errorf("BlockedBy a completed task = %v", b.Key)
	}
	if f.Chain(TaskKey{"nobody", "x"}) != nil || f.BlockedBy(TaskKey{"nobody", "x"}) != nil || f.Waiters(TaskKey{"nobody", "x"}) != nil {
		t.Errorf("unknown key gave a chain")
	}
}

func TestLongCycle(t *testing.T) {
	f := NewFleet(Options{})
	var evs []Event
	const n = 100
	for i := 0; i < n; i++ {
		id := a2a.TaskID(string(rune('A'+i%26)) + string(rune('a'+i/26)))
		next := a2a.TaskID(string(rune('A'+(i+1)%n%26)) + string(rune('a'+(i+1)%n/26)))
		evs = append(evs, status("agent", id, a2a.TaskStateAuthRequired, i, textMsg("w", next)))
	}
	f.Apply(evs)
	ch := f.Chain(TaskKey{"agent", "Aa"})
	if len(ch) != maxChain {
		t.Errorf("chain of a %d-cycle has %d tasks, want the cap %d", n, len(ch), maxChain)
	}
	checkInvariants(t, f)
}

func TestShortID(t *testing.T) {
	for in, want := range map[a2a.TaskID]string{
		"3d8f7801-f421-4e4e-aa2d-8b6da17d9281": "3d8f7801",
		"d1":                                   "d1",
		"ééééé":                                "éééé",
		"abcdefg€x":                            "abcdefg",
		"23cf3710-aaaa-bbbb":                   "23cf3710",
		"23cf3710-0000-4000-8000-000000000005": "23cf3710", // v4: the prefix
		"01a228fb-5c1e-7a3b-9d2e-4f6a8b0c1d2e": "8b0c1d2e", // v7: the random tail
	} {
		if got := ShortID(in); got != want {
			t.Errorf("ShortID(%q) = %q, want %q", in, got, want)
		}
	}
}
