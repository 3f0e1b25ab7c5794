package model

import (
	"slices"
	"strings"
	"time"
)

// SortBy orders the rows of a pane. The zero value is SortUpdated.
type SortBy uint8

// The orders. Ties are broken by the order the fleet first heard of the
// tasks, so rows never swap places at random.
const (
	SortUpdated SortBy = iota // newest status first
	SortAge                   // oldest first, by Task.Since
	SortAgent                 // by agent name, then newest status first
)

// String names the order for the status bar.
func (s SortBy) String() string {
	switch s {
	case SortAge:
		return "age"
	case SortAgent:
		return "agent"
	default:
		return "updated"
	}
}

// Query is what a pane asks for: which rows (Filter) in which order.
type Query struct {
	Filter Filter
	Sort   SortBy
}

// view is one pane's rows for one (class, query), kept in order as
// events arrive: each query first replays the tasks changed since the
// last one (Fleet.sync), so no query sorts the fleet.
type view struct {
	class  Class
	sort   SortBy
	filter Filter
	list   blockList
	used   uint64
}

// maxViews bounds the cached views (the least recently used go first):
// three panes, a few sorts and filters, the inbox.
const maxViews = 24

// idleTicks is how many queries a view may go unasked before sync drops
// it: a few seconds of frames, each asking a handful of queries.
const idleTicks = 1024

// Count returns the number of rows of pane c under q. ClassUnknown is a
// pane too (TASK_STATE_UNSPECIFIED and names we do not know): the UI
// shows it, so no task is silently dropped.
func (f *Fleet) Count(c Class, q Query) int {
	return f.view(c, q).list.n
}

// Page returns up to n rows of pane c under q, starting at row offset.
// It costs O(n + log N) after the tasks changed since the last query are
// re-indexed, whatever the fleet's size. The slice is the caller's.
func (f *Fleet) Page(c Class, q Query, offset, n int) []*Task {
	v := f.view(c, q)
	if offset < 0 {
		offset = 0
	}
	if n <= 0 || offset >= v.list.n {
		return nil
	}
	return v.list.page(f.slots, offset, n, make([]*Task, 0, min(n, v.list.n-offset)))
}

// Index returns the row of task k in pane c under q, or -1 if it is not
// in that pane. The UI uses it to keep the selection on a task whose row
// moved.
func (f *Fleet) Index(c Class, q Query, k TaskKey) int {
	v := f.view(c, q)
	t := f.Task(k)
	if t == nil || t.Class != c {
		return -1
	}
	return v.list.find(keyOf(t, q.Sort))
}

// Interrupted returns every interrupted task, in the inbox order s
// (SortAge: the oldest first).
func (f *Fleet) Interrupted(s SortBy) []*Task {
	q := Query{Sort: s}
	return f.Page(ClassInterrupted, q, 0, f.Count(ClassInterrupted, q))
}

// view returns the up-to-date view for (c, q), building it if needed.
func (f *Fleet) view(c Class, q Query) *view {
	f.sync()
	f.tick++
	for _, v := range f.views {
		if v.class == c && v.sort == q.Sort && v.filter.equal(q.Filter) {
			v.used = f.tick
			return v
		}
	}
	v := &view{class: c, sort: q.Sort, filter: q.Filter.clone(), used: f.tick}
	var es []entry
	if q.Filter.Empty() {
		for _, t := range f.slots {
			if t != nil && !t.removed && t.Class == c {
				es = append(es, keyOf(t, q.Sort))
			}
		}
		slices.SortFunc(es, func(a, b entry) int {
			if a.less(&b) {
				return -1
			}
			return 1
		})
	} else {
		base := f.view(c, Query{Sort: q.Sort}) // already in order
		base.list.each(func(e entry) {
			if q.Filter.Match(f.slots[e.slot]) {
				es = append(es, e)
			}
		})
	}
	v.list.build(es)
	f.addView(v)
	return v
}

func (f *Fleet) addView(v *view) {
	if len(f.views) >= maxViews {
		old := 0
		for i, x := range f.views {
			if x.used < f.views[old].used {
				old = i
			}
		}
		f.views = slices.Delete(f.views, old, old+1)
	}
	f.views = append(f.views, v)
}

// dropViews forgets the views keep rejects; they are rebuilt when next
// asked for.
func (f *Fleet) dropViews(keep func(v *view) bool) {
	f.views = slices.DeleteFunc(f.views, func(v *view) bool { return !keep(v) })
}

