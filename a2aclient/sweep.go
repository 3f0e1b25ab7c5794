package a2aclient

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"

	"a2atop/a2aclient/a2aerr"
	"a2atop/a2aclient/edge"
	"a2atop/model"
)

const (
	pageSize = 100
	// maxTerminalFetch bounds the GetTask calls one sweep makes for tasks
	// it sees newly terminal (newest first); older ones keep the sweep's
	// artifact-less snapshot.
	maxTerminalFetch = 64
	// sweepOverlap moves the incremental lower bound back from the newest
	// status timestamp seen. Agents stamp a status before they store it, so
	// a task can become visible with a timestamp older than one a sweep
	// already saw; the overlap (and the dedupe) catches it. The full
	// resync catches anything later still.
	sweepOverlap = 5 * time.Second
)

// Once the agent has been swept with the overlap at least sweepOverlap
// after the high-water mark last moved, whatever was stamped before the
// mark is stored and was listed: later sweeps start at the mark itself,
// so an agent where nothing changes answers them with an empty page
// instead of the same last few seconds of tasks, decoded again every
// sweep interval. The mark moving brings the overlap back.

// errListDenied marks a ListTasks refused for our credentials.
type errListDenied struct{ err error }

func (e errListDenied) Error() string { return e.err.Error() }
func (e errListDenied) Unwrap() error { return e.err }

func errorsIsListDenied(err error) bool {
	var d errListDenied
	return errors.As(err, &d)
}

// round is one sweep (or poll) of the agent, then stream upkeep.
func (w *watcher) round(ctx context.Context) error {
	w.mu.Lock()
	listing := w.listing
	forced := w.forceFull
	full := forced || w.fullOwed || time.Since(w.lastFull) >= w.o.FullResync
	w.forceFull, w.fullOwed = false, false
	w.mu.Unlock()
	var err error
	pollAll := !listing
	if listing {
		err = w.sweepAs(ctx, full, forced)
		if err != nil && full {
			w.mu.Lock()
			w.forceFull = w.forceFull || forced // the resweep after an overflow is still owed
			w.fullOwed = true                   // and so is any full sweep
			w.mu.Unlock()
		}
		switch c := a2aerr.Classify(err); {
		case err == nil:
			w.setDenied(false)
		case errors.Is(err, a2a.ErrUnsupportedOperation):
			w.mu.Lock()
			w.listing, w.noListing = false, noListingUnsupported
			w.mu.Unlock()
			err, pollAll = nil, true
		case c.Auth() && isA2AAuthError(err):
			// The agent understood us and refuses the listing (-31401 /
			// -31403, or their REST/gRPC forms): GetTask may still work.
			w.setDenied(true)
			pollAll = true
			if _, perr := w.poll(ctx, false); perr != nil {
				return perr
			}
			w.ensureStreams(ctx)
			return errListDenied{err}
		}
	}
	if err == nil {
		var asked int
		asked, err = w.poll(ctx, !pollAll)
		if err == nil && pollAll && asked == 0 {
			err = w.probe(ctx)
		}
	}
	if err == nil {
		w.ensureStreams(ctx)
	}
	return err
}

// isA2AAuthError tells an A2A-level refusal (the SDK maps it to
// ErrUnauthenticated / ErrUnauthorized) from a bare HTTP 401/403, which
// the SDK leaves untyped and which refuses everything alike.
func isA2AAuthError(err error) bool {
	return errors.Is(err, a2a.ErrUnauthenticated) || errors.Is(err, a2a.ErrUnauthorized)
}

func (w *watcher) setDenied(v bool) {
	w.mu.Lock()
	w.listDenied = v
	w.mu.Unlock()
}

// sweep lists tasks: incrementally from the high-water mark, or fully
// (sweep_full.go). forced is a full sweep owed after dropped events: it
// reports every task again, so it pages every state in full.
func (w *watcher) sweep(ctx context.Context, full bool) error { return w.sweepAs(ctx, full, false) }

