package a2aclient

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// seed puts n tasks in state st straight into the agent's store, stamped
// at(i), and returns their ids. They are stored from the last to the
// first, so with at(i) older as i grows the store's order (it sorts by
// when it stored a task) is the status timestamps' order, as for an
// agent's own tasks.
func seed(a *sdktest.Agent, t testing.TB, st a2a.TaskState, n int, at func(i int) time.Time) []a2a.TaskID {
	t.Helper()
	ctx, cc := a2asrv.NewCallContext(context.Background(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("tester", nil)
	ids := make([]a2a.TaskID, n)
	for i := n - 1; i >= 0; i-- {
		ts := at(i)
		task := &a2a.Task{ID: a2a.NewTaskID(), ContextID: "c", Status: a2a.TaskStatus{State: st, Timestamp: &ts,
			Message: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(string(st)))}}
		if _, err := a.Store.Create(ctx, task); err != nil {
			t.Fatal(err)
		}
		ids[i] = task.ID
	}
	return ids
}

// setState moves a stored task to st at ts, as the agent would.
func setState(a *sdktest.Agent, t testing.TB, id a2a.TaskID, st a2a.TaskState, ts time.Time) {
	t.Helper()
	ctx, cc := a2asrv.NewCallContext(context.Background(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("tester", nil)
	cur, err := a.Store.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	next := *cur.Task
	next.Status = a2a.TaskStatus{State: st, Timestamp: &ts}
	if _, err := a.Store.Update(ctx, &taskstore.UpdateRequest{Task: &next, PrevTask: cur.Task, PrevVersion: cur.Version}); err != nil {
		t.Fatal(err)
	}
}

func ago(d time.Duration) func(int) time.Time {
	now := time.Now()
	return func(i int) time.Time { return now.Add(-d - time.Duration(i)*time.Second) }
}

// firstSweepEvents returns the sweep snapshots in the order they came.
func sweepTasks(evs []model.Event, agent string) []*a2a.Task {
	var out []*a2a.Task
	for _, e := range evs {
		if e.Agent == agent && e.Kind == model.EventTask && e.Source == model.SourceSweep {
			out = append(out, e.Task)
		}
	}
	return out
}

// The first sweep lists by status: the inbox states first, then the
// active ones, then the terminal states newest first, stopping once the
// newest TerminalPerAgent are in; nothing lists the agent's history whole.
// Every binding sends the filter. (One listing at a time, so that the
// server sees the order the sweep asks in.)
func TestFirstSweepListsByState(t *testing.T) {
	for _, kind := range []sdktest.Kind{sdktest.JSONRPC, sdktest.REST, sdktest.GRPC} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := sdktest.Start(t, kind, false, nil)
			asks := seed(a, t, a2a.TaskStateInputRequired, 150, ago(time.Hour))
			auths := seed(a, t, a2a.TaskStateAuthRequired, 20, ago(time.Hour))
			working := seed(a, t, a2a.TaskStateWorking, 120, ago(time.Hour))
			done := seed(a, t, a2a.TaskStateCompleted, 900, ago(time.Minute))
			seed(a, t, a2a.TaskStateFailed, 300, ago(time.Hour))
			o := fast("a", a.URL())
			o.Subscribe, o.TerminalPerAgent, o.ListConcurrency = false, 250, 1
			_, c := runManager(t, []AgentOptions{o}, Options{})
			c.waitFor(t, "the first sweep", 10*time.Second, func(evs []model.Event) bool {
				h := lastHealth(evs, "a")
				return h != nil && h.TerminalTotal == 1200
			})
			reqs := a.Icpt.ListRequests()
			var order []a2a.TaskState
			for _, r := range reqs {
				if r.StatusTimestampAfter != nil {
					break // the first incremental sweep
				}
				if r.Status == "" && r.PageSize != 1 {
					t.Errorf("an unfiltered listing of %d per page in the first sweep", r.PageSize)
				}
				if r.Status != "" && (len(order) == 0 || order[len(order)-1] != r.Status) {
					order = append(order, r.Status)
				}
			}
			firstTerminal := slices.IndexFunc(order, func(s a2a.TaskState) bool { return model.ClassOf(s) == model.ClassTerminal })
			for _, st := range openStates {
				if i := slices.Index(order, st); i < 0 || firstTerminal >= 0 && i > firstTerminal {
					t.Errorf("%s listed at %d, after the first terminal listing at %d: %v", st, i, firstTerminal, order)
				}
			}
			if slices.Index(order, a2a.TaskStateInputRequired) > slices.Index(order, a2a.TaskStateWorking) {
				t.Errorf("the inbox states were not asked first: %v", order)
			}
			// The terminal listings stopped near what is kept: 900 completed,
			// 300 failed an hour earlier, 250 kept, pages of 100.
			terminalPages := 0
			for _, r := range reqs {
				if r.StatusTimestampAfter == nil && model.ClassOf(r.Status) == model.ClassTerminal {
					terminalPages++
				}
			}
			// completed: 3 pages; failed: at most its 3 pages (the listings run
			// at once, so failed may page before completed fills what is
			// kept); canceled, rejected: one empty page each. All of it is 14.
			if terminalPages > 3+3+2 {
				t.Errorf("%d terminal pages for 250 kept", terminalPages)
			}
			got := map[a2a.TaskID]bool{}
			for _, tk := range sweepTasks(c.snapshot(), "a") {
				got[tk.ID] = true
			}
			for k, ids := range [][]a2a.TaskID{asks, auths, working, done[:250]} {
				for i, id := range ids {
					if !got[id] {
						t.Fatalf("task %d of group %d not swept", i, k)
					}
				}
			}
		})
	}
}

