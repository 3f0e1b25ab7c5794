package a2aclient

import (
	"cmp"
	"sync"
	"time"

	"a2atop/model"
)

// What streams cost a fleet. Each open SubscribeToTask stream holds the
// SDK's 64 KiB SSE buffer, a connection and its goroutines, so a fleet
// of fifty agents streaming thirty tasks each would hold 1,500 of them.
// Options.MaxStreams caps the open streams of the whole fleet; the agents
// share it fairly (max-min): an agent that wants fewer streams than an
// even share gets them all, the rest split what is left evenly, and no
// agent gets more than its own AgentOptions.MaxStreams (what does not
// divide evenly goes one each to the first agents in the configuration). An agent's share
// is worked out again at each of its rounds from what every agent wanted
// at its last round, so when one agent wants more, the others give up
// their extra streams at their next round (within a sweep interval): for
// that long the fleet may hold a few more than the budget.
//
// Within an agent's share, streams go first to the tasks someone looked
// at (the detail view's GetTask with artifacts) in the last lookedFor,
// then to those streaming already, then to running tasks before those
// waiting for a person, then to the newest status. A task without a stream is followed by the incremental
// sweeps, which see each of its status changes within a sweep interval;
// its artifacts come with the GetTask made when it ends, or when it is
// opened.

// DefaultMaxStreamsTotal is Options.MaxStreams when zero.
const DefaultMaxStreamsTotal = 128

// lookedFor is how long a task opened in the detail view keeps the first
// claim on its agent's streams.
const lookedFor = 10 * time.Minute

// streamBudget shares the fleet's streams among its watchers. Safe for
// concurrent use.
type streamBudget struct {
	mu    sync.Mutex
	total int              // < 0: no budget
	want  map[*watcher]int // what each agent wanted at its last round
}

func newStreamBudget(total int) *streamBudget {
	return &streamBudget{total: total, want: map[*watcher]int{}}
}

// share records that w wants n streams now and returns how many it may
// hold.
func (b *streamBudget) share(w *watcher, n int) int {
	if b == nil || b.total < 0 {
		return n
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if n <= 0 {
		delete(b.want, w)
		return 0
	}
	b.want[w] = n
	claims := make([]claim, 0, len(b.want))
	for o, v := range b.want {
		claims = append(claims, claim{order: o.order, want: v})
	}
	return fairShare(b.total, claims, w.order)
}

// claim is what one agent wants of the budget; order is its place in
// the configuration.
type claim struct{ order, want int }

// fairShare is the max-min fair share of total for the agent at order
// among claims (model.MaxMinShare): agents wanting less than an even
// share get what they want, the others an even share of the rest, and
// what does not divide evenly goes one each to the first of them in the
// configuration.
func fairShare(total int, claims []claim, order int) int {
	wants, mine := make([]int, len(claims)), 0
	for i, c := range claims {
		wants[i] = c.want
		if c.order == order {
			mine = c.want
		}
	}
	level, rest, capped := model.MaxMinShare(total, wants)
	if !capped || mine <= level {
		return mine
	}
	before := 0 // agents held to level that come first in the configuration
	for _, c := range claims {
		if c.want > level && c.order < order {
			before++
		}
	}
	if before < rest {
		return level + 1
	}
	return level
}

// forget drops w from the budget (its watcher stopped).
func (b *streamBudget) forget(w *watcher) {
	if b == nil {
		return
	}
	b.mu.Lock()
	delete(b.want, w)
	b.mu.Unlock()
}

// streamRank orders tasks for a stream, first the one that should have
// it most: a task looked at lately, then one streaming now (a stream is
// not moved to a task that only became newer), then a running task
// before one waiting for a person, then the newest status. Called with
// w.mu held.
func streamRank(now time.Time) func(a, b *memo) int {
	looked := func(m *memo) bool { return !m.looked.IsZero() && now.Sub(m.looked) < lookedFor }
	active := func(m *memo) bool { return model.ClassOf(m.state) == model.ClassActive }
	return func(a, b *memo) int {
		return cmp.Or(first(looked(a), looked(b)), first(a.streaming, b.streaming), first(active(a), active(b)),
			b.ts.Compare(a.ts), cmp.Compare(a.id, b.id))
	}
}

// first orders true before false.
func first(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}
