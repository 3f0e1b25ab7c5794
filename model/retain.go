package model

import "container/heap"

// termHeap holds an agent's terminal tasks and the ones marked gone,
// oldest Updated first, so the oldest is evicted when
// MaxTerminalPerAgent is exceeded.
type termHeap []*Task

func (h termHeap) Len() int { return len(h) }
func (h termHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if !a.Updated.Equal(b.Updated) {
		return a.Updated.Before(b.Updated)
	}
	return a.seq < b.seq
}
func (h termHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIdx = int32(i)
	h[j].heapIdx = int32(j)
}
func (h *termHeap) Push(x any) {
	t := x.(*Task)
	t.heapIdx = int32(len(*h))
	*h = append(*h, t)
}
func (h *termHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	t.heapIdx = -1
	return t
}

func (h *termHeap) fix(i int) { heap.Fix(h, i) }

// addTerminal records that t reached a terminal state. Eviction waits
// for the end of the batch (evictOverfull).
func (f *Fleet) addTerminal(t *Task) {
	heap.Push(&t.agent.term, t)
}

// evictOverfull drops each agent's oldest terminal (or gone) tasks
// beyond MaxTerminalPerAgent. No other task is ever evicted.
func (f *Fleet) evictOverfull() {
	max := f.opts.MaxTerminalPerAgent
	if max < 0 {
		return
	}
	for _, a := range f.agents {
		for a.term.Len() > max {
			f.evict(heap.Pop(&a.term).(*Task))
		}
	}
}

// evict forgets t: it leaves its agent's map and, at the next query, the
// pane indexes.
func (f *Fleet) evict(t *Task) {
	f.touch(t) // a gone task may leave the inbox: Apply reports it in Left
	a := t.agent
	f.unlinkID(t)
	last := a.held[len(a.held)-1]
	a.held[t.heldIdx] = last
	last.heldIdx = t.heldIdx
	a.held[len(a.held)-1] = nil
	a.held = a.held[:len(a.held)-1]
	a.Counts[t.Class]--
	f.addBytes(a, -t.size())
	f.ntasks--
	t.removed = true
	delete(f.trails, t)
	f.setRefs(t, false)
	f.res.Evicted++
	f.changed(t)
}

// unlinkID removes t from the fleet's id map.
func (f *Fleet) unlinkID(t *Task) {
	h := f.idHash(t.Key.ID)
	p := f.byID[h]
	if p == t {
		if t.twin == nil {
			delete(f.byID, h)
		} else {
			f.byID[h] = t.twin
		}
		t.twin = nil
		return
	}
	for ; p != nil; p = p.twin {
		if p.twin == t {
			p.twin = t.twin
			t.twin = nil
			return
		}
	}
}

// DefaultTerminalTotal is how many terminal tasks a fleet keeps in all
// by default (see TerminalKept).
const DefaultTerminalTotal = 10000

// minTerminalKept is the fewest terminal tasks TerminalKept gives an
// agent however large the fleet.
const minTerminalKept = 100

// TerminalKept is how many terminal tasks each of agents keeps when one
// may keep perAgent and all together total: an even share of total, at
// most perAgent, at least minTerminalKept (or perAgent, if less). A
// negative perAgent keeps all; a negative total sets no fleet bound. The
// watchers and the Fleet must be given the same number.
func TerminalKept(perAgent, total, agents int) int {
	if total < 0 || agents <= 0 {
		return perAgent
	}
	share := max(total/agents, minTerminalKept)
	if perAgent < 0 {
		return share
	}
	return min(perAgent, share)
}
