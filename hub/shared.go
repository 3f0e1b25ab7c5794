package hub

import (
	"context"
	"strconv"
	"strings"
	"time"

	"a2atop/model"
)

// A team's hubs give the feed ids another hub of the team understands,
// so that a dashboard whose hub dies resumes on another without a gap or
// a doubled event. The watchers' events are the feed's one source that
// grows with the fleet, and the team's events' stream orders them: every
// hub takes every message of that stream into its log in the stream's
// order, its own watchers' too (it applies those to its fleet as they
// come, for its decisions, but puts them on its feed when they come back
// from the stream, with their stream seq). So an entry's place in the
// stream (entry.src) means the same on every hub, and an id carries it:
// "EPOCH-SEQ~TEAM~SRC", TEAM being the stream's identity.
//
// A hub given another hub's id (same TEAM, another EPOCH) waits, a
// while, to have taken the stream in up to SRC, then sends every events
// entry of its log past SRC, and none at or before it. The rest of the
// feed is state, sent once as it stands: the journal from the line the
// dashboard gives (journal= and journal_hash=, whose line numbers are
// the shared record's), the claims (a small set, each ending by itself),
// the record's banner. When the hub cannot (it has not caught up, or
// its window no longer holds what follows SRC) a snapshot follows, with
// the reason.

// catchUpWait bounds how long a hub waits to take the events' stream in
// up to where a dashboard that moved from another hub was.
const catchUpWait = 3 * time.Second

// remoteMsg is one message of the events' stream, for the loop.
type remoteMsg struct {
	evs   []model.Event
	agent string // the agent the message's events are of
	data  []byte // the message: the feed entry's data
	seq   uint64 // its stream seq; 0 for a hub whose feed ids are its own
	own   bool   // this hub's watchers': its fleet has them already
}

// namedStream is what an events' stream that names itself implements
// (jetstore.Events).
type namedStream interface {
	Identity(ctx context.Context) (string, error)
}

// ingestRemote takes messages of the events' stream: the old way (their
// events applied and put on the feed as this hub chunks them) unless the
// feed's ids are the team's, then one entry per message, in order.
func (h *Hub) ingestRemote(msgs []remoteMsg) {
	var old []model.Event
	for _, m := range msgs {
		if m.seq == 0 {
			old = append(old, m.evs...)
			continue
		}
		if len(old) > 0 {
			h.ingest(old, false)
			old = nil
		}
		h.ingestShared(m)
	}
	if len(old) > 0 {
		h.ingest(old, false)
	}
}

// ingestShared takes one message of the events' stream at its seq.
func (h *Hub) ingestShared(m remoteMsg) {
	if !m.own && len(m.evs) > 0 {
		for i := range m.evs {
			h.cache.touch(&m.evs[i])
		}
		res := h.fleet.Apply(m.evs)
		h.metrics.events.Add(float64(len(m.evs)))
		h.metrics.batches.Inc()
		if res.Evicted > 0 {
			h.cache.sweep = true
		}
		defer func() {
			if len(res.Left) > 0 {
				h.observe()
			}
		}()
	}
	l := h.feed
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.evFrom == 0 {
		l.evFrom = m.seq
	}
	l.evAt = max(l.evAt, m.seq)
	if len(m.evs) > 0 && m.agent != "" {
		l.appendLocked(entry{name: EventEvents, agent: m.agent, data: m.data, src: m.seq})
	}
}

// sharedIDs reports whether the feed's ids are the team's.
func (l *feedLog) sharedIDs() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.team != ""
}

// crossResume is how a connection with another hub's id of the team
// resumes here: from is the first entry it is sent; before boundary
// only events entries are (the rest is the state it gets first).
type crossResume struct {
	from, boundary uint64
	journal        []jline
	trimmed        int
	claims         []Claim
	record         *Record
}

// parseTeamID reads a team's id: its hub's epoch, the team's and the
// stream seq.
func parseTeamID(id string) (epoch, team string, src uint64, ok bool) {
	parts := strings.Split(id, "~")
	if len(parts) != 3 {
		return "", "", 0, false
	}
	epoch, _, _ = strings.Cut(parts[0], "-")
	src, err := strconv.ParseUint(parts[2], 10, 64)
	return epoch, parts[1], src, err == nil && parts[1] != ""
}

// resumeAcross plans the resume of a connection whose Last-Event-ID is
// another hub's of the team, waiting (at most catchUpWait, or until ctx
// ends) to have taken the events' stream in up to it. nil and the
// reason of the snapshot that follows instead when it cannot.
func (l *feedLog) resumeAcross(ctx context.Context, lastID string) (*crossResume, string) {
	epoch, team, src, ok := parseTeamID(lastID)
	l.mu.Lock()
	mine := l.team
	l.mu.Unlock()
	if !ok || mine == "" || team != mine || epoch == l.epoch {
		return nil, ""
	}
	wctx, cancel := context.WithTimeout(ctx, catchUpWait)
	defer cancel()
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.evAt < src {
		wake := l.wake
		l.mu.Unlock()
		select {
		case <-wake:
		case <-wctx.Done():
		}
		l.mu.Lock()
		if wctx.Err() != nil && l.evAt < src {
			return nil, "behind"
		}
	}
	if l.evFrom == 0 || src+1 < l.evFrom || l.evDropped > src {
		return nil, "window"
	}
	i := 0
	for i < len(l.entries) && l.entries[i].src <= src {
		i++
	}
	p := &crossResume{from: l.first + uint64(i), boundary: l.next, journal: l.journal[:len(l.journal):len(l.journal)],
		trimmed: l.trimmed, record: l.record}
	for _, c := range l.claims {
		p.claims = append(p.claims, c)
	}
	return p, ""
}

// resumeState sends a connection that resumes across hubs the state
// that is not the events: the journal after the lines it has, the
// claims, the record's banner.
func (s *subscriber) resumeState(p *crossResume) {
	may := func(agent string) bool { return s.op.may(agent, RoleWatch) }
	from := s.jsent
	if from < p.trimmed {
		from = 0
	}
	var lines [][]byte
	for _, j := range p.journal {
		if j.line.N > from && may(j.agent) {
			lines = append(lines, j.wire)
			s.jsent = j.line.N
		}
	}
	s.chunks(EventJournal, `{"lines":[`, lines, `]}`)
	var claims Claims
	for _, c := range p.claims {
		if may(c.Agent) {
			claims.Claims = append(claims.Claims, c)
		}
	}
	s.publish(EventClaims, "", encode(claims))
	r := Record{Reachable: true, Since: time.Now()}
	if p.record != nil {
		r = *p.record
	}
	s.publish(EventRecord, "", encode(r))
}

// eventsOf is the wire form of evs.
func eventsOf(evs []model.Event) Events {
	out := Events{Events: make([]Event, len(evs))}
	for i, ev := range evs {
		out.Events[i] = EventOf(ev)
	}
	return out
}
