package a2aclient

import (
	"container/heap"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// What a full sweep costs the agent follows what is open, never its
// history. ListTasks filters by status and sorts by status timestamp,
// newest first (spec §3.1.4), and terminal tasks never change, so:
//
//   - the first full sweep lists INPUT_REQUIRED and AUTH_REQUIRED first
//     (the inbox), then SUBMITTED and WORKING, each by a status filter
//     and up to ListConcurrency listings at once, with one unfiltered
//     page of one task beside them for the agent's total of tasks; then, once
//     every open task is in, the terminal states newest first, stopping
//     each state once the newest TerminalPerAgent terminal tasks are
//     known (memo.go keeps no more, nor does the model);
//   - later full sweeps (every FullResync) list the open states only,
//     and stop after the first page of a state whose totalSize equals
//     what is held in it and whose page holds no news; the terminal
//     panes are kept fresh by incremental sweeps, which see every
//     change;
//   - an open task that a complete listing of its state no longer shows,
//     and that nothing else told of meanwhile, is asked for with GetTask:
//     it may have moved to a state not listed; TaskNotFound marks it gone;
//   - tasks in states no filter can name (TASK_STATE_UNSPECIFIED, names
//     we do not know) are found by an unfiltered listing, only for an
//     agent whose total says it has some (stopped once they are found)
//     or that showed one;
//   - an agent whose ListTasks ignores the status filter (a task comes
//     back in another state than asked) gets one unfiltered listing of
//     everything per full sweep, as before, and its row says so; so does
//     an agent configured with ListAll.

// The states a full sweep lists by filter, in order.
var (
	openStates     = []a2a.TaskState{a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired, a2a.TaskStateSubmitted, a2a.TaskStateWorking}
	terminalStates = []a2a.TaskState{a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected}
)

// maxVanishChecks bounds the GetTask calls one full sweep makes for open
// tasks its listings no longer show; the rest wait for the next one.
const maxVanishChecks = 256

// noteIgnoresFilter is the agent's row note when its ListTasks ignores
// the status filter.
const noteIgnoresFilter = "ListTasks ignores the status filter: every full sweep lists every task"

// listing is what full sweeps learned of an agent's ListTasks. Guarded by
// the watcher's mu.
type listing struct {
	terminalDone  bool // the terminal states were listed by a first sweep
	terminalOwed  bool // list them again: events of terminal tasks were dropped
	ignoresFilter bool // a status-filtered listing returned a task in another state
	otherStates   bool // the agent holds tasks in states no filter names
	// counted: termTotal holds what the agent told (totalSize of each
	// terminal state), plus the tasks seen ending since; totalsAt is the
	// newest terminal status timestamp listed when it was counted.
	counted   bool
	termTotal int
	totalsAt  time.Time
}

// sweepRun is what the listings of one sweep share. Safe for concurrent
// use.
type sweepRun struct {
	w      *watcher
	start  time.Time // local clock
	forced bool

	mu      sync.Mutex
	newest  time.Time    // the newest status timestamp listed
	fetch   []a2a.TaskID // seen newly terminal: GetTask with artifacts
	cut     bool         // MaxOpenTasks dropped a task
	ignored bool         // a filter was ignored
	other   int          // tasks listed in states no filter names
	// complete holds, per state fully listed ("" for an unfiltered
	// listing of everything), the ids the listing returned.
	complete map[a2a.TaskState]map[a2a.TaskID]struct{}
	// covered holds, per terminal state listed, the oldest status
	// timestamp its listing reached (zero when it reached the end): the
	// ids in complete are every task of that state at least as new.
	covered map[a2a.TaskState]time.Time
	totals  map[a2a.TaskState]int // totalSize of each state's first page
	headAll int                   // totalSize of the unfiltered page; -1 if not asked
	term    tsHeap                // the newest TerminalPerAgent terminal timestamps listed
}

func newSweepRun(w *watcher, forced bool) *sweepRun {
	return &sweepRun{w: w, start: time.Now(), forced: forced, headAll: -1,
		complete: map[a2a.TaskState]map[a2a.TaskID]struct{}{}, covered: map[a2a.TaskState]time.Time{}, totals: map[a2a.TaskState]int{}}
}

// page observes one page's tasks, listed with filter ("" for none), and
// returns whether any was news and the page's oldest status timestamp.
func (r *sweepRun) page(tasks []*a2a.Task, filter a2a.TaskState) (news bool, oldest time.Time) {
	for i, t := range tasks {
		if t == nil || t.ID == "" {
			continue
		}
		st := model.NormalizeState(t.Status.State)
		var ts time.Time
		if t.Status.Timestamp != nil {
			ts = *t.Status.Timestamp
		}
		if i == 0 || ts.Before(oldest) {
			oldest = ts
		}
		o := r.w.observe(t, model.SourceSweep, false)
		r.mu.Lock()
		if ts.After(r.newest) {
			r.newest = ts
		}
		r.ignored = r.ignored || filter != "" && st != filter
		if model.ClassOf(st) == model.ClassUnknown {
			r.other++
		}
		r.cut = r.cut || o.dropped && model.ClassOf(st) != model.ClassTerminal
		if o.fetch && len(r.fetch) < maxTerminalFetch {
			r.fetch = append(r.fetch, t.ID)
		}
		if model.ClassOf(st) == model.ClassTerminal {
			r.term.add(ts, r.w.o.TerminalPerAgent)
		}
		r.mu.Unlock()
		news = news || o.news
	}
	return news, oldest
}

func (r *sweepRun) capped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cut
}

