package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"a2atop/model"
)

// SharedEvents is the stream of the watchers' events a team's hubs
// share (*jetstore.Events): the hub that watches an agent publishes its
// watcher's events there (each message a batch of one agent's, as the
// feed carries them; agent "" is the hubs' own subject), and every hub
// applies every other hub's to its own fleet. Follow passes what is
// published once it has begun (ready is called then), with the hub that
// published it, until ctx ends. MaxBytes is the largest message.
type SharedEvents interface {
	MaxBytes() int
	Publish(ctx context.Context, from string, agents []string, data [][]byte) error
	Follow(ctx context.Context, ready func(), fn func(from, agentKey string, data []byte, seq uint64)) error
}

// Team is what a hub of a team shares with the others beside the
// journal and the claims: the watch leases, so that each agent is
// watched by one hub at a time, and the events' stream, so that every
// hub's fleet holds every agent.
type Team struct {
	Leases SharedLeases
	Events SharedEvents
	// ID names this hub in the leases and the log; "" is the host's name
	// and the hub's epoch (a hub that restarts is another holder: its
	// old leases lapse).
	ID string
}

// team is a hub's part in a team: its leaser, and the events it
// publishes and follows.
type team struct {
	h       *Hub
	id      string
	ev      SharedEvents
	l       *leaser
	max     int
	out     chan pubBatch    // to the publisher
	in      chan []remoteMsg // from the follower, to the loop
	named   namedStream      // the events' stream, when it names itself: the feed's ids are the team's (shared.go)
	owed    atomic.Bool      // events were not published: the watchers report everything again
	asked   atomic.Int64     // unix nanos of the last resync of this hub's watchers, to coalesce them
	pending atomic.Bool      // a resync is scheduled
	shared  atomic.Bool      // the feed's ids are the team's: every message goes to the feed from the stream
}

// pubBatch is what one ingest of this hub's watchers' events puts on
// the events' stream.
type pubBatch struct {
	agents []string
	data   [][]byte
}

// resyncMsg is what a hub asks of the others on the hubs' subject.
type resyncMsg struct {
	Resync string `json:"resync"` // the hub asking: report everything again
}

func newTeam(h *Hub, t *Team) (*team, error) {
	if t.Leases == nil || t.Events == nil {
		return nil, fmt.Errorf("hub: a team needs both its watch leases and its events' stream")
	}
	aw, ok := h.o.Watchers.(AgentWatchers)
	if !ok {
		return nil, errNoAgentWatchers
	}
	id := t.ID
	if id == "" {
		host, _ := os.Hostname()
		id = host + "/" + h.feed.epoch
	}
	tm := &team{h: h, id: id, ev: t.Events, max: t.Events.MaxBytes(), out: make(chan pubBatch, 256),
		in: make(chan []remoteMsg, 64)}
	tm.named, _ = t.Events.(namedStream)
	tm.l = newLeaser(h, t.Leases, aw, id)
	return tm, nil
}

// run runs the leaser (and through it the watchers of the agents this
// hub holds), the publisher and the follower until ctx ends; it returns
// once the watchers have stopped.
func (tm *team) run(ctx context.Context) {
	if tm.named != nil { // before the first message is followed and this hub watches any agent
		ictx, cancel := context.WithTimeout(ctx, 30*time.Second)
		team, err := tm.named.Identity(ictx)
		cancel()
		if err != nil {
			tm.h.log.Warn("team: the feed's ids stay this hub's own (a dashboard that moves to another hub gets a snapshot there)", "err", err)
		} else {
			tm.h.feed.mu.Lock()
			tm.h.feed.team = team
			tm.h.feed.mu.Unlock()
			tm.shared.Store(true)
		}
	}
	followed := make(chan struct{})
	ready := make(chan struct{})
	go func() {
		defer close(followed)
		err := tm.ev.Follow(ctx, func() { close(ready) }, tm.follow)
		if err != nil {
			tm.h.log.Error("team: not following the other hubs' events", "err", err)
		}
	}()
	published := make(chan struct{})
	go func() { defer close(published); tm.publisher(ctx) }()
	select { // ask for everything once this hub hears the answers
	case <-ready:
		tm.askResync(ctx)
	case <-followed:
	case <-ctx.Done():
	}
	tm.l.run(ctx, func() { tm.askResync(ctx) })
	<-followed
	<-published
}

