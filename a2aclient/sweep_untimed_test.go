package a2aclient

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// seedUntimed stores n tasks in state st without a status timestamp, as
// the SDK's task store emits SUBMITTED tasks.
func seedUntimed(a *sdktest.Agent, t testing.TB, st a2a.TaskState, n int) []a2a.TaskID {
	t.Helper()
	ctx, cc := a2asrv.NewCallContext(t.Context(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("tester", nil)
	ids := make([]a2a.TaskID, n)
	for i := range ids {
		task := &a2a.Task{ID: a2a.NewTaskID(), ContextID: "c", Status: a2a.TaskStatus{State: st,
			Message: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("queued"))}}
		if _, err := a.Store.Create(ctx, task); err != nil {
			t.Fatal(err)
		}
		ids[i] = task.ID
	}
	return ids
}

// moveUntimed moves task id to st in the agent's store, still without a
// status timestamp.
func moveUntimed(a *sdktest.Agent, t testing.TB, id a2a.TaskID, st a2a.TaskState) {
	t.Helper()
	ctx, cc := a2asrv.NewCallContext(t.Context(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("tester", nil)
	cur, err := a.Store.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	next := *cur.Task
	next.Status = a2a.TaskStatus{State: st, Message: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("started"))}
	if _, err := a.Store.Update(ctx, &taskstore.UpdateRequest{Task: &next, PrevTask: cur.Task, PrevVersion: cur.Version,
		Event: a2a.NewStatusUpdateEvent(&next, st, next.Status.Message)}); err != nil {
		t.Fatal(err)
	}
}

// rounds counts the watcher's good sweep rounds so far: each ends with a
// health event that says it is sweeping.
func (c *collector) rounds(agent string) int {
	return countHealth(c.snapshot(), agent, model.HealthSweeping)
}

// An agent holding many open tasks without a status timestamp, where
// nothing changes: its statusTimestampAfter filter keeps every such task,
// so each incremental sweep used to page through all of them. What the
// sweeps cost it now follows what changes: over 36 sweep rounds, with a
// full resync every 12 (as 5 s and 1 min), at most 30 ListTasks per 12
// rounds (30 a minute). A change to one of those tasks is still seen.
// (Rounds are counted by the watcher's health event after each.)
func TestIdleAgentWithUntimedTasksCostsFewListings(t *testing.T) {
	skipUnderRace(t, "a count of listings")
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	seed(a, t, a2a.TaskStateCompleted, 2000, ago(time.Hour))
	seed(a, t, a2a.TaskStateWorking, 300, ago(30*time.Minute))
	seed(a, t, a2a.TaskStateInputRequired, 60, ago(20*time.Minute))
	untimed := seedUntimed(a, t, a2a.TaskStateSubmitted, 450)
	o := fast("a", a.URL())
	o.Subscribe = false
	o.SweepInterval = 100 * time.Millisecond
	o.FullResync = 12 * o.SweepInterval
	_, c := runManager(t, []AgentOptions{o}, Options{})
	c.waitFor(t, "the untimed tasks", 20*time.Second, func(evs []model.Event) bool {
		return hasTask(evs, "a", untimed[len(untimed)-1], a2a.TaskStateSubmitted)
	})
	settled := func(n int) func([]model.Event) bool {
		return func([]model.Event) bool { return c.rounds("a") >= n }
	}
	c.waitFor(t, "steady sweeps", 30*time.Second, settled(c.rounds("a")+13))
	r0, n0 := c.rounds("a"), len(a.Icpt.ListRequests())
	c.waitFor(t, "36 more rounds", 60*time.Second, settled(r0+36))
	r, n := c.rounds("a")-r0, len(a.Icpt.ListRequests())-n0
	t.Logf("%d ListTasks over %d rounds: %.1f per 12 rounds (a minute at 5 s)", n, r, float64(n)*12/float64(r))
	if n*12 > 30*r {
		t.Errorf("%d ListTasks over %d sweep rounds of an idle agent: more than 30 per 12 rounds", n, r)
	}

	moveUntimed(a, t, untimed[len(untimed)/2], a2a.TaskStateWorking)
	r1 := c.rounds("a")
	c.waitFor(t, "the untimed task that moved", 60*time.Second, func(evs []model.Event) bool {
		return hasTask(evs, "a", untimed[len(untimed)/2], a2a.TaskStateWorking)
	})
	t.Logf("the change to an untimed task seen within %d rounds", c.rounds("a")-r1)
}

// untimedFirstStore lists the tasks without a status timestamp before
// the others (then by status timestamp, newest first), as an agent may
// that sorts by status timestamp with none counted as newest.
type untimedFirstStore struct{ *taskstore.InMemory }

func (s untimedFirstStore) List(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	all := []*a2a.Task{}
	page := *req
	page.PageSize, page.PageToken = 100, ""
	for {
		resp, err := s.InMemory.List(ctx, &page)
		if err != nil {
			return nil, err
		}
		all = append(all, resp.Tasks...)
		if resp.NextPageToken == "" {
			break
		}
		page.PageToken = resp.NextPageToken
	}
	stamp := func(t *a2a.Task) time.Time {
		if t.Status.Timestamp == nil {
			return time.Unix(1<<40, 0)
		}
		return *t.Status.Timestamp
	}
	slices.SortStableFunc(all, func(a, b *a2a.Task) int { return stamp(b).Compare(stamp(a)) })
	from, _ := strconv.Atoi(req.PageToken)
	size := cmp.Or(req.PageSize, 50)
	to := min(from+size, len(all))
	resp := &a2a.ListTasksResponse{Tasks: all[from:to], TotalSize: len(all), PageSize: size}
	if to < len(all) {
		resp.NextPageToken = strconv.Itoa(to)
	}
	return resp, nil
}

// On an agent that lists its tasks without a timestamp first, a change
// behind those unchanged pages is still seen: the sweeps that stop at
// the first page without news owe a complete listing, which runs within
// a few sweep intervals (no full resync in this test to find it).
func TestChangeBehindUntimedTasksIsSeen(t *testing.T) {
	skipUnderRace(t, "a sweep over hundreds of seeded tasks")
	a := sdktest.StartStore(t, sdktest.JSONRPC, false, nil, func(m *taskstore.InMemory) taskstore.Store { return untimedFirstStore{m} })
	seed(a, t, a2a.TaskStateCompleted, 200, ago(time.Hour))
	running := seed(a, t, a2a.TaskStateWorking, 20, ago(30*time.Minute))
	seedUntimed(a, t, a2a.TaskStateSubmitted, 450)
	o := fast("a", a.URL())
	o.Subscribe = false
	o.SweepInterval = 100 * time.Millisecond
	_, c := runManager(t, []AgentOptions{o}, Options{})
	c.waitFor(t, "the running tasks", 20*time.Second, func(evs []model.Event) bool {
		return hasTask(evs, "a", running[0], a2a.TaskStateWorking)
	})
	c.waitFor(t, "steady sweeps", 30*time.Second, func([]model.Event) bool { return c.rounds("a") >= 20 })
	ctx, cc := a2asrv.NewCallContext(t.Context(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("tester", nil)
	cur, err := a.Store.Get(ctx, running[0])
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	next := *cur.Task
	next.Status = a2a.TaskStatus{State: a2a.TaskStateInputRequired, Timestamp: &now,
		Message: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("which branch?"))}
	if _, err := a.Store.Update(ctx, &taskstore.UpdateRequest{Task: &next, PrevTask: cur.Task, PrevVersion: cur.Version,
		Event: a2a.NewStatusUpdateEvent(&next, next.Status.State, next.Status.Message)}); err != nil {
		t.Fatal(err)
	}
	r0 := c.rounds("a")
	c.waitFor(t, "the change behind the untimed tasks", 30*time.Second, func(evs []model.Event) bool {
		return hasTask(evs, "a", running[0], a2a.TaskStateInputRequired)
	})
	t.Logf("seen within %d sweep rounds", c.rounds("a")-r0)
}
