package approvals

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// TestQueueCacheFollowsTheFleet drives a fleet through random batches
// (tasks entering and leaving the interrupted states, chains forming,
// breaking and closing into cycles, blockers named before they exist,
// one id at two agents, evictions) and a journal through random
// decisions and outcomes, some with the fleet unchanged, and checks
// after each step that the cache's queue is the queue built from
// scratch, item for item, in every order.
func TestQueueCacheFollowsTheFleet(t *testing.T) {
	for seed := range uint64(12) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { followRandomly(t, seed, 300) })
	}
}

func followRandomly(t *testing.T, seed uint64, steps int) {
	r := rand.New(rand.NewPCG(seed, 17))
	f := model.NewFleet(model.Options{MaxTerminalPerAgent: 3})
	svc, err := Open(Options{JournalPath: filepath.Join(t.TempDir(), "j.jsonl"), Approver: "ops@test"})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	sorts := []model.SortBy{model.SortAge, model.SortUpdated, model.SortAgent}
	caches := make([]*QueueCache, len(sorts))
	for i := range caches {
		caches[i] = svc.NewQueueCache()
	}
	agents := []string{"planner", "deployer", "reviewer"}
	ids := make([]a2a.TaskID, 24)
	for i := range ids {
		ids[i] = a2a.TaskID(fmt.Sprintf("t%02d", i))
	}
	states := []a2a.TaskState{a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired, a2a.TaskStateWorking,
		a2a.TaskStateInputRequired, a2a.TaskStateCompleted, a2a.TaskStateAuthRequired}
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	n := 0
	for step := range steps {
		switch k := r.IntN(10); {
		case k < 7: // a batch of a few events, or now and then a burst
			var batch []model.Event
			size := 1 + r.IntN(4)
			if r.IntN(15) == 0 {
				size = 30
			}
			for range size {
				at = at.Add(time.Duration(1+r.IntN(3)) * time.Second)
				id := ids[r.IntN(len(ids))]
				if f.Len() > 40 && r.IntN(2) == 0 { // mostly tasks already known: they change
					id = ids[r.IntN(len(ids)/2)]
				}
				var refs []a2a.TaskID
				if r.IntN(3) == 0 {
					refs = append(refs, ids[r.IntN(len(ids))])
					if r.IntN(3) == 0 {
						refs = append(refs, ids[r.IntN(len(ids))])
					}
				}
				n++
				snap := snapshot(id, states[r.IntN(len(states))], at, fmt.Sprintf("question %d", n), refs...)
				if r.IntN(4) == 0 { // no timestamp: the prompt is the message's id
					snap.Status.Timestamp = nil
					snap.Status.Message.ID = fmt.Sprintf("m%d", n)
				}
				batch = append(batch, model.Event{Kind: model.EventTask, Agent: agents[r.IntN(len(agents))], Source: model.SourceStream, At: at, Task: snap})
			}
			f.Apply(batch)
		case k < 9: // a decision on a waiting task, or a later record of one
			q := svc.Queue(f, model.SortAge)
			if len(q) == 0 {
				continue
			}
			it := q[r.IntN(len(q))]
			id := fmt.Sprintf("d%d", step)
			if err := svc.write(record{Type: recDecision, ID: id, Agent: it.Task.Key.Agent, Task: it.Task.Key.ID, Prompt: it.Prompt,
				Kind: KindApprove, Approver: []string{"ops@test", "other@test"}[r.IntN(2)]}); err != nil {
				t.Fatal(err)
			}
			if r.IntN(2) == 0 {
				if err := svc.write(record{Type: recOutcome, ID: id, Result: ResultAccepted, State: a2a.TaskStateWorking}); err != nil {
					t.Fatal(err)
				}
			}
		default: // nothing changed: the cache answers from what it kept
		}
		for i, s := range sorts {
			if r.IntN(4) == 0 && step%50 != 49 {
				continue // this order is not asked every step: it catches up over several
			}
			got, want := caches[i].Queue(f, s), svc.Queue(f, s)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("step %d, sort %v: the cache's queue drifted from a rebuild:\n got  %s\n want %s", step, s, queueText(got), queueText(want))
			}
		}
	}
}

// queueText is a queue in one line per item, for a failure message.
func queueText(q []Item) string {
	s := ""
	for _, it := range q {
		s += fmt.Sprintf("\n  %s/%s depth %d leaf %s act %v prior %v", it.Task.Key.Agent, it.Task.Key.ID, it.Depth, it.Leaf.Key.ID, it.Actionable, it.Prior != nil)
	}
	return s
}
