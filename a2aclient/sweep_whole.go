package a2aclient

import (
	"context"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// An agent's statusTimestampAfter filter keeps every task that has no
// status timestamp (the SDK's task store, v2.4.0, emits SUBMITTED tasks
// so, and its filter keeps them): an incremental sweep of an agent with
// 500 of them got all 500 back every sweep interval, unchanged, six
// pages where nothing had changed. So an incremental sweep stops at the
// first page that holds no news: a task that changes is stored anew and
// listed first (the SDK sorts by when it stored a task; the spec by
// status timestamp, newest first), so what follows such a page is what
// every sweep gets back unchanged.
//
// An agent may sort tasks without a timestamp before the changed ones:
// a sweep that stopped early owes a complete listing from its lower
// bound, which is read one page every wholeEvery sweep intervals, page
// token after page token, beside the sweeps. The cost to the agent then
// follows what changes, in any minute: an idle agent answers one page
// per sweep and half a page more, and a change behind the unchanged
// pages is seen within twice as many intervals as that listing has pages.

// wholeEvery is how many sweep intervals pass between two pages of a
// complete listing owed.
const wholeEvery = 2

// wholeListing is the complete incremental listing that sweeps which
// stopped early owe. The zero value owes nothing. Guarded by the
// watcher's mu.
type wholeListing struct {
	owed  bool      // a sweep stopped early: a complete listing from from is owed
	from  time.Time // its lower bound: the bound of the first sweep that stopped early
	token string    // where the listing under way goes on; "" before its first page
	last  time.Time // when it last read a page
	// again: a sweep stopped early after the listing under way began
	// (it may have missed what was stored since): another one is owed
	// from againFrom once this one ends.
	again     bool
	againFrom time.Time
}

// swept records an incremental sweep from after: stopped early, or read
// to the end, which lists everything a listing owed from no earlier
// bound would.
func (l *wholeListing) swept(after time.Time, stopped bool) {
	switch {
	case stopped && !l.owed:
		l.owed, l.from, l.token = true, after, ""
	case stopped && l.token != "" && !l.again:
		l.again, l.againFrom = true, after
	case stopped:
	case l.owed && !after.After(l.from):
		*l = wholeListing{last: l.last}
	case l.again && !after.After(l.againFrom):
		l.again = false
	}
}

// due reports whether the listing owed is to read a page now.
func (l *wholeListing) due(now time.Time, interval time.Duration) bool {
	return l.owed && now.Sub(l.last) >= wholeEvery*interval
}

// paged records a page of the listing owed, read at now, and the token
// of the next ("" at its end).
func (l *wholeListing) paged(next string, now time.Time) {
	l.token, l.last = next, now
	if next != "" {
		return
	}
	l.owed = l.again
	l.from, l.again = l.againFrom, false
}

// wholePage reads the next page of the complete listing owed, when one
// is due, into the sweep r.
func (w *watcher) wholePage(ctx context.Context, r *sweepRun) error {
	w.mu.Lock()
	due := w.whole.due(r.start, w.o.SweepInterval)
	from := w.whole.from
	q := listQuery{after: &from, pageSize: pageSize, token: w.whole.token}
	w.mu.Unlock()
	if !due {
		return nil
	}
	next := ""
	err := w.list(ctx, q, func(resp *a2a.ListTasksResponse, _ bool) bool {
		r.page(resp.Tasks, "")
		next = resp.NextPageToken
		return false
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.whole.token = "" // begin again: the token may be what the agent refused
		return err
	}
	w.whole.paged(next, time.Now())
	return nil
}