// The inbox of an agent with many finished tasks is complete before the
// first terminal task arrives; and the header's total comes from the
// agent's totalSize.
func TestInboxCompleteBeforeTerminalPane(t *testing.T) {
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	asks := seed(a, t, a2a.TaskStateInputRequired, 320, ago(time.Hour))
	seed(a, t, a2a.TaskStateCompleted, 3000, ago(time.Minute))
	o := fast("a", a.URL())
	o.Subscribe = false
	_, c := runManager(t, []AgentOptions{o}, Options{})
	c.waitFor(t, "the retained terminal tasks", 15*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return h != nil && h.TerminalTotal == 3000
	})
	inbox := map[a2a.TaskID]bool{}
	for _, id := range asks {
		inbox[id] = true
	}
	terminal := 0
	for _, tk := range sweepTasks(c.snapshot(), "a") {
		switch {
		case inbox[tk.ID]:
			if terminal > 0 {
				t.Fatalf("inbox task %s arrived after %d terminal tasks", tk.ID, terminal)
			}
			delete(inbox, tk.ID)
		case tk.Status.State == a2a.TaskStateCompleted:
			terminal++
		}
	}
	if len(inbox) != 0 || terminal < DefaultTerminalPerAgent || terminal > DefaultTerminalPerAgent+pageSize {
		t.Errorf("%d inbox tasks missing, %d terminal tasks swept (keep %d)", len(inbox), terminal, DefaultTerminalPerAgent)
	}
}

// purgingStore is an agent's task store that forgets tasks, as an agent
// that purges old tasks or restarts on an empty store does: GetTask and
// ListTasks no longer see them.
type purgingStore struct {
	*taskstore.InMemory
	mu     sync.Mutex
	purged map[a2a.TaskID]bool
}

func (s *purgingStore) purge(id a2a.TaskID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.purged[id] = true
}

func (s *purgingStore) gone(id a2a.TaskID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.purged[id]
}

func (s *purgingStore) Get(ctx context.Context, id a2a.TaskID) (*taskstore.StoredTask, error) {
	if s.gone(id) {
		return nil, a2a.ErrTaskNotFound
	}
	return s.InMemory.Get(ctx, id)
}

