package hub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// SharedLeases are the watch leases of a team's hubs: a KV bucket whose
// entries end TTL after their last write (*jetstore.Leases). An agent's
// key holds the id of the hub that watches it, taken with Create and
// renewed with Update, each a compare-and-set on the key's revision: ok
// false (and no error) when another hub holds it, or it lapsed. An error
// is a store that did not answer. Put and Keys keep the hubs' presence.
type SharedLeases interface {
	TTL() time.Duration
	Get(key string) (value []byte, rev uint64, err error)
	Create(key string, value []byte) (rev uint64, ok bool, err error)
	Update(key string, value []byte, rev uint64) (next uint64, ok bool, err error)
	Delete(key string, rev uint64) error
	Put(key string, value []byte) error
	Keys(filter string) ([]string, error)
}

// AgentWatchers are Watchers that run one agent's watcher at a time
// (*a2aclient.Manager): a hub of a team runs only the agents it holds a
// lease on. RunAgent watches agent until ctx ends, and returns once its
// watcher has stopped; run again, its first sweep reports every task
// again. Resync makes a running watcher report everything again.
type AgentWatchers interface {
	Watchers
	RunAgent(ctx context.Context, agent string) error
	Resync(agent string)
}

// DefaultLeaseTTL is how long a watch lease lasts after its last
// renewal; a hub renews its leases every third of it.
const DefaultLeaseTTL = 6 * time.Second

// leaser holds this hub's watch leases and runs the watchers of the
// agents it holds, until its context ends. An agent is watched by one
// hub at a time: the one whose id its lease holds. Every third of the
// lease's TTL the leaser renews what it holds, stops the watchers of
// what it lost, and takes agents no one holds while it holds fewer than
// its share (the agents over the hubs present), so that the hubs split
// the fleet; a hub holding more than its share while another holds
// fewer gives the extra ones up. A lease it cannot renew (the store
// unreachable) is given up, its watcher stopped, when it would have
// lapsed in the store: another hub may hold it by then.
type leaser struct {
	h      *Hub
	store  SharedLeases
	w      AgentWatchers
	id     string
	ttl    time.Duration
	agents []string // config order

	mu   sync.Mutex
	held map[string]*lease // agent -> the lease held
	runs map[string]chan struct{}
	n    atomic.Int64 // len(held), for /metrics

	// gaveUp are the leases given up whose delete did not go through,
	// and when they lapse: until then the key still names this hub, and
	// is not taken back for it (leaser goroutine only).
	gaveUp map[string]time.Time

	wg          sync.WaitGroup
	unreachable bool // the last tick did not reach the store
}

// lease is one agent's lease held by this hub, and its watcher.
type lease struct {
	rev   uint64
	until time.Time   // when it lapses in the store, at the latest
	lapse *time.Timer // stops the watcher then, however long the store takes to answer
	stop  context.CancelFunc
}

func newLeaser(h *Hub, store SharedLeases, w AgentWatchers, id string) *leaser {
	l := &leaser{h: h, store: store, w: w, id: id, ttl: store.TTL(), held: map[string]*lease{}, runs: map[string]chan struct{}{},
		gaveUp: map[string]time.Time{}}
	for _, a := range h.o.Agents {
		l.agents = append(l.agents, a.Name)
	}
	return l
}

// leaseKey is an agent's key in the bucket; presenceKey a hub's.
func leaseKey(agent string) string { return "w." + shortHash(agent) }
func presenceKey(id string) string { return "h." + shortHash(id) }

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:16])
}

// run ticks until ctx ends, then gives up every lease it holds (the
// other hubs take the agents over at their next tick, not a TTL later)
// and waits for its watchers to stop.
func (l *leaser) run(ctx context.Context, reachable func()) {
	every := l.ttl / 3
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if l.tick(ctx, time.Now()) && reachable != nil {
			reachable()
		}
		select {
		case <-ctx.Done():
			if !l.unreachable { // the others count this hub out of the share at once
				_ = l.store.Delete(presenceKey(l.id), 0)
			}
			l.releaseAll("the hub is stopping")
			l.wg.Wait()
			return
		case <-t.C:
		}
	}
}