func (r *sweepRun) filterIgnored() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ignored
}

// fullSweep lists the agent's tasks as the comment at the top of this
// file says.
func (w *watcher) fullSweep(ctx context.Context, r *sweepRun) error {
	w.mu.Lock()
	l := w.listed
	w.mu.Unlock()
	if w.o.ListAll || l.ignoresFilter {
		return w.listEverything(ctx, r, 0)
	}
	first := !l.terminalDone || l.terminalOwed
	jobs := make([]func(context.Context) error, 0, len(openStates)+1)
	for i, st := range openStates {
		jobs = append(jobs, func(ctx context.Context) error { return r.listOpen(ctx, st) })
		if i == 1 && first {
			jobs = append(jobs, r.listHead) // beside the inbox, before the rest
		}
	}
	if err := r.parallel(ctx, jobs); err != nil {
		return err
	}
	if r.filterIgnored() {
		return w.fallBackToListAll(ctx, r)
	}
	if first {
		jobs = jobs[:0]
		for _, st := range terminalStates {
			jobs = append(jobs, func(ctx context.Context) error { return r.listTerminal(ctx, st) })
		}
		if err := r.parallel(ctx, jobs); err != nil {
			return err
		}
		if r.filterIgnored() {
			return w.fallBackToListAll(ctx, r)
		}
		w.countTerminal(r)
	}
	if want := r.otherWanted(); want > 0 || l.otherStates {
		if err := w.listEverything(ctx, r, want); err != nil {
			return err
		}
	}
	w.checkVanished(ctx, r)
	return nil
}

// fallBackToListAll records that the agent ignores the status filter and
// lists everything, as a2atop did before it listed by state.
func (w *watcher) fallBackToListAll(ctx context.Context, r *sweepRun) error {
	w.log.Warn("the agent's ListTasks ignores the status filter: every full sweep lists every task")
	w.mu.Lock()
	w.listed.ignoresFilter = true
	w.mu.Unlock()
	return w.listEverything(ctx, r, 0)
}

// listHead asks for one task with no filter for the agent's total, to
// tell whether it holds tasks in states no filter names. The task itself
// is left to the listing of its state: the inbox comes first.
func (r *sweepRun) listHead(ctx context.Context) error {
	return r.w.list(ctx, listQuery{pageSize: 1}, func(resp *a2a.ListTasksResponse, _ bool) bool {
		r.mu.Lock()
		r.headAll = resp.TotalSize
		r.mu.Unlock()
		return false
	})
}