func (s *purgingStore) List(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	resp, err := s.InMemory.List(ctx, req)
	if err != nil {
		return nil, err
	}
	kept := resp.Tasks[:0]
	for _, t := range resp.Tasks {
		if !s.gone(t.ID) {
			kept = append(kept, t)
		} else {
			resp.TotalSize--
		}
	}
	resp.Tasks = kept
	return resp, nil
}

// An open task that a full resync no longer lists is asked for with
// GetTask before anything is said of it: one that moved to a state the
// resync does not list (it completed unseen) is reported completed; one
// the agent no longer knows is reported gone, and only then.
func TestVanishedOpenTaskConfirmedWithGetTask(t *testing.T) {
	var store *purgingStore
	a := sdktest.StartStore(t, sdktest.JSONRPC, false, nil, func(m *taskstore.InMemory) taskstore.Store {
		store = &purgingStore{InMemory: m, purged: map[a2a.TaskID]bool{}}
		return store
	})
	ids := seed(a, t, a2a.TaskStateWorking, 3, ago(time.Hour))
	moved, purged, stays := ids[0], ids[1], ids[2]
	o := fast("a", a.URL())
	o.Subscribe, o.FullResync = false, 300*time.Millisecond
	_, c := runManager(t, []AgentOptions{o}, Options{})
	c.waitFor(t, "the working tasks", 5*time.Second, func(evs []model.Event) bool {
		return hasTask(evs, "a", stays, a2a.TaskStateWorking)
	})
	// The first sweep lists the finished states after the open ones: it
	// is over once an incremental sweep has asked for changes after it.
	// (Counting from before it would take its finished states for the
	// relisting looked for below.)
	c.waitFor(t, "the first sweep over", 10*time.Second, func([]model.Event) bool {
		return terminalListedThenIncremental(a.Icpt.ListRequests(), 0) >= 0
	})
	// Completed with a timestamp older than any incremental sweep asks
	// for: only the resync's GetTask can find it.
	n0 := len(a.Icpt.ListRequests())
	setState(a, t, moved, a2a.TaskStateCompleted, time.Now().Add(-30*time.Minute))
	store.purge(purged)
	c.waitFor(t, "the moved task completed and the purged one gone", 10*time.Second, func(evs []model.Event) bool {
		var done, gone bool
		for _, e := range evs {
			done = done || e.Kind == model.EventTask && e.Task.ID == moved && e.Task.Status.State == a2a.TaskStateCompleted && e.Source == model.SourcePoll
			gone = gone || e.Kind == model.EventGone && e.Task.ID == purged
		}
		return done && gone
	})
	if !a.Icpt.Got(purged) || !a.Icpt.Got(moved) {
		t.Errorf("GetTask asked for moved %v, purged %v; want both", a.Icpt.Got(moved), a.Icpt.Got(purged))
	}
	for _, e := range c.snapshot() {
		if e.Kind == model.EventGone && e.Task.ID != purged {
			t.Errorf("task %s reported gone", e.Task.ID)
		}
	}
	// The agent lost a task: the next full sweep lists the finished
	// states again too. Later ones page the open states no more than
	// their first page each: the agent holds what we hold.
	c.waitFor(t, "the finished states listed again, and that sweep over", 5*time.Second, func([]model.Event) bool {
		return terminalListedThenIncremental(a.Icpt.ListRequests(), n0) >= 0
	})
	n := len(a.Icpt.ListRequests())
	c.waitFor(t, "more resyncs", 5*time.Second, func([]model.Event) bool { return len(a.Icpt.ListRequests()) > n+12 })
	for _, r := range a.Icpt.ListRequests()[n:] {
		if r.PageToken != "" {
			t.Errorf("a resync paged on (%s) though nothing changed", r.Status)
		}
		if model.ClassOf(r.Status) == model.ClassTerminal {
			t.Errorf("a resync listed %s", r.Status)
		}
	}
}

