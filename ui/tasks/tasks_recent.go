package tasks

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
	"a2atop/ui/common"
)

// recentTerminal is a row source whose Terminal pane holds only the
// tasks that ended within after (hide_terminal_after): the others stay in
// the fleet (and in every count the header shows) but not on the pane.
// The recent ones are the first rows of the model's newest-first index,
// found by a binary search over it; the other panes come from inner.
type recentTerminal struct {
	inner rowSource
	q     model.Query // the filter, newest first
	after time.Duration
	now   func() time.Time
	col   int // the sort's column and direction, for the recent rows
	desc  bool

	version uint64 // what the cache below was read at
	at      time.Time
	n       int           // recent rows
	rows    []*model.Task // them in the sort's order, when it is not newest first

	clock *common.Clock // told when the oldest recent row leaves (tasks_clock.go)
	leave time.Time
}

// withRecent wraps src so that the Terminal pane keeps only what ended
// within after; 0 keeps everything.
func withRecent(src rowSource, s sortState, q model.Query, after time.Duration, now func() time.Time) rowSource {
	if after <= 0 {
		return src
	}
	q.Sort = model.SortUpdated
	return &recentTerminal{inner: src, q: q, after: after, now: now, col: s.col, desc: s.desc}
}

// sortState is a sort's column and direction.
type sortState struct {
	col  int
	desc bool
}

// refresh finds the recent rows again when the fleet or the second
// changed.
func (r *recentTerminal) refresh(f *model.Fleet) {
	defer r.askClock()
	now := r.now()
	if r.version == f.Version() && now.Truncate(time.Second).Equal(r.at) && r.at != (time.Time{}) {
		return
	}
	r.version, r.at = f.Version(), now.Truncate(time.Second)
	cut := now.Add(-r.after)
	c := model.ClassTerminal
	total := f.Count(c, r.q)
	lo, hi := 0, total // the first row updated before cut
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if rows := f.Page(c, r.q, mid, 1); len(rows) == 1 && rows[0].Updated.Before(cut) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	r.n = lo
	r.leave = r.leavesAt(f)
	r.rows = nil
	if r.col == colUpdated && r.desc {
		return
	}
	r.rows = f.Page(c, r.q, 0, r.n)
	cmpf := compareBy(f, r.col)
	slices.SortStableFunc(r.rows, func(a, b *model.Task) int {
		if r.desc {
			return cmpf(b, a)
		}
		return cmpf(a, b)
	})
}

// hidden is how many terminal tasks the pane leaves out.
func (r *recentTerminal) hidden(f *model.Fleet) int {
	r.refresh(f)
	return f.Count(model.ClassTerminal, r.q) - r.n
}

func (r *recentTerminal) count(f *model.Fleet, c model.Class) int {
	if c != model.ClassTerminal {
		return r.inner.count(f, c)
	}
	r.refresh(f)
	return r.n
}

func (r *recentTerminal) page(f *model.Fleet, c model.Class, offset, n int) []*model.Task {
	if c != model.ClassTerminal {
		return r.inner.page(f, c, offset, n)
	}
	r.refresh(f)
	if offset >= r.n || n <= 0 {
		return nil
	}
	n = min(n, r.n-offset)
	if r.rows == nil {
		return f.Page(c, r.q, offset, n)
	}
	return slices.Clone(r.rows[offset : offset+n])
}

func (r *recentTerminal) index(f *model.Fleet, c model.Class, k model.TaskKey) int {
	if c != model.ClassTerminal {
		return r.inner.index(f, c, k)
	}
	r.refresh(f)
	if r.rows == nil {
		if i := f.Index(c, r.q, k); i < r.n {
			return i
		}
		return -1
	}
	return slices.IndexFunc(r.rows, func(t *model.Task) bool { return t.Key == k })
}

// compareBy orders two tasks by a column, as its rows show it.
func compareBy(f *model.Fleet, col int) func(a, b *model.Task) int {
	switch col {
	case colAgent:
		return func(a, b *model.Task) int { return strings.Compare(a.Key.Agent, b.Key.Agent) }
	case colID:
		return func(a, b *model.Task) int { return strings.Compare(model.ShortID(a.Key.ID), model.ShortID(b.Key.ID)) }
	case colState:
		return func(a, b *model.Task) int { return cmp.Compare(stateRank(a.State), stateRank(b.State)) }
	case colUpdated:
		return func(a, b *model.Task) int { return a.Updated.Compare(b.Updated) }
	case colAge:
		return func(a, b *model.Task) int { return b.Since.Compare(a.Since) } // the oldest is the largest age
	case colStatus:
		return func(a, b *model.Task) int { return strings.Compare(strings.ToLower(a.Text), strings.ToLower(b.Text)) }
	}
	return func(a, b *model.Task) int { return strings.Compare(f.RowHint(a), f.RowHint(b)) }
}

// stateRank is a state's place in paneStates order.
func stateRank(s a2a.TaskState) int {
	for _, c := range []model.Class{model.ClassActive, model.ClassInterrupted, model.ClassTerminal} {
		if i := slices.Index(paneStates(c), s); i >= 0 {
			return int(c)*10 + i
		}
	}
	return 100
}
