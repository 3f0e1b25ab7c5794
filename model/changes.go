package model

import "slices"

// maxChanges is how many changes the fleet remembers for ChangedSince
// (at least; up to twice as many): a reader further behind rebuilds from
// the whole fleet, which after that many changes costs about as much.
const maxChanges = 1 << 15

// changeLog is the key of every task whose data changed, in order of
// the changes (a task once per change), so that something built from a
// few tasks can follow the fleet without reading all of it. It holds
// keys, not tasks: an evicted task's memory is not kept. The zero value
// is empty.
type changeLog struct {
	base  uint64 // the mark of tasks[0]
	tasks []Change
}

// Change names a task that changed: its key, and its arrival order (the
// seq of Task.UpdatedOrder), which tells it from a task heard of later
// under the same key once it was evicted.
type Change struct {
	Key TaskKey
	Seq uint64
}

func (l *changeLog) add(t *Task) {
	if len(l.tasks) >= 2*maxChanges {
		n := copy(l.tasks, l.tasks[len(l.tasks)-maxChanges:])
		clear(l.tasks[n:])
		l.base += uint64(len(l.tasks) - n)
		l.tasks = l.tasks[:n]
	}
	l.tasks = append(l.tasks, Change{Key: t.Key, Seq: t.seq})
}

func (l *changeLog) end() uint64 { return l.base + uint64(len(l.tasks)) }

// ChangeMark is the mark of the fleet's changes now, to pass to
// ChangedSince later.
func (f *Fleet) ChangeMark() uint64 { return f.changes.end() }

// ChangedSince returns the tasks whose data changed
// (Task.Rev moved, the task was created or evicted) after mark, and of
// those whose row changed without their data (Gone set or cleared, their
// agent's health state moved: Stale, RowHint), in the order of the
// changes (a task may come more than once), and the mark to pass next
// time. Fleet.Task gives each task as it is now (nil once evicted). ok
// is false when the fleet no longer remembers that far back (tens of
// thousands of changes): the caller rebuilds from the whole fleet. What
// another task's change does to a row (RowHint's "waiting on", a chain)
// is the caller's to follow: see NamesBlocker. The slice is the
// caller's.
func (f *Fleet) ChangedSince(mark uint64) (changes []Change, next uint64, ok bool) {
	l := &f.changes
	end := l.end()
	if mark < l.base || mark > end {
		return nil, end, false
	}
	return slices.Clone(l.tasks[mark-l.base:]), end, true
}

// NamesBlocker reports whether the task's status message, history or
// metadata names a task it may wait on, found or not (see BlockedBy):
// only such a task's chain link can change without its own data
// changing.
func (t *Task) NamesBlocker() bool { return t.hasRefs }

// UpdatedOrder is the key that orders t in a pane sorted by SortUpdated
// (newest status first): the smaller (at, seq) comes first. seq, the
// order the fleet first heard of the task, is unique.
func (t *Task) UpdatedOrder() (at int64, seq uint64) { return -nanos(t.Updated), t.seq }