// otherWanted is how many tasks the agent holds in states no filter
// names, by its totals (0 when they do not tell).
func (r *sweepRun) otherWanted() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.headAll <= 0 || len(r.totals) < len(openStates)+len(terminalStates) {
		return 0
	}
	n := r.headAll
	for _, v := range r.totals {
		n -= v
	}
	return max(n, 0)
}

// listOpen lists every task in the open state st, and records the ids
// when the listing is complete. A later full sweep that is not forced
// stops after the first page when the state holds what we hold.
func (r *sweepRun) listOpen(ctx context.Context, st a2a.TaskState) error {
	w := r.w
	w.mu.Lock()
	held := w.tasks.byState[st]
	w.mu.Unlock()
	check := !r.forced && r.w.listedTerminal()
	ids := map[a2a.TaskID]struct{}{}
	whole, same := true, false
	err := w.list(ctx, listQuery{status: st, pageSize: pageSize}, func(resp *a2a.ListTasksResponse, first bool) bool {
		news, _ := r.page(resp.Tasks, st)
		for _, t := range resp.Tasks {
			if t != nil {
				ids[t.ID] = struct{}{}
			}
		}
		if first {
			r.mu.Lock()
			r.totals[st] = resp.TotalSize
			r.mu.Unlock()
		}
		if r.filterIgnored() || r.capped() {
			whole = false
			return false
		}
		if first && check && !news && resp.TotalSize == held && resp.TotalSize >= len(resp.Tasks) {
			same = true // the agent holds in st what we hold: nothing to page
			return false
		}
		return true
	})
	if err == nil && whole && !same {
		r.mu.Lock()
		r.complete[st] = ids
		r.mu.Unlock()
	}
	return err
}

// listTerminal lists the terminal state st newest first until the
// newest TerminalPerAgent terminal tasks, over every terminal state
// listed so far, are all at least as new as the page's oldest: what
// follows would not be kept. It records what it listed, and down to
// which status timestamp, for checkVanished.
func (r *sweepRun) listTerminal(ctx context.Context, st a2a.TaskState) error {
	keep := r.w.o.TerminalPerAgent
	ids := map[a2a.TaskID]struct{}{}
	var reached time.Time
	whole := true
	err := r.w.list(ctx, listQuery{status: st, pageSize: pageSize}, func(resp *a2a.ListTasksResponse, first bool) bool {
		_, oldest := r.page(resp.Tasks, st)
		for _, t := range resp.Tasks {
			if t != nil {
				ids[t.ID] = struct{}{}
			}
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if first {
			r.totals[st] = max(resp.TotalSize, len(resp.Tasks))
		}
		if r.ignored {
			whole = false
			return false
		}
		reached = oldest
		if r.term.holds(keep, oldest) {
			return false
		}
		if resp.NextPageToken == "" {
			reached = time.Time{} // the end: every task of st was listed
		}
		return true
	})
	if err == nil && whole {
		r.mu.Lock()
		r.complete[st], r.covered[st] = ids, reached
		r.mu.Unlock()
	}
	return err
}

// listEverything lists every task with no filter: the whole listing, or,
// when wantOther > 0, until it found that many tasks in states no filter
// names. A whole listing records its ids for checkVanished.
func (w *watcher) listEverything(ctx context.Context, r *sweepRun, wantOther int) error {
	r.mu.Lock()
	other0 := r.other
	r.mu.Unlock()
	ids := map[a2a.TaskID]struct{}{}
	whole := true
	err := w.list(ctx, listQuery{pageSize: pageSize}, func(resp *a2a.ListTasksResponse, _ bool) bool {
		r.page(resp.Tasks, "")
		for _, t := range resp.Tasks {
			if t != nil {
				ids[t.ID] = struct{}{}
			}
		}
		r.mu.Lock()
		found := r.other - other0
		r.mu.Unlock()
		if r.capped() || wantOther > 0 && found >= wantOther {
			whole = false
			return false
		}
		return true
	})
	if err != nil {
		return err
	}
	if whole {
		r.mu.Lock()
		r.complete[""] = ids
		r.mu.Unlock()
	}
	w.checkVanished(ctx, r)
	return nil
}

// listedTerminal reports whether a first sweep listed the terminal states.
func (w *watcher) listedTerminal() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.listed.terminalDone
}

