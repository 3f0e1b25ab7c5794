package approvals

import (
	"slices"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// maxTouched is how many journal changes a Service remembers for a
// QueueCache; one further behind rebuilds its queue.
const maxTouched = 4096

// touchLog is the task id of every decision the journal folded in (a new
// one, or a later record of one: its outcome, its states), in order. Ids,
// not keys: a QueueCache revisits every agent's task with that id, which
// covers two names for one agent. The zero value is empty.
type touchLog struct {
	base uint64 // the mark of ids[0]
	ids  []a2a.TaskID
}

func (l *touchLog) add(id a2a.TaskID) {
	if len(l.ids) >= 2*maxTouched {
		n := copy(l.ids, l.ids[len(l.ids)-maxTouched:])
		clear(l.ids[n:])
		l.base += uint64(len(l.ids) - n)
		l.ids = l.ids[:n]
	}
	l.ids = append(l.ids, id)
}

// touchedSince returns the task ids the journal changed decisions on
// after mark and the mark to pass next; ok is false when the Service no
// longer remembers that far back.
func (s *Service) touchedSince(mark uint64) (ids []a2a.TaskID, next uint64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := &s.touched
	end := l.base + uint64(len(l.ids))
	if mark < l.base || mark > end {
		return nil, end, false
	}
	return slices.Clone(l.ids[mark-l.base:]), end, true
}

// QueueCache builds the same queue as Service.Queue, item for item, but
// keeps it between calls and rebuilds only the groups (chains) of the
// tasks that changed since the last call: the fleet's changes
// (model.Fleet.ChangedSince), the chain links that moved with them, and
// the journal's decisions (Item.Prior). A call after one batch costs
// about the size of the groups it touched plus a copy of the item slice,
// whatever the number of waiting tasks; the first call, a call after a
// change of fleet or order, and a call after more changes than the fleet
// or the journal remember rebuild everything.
//
// The zero value is not usable; call Service.NewQueueCache. A QueueCache
// reads the fleet: use it on the UI goroutine only. The slice Queue
// returns is the caller's to read, not to change, and only until the next
// call: that call may change it in place.
type QueueCache struct {
	s    *Service
	f    *model.Fleet
	sort model.SortBy
	ok   bool
	mark uint64 // Fleet.ChangeMark at the last call
	jmk  uint64 // touchedSince mark at the last call

	items []Item
	// task holds every task of items by key; leafOf its group's leaf;
	// members each group's tasks (by leaf) in the fleet's order.
	task    map[model.TaskKey]*model.Task
	leafOf  map[*model.Task]*model.Task
	members map[*model.Task][]*model.Task
	// link holds, for every task of items that names a blocker, its
	// chain link (nil: none) as last seen: a change of another task can
	// move it.
	link map[*model.Task]*model.Task
}

// NewQueueCache returns an empty cache of s's queue.
func (s *Service) NewQueueCache() *QueueCache { return &QueueCache{s: s} }

// Queue returns what s.Queue(f, sort) returns now.
func (c *QueueCache) Queue(f *model.Fleet, sort model.SortBy) []Item {
	if !c.ok || f != c.f || sort != c.sort {
		return c.rebuild(f, sort)
	}
	keys, next, ok := f.ChangedSince(c.mark)
	ids, jnext, jok := c.s.touchedSince(c.jmk)
	if !ok || !jok {
		return c.rebuild(f, sort)
	}
	c.mark, c.jmk = next, jnext
	if len(keys) == 0 && len(ids) == 0 {
		return c.items
	}
	dirty := map[*model.Task]bool{}
	for _, ch := range keys {
		k := ch.Key
		if t := c.task[k]; t != nil {
			dirty[t] = true
		}
		if t := f.Task(k); t != nil {
			dirty[t] = true
		}
	}
	for _, id := range ids {
		for _, t := range f.Lookup(id) {
			dirty[t] = true
		}
	}
	if len(keys) > 0 {
		for t, l := range c.link {
			if !dirty[t] && linkOf(f, t) != l {
				dirty[t] = true
			}
		}
	}
	c.patch(f, dirty)
	return c.items
}

// rebuild builds the queue from the whole fleet.
func (c *QueueCache) rebuild(f *model.Fleet, sort model.SortBy) []Item {
	c.f, c.sort, c.ok = f, sort, true
	c.mark = f.ChangeMark()
	_, c.jmk, _ = c.s.touchedSince(^uint64(0))
	interrupted := f.Interrupted(sort)
	c.task = make(map[model.TaskKey]*model.Task, len(interrupted))
	c.leafOf = make(map[*model.Task]*model.Task, len(interrupted))
	c.members = make(map[*model.Task][]*model.Task, len(interrupted))
	c.link = map[*model.Task]*model.Task{}
	dist := make(map[*model.Task]int, len(interrupted))
	var order []*model.Task
	for _, t := range interrupted {
		leaf, d := walkToLeaf(f, t)
		dist[t] = d
		c.note(f, t, leaf)
		if len(c.members[leaf]) == 1 {
			order = append(order, leaf)
		}
	}
	c.items = make([]Item, 0, len(interrupted))
	for _, leaf := range order {
		c.items = c.s.appendGroup(c.items, f, leaf, c.members[leaf], dist)
	}
	return c.items
}

// note records t as a member of leaf's group, after those already there.
func (c *QueueCache) note(f *model.Fleet, t, leaf *model.Task) {
	c.task[t.Key] = t
	c.leafOf[t] = leaf
	c.members[leaf] = append(c.members[leaf], t)
	if t.NamesBlocker() {
		c.link[t] = linkOf(f, t)
	}
}

// forget drops t from the cache's maps (its group is rebuilt).
func (c *QueueCache) forget(t *model.Task) {
	if c.task[t.Key] == t {
		delete(c.task, t.Key)
	}
	delete(c.leafOf, t)
	delete(c.link, t)
}

// patch rebuilds the groups of the dirty tasks: every group one of them
// was in, and every group they are in now, with the tasks whose walk to
// their leaf passes through one of them.
func (c *QueueCache) patch(f *model.Fleet, dirty map[*model.Task]bool) {
	// The tasks to place again: the dirty ones still waiting and every
	// task upstream of one (its walk to the leaf passes through it).
	cand := map[*model.Task]bool{}
	var stack []*model.Task
	for t := range dirty {
		stack = append(stack, t)
	}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if cand[t] {
			continue
		}
		cand[t] = true
		stack = append(stack, f.Waiters(t.Key)...)
	}
	// The old groups they were in go whole.
	gone := map[*model.Task]bool{}
	for t := range cand {
		if l, ok := c.leafOf[t]; ok {
			gone[l] = true
		}
	}
	for l := range gone {
		for _, m := range c.members[l] {
			cand[m] = true
		}
	}
	// Where each now goes; a group they join goes whole too.
	leafOf := map[*model.Task]*model.Task{}
	dist := map[*model.Task]int{}
	place := func(t *model.Task) {
		if t.Class != model.ClassInterrupted || f.Task(t.Key) != t {
			return
		}
		leaf, d := walkToLeaf(f, t)
		leafOf[t], dist[t] = leaf, d
	}
	for t := range cand {
		place(t)
	}
	for _, l := range leafOf {
		if gone[l] || c.members[l] == nil {
			continue
		}
		gone[l] = true
		for _, m := range c.members[l] {
			if !cand[m] {
				cand[m] = true
				place(m)
			}
		}
	}
	for l := range gone {
		for _, m := range c.members[l] {
			c.forget(m)
		}
		delete(c.members, l)
	}
	for t := range cand {
		if _, ok := leafOf[t]; !ok {
			c.forget(t)
		}
	}
	c.items = c.splice(f, gone, leafOf, dist)
}

