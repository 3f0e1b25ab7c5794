package tasks

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// TestSortedRowsFollowTheFleet drives a fleet through random batches
// (new tasks, status changes with texts that tie and differ in case,
// tasks ending and evicted, blockers named, found and ending, tasks gone
// and heard of again, agents going stale and back) and checks after each
// that every pane sorted here (id, status, hint; both ways; with and
// without a filter), placed again from the fleet's changes, has the rows
// a sort from scratch gives, in the same order.
func TestSortedRowsFollowTheFleet(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { sortRandomly(t, seed, 200) })
	}
}

func sortRandomly(t *testing.T, seed uint64, steps int) {
	r := rand.New(rand.NewPCG(seed, 29))
	f := model.NewFleet(model.Options{MaxTerminalPerAgent: 4})
	clk := newClock()
	agents := []string{"planner", "deployer", "reviewer"}
	texts := []string{"Working", "working", "step 1", "Step 2", "", "waiting for approval", "deploying build 9f3c"}
	states := []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateInputRequired, a2a.TaskStateSubmitted,
		a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateAuthRequired}
	ids := make([]a2a.TaskID, 30)
	for i := range ids {
		ids[i] = a2a.TaskID(fmt.Sprintf("%02x-task-%d", i*7%256, i))
	}
	var followers []*sortedRows
	for _, col := range []int{colID, colStatus, colHint} {
		for _, desc := range []bool{false, true} {
			for _, filter := range []model.Filter{{}, {Agents: []string{"dep"}}} {
				followers = append(followers, &sortedRows{q: model.Query{Filter: filter}, col: col, desc: desc, now: clk.Now, lists: map[model.Class]*sortedList{}})
			}
		}
	}
	ago := 10 * time.Hour
	for step := range steps {
		var batch []model.Event
		for range 1 + r.IntN(5) {
			ago -= time.Duration(1+r.IntN(2)) * time.Second
			a := agents[r.IntN(len(agents))]
			switch k := r.IntN(12); {
			case k == 0:
				st := []model.Health{model.HealthStreaming, model.HealthUnreachable, model.HealthBackoff, model.HealthConnecting}[r.IntN(4)]
				batch = append(batch, model.Event{Kind: model.EventHealth, Agent: a, Health: &model.HealthUpdate{State: st}})
			case k == 1:
				batch = append(batch, model.Event{Kind: model.EventGone, Agent: a, Task: &a2a.Task{ID: ids[r.IntN(len(ids))]}})
			default:
				var refs []a2a.TaskID
				if r.IntN(3) == 0 {
					refs = []a2a.TaskID{ids[r.IntN(len(ids))]}
				}
				text := texts[r.IntN(len(texts))]
				if text == "" {
					text = "x" // taskEvent leaves an empty text without a message: no refs
				}
				batch = append(batch, taskEvent(a, ids[r.IntN(len(ids))], states[r.IntN(len(states))], ago, text, refs...))
			}
		}
		f.Apply(batch)
		if r.IntN(3) > 0 {
			clk.add(resortEvery)
		}
		for _, s := range followers {
			for c := range model.Class(4) {
				if r.IntN(5) == 0 && step%40 != 39 {
					continue // not asked every time: it catches up over several batches
				}
				got := s.list(f, c)
				fresh := &sortedRows{q: s.q, col: s.col, desc: s.desc, now: clk.Now, lists: map[model.Class]*sortedList{}}
				want := fresh.list(f, c)
				if s.lists[c].version != f.Version() { // not re-sorted yet this second: the next step checks
					continue
				}
				if !slices.Equal(got, want) {
					t.Fatalf("step %d, column %d desc %v filter %v, pane %v: the rows placed again drifted from a sort:\n got  %v\n want %v",
						step, s.col, s.desc, s.q.Filter.Agents, c, rowKeys(got), rowKeys(want))
				}
			}
		}
	}
}

func rowKeys(ts []*model.Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Key.Agent + "/" + string(t.Key.ID)
	}
	return out
}