func (w *watcher) sweepAs(ctx context.Context, full, forced bool) error {
	ctx, _ = withSweepBudget(ctx, w.o.MaxSweepBytes, w.o.MaxSweepPages)
	r := newSweepRun(w, forced)
	w.mu.Lock()
	var after time.Time
	overlap := false
	if !full && !w.hwm.IsZero() {
		after = w.hwm
		if !w.hwmSettled {
			after, overlap = w.hwm.Add(-sweepOverlap), true
		}
	}
	// head: no full sweep is due, but none has listed a status timestamp
	// to sweep from (the agent held no task, or none with a timestamp).
	// Later full sweeps list the open states only, so a task that ends
	// between two of them would never be seen: list everything, newest
	// first, until a page holds no news.
	head := !full && after.IsZero() && !w.lastFull.IsZero()
	w.mu.Unlock()
	var err error
	switch {
	case head:
		err = w.list(ctx, listQuery{pageSize: pageSize}, func(resp *a2a.ListTasksResponse, _ bool) bool {
			news, _ := r.page(resp.Tasks, "")
			return news && !r.capped()
		})
	case after.IsZero():
		err = w.fullSweep(ctx, r)
	default:
		stopped := false // before the listing's end
		err = w.list(ctx, listQuery{after: &after, pageSize: pageSize}, func(resp *a2a.ListTasksResponse, _ bool) bool {
			news, _ := r.page(resp.Tasks, "")
			// A page without news: the rest comes back unchanged every
			// sweep (sweep_whole.go).
			more := news && !r.capped()
			stopped = !more && resp.NextPageToken != ""
			return more
		})
		if err == nil {
			w.mu.Lock()
			w.whole.swept(after, stopped)
			w.mu.Unlock()
			err = w.wholePage(ctx, r)
		}
	}
	if err != nil {
		return err
	}
	w.mu.Lock()
	switch {
	case r.newest.After(w.hwm):
		w.hwm, w.hwmAt, w.hwmSettled = r.newest, r.start, false
	case overlap && r.start.Sub(w.hwmAt) >= sweepOverlap:
		w.hwmSettled = true
	}
	if after.IsZero() && !head {
		w.lastFull = time.Now()
		w.openCapped = r.cut
	} else if r.cut {
		w.openCapped = true
	}
	w.listed.otherStates = w.listed.otherStates || r.other > 0
	w.mu.Unlock()
	w.refetch(ctx, r.fetch)
	return nil
}

// observed is what observe did with a snapshot.
type observed struct {
	news    bool // reported: not a repeat of what was reported before
	fetch   bool // a sweep saw the task newly terminal: fetch its artifacts
	dropped bool // not kept: a new open task past MaxOpenTasks, or a terminal one older than every one kept
}

// observe records a task snapshot and emits it unless it repeats what was
// already reported: same (id, status timestamp) and state. force emits
// anyway (snapshots that carry artifacts or history). A task the memo
// does not keep (memo.go) is not reported.
func (w *watcher) observe(t *a2a.Task, src model.Source, force bool) (o observed) {
	if !w.sendable(t.ID) {
		return observed{}
	}
	var ts time.Time
	if t.Status.Timestamp != nil {
		ts = *t.Status.Timestamp
	}
	st := model.NormalizeState(t.Status.State)
	terminal := model.ClassOf(st) == model.ClassTerminal
	now := time.Now()
	w.mu.Lock()
	m := w.tasks.get(t.ID)
	if m == nil && !terminal && w.tasks.full() {
		w.mu.Unlock()
		return observed{dropped: true}
	}
	fresh := m == nil
	if fresh {
		m = w.tasks.add(t.ID)
	}
	if m.seen && staleSnapshot(m, st, ts) {
		w.mu.Unlock()
		return observed{}
	}
	dup := m.seen && m.ts.Equal(ts) && m.state == st && m.epoch == w.epoch
	wasTerminal := m.seen && model.ClassOf(m.state) == model.ClassTerminal
	if src != model.SourceStream {
		m.open.compare(st, ts, now)
	}
	forgot := w.tasks.set(m, st, ts, now)
	m.epoch, m.heard = w.epoch, now
	if terminal && !wasTerminal && w.listed.counted && (!fresh || ts.After(w.listed.totalsAt)) {
		w.listed.termTotal++ // ended since the agent told its total
	}
	if terminal && force {
		m.fetched = true
	}
	o.fetch = terminal && src == model.SourceSweep && !m.fetched
	if o.fetch {
		m.fetched = true
	}
	for _, id := range forgot {
		delete(w.dirty, id)
		o.dropped = o.dropped || id == t.ID
	}
	w.mu.Unlock()
	if o.dropped {
		return observed{dropped: true} // retention forgets it at once, as the model would
	}
	if w.refs != nil {
		w.refs(t)
	}
	if dup && !force {
		return observed{}
	}
	w.emit(model.Event{Kind: model.EventTask, Source: src, Task: t})
	o.news = true
	return o
}

// staleSnapshot reports whether a snapshot in state st stamped ts is
// older than what m holds: stamped earlier, or back in SUBMITTED at the
// same time (a task is submitted once). The listings of one sweep run at
// once, so one may hand over a task after another handed a newer state
// of it; a snapshot without a timestamp has no order and is not stale.
func staleSnapshot(m *memo, st a2a.TaskState, ts time.Time) bool {
	if ts.IsZero() {
		return false
	}
	return ts.Before(m.ts) || ts.Equal(m.ts) && st == a2a.TaskStateSubmitted && m.state != a2a.TaskStateSubmitted
}