// tick renews, gives up and takes leases once. It reports whether the
// store answered after a tick that it did not.
func (l *leaser) tick(ctx context.Context, now time.Time) (back bool) {
	if err := l.store.Put(presenceKey(l.id), []byte(l.id)); err != nil {
		if !l.unreachable {
			l.h.log.Warn("watch leases: the team's record is unreachable; the leases held are given up when they would lapse", "hub", l.id, "err", err)
		}
		l.unreachable = true
		return false // each lease's timer stops its watcher when it would lapse
	}
	back, l.unreachable = l.unreachable, false
	hubs := 1
	if keys, err := l.store.Keys("h.*"); err == nil {
		hubs = max(1, len(keys))
	}
	l.renew(now)
	if ctx.Err() != nil {
		return back
	}
	l.take(ctx, now, hubs)
	return back
}

// renew renews every lease held; one lost stops its watcher.
func (l *leaser) renew(now time.Time) {
	for _, agent := range l.heldAgents() {
		le := l.lease(agent)
		if le == nil {
			continue
		}
		key := leaseKey(agent)
		sent := time.Now()
		next, ok, err := l.store.Update(key, []byte(l.id), le.rev)
		switch {
		case ok:
			l.mu.Lock()
			if l.held[agent] == le {
				le.rev, le.until = next, sent.Add(l.ttl)
				le.lapse.Reset(time.Until(le.until))
			}
			l.mu.Unlock()
		case err != nil:
			// le.lapse stops the watcher when the lease would lapse.
		default:
			// Another revision: ours if a renewal whose answer was lost
			// did write it, else the lease lapsed and maybe another
			// hub holds it now.
			v, rev, gerr := l.store.Get(key)
			if gerr == nil && string(v) == l.id {
				l.mu.Lock()
				le.rev = rev
				l.mu.Unlock()
				continue
			}
			l.drop(agent, "lost", "holder", string(v))
		}
	}
}

// take looks at every agent this hub does not hold: it takes those no
// one holds while it holds fewer than its share, and gives up what it
// holds past its share while another hub holds fewer.
func (l *leaser) take(ctx context.Context, now time.Time, hubs int) {
	share := (len(l.agents) + hubs - 1) / hubs
	holders := map[string]int{}
	var free []string
	for _, agent := range l.rotated() {
		if ctx.Err() != nil {
			return
		}
		if l.lease(agent) != nil {
			holders[l.id]++
			continue
		}
		v, rev, err := l.store.Get(leaseKey(agent))
		switch {
		case err != nil:
			continue
		case v == nil:
			free = append(free, agent)
		case string(v) == l.id && now.Before(l.gaveUp[agent]):
			// given up, its delete lost: it lapses by itself
		case string(v) == l.id: // a take whose answer was lost did write it
			l.start(agent, rev, now)
			holders[l.id]++
		default:
			holders[string(v)]++
		}
	}
	for _, agent := range free {
		if l.n.Load() >= int64(share) || ctx.Err() != nil {
			break
		}
		rev, ok, err := l.store.Create(leaseKey(agent), []byte(l.id))
		if err != nil || !ok {
			continue
		}
		l.start(agent, rev, now)
	}
	// Some hub holds fewer than its share (one present that holds none
	// is not among the holders): give the extra ones up.
	under := len(holders) < hubs
	for id, n := range holders {
		if id != l.id && n < share {
			under = true
		}
	}
	if extra := int(l.n.Load()) - share; extra > 0 && under {
		held := l.heldAgents()
		for _, agent := range held[len(held)-extra:] {
			l.release(agent, "given up to spread the agents over the hubs")
		}
	}
}

// rotated are the agents in an order of this hub's own, so that hubs
// starting together do not all try the same agent first.
func (l *leaser) rotated() []string {
	if len(l.agents) == 0 {
		return nil
	}
	h := sha256.Sum256([]byte(l.id))
	k := int(h[0]) % len(l.agents)
	return append(slices.Clone(l.agents[k:]), l.agents[:k]...)
}