// askResync asks the hubs that watch the agents to report everything
// again: this hub has just started, or has been away from the store.
func (tm *team) askResync(ctx context.Context) {
	if err := tm.ev.Publish(ctx, tm.id, []string{""}, [][]byte{encode(resyncMsg{Resync: tm.id})}); err != nil {
		tm.h.log.Warn("team: could not ask the other hubs for the whole fleet", "err", err)
	}
}

// follow takes one message of the events' stream: another hub's events
// go to the loop; a resync asked makes this hub's watchers report
// everything again (once a third of a lease, however many ask).
func (tm *team) follow(from, key string, data []byte, seq uint64) {
	shared := tm.shared.Load()
	if from == tm.id && !shared {
		return // applied when this hub's watchers sent them
	}
	m := remoteMsg{own: from == tm.id}
	if shared {
		m.seq = seq
	}
	if key == "" {
		var r resyncMsg
		if !m.own && json.Unmarshal(data, &r) == nil && r.Resync != "" {
			tm.resyncSoon()
		}
		if !shared {
			return
		}
	} else {
		var evs Events
		if err := json.Unmarshal(data, &evs); err != nil {
			tm.h.log.Warn("team: an unreadable message on the events' stream", "hub", from, "err", err)
		}
		for _, e := range evs.Events {
			ev, err := e.Model()
			if err != nil || !tm.h.agents[ev.Agent] {
				continue
			}
			m.evs = append(m.evs, ev)
		}
		if len(m.evs) == len(evs.Events) && len(m.evs) > 0 { // one agent's, all taken: the message is the entry
			m.agent, m.data = m.evs[0].Agent, data
		} else if len(m.evs) > 0 {
			m.agent, m.data = m.evs[0].Agent, encode(eventsOf(m.evs))
		}
	}
	if len(m.evs) == 0 && !shared {
		return
	}
	select {
	case tm.in <- []remoteMsg{m}:
	case <-tm.h.done:
	}
}

// resyncSoon has this hub's watchers report everything again: at once,
// or, when they did within a third of a lease, at its end (however many
// hubs ask meanwhile, one resync answers them all).
func (tm *team) resyncSoon() {
	if tm.pending.Swap(true) {
		return // one is coming, after this ask
	}
	wait := time.Until(time.Unix(0, tm.asked.Load()).Add(tm.l.ttl / 3))
	time.AfterFunc(max(0, wait), func() {
		tm.pending.Store(false)
		tm.asked.Store(time.Now().UnixNano())
		tm.l.resync()
	})
}

// publish hands what one ingest applied of this hub's watchers' events
// to the publisher; when it is behind, they are dropped and owed (the
// watchers report everything again once it has caught up).
func (tm *team) publish(entries []entry) {
	if len(entries) == 0 {
		return
	}
	b := pubBatch{agents: make([]string, len(entries)), data: make([][]byte, len(entries))}
	for i, e := range entries {
		b.agents[i], b.data[i] = e.agent, e.data
	}
	select {
	case tm.out <- b:
	default:
		if !tm.owed.Swap(true) {
			tm.h.log.Warn("team: the events' stream is behind; the watchers will report everything again")
		}
	}
}

// publisher puts the batches on the events' stream, in order, until ctx
// ends. After a failure the watchers report everything again once a
// publish has gone through: the other hubs miss nothing for long.
func (tm *team) publisher(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case b := <-tm.out:
			if err := tm.ev.Publish(ctx, tm.id, b.agents, b.data); err != nil {
				if ctx.Err() != nil {
					return
				}
				if !tm.owed.Swap(true) {
					tm.h.log.Warn("team: events not published to the other hubs; the watchers will report everything again", "err", err)
				}
				continue
			}
			if len(tm.out) == 0 && tm.owed.Swap(false) {
				tm.l.resync()
			}
		}
	}
}

// pubMax is the largest event the hub publishes as it is; a larger one
// goes out as the task the fleet holds, and, if that is larger still,
// as the task without its history and artifacts (a dashboard's detail
// asks the agent for them anyway).
func (tm *team) pubMax() int { return min(MaxEventBytes, tm.max-64) }

// slim is the task without its history and artifacts.
func slim(t *model.Task) Event {
	ev := taskEvent(t)
	if ev.Task != nil {
		cp := *ev.Task
		cp.History, cp.Artifacts = nil, nil
		ev.Task = &cp
	}
	return ev
}