// terminalListedThenIncremental returns the index of the first listing
// of a finished state in reqs[from:] that an incremental listing
// (statusTimestampAfter) follows, that is of a full sweep that is over,
// or -1.
func terminalListedThenIncremental(reqs []a2a.ListTasksRequest, from int) int {
	for i := from; i < len(reqs); i++ {
		if model.ClassOf(reqs[i].Status) == model.ClassTerminal {
			if slices.ContainsFunc(reqs[i:], func(r a2a.ListTasksRequest) bool { return r.StatusTimestampAfter != nil }) {
				return i
			}
			return -1
		}
	}
	return -1
}

// ignoreStatusFilter drops "status" from JSON-RPC ListTasks requests: the
// real server then answers every filtered listing with every task.
func ignoreStatusFilter(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		if json.Unmarshal(body, &req) == nil && req["method"] == "ListTasks" {
			if p, ok := req["params"].(map[string]any); ok {
				delete(p, "status")
				body, _ = json.Marshal(req)
			}
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// An agent whose ListTasks ignores the status filter is listed whole, as
// before, and its row says why.
func TestAgentIgnoringStatusFilter(t *testing.T) {
	a := sdktest.Start(t, sdktest.JSONRPC, false, ignoreStatusFilter)
	ask := seed(a, t, a2a.TaskStateInputRequired, 1, ago(time.Hour))[0]
	old := seed(a, t, a2a.TaskStateWorking, 250, ago(2*time.Hour))
	seed(a, t, a2a.TaskStateCompleted, 50, ago(time.Minute))
	o := fast("a", a.URL())
	o.Subscribe, o.FullResync = false, 300*time.Millisecond
	_, c := runManager(t, []AgentOptions{o}, Options{})
	c.waitFor(t, "every task, and the note", 10*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return h != nil && h.Note == noteIgnoresFilter && hasTask(evs, "a", ask, a2a.TaskStateInputRequired) &&
			hasTask(evs, "a", old[len(old)-1], a2a.TaskStateWorking)
	})
	n := len(a.Icpt.ListRequests())
	c.waitFor(t, "a resync", 5*time.Second, func([]model.Event) bool { return len(a.Icpt.ListRequests()) > n+10 })
	for _, r := range a.Icpt.ListRequests()[n:] {
		if r.Status != "" {
			t.Fatalf("after the fallback a listing still asks for %s", r.Status)
		}
	}
	for _, e := range c.snapshot() {
		if e.Kind == model.EventGone {
			t.Errorf("task %s reported gone", e.Task.ID)
		}
	}
	if h := lastHealth(c.snapshot(), "a"); !h.State.Up() || h.Err != "" {
		t.Errorf("health = %+v, want up without an error", h)
	}
}

// An agent with more open tasks than MaxOpenTasks: the first ones are
// kept, its row says how many, and the other agent is untouched.
func TestOpenTasksCapped(t *testing.T) {
	many := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	calm := sdktest.Start(t, sdktest.REST, false, nil)
	seed(many, t, a2a.TaskStateWorking, 450, ago(time.Hour))
	calmIDs := seed(calm, t, a2a.TaskStateWorking, 150, ago(time.Hour))
	om, oc := fast("many", many.URL()), fast("calm", calm.URL())
	om.MaxOpenTasks, oc.MaxOpenTasks = 200, 200
	om.Subscribe, oc.Subscribe = false, false
	m, c := runManager(t, []AgentOptions{om, oc}, Options{})
	c.waitFor(t, "the cap on the row", 10*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "many")
		return h != nil && h.State.Up() && strings.Contains(h.Err, "too many open tasks: 200 kept")
	})
	if n := len(sweepTasks(c.snapshot(), "many")); n != 200 {
		t.Errorf("%d open tasks reported, want the 200 kept", n)
	}
	w := m.watchers["many"]
	w.mu.Lock()
	open := w.tasks.open
	w.mu.Unlock()
	if open != 200 {
		t.Errorf("the watcher remembers %d open tasks", open)
	}
	c.waitFor(t, "the calm agent's tasks", 5*time.Second, func(evs []model.Event) bool {
		return len(sweepTasks(evs, "calm")) == len(calmIDs)
	})
	if h := lastHealth(c.snapshot(), "calm"); h.Err != "" {
		t.Errorf("calm agent: %q", h.Err)
	}
}