// start holds a lease taken and starts the agent's watcher (once the
// one of its last lease has stopped): its first sweep reports every task.
func (l *leaser) start(agent string, rev uint64, now time.Time) {
	ctx, stop := context.WithCancel(l.h.context())
	l.mu.Lock()
	le := &lease{rev: rev, until: now.Add(l.ttl), stop: stop}
	le.lapse = time.AfterFunc(time.Until(le.until), func() {
		l.dropIf(agent, le, "lapsed: the team's record did not answer its renewals")
	})
	l.held[agent] = le
	prev := l.runs[agent]
	done := make(chan struct{})
	l.runs[agent] = done
	l.n.Store(int64(len(l.held)))
	l.mu.Unlock()
	l.h.log.Info("watch lease taken", "agent", agent, "hub", l.id)
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer close(done)
		if prev != nil {
			<-prev
		}
		if ctx.Err() != nil {
			return
		}
		if err := l.w.RunAgent(ctx, agent); err != nil {
			l.h.log.Error("watch lease: the agent's watcher did not run", "agent", agent, "err", err)
		}
	}()
}

// drop stops the agent's watcher: its lease is no longer this hub's.
func (l *leaser) drop(agent, why string, attrs ...any) {
	l.dropIf(agent, nil, why, attrs...)
}

// dropIf is drop if the lease held is still want (nil: whichever).
func (l *leaser) dropIf(agent string, want *lease, why string, attrs ...any) {
	l.mu.Lock()
	le := l.held[agent]
	if le == nil || want != nil && le != want {
		l.mu.Unlock()
		return
	}
	delete(l.held, agent)
	l.n.Store(int64(len(l.held)))
	l.mu.Unlock()
	le.lapse.Stop()
	le.stop()
	l.h.log.Warn("watch lease "+why, append([]any{"agent", agent, "hub", l.id}, attrs...)...)
}

// release stops the agent's watcher, then gives its lease up in the
// store, so that another hub takes it at once.
func (l *leaser) release(agent, why string) {
	le := l.lease(agent)
	if le == nil {
		return
	}
	l.mu.Lock()
	if l.held[agent] != le {
		l.mu.Unlock()
		return
	}
	delete(l.held, agent)
	l.n.Store(int64(len(l.held)))
	done := l.runs[agent]
	l.mu.Unlock()
	le.lapse.Stop()
	le.stop()
	if done != nil {
		select {
		case <-done:
		case <-time.After(l.ttl / 3):
		}
	}
	var err error
	if !l.unreachable {
		err = l.store.Delete(leaseKey(agent), le.rev)
	}
	if err != nil || l.unreachable {
		l.gaveUp[agent] = le.until
	}
	l.h.log.Info("watch lease given up", "agent", agent, "hub", l.id, "why", why, "err", err)
}

func (l *leaser) releaseAll(why string) {
	for _, agent := range l.heldAgents() {
		l.release(agent, why)
	}
}

func (l *leaser) lease(agent string) *lease {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held[agent]
}

// heldAgents are the agents held now, in config order.
func (l *leaser) heldAgents() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, a := range l.agents {
		if l.held[a] != nil {
			out = append(out, a)
		}
	}
	return out
}

// holds reports whether this hub watches agent now.
func (l *leaser) holds(agent string) bool { return l.lease(agent) != nil }

// resync makes every watcher this hub runs report everything again.
func (l *leaser) resync() {
	for _, a := range l.heldAgents() {
		l.w.Resync(a)
	}
}

// errNoAgentWatchers refuses a team whose watchers cannot watch one
// agent at a time.
var errNoAgentWatchers = errors.New("hub: watch leases need watchers that run one agent at a time (RunAgent)")

// Watching are the agents this hub's watchers watch now: every agent for
// a hub alone, those it holds a watch lease on for a hub of a team.
func (h *Hub) Watching() []string {
	if h.team == nil {
		var out []string
		for _, a := range h.o.Agents {
			out = append(out, a.Name)
		}
		return out
	}
	return h.team.l.heldAgents()
}
