package a2aclient

import "time"

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
// bound, every page, which runs once as many sweep intervals have
// passed as twice the pages the last complete listing took (half a page
// per interval on average). The cost to the agent then follows what
// changes: an idle agent answers one page per sweep, and a change
// behind the unchanged pages is seen within that many intervals.

// wholeListing is what incremental sweeps that stopped early owe. The
// zero value owes nothing. Guarded by the watcher's mu.
type wholeListing struct {
	owed  bool      // a sweep stopped early since the last complete listing
	from  time.Time // the lower bound of the first sweep that stopped early
	pages int       // the pages the last complete listing took
	at    time.Time // when it began
}

// due reports whether the complete listing owed is to run now.
func (l *wholeListing) due(now time.Time, interval time.Duration) bool {
	return l.owed && now.Sub(l.at) >= time.Duration(2*max(l.pages, 1))*interval
}

// ran records an incremental listing from after that began at start and
// took pages: stopped early, or read to the end, which pays what was
// owed when it began no later than the bound owed from.
func (l *wholeListing) ran(after time.Time, pages int, stopped bool, start time.Time) {
	switch {
	case stopped:
		if !l.owed {
			l.owed, l.from = true, after
		}
	case !l.owed || !after.After(l.from):
		l.owed = false
		l.pages, l.at = pages, start
	}
}