// syncUnqueried keeps the tasks changed since the last query (and the
// slots of those evicted) from piling up in a fleet nobody queries, or
// queries seldom: the hub's applies and serves, it never asks for a
// pane, and each task it ever held, evicted or not, stayed listed with
// its last snapshot and history. With no view to keep up to date sync
// only clears the marks, and an evicted task is let go after the Apply
// that evicted it. With views, the list is replayed into them once it
// is longer than the fleet (and minDirty): what the next query would
// do, each task once, so the list, and the evicted tasks it keeps,
// never outgrow what the fleet holds.
func (f *Fleet) syncUnqueried() {
	if len(f.views) == 0 || len(f.dirty) > max(minDirty, f.ntasks) {
		f.sync()
	}
}

// minDirty is how many changed tasks a queried fleet lists before Apply
// brings its views up to date itself.
const minDirty = 1024

// sync re-indexes the tasks changed since the last query: each is
// removed from every view under the key it was indexed with and, unless
// evicted, inserted under its current key where it matches.
func (f *Fleet) sync() {
	if len(f.dirty) == 0 {
		return
	}
	if len(f.dirty) > 4096 && len(f.dirty) > f.ntasks/4 {
		f.views = f.views[:0] // a burst: rebuilding is cheaper than replaying
	}
	// Views nobody asked for lately (the unfiltered ones behind an active
	// filter, an old sort) are dropped rather than kept up to date.
	f.dropViews(func(v *view) bool { return f.tick-v.used <= idleTicks })
	for _, v := range f.views {
		s := v.sort
		all := v.filter.Empty()
		for _, t := range f.dirty {
			if t.indexed && t.ixClass == v.class {
				old := ixKeyOf(t, s)
				if all && !t.removed && t.Class == v.class && old == keyOf(t, s) {
					continue // same row in the same place (SortAge: Since never moves)
				}
				v.list.delete(old)
			}
			if !t.removed && t.Class == v.class && v.filter.Match(t) {
				v.list.insert(keyOf(t, s))
			}
		}
	}
	for i, t := range f.dirty {
		t.dirty = false
		t.indexed = !t.removed
		t.ixClass = t.Class
		t.ixUpd = -nanos(t.Updated)
		t.ixSince = nanos(t.Since)
		if t.removed && f.slots[t.slot] == t {
			f.slots[t.slot] = nil
			f.free = append(f.free, t.slot)
		}
		f.dirty[i] = nil
	}
	f.dirty = f.dirty[:0]
}

func keyOf(t *Task, s SortBy) entry {
	switch s {
	case SortAge:
		return entry{at: nanos(t.Since), seq: t.seq, slot: t.slot}
	case SortAgent:
		return entry{rank: t.agent.rank, at: -nanos(t.Updated), seq: t.seq, slot: t.slot}
	default:
		return entry{at: -nanos(t.Updated), seq: t.seq, slot: t.slot}
	}
}

func ixKeyOf(t *Task, s SortBy) entry {
	switch s {
	case SortAge:
		return entry{at: t.ixSince, seq: t.seq, slot: t.slot}
	case SortAgent:
		return entry{rank: t.agent.rank, at: t.ixUpd, seq: t.seq, slot: t.slot}
	default:
		return entry{at: t.ixUpd, seq: t.seq, slot: t.slot}
	}
}

// rankAgents numbers the agents by name for SortAgent. When a new agent
// shifts the ranks, the SortAgent views are dropped (their keys changed).
func (f *Fleet) rankAgents() {
	byName := slices.Clone(f.agents)
	slices.SortFunc(byName, func(a, b *Agent) int { return strings.Compare(a.Name, b.Name) })
	shifted := false
	for i, a := range byName {
		if a.rank != uint32(i) {
			shifted = true
			a.rank = uint32(i)
		}
	}
	if shifted {
		f.dropViews(func(v *view) bool { return v.sort != SortAgent })
	}
}

// nanos is t in Unix nanoseconds, clamped to the representable range;
// the zero time is 0 (older than any real timestamp).
func nanos(t time.Time) int64 {
	switch {
	case t.IsZero():
		return 0
	case t.Year() < 1678:
		return -1 << 62
	case t.Year() > 2261:
		return 1 << 62
	}
	return t.UnixNano()
}
