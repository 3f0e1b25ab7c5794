package model

import (
	"slices"
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

type viewKey struct {
	class  Class
	sort   SortBy
	filter string
}

// view is one pane's rows for one (class, query), kept in order as
// events arrive: each query first replays the tasks changed since the
// last one (Fleet.sync), so no query sorts the fleet.
type view struct {
	key    viewKey
	filter Filter
	list   blockList
	used   uint64
}

// maxViews bounds the cached views (the least recently used go first):
// three panes, a few sorts and filters, the inbox.
const maxViews = 24

// Count returns the number of rows of pane c under q.
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
	return v.list.page(offset, n, make([]*Task, 0, min(n, v.list.n-offset)))
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
	return v.list.find(keyOf(t, q.Sort), t)
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
	k := viewKey{class: c, sort: q.Sort, filter: q.Filter.String()}
	if v := f.views[k]; v != nil {
		v.used = f.tick
		return v
	}
	v := &view{key: k, filter: q.Filter, used: f.tick}
	var es []entry
	if q.Filter.Empty() {
		for _, a := range f.agents {
			for _, t := range a.tasks {
				if t.Class == c {
					es = append(es, entry{keyOf(t, q.Sort), t})
				}
			}
		}
		slices.SortFunc(es, func(a, b entry) int {
			if a.k.less(b.k) {
				return -1
			}
			return 1
		})
	} else {
		base := f.view(c, Query{Sort: q.Sort}) // already in order
		base.list.each(func(e entry) {
			if q.Filter.Match(e.t) {
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
		var old *view
		for _, x := range f.views {
			if old == nil || x.used < old.used {
				old = x
			}
		}
		delete(f.views, old.key)
	}
	f.views[v.key] = v
}

// sync re-indexes the tasks changed since the last query: each is
// removed from every view under the key it was indexed with and, unless
// evicted, inserted under its current key where it matches.
func (f *Fleet) sync() {
	if len(f.dirty) == 0 {
		return
	}
	if len(f.dirty) > 4096 && len(f.dirty) > f.ntasks/4 {
		clear(f.views) // a burst: rebuilding is cheaper than replaying
	}
	for _, v := range f.views {
		s := v.key.sort
		for _, t := range f.dirty {
			if t.indexed && t.ixClass == v.key.class {
				v.list.delete(ixKeyOf(t, s), t)
			}
			if !t.removed && t.Class == v.key.class && v.filter.Match(t) {
				v.list.insert(entry{keyOf(t, s), t})
			}
		}
	}
	for i, t := range f.dirty {
		t.dirty = false
		t.indexed = !t.removed
		t.ixClass = t.Class
		t.ixUpd = -nanos(t.Updated)
		t.ixSince = nanos(t.Since)
		f.dirty[i] = nil
	}
	f.dirty = f.dirty[:0]
}

func keyOf(t *Task, s SortBy) sortKey {
	switch s {
	case SortAge:
		return sortKey{at: nanos(t.Since), seq: t.seq}
	case SortAgent:
		return sortKey{agent: t.Key.Agent, at: -nanos(t.Updated), seq: t.seq}
	default:
		return sortKey{at: -nanos(t.Updated), seq: t.seq}
	}
}

func ixKeyOf(t *Task, s SortBy) sortKey {
	switch s {
	case SortAge:
		return sortKey{at: t.ixSince, seq: t.seq}
	case SortAgent:
		return sortKey{agent: t.Key.Agent, at: t.ixUpd, seq: t.seq}
	default:
		return sortKey{at: t.ixUpd, seq: t.seq}
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