// The watcher remembers no more terminal tasks than the model keeps, and
// the same ones: forgetting a task forgets it in both.
func TestMemoFollowsRetention(t *testing.T) {
	a := sdktest.Start(t, sdktest.JSONRPC, true, nil)
	o := fast("a", a.URL())
	o.TerminalPerAgent = 20
	m, c := runManager(t, []AgentOptions{o}, Options{})
	var ids []a2a.TaskID
	for range 60 {
		ids = append(ids, a.Send(t, "done"))
	}
	c.waitFor(t, "every task completed", 15*time.Second, func(evs []model.Event) bool {
		return hasTask(evs, "a", ids[len(ids)-1], a2a.TaskStateCompleted)
	})
	time.Sleep(200 * time.Millisecond) // let the last stream reconcile
	fleet := model.NewFleet(model.Options{MaxTerminalPerAgent: 20})
	fleet.Apply(c.snapshot())
	w := m.watchers["a"]
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := w.tasks.len(); n > 20 {
		t.Errorf("the watcher remembers %d tasks, want at most the 20 kept", n)
	}
	for id, mm := range w.tasks.m {
		if tk := fleet.Task(model.TaskKey{Agent: "a", ID: id}); tk == nil || model.ClassOf(mm.state) != model.ClassTerminal {
			t.Errorf("the watcher remembers %s (%s), the model does not keep it", id, mm.state)
		}
	}
	if fleet.Count(model.ClassTerminal, model.Query{}) != 20 {
		t.Errorf("the model keeps %d", fleet.Count(model.ClassTerminal, model.Query{}))
	}
}

// Tasks in a state no filter can name (TASK_STATE_UNSPECIFIED) are found
// by an unfiltered listing, because the agent's total says it has some;
// it stops once it found them. Later full sweeps list unfiltered too.
func TestUnspecifiedStateTasksFound(t *testing.T) {
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	odd := seed(a, t, a2a.TaskStateUnspecified, 3, ago(2*time.Hour))
	seed(a, t, a2a.TaskStateCompleted, 400, ago(time.Hour))
	seed(a, t, a2a.TaskStateWorking, 5, ago(time.Minute))
	o := fast("a", a.URL())
	o.Subscribe, o.FullResync = false, 300*time.Millisecond
	_, c := runManager(t, []AgentOptions{o}, Options{})
	c.waitFor(t, "the unspecified tasks", 10*time.Second, func(evs []model.Event) bool {
		for _, id := range odd {
			if !hasTask(evs, "a", id, "") {
				return false
			}
		}
		return true
	})
	unfiltered := 0
	for _, r := range a.Icpt.ListRequests() {
		if r.Status == "" && r.StatusTimestampAfter == nil && r.PageSize > 1 {
			unfiltered++
		}
	}
	if unfiltered == 0 {
		t.Errorf("found without an unfiltered listing?")
	}
}

