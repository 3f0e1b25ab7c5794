package tasks

import (
	"time"

	"a2atop/model"
	"a2atop/ui/common"
)

// What of the tasks screen changes with the clock alone, besides the
// ages its rows draw (tasks_render.go): a finished task leaves the
// Terminal pane hide_terminal_after it ended, and a pane whose tasks
// changed within resortEvery of its last sort is sorted a moment later.
// Each tells the screen's Clock when.

// timedRows gives the row sources that change with the clock the Clock
// they tell.
func timedRows(src rowSource, c *common.Clock) rowSource {
	switch s := src.(type) {
	case *recentTerminal:
		s.clock = c
		timedRows(s.inner, c)
	case *sortedRows:
		s.clock = c
	}
	return src
}

// leavesAt is when the oldest recent row leaves the pane: the whole
// second after it is older than after (refresh reads the pane again
// once a second at most); zero with no recent row.
func (r *recentTerminal) leavesAt(f *model.Fleet) time.Time {
	if r.n == 0 {
		return time.Time{}
	}
	rows := f.Page(model.ClassTerminal, r.q, r.n-1, 1)
	if len(rows) != 1 || rows[0].Updated.IsZero() {
		return time.Time{}
	}
	return rows[0].Updated.Add(r.after).Truncate(time.Second).Add(time.Second)
}

// askClock tells the Clock when the pane changes next by the clock.
func (r *recentTerminal) askClock() { r.clock.At(r.leave) }

// askClock tells the Clock when a pane shown as last sorted, though the
// fleet changed since, is sorted again.
func (r *sortedRows) askClock(l *sortedList, f *model.Fleet) {
	if l.version != f.Version() {
		r.clock.At(l.at.Add(resortEvery))
	}
}

// clockTick reads the panes again on the clock's tick while shown: the
// clock wakes when one of them asked (a pane left unsorted, a row that
// leaves), and what they hold is read in sync, not in View.
func (v *Screen) clockTick() {
	if v.isShown {
		v.sync()
	}
}
