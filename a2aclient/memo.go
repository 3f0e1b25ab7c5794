package a2aclient

import (
	"container/heap"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// memo is what a watcher remembers about one task.
type memo struct {
	seen      bool
	ts        time.Time // last reported status timestamp (zero if none)
	state     a2a.TaskState
	streaming bool
	shed      bool        // its stream is being ended for another task's (stream_budget.go)
	looked    time.Time   // when the detail view last fetched it (local clock)
	noStream  string      // ts|state at which a subscribe ended without activity
	fetched   bool        // terminal snapshot with artifacts fetched
	epoch     uint64      // the watcher's epoch when last reported (see watcher.epoch)
	ref       bool        // watched only because another task referred to it
	open      *openStream // the subscribe open now, nil when none (see streamwatch.go)
	heard     time.Time   // when a sweep, poll or stream last told of it (local clock)

	id      a2a.TaskID
	keep    time.Time // retention order of a terminal task: ts, or when first seen terminal without one
	heapIdx int       // position in memos.term; -1 when not terminal
}

func (m *memo) key() string { return m.ts.String() + "|" + string(m.state) }

// memos is a watcher's memory of its agent's tasks, bounded by what the
// dashboard keeps: at most maxTerm terminal tasks (the newest by status
// timestamp, the rule model.Fleet applies with the same number, so a
// task the fleet forgets is forgotten here too), at most maxOpen tasks
// that are not terminal (beyond it new open tasks are not reported; the
// agent's row says so), and at most maxRefs tasks watched only because
// another task named them. Guarded by the watcher's mu.
type memos struct {
	m       map[a2a.TaskID]*memo
	byState map[a2a.TaskState]int // seen tasks by state
	open    int                   // seen tasks not terminal
	refs    int                   // unseen entries added for references
	term    memoHeap

	maxOpen, maxTerm, maxRefs int
}

func newMemos(maxOpen, maxTerm int) memos {
	return memos{m: map[a2a.TaskID]*memo{}, byState: map[a2a.TaskState]int{},
		maxOpen: maxOpen, maxTerm: maxTerm, maxRefs: maxNotHere}
}

func (ms *memos) get(id a2a.TaskID) *memo { return ms.m[id] }
func (ms *memos) len() int                { return len(ms.m) }

// watch adds an unseen entry for id (configured, asked for, or referred
// to when ref) and returns it, or nil when id is known or the references
// are full.
func (ms *memos) watch(id a2a.TaskID, ref bool) *memo {
	if ms.m[id] != nil || ref && ms.refs >= ms.maxRefs {
		return nil
	}
	m := &memo{id: id, ref: ref, heapIdx: -1}
	ms.m[id] = m
	if ref {
		ms.refs++
	}
	return m
}

// full reports whether a new open task would pass maxOpen.
func (ms *memos) full() bool { return ms.maxOpen >= 0 && ms.open >= ms.maxOpen }

// add creates the entry of a task seen for the first time.
func (ms *memos) add(id a2a.TaskID) *memo {
	m := &memo{id: id, heapIdx: -1}
	ms.m[id] = m
	return m
}

// set records that m is now seen in state st at ts, keeping the counts
// and the terminal order. It returns the entries retention forgets as a
// result (m itself when it is older than every terminal task kept).
func (ms *memos) set(m *memo, st a2a.TaskState, ts time.Time, now time.Time) (forgot []a2a.TaskID) {
	if m.heapIdx >= 0 && model.ClassOf(st) != model.ClassTerminal {
		return nil // terminal is final, here as in the model
	}
	if m.seen {
		ms.byState[m.state]--
		if model.ClassOf(m.state) != model.ClassTerminal {
			ms.open--
		}
	} else if m.ref {
		ms.refs--
	}
	m.seen, m.ref, m.state, m.ts = true, false, st, ts
	ms.byState[st]++
	if model.ClassOf(st) != model.ClassTerminal {
		ms.open++
		return nil
	}
	keep := ts
	if keep.IsZero() {
		keep = now
	}
	if m.heapIdx >= 0 {
		if !keep.Equal(m.keep) {
			m.keep = keep
			heap.Fix(&ms.term, m.heapIdx)
		}
	} else {
		m.keep = keep
		heap.Push(&ms.term, m)
	}
	for ms.maxTerm >= 0 && ms.term.Len() > ms.maxTerm {
		old := heap.Pop(&ms.term).(*memo)
		ms.drop(old)
		forgot = append(forgot, old.id)
	}
	return forgot
}

// remove forgets id.
func (ms *memos) remove(id a2a.TaskID) {
	m := ms.m[id]
	if m == nil {
		return
	}
	if m.heapIdx >= 0 {
		heap.Remove(&ms.term, m.heapIdx)
	}
	ms.drop(m)
}

// drop deletes m (already out of the heap) and its counts.
func (ms *memos) drop(m *memo) {
	delete(ms.m, m.id)
	switch {
	case m.seen:
		ms.byState[m.state]--
		if model.ClassOf(m.state) != model.ClassTerminal {
			ms.open--
		}
	case m.ref:
		ms.refs--
	}
}

// memoHeap orders terminal entries oldest first.
type memoHeap []*memo

func (h memoHeap) Len() int           { return len(h) }
func (h memoHeap) Less(i, j int) bool { return h[i].keep.Before(h[j].keep) }
func (h memoHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIdx, h[j].heapIdx = i, j
}
func (h *memoHeap) Push(x any) {
	m := x.(*memo)
	m.heapIdx = len(*h)
	*h = append(*h, m)
}
func (h *memoHeap) Pop() any {
	old := *h
	m := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	m.heapIdx = -1
	return m
}