// splice returns the items without the groups of the leaves in gone and
// with the groups of leafOf, each at the place of its first member in
// the fleet's order; it records the new groups' members. It changes the
// items in place: a batch moves a group or two, and copying the whole
// queue each time cost more than the rest of the frame.
func (c *QueueCache) splice(f *model.Fleet, gone map[*model.Task]bool, leafOf map[*model.Task]*model.Task, dist map[*model.Task]int) []Item {
	q := model.Query{Sort: c.sort}
	pos := make(map[*model.Task]int, len(leafOf))
	ts := make([]*model.Task, 0, len(leafOf))
	for t := range leafOf {
		pos[t] = f.Index(model.ClassInterrupted, q, t.Key)
		ts = append(ts, t)
	}
	slices.SortFunc(ts, func(a, b *model.Task) int { return pos[a] - pos[b] })
	var order []*model.Task // the new groups, by their first member
	for _, t := range ts {
		leaf := leafOf[t]
		if c.members[leaf] == nil {
			order = append(order, leaf)
		}
		c.note(f, t, leaf)
	}
	items := c.items
	if len(gone) > 0 {
		small := make([]*model.Task, 0, 8) // a batch touches a few groups: no map lookup per item
		for l := range gone {
			small = append(small, l)
		}
		items = slices.DeleteFunc(items, func(it Item) bool {
			if len(small) <= 8 {
				return slices.Contains(small, it.Leaf)
			}
			return gone[it.Leaf]
		})
	}
	at := func(items []Item, leaf *model.Task) int {
		// The first kept group whose first member comes after leaf's
		// (the items of a group share it, so that is a group's start).
		p := pos[c.members[leaf][0]]
		i, _ := slices.BinarySearchFunc(items, p, func(it Item, p int) int {
			return f.Index(model.ClassInterrupted, q, c.members[it.Leaf][0].Key) - p
		})
		return i
	}
	if len(order) > maxInPlace { // a burst: one merge into a new slice
		out := make([]Item, 0, len(items)+len(leafOf))
		for _, leaf := range order {
			i := at(items, leaf)
			out = c.s.appendGroup(append(out, items[:i]...), f, leaf, c.members[leaf], dist)
			items = items[i:]
		}
		return append(out, items...)
	}
	var g []Item
	for _, leaf := range order {
		g = c.s.appendGroup(g[:0], f, leaf, c.members[leaf], dist)
		items = slices.Insert(items, at(items, leaf), g...)
	}
	return items
}

// maxInPlace is how many groups splice inserts one by one (each moves
// the items after it); more are merged in one pass.
const maxInPlace = 8

// linkOf is t's chain link: the interrupted task it waits on, or nil.
func linkOf(f *model.Fleet, t *model.Task) *model.Task {
	if b := f.BlockedBy(t.Key); b != nil && b.Class == model.ClassInterrupted {
		return b
	}
	return nil
}