// An agent that comes back from an outage on an empty store: every task
// it no longer holds, finished ones too, is asked for and marked gone.
func TestRestartOnEmptyStoreMarksGone(t *testing.T) {
	var store *purgingStore
	a := sdktest.StartStore(t, sdktest.JSONRPC, false, nil, func(m *taskstore.InMemory) taskstore.Store {
		store = &purgingStore{InMemory: m, purged: map[a2a.TaskID]bool{}}
		return store
	})
	ids := append(seed(a, t, a2a.TaskStateCompleted, 5, ago(time.Hour)), seed(a, t, a2a.TaskStateWorking, 3, ago(time.Minute))...)
	o := fast("a", a.URL())
	o.Subscribe = false
	_, c := runManager(t, []AgentOptions{o}, Options{})
	c.waitFor(t, "the first sweep", 5*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return h != nil && h.TerminalTotal == 5
	})
	a.Stop()
	c.waitFor(t, "unreachable", 5*time.Second, healthIs("a", model.HealthUnreachable))
	for _, id := range ids {
		store.purge(id)
	}
	kept := seed(a, t, a2a.TaskStateCompleted, 1, ago(time.Second))[0]
	a.Start()
	c.waitFor(t, "every task gone", 10*time.Second, func(evs []model.Event) bool {
		gone := map[a2a.TaskID]bool{}
		for _, e := range evs {
			if e.Kind == model.EventGone {
				gone[e.Task.ID] = true
			}
		}
		for _, id := range ids {
			if !gone[id] {
				return false
			}
		}
		return hasTask(evs, "a", kept, a2a.TaskStateCompleted) && !gone[kept]
	})
}

// An agent that held no task when its first sweep ran, then finished one
// without any sweep seeing it open: later sweeps find it. (They used to
// be full sweeps of the open states only, for want of a status timestamp
// to sweep from, so a task that ended between two of them was never
// shown.) The same for a task whose status has no timestamp at all.
func TestTaskEndedOnAnEmptyAgentIsFound(t *testing.T) {
	for _, kind := range []sdktest.Kind{sdktest.JSONRPC, sdktest.REST, sdktest.GRPC} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := sdktest.Start(t, kind, false, nil)
			o := fast("a", a.URL())
			o.Subscribe = false
			_, c := runManager(t, []AgentOptions{o}, Options{})
			c.waitFor(t, "sweeps of the empty agent", 10*time.Second, func([]model.Event) bool {
				return len(a.Icpt.ListRequests()) > 12
			})
			ctx, cc := a2asrv.NewCallContext(context.Background(), nil)
			cc.User = a2asrv.NewAuthenticatedUser("tester", nil)
			bare := &a2a.Task{ID: a2a.NewTaskID(), ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateFailed}}
			if _, err := a.Store.Create(ctx, bare); err != nil {
				t.Fatal(err)
			}
			c.waitFor(t, "the task with no timestamp", 5*time.Second, func(evs []model.Event) bool {
				return hasTask(evs, "a", bare.ID, a2a.TaskStateFailed)
			})
			done := seed(a, t, a2a.TaskStateCompleted, 1, ago(0))[0]
			c.waitFor(t, "the task that ended", 5*time.Second, func(evs []model.Event) bool {
				return hasTask(evs, "a", done, a2a.TaskStateCompleted)
			})
		})
	}
}

// An agent where nothing changes: once it was swept with the overlap
// long enough after the newest status timestamp was listed, the sweeps
// start at that timestamp, so they get an empty page instead of the same
// last seconds of tasks every sweep interval; a task that changes later
// is still found.
func TestIdleSweepsStopRelistingTheOverlap(t *testing.T) {
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	now := time.Now()
	seed(a, t, a2a.TaskStateCompleted, 30, func(i int) time.Time { return now.Add(-time.Duration(i) * 10 * time.Millisecond) })
	newest := now
	o := fast("a", a.URL())
	o.Subscribe = false
	_, c := runManager(t, []AgentOptions{o}, Options{})
	c.waitFor(t, "a sweep from the newest timestamp itself", 3*sweepOverlap, func([]model.Event) bool {
		for _, r := range a.Icpt.ListRequests() {
			if r.StatusTimestampAfter != nil && !r.StatusTimestampAfter.Before(newest) {
				return true
			}
		}
		return false
	})
	later := seed(a, t, a2a.TaskStateFailed, 1, ago(-time.Second))[0]
	c.waitFor(t, "the task that ended later", 5*time.Second, func(evs []model.Event) bool {
		return hasTask(evs, "a", later, a2a.TaskStateFailed)
	})
}