// refetch GetTasks ids (with artifacts) with bounded concurrency.
func (w *watcher) refetch(ctx context.Context, ids []a2a.TaskID) {
	w.getEach(ctx, ids, func(id a2a.TaskID, t *a2a.Task, err error) {
		if err == nil {
			w.observe(t, model.SourcePoll, true)
		} else if errors.Is(err, a2a.ErrTaskNotFound) {
			w.notFound(id)
		}
	})
}

// getEach GetTasks each of ids, at most cap(w.fetch) at once, and hands
// each answer to done (called from several goroutines). It returns once
// every call it started has ended; ctx ending stops it starting more,
// and it returns ctx's error then.
func (w *watcher) getEach(ctx context.Context, ids []a2a.TaskID, done func(a2a.TaskID, *a2a.Task, error)) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, id := range ids {
		select {
		case w.fetch <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		wg.Add(1)
		go func() {
			defer func() { <-w.fetch; wg.Done() }()
			t, err := w.getTask(ctx, id, 0)
			done(id, t, err)
		}()
	}
	return nil
}

// poll GetTasks every known task that is not final yet (for agents that
// cannot list), or only the tasks never seen yet (Watch() on an agent that
// lists), with bounded concurrency. It returns how many tasks it asked
// about and the first error that is not a TaskNotFound.
func (w *watcher) poll(ctx context.Context, unseenOnly bool) (int, error) {
	w.mu.Lock()
	var ids []a2a.TaskID
	for id, m := range w.tasks.m {
		if !m.seen || !unseenOnly && (model.ClassOf(m.state) != model.ClassTerminal || !m.fetched) {
			ids = append(ids, id)
		}
	}
	w.mu.Unlock()
	var (
		errMu sync.Mutex
		first error
	)
	if err := w.getEach(ctx, ids, func(id a2a.TaskID, t *a2a.Task, err error) {
		switch {
		case err == nil:
			final := model.ClassOf(t.Status.State) == model.ClassTerminal
			w.observe(t, model.SourcePoll, final)
		case errors.Is(err, a2a.ErrTaskNotFound):
			w.notFound(id)
		default:
			errMu.Lock()
			if first == nil {
				first = err
			}
			errMu.Unlock()
		}
	}); err != nil {
		return len(ids), err
	}
	return len(ids), first
}

// probe checks that an agent we cannot list and have nothing to poll on
// (an A2A 0.3 agent with no task yet, or only final ones) still answers,
// by fetching its card. Without it such an agent would look up while it
// is down.
func (w *watcher) probe(ctx context.Context) error {
	pctx, pr := edge.WithProbe(ctx)
	if _, cardURL, err := w.c.resolveCard(pctx); err != nil {
		return w.wrap("card", cardURL, pr, err)
	}
	return nil
}

// getTask is one GetTask call; historyLength 0 means none for polls.
func (w *watcher) getTask(ctx context.Context, id a2a.TaskID, historyLength int) (*a2a.Task, error) {
	req := &a2a.GetTaskRequest{ID: id, Tenant: w.o.Tenant}
	if historyLength >= 0 {
		h := historyLength
		req.HistoryLength = &h
	}
	var t *a2a.Task
	err := w.call(ctx, "GetTask", func(ctx context.Context, cl *sdk.Client) (err error) {
		t, err = cl.GetTask(ctx, req)
		return err
	})
	if err == nil && (t == nil || t.ID == "") {
		err = w.wrap("GetTask", "", nil, fmt.Errorf("%w: GetTask returned no task", a2a.ErrInvalidAgentResponse))
	}
	return t, err
}

// gone reports a task the agent no longer knows and forgets it. An
// agent that lost one may have lost others (it restarted on an empty
// store between two sweeps, unseen): the next sweep is a full one,
// whose listings of the open states then no longer match what is held,
// and whatever they miss is asked for (sweep_full.go checkVanished).
func (w *watcher) gone(id a2a.TaskID) {
	w.mu.Lock()
	w.tasks.remove(id)
	w.fullOwed = true
	w.mu.Unlock()
	w.emit(model.Event{Kind: model.EventGone, Source: model.SourcePoll, Task: &a2a.Task{ID: id}})
}

// remember adds id to the watched set; looked says someone is looking at
// it (the detail view), which gives it the first claim on a stream.
func (w *watcher) remember(id a2a.TaskID, looked bool) {
	if !w.sendable(id) {
		return
	}
	w.mu.Lock()
	w.tasks.watch(id, false)
	if m := w.tasks.get(id); looked && m != nil {
		m.looked = time.Now()
	}
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
}
