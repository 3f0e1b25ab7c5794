package approvals

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

func snapshot(id a2a.TaskID, state a2a.TaskState, at time.Time, text string, refs ...a2a.TaskID) *a2a.Task {
	m := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(text))
	m.ReferenceTasks = refs
	return &a2a.Task{ID: id, ContextID: "ctx-" + string(id), Status: a2a.TaskStatus{State: state, Message: m, Timestamp: &at}}
}

func fleetOf(tasks map[string][]*a2a.Task) *model.Fleet {
	f := model.NewFleet(model.Options{})
	var batch []model.Event
	for agent, ts := range tasks {
		f.AddAgent(agent, "")
		for _, t := range ts {
			batch = append(batch, model.Event{Kind: model.EventTask, Agent: agent, Source: model.SourceSweep, At: *t.Status.Timestamp, Task: t})
		}
	}
	f.Apply(batch)
	return f
}

func TestQueueChainsAcrossAgents(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	f := fleetOf(map[string][]*a2a.Task{
		"code-reviewer": {snapshot("rev-1", a2a.TaskStateInputRequired, t0.Add(2*time.Minute), "Which branch should I compare against?")},
		"planner":       {snapshot("plan-1", a2a.TaskStateAuthRequired, t0, "waiting for the deploy approval", "dep-1")},
		"deployer": {
			snapshot("dep-1", a2a.TaskStateAuthRequired, t0.Add(time.Minute), "approve deploy of 9f3c2e1 to staging?"),
			snapshot("dep-2", a2a.TaskStateWorking, t0, "deploying"),
		},
	})
	svc, err := Open(Options{JournalPath: filepath.Join(t.TempDir(), "j.jsonl"), ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	q := svc.Queue(f, model.SortAge)
	type row struct {
		id         a2a.TaskID
		depth      int
		actionable bool
		waitingOn  a2a.TaskID
	}
	var got []row
	for _, it := range q {
		r := row{id: it.Task.Key.ID, depth: it.Depth, actionable: it.Actionable}
		if it.WaitingOn != nil {
			r.waitingOn = it.WaitingOn.Key.ID
		}
		got = append(got, r)
		if it.Leaf.Key.ID != map[a2a.TaskID]a2a.TaskID{"plan-1": "dep-1", "dep-1": "dep-1", "rev-1": "rev-1"}[it.Task.Key.ID] {
			t.Errorf("%s: leaf %s", it.Task.Key.ID, it.Leaf.Key.ID)
		}
	}
	want := []row{{"plan-1", 0, false, "dep-1"}, {"dep-1", 1, true, ""}, {"rev-1", 0, true, ""}}
	if len(got) != len(want) {
		t.Fatalf("queue = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if c := q[0].Chain; len(c) != 2 || c[0].Key.ID != "plan-1" || c[1].Key.ID != "dep-1" {
		t.Fatalf("chain = %v", c)
	}
	if q[1].Question().Parts[0].Text() != "approve deploy of 9f3c2e1 to staging?" {
		t.Fatal("question")
	}

	rw, _ := Open(Options{JournalPath: filepath.Join(t.TempDir(), "j.jsonl"), Sender: newSDKSender()})
	defer rw.Close()
	q = rw.Queue(f, model.SortAge)
	if _, err := rw.Prepare(q[0], Input{Kind: KindApprove}); !errors.Is(err, ErrNotActionable) {
		t.Fatalf("approving the root: %v", err)
	}
	if _, err := rw.Prepare(q[1], Input{Kind: KindApprove}); err != nil {
		t.Fatalf("approving the leaf: %v", err)
	}
	if _, err := rw.Prepare(q[2], Input{Kind: KindApprove}); err == nil {
		t.Fatal("approve on an INPUT_REQUIRED task was allowed")
	}

	// The deployer resumes out of band: the chain collapses to the planner.
	f.Apply([]model.Event{{Kind: model.EventStatus, Agent: "deployer", At: t0.Add(3 * time.Minute), Status: &a2a.TaskStatusUpdateEvent{
		TaskID: "dep-1", ContextID: "ctx-dep-1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: ptr(t0.Add(3 * time.Minute))}}}})
	q = rw.Queue(f, model.SortAge)
	if len(q) != 2 || q[0].Task.Key.ID != "plan-1" || !q[0].Actionable {
		t.Fatalf("after the leaf resumed: %+v", q)
	}
}

func ptr[T any](v T) *T { return &v }

// TestQueueSorts: the inbox is every interrupted task oldest first
// (SortAge), or by agent name (SortAgent), or newest status first
// (SortUpdated); under every order a chain stays together, root to leaf,
// placed where its first member falls.
func TestQueueSorts(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	f := fleetOf(map[string][]*a2a.Task{
		"zeta":     {snapshot("z-old", a2a.TaskStateInputRequired, t0, "oldest question")},
		"alpha":    {snapshot("a-new", a2a.TaskStateInputRequired, t0.Add(3*time.Minute), "newest question")},
		"planner":  {snapshot("plan-1", a2a.TaskStateAuthRequired, t0.Add(2*time.Minute), "waiting", "dep-1")},
		"deployer": {snapshot("dep-1", a2a.TaskStateAuthRequired, t0.Add(time.Minute), "approve deploy?")},
	})
	svc, err := Open(Options{JournalPath: filepath.Join(t.TempDir(), "j.jsonl"), ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sort model.SortBy
		want []a2a.TaskID
	}{
		{model.SortAge, []a2a.TaskID{"z-old", "plan-1", "dep-1", "a-new"}},
		{model.SortAgent, []a2a.TaskID{"a-new", "plan-1", "dep-1", "z-old"}},
		{model.SortUpdated, []a2a.TaskID{"a-new", "plan-1", "dep-1", "z-old"}},
	} {
		var got []a2a.TaskID
		for _, it := range svc.Queue(f, tc.sort) {
			got = append(got, it.Task.Key.ID)
			if (it.Task.Key.ID == "plan-1") == it.Actionable {
				t.Errorf("sort %d: %s actionable=%v", tc.sort, it.Task.Key.ID, it.Actionable)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("sort %d: queue %v, want %v", tc.sort, got, tc.want)
		}
	}
}