// countTerminal records, after the first sweep listed the terminal
// states, how many terminal tasks the agent holds (its totalSizes).
func (w *watcher) countTerminal(r *sweepRun) {
	r.mu.Lock()
	n := 0
	for _, st := range terminalStates {
		n += r.totals[st]
	}
	newest := r.term.newest()
	r.mu.Unlock()
	w.mu.Lock()
	w.listed.terminalDone, w.listed.terminalOwed = true, false
	w.listed.counted, w.listed.termTotal, w.listed.totalsAt = true, n, newest
	w.mu.Unlock()
}

// checkVanished asks GetTask for the tasks the sweep's complete listings
// no longer show and nothing told of since the sweep began: an open task
// whose state was listed whole, or a terminal one at least as new as
// what its state's listing reached. Each has moved on (to a state not
// listed), or is gone (TaskNotFound); then the agent lost tasks, and the
// next full sweep lists the finished ones again too.
func (w *watcher) checkVanished(ctx context.Context, r *sweepRun) {
	r.mu.Lock()
	complete, covered := r.complete, r.covered
	r.complete, r.covered = map[a2a.TaskState]map[a2a.TaskID]struct{}{}, map[a2a.TaskState]time.Time{}
	r.mu.Unlock()
	if len(complete) == 0 {
		return
	}
	var ids []a2a.TaskID
	w.mu.Lock()
	for id, m := range w.tasks.m {
		if !m.seen || !m.heard.Before(r.start) {
			continue
		}
		listed, ok := complete[m.state]
		if model.ClassOf(m.state) == model.ClassTerminal {
			if reached := covered[m.state]; !reached.IsZero() && !m.ts.After(reached) {
				continue // no newer than what the listing reached
			}
		} else if !ok {
			listed, ok = complete[""]
		}
		if _, shown := listed[id]; !ok || shown {
			continue
		}
		ids = append(ids, id)
		if len(ids) == maxVanishChecks {
			break
		}
	}
	w.mu.Unlock()
	var lost atomic.Bool
	if w.getEach(ctx, ids, func(id a2a.TaskID, t *a2a.Task, err error) {
		switch {
		case err == nil:
			w.observe(t, model.SourcePoll, model.ClassOf(t.Status.State) == model.ClassTerminal)
		case errors.Is(err, a2a.ErrTaskNotFound):
			w.notFound(id)
			lost.Store(true)
		}
	}) != nil {
		return
	}
	if lost.Load() {
		w.mu.Lock()
		w.listed.terminalOwed = true
		w.mu.Unlock()
	}
}

// parallel runs jobs in order, at most ListConcurrency at once, and
// returns the first error (which cancels the others).
func (r *sweepRun) parallel(ctx context.Context, jobs []func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, r.w.o.ListConcurrency)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for _, job := range jobs {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := job(ctx); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

// tsHeap keeps the newest n timestamps added, oldest on top.
type tsHeap []time.Time

func (h tsHeap) Len() int           { return len(h) }
func (h tsHeap) Less(i, j int) bool { return h[i].Before(h[j]) }
func (h tsHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *tsHeap) Push(x any)        { *h = append(*h, x.(time.Time)) }
func (h *tsHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// add keeps ts if it is among the newest n (n < 0: no limit, nothing kept).
func (h *tsHeap) add(ts time.Time, n int) {
	switch {
	case n < 0:
	case h.Len() < n:
		heap.Push(h, ts)
	case n > 0 && ts.After((*h)[0]):
		(*h)[0] = ts
		heap.Fix(h, 0)
	}
}

// holds reports whether n timestamps are kept and none is older than ts:
// a task stamped ts or older would not be among the newest n.
func (h tsHeap) holds(n int, ts time.Time) bool {
	return n >= 0 && h.Len() >= n && !h[0].Before(ts)
}

// newest returns the newest timestamp kept.
func (h tsHeap) newest() time.Time {
	var t time.Time
	for _, x := range h {
		if x.After(t) {
			t = x
		}
	}
	return t
}
