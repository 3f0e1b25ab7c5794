package hub

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"

	"a2atop/approvals"
	"a2atop/model"
)

// encode is the JSON of v on one line, with HTML escaping off (journal
// lines travel byte for byte; see verbatim). The wire types always
// encode.
func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("hub: encoding " + err.Error()) // a wire type that does not encode is a programming error
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// chunker gathers encoded events into entries, one agent per entry and
// each entry's data under max bytes (one event alone may be more).
type chunker struct {
	max  int
	open map[string]int // agent -> index in out of its open chunk
	out  []chunk
}

type chunk struct {
	agent string
	items [][]byte
	size  int
}

func (c *chunker) add(agent string, item []byte) {
	if c.open == nil {
		c.open = map[string]int{}
	}
	i, ok := c.open[agent]
	if !ok || c.out[i].size+len(item) > c.max && len(c.out[i].items) > 0 {
		c.out = append(c.out, chunk{agent: agent})
		i = len(c.out) - 1
		c.open[agent] = i
	}
	c.out[i].items = append(c.out[i].items, item)
	c.out[i].size += len(item) + 1
}

// entries are the chunks as feed entries named name, their data
// {"events":[…]}.
func (c *chunker) entries(name string) []entry {
	out := make([]entry, len(c.out))
	for i, ch := range c.out {
		out[i] = entry{name: name, agent: ch.agent, data: joinItems(`{"events":[`, ch.items, `]}`)}
	}
	return out
}

// joinItems is head, the items separated by commas, tail.
func joinItems(head string, items [][]byte, tail string) []byte {
	n := len(head) + len(tail) + len(items)
	for _, it := range items {
		n += len(it)
	}
	b := make([]byte, 0, n)
	b = append(b, head...)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, tail...)
}

// taskEvent is the snapshot event of a task as the fleet holds it.
func taskEvent(t *model.Task) Event {
	return EventOf(model.Event{Kind: model.EventTask, Agent: t.Key.Agent, Source: t.Source, At: t.LastHeard, Task: t.Snapshot})
}

// taskCache keeps each task of the fleet encoded as a snapshot event, so
// that a snapshot costs the tasks that changed since the last one, not
// the whole fleet. Owned by the loop.
type taskCache struct {
	items map[model.TaskKey]*cachedTask
	dirty map[model.TaskKey]struct{}
	sweep bool // tasks were evicted: look for them at the next refresh
}

type cachedTask struct {
	data []byte // the task event
	gone []byte // its EventGone, when the agent no longer knows it
}

func newTaskCache() *taskCache {
	return &taskCache{items: map[model.TaskKey]*cachedTask{}, dirty: map[model.TaskKey]struct{}{}}
}

// touch marks the task of ev as changed.
func (c *taskCache) touch(ev *model.Event) {
	switch ev.Kind {
	case model.EventTask, model.EventStatus, model.EventArtifact, model.EventGone:
		c.dirty[keyOf(ev)] = struct{}{}
	}
}

// refresh encodes again the tasks that changed and forgets those the
// fleet no longer holds.
func (c *taskCache) refresh(f *model.Fleet) {
	for k := range c.dirty {
		t := f.Task(k)
		if t == nil || t.Snapshot == nil {
			delete(c.items, k)
			continue
		}
		ct := &cachedTask{data: encode(taskEvent(t))}
		if t.Gone {
			ct.gone = encode(EventOf(model.Event{Kind: model.EventGone, Agent: k.Agent, At: t.LastHeard, Task: t.Snapshot}))
		}
		c.items[k] = ct
	}
	clear(c.dirty)
	if c.sweep {
		for k := range c.items {
			if f.Task(k) == nil {
				delete(c.items, k)
			}
		}
		c.sweep = false
	}
}

// piece is one encoded event of a snapshot and the agent it is about.
type piece struct {
	agent string
	data  []byte
}

// snapshot is what a subscriber is sent to start from: every agent
// (card, then health), every task, the journal lines the log holds
// (trimJournal: every line of each entry held) and every claim,
// at one feed position: it holds exactly the entries before next.
type snapshot struct {
	next    uint64
	src     uint64 // the events' stream seq taken in last (shared.go)
	agents  []piece
	tasks   []piece
	journal []jline
	trimmed int // the last journal line the log let go (0 for none)
	claims  []Claim
	record  *Record // SnapshotBegin.Record
}

// snapshot builds the snapshot of now. It runs on the loop (the fleet's
// owner) and holds the log's lock while it reads the position, the
// journal and the claims, which other goroutines append to under it.
func (h *Hub) snapshot() *snapshot {
	h.feed.mu.Lock()
	moved := h.snap == nil || h.snap.next != h.feed.next || h.snap.src != h.feed.evAt
	h.feed.mu.Unlock()
	if !moved {
		return h.snap
	}
	h.cache.refresh(h.fleet)
	s := &snapshot{}
	for _, a := range h.fleet.Agents() {
		info, health := a.Info, a.Health
		s.agents = append(s.agents,
			piece{a.Name, encode(EventOf(model.Event{Kind: model.EventAgent, Agent: a.Name, Info: &info}))},
			piece{a.Name, encode(EventOf(model.Event{Kind: model.EventHealth, Agent: a.Name, Health: &health}))})
	}
	s.tasks = make([]piece, 0, len(h.cache.items))
	for k, ct := range h.cache.items {
		s.tasks = append(s.tasks, piece{k.Agent, ct.data})
		if ct.gone != nil {
			s.tasks = append(s.tasks, piece{k.Agent, ct.gone})
		}
	}
	h.feed.mu.Lock()
	s.next = h.feed.next
	s.src = h.feed.evAt
	s.journal = h.feed.journal[:len(h.feed.journal):len(h.feed.journal)]
	s.trimmed = h.feed.trimmed
	s.record = h.feed.record
	for _, c := range h.feed.claims {
		s.claims = append(s.claims, c)
	}
	h.feed.mu.Unlock()
	h.snap = s
	return s
}

// journalLines is the Service's OnJournal: it puts the lines on the feed
// in runs of one agent each (the agent the line names, for the
// operators' watch roles), in the journal's order. A later record of a
// decision the Service let go from memory (a task's state long after it)
// is not put on the feed: a dashboard attached since never had the
// decision, and would take the record for damage. The Service folds a
// line before it publishes it, so a decision it holds is held here.
func (h *Hub) journalLines(lines []approvals.JournalLine) {
	if len(lines) == 0 {
		return
	}
	h.feed.mu.Lock()
	holds := h.feed.holds
	h.feed.mu.Unlock()
	type run struct {
		agent string
		items [][]byte
		jmax  int
	}
	var runs []run
	js := make([]jline, 0, len(lines))
	groups := 0
	for _, l := range lines {
		j := h.jlineOf(l)
		if holds != nil && j.id != "" && !j.first && !holds(j.id) {
			continue // no connection gets it: not a gap for any (feedLog.trimmed)
		}
		js = append(js, j)
		if j.first {
			groups++
		}
		if n := len(runs); n == 0 || runs[n-1].agent != j.agent {
			runs = append(runs, run{agent: j.agent})
		}
		r := &runs[len(runs)-1]
		r.items, r.jmax = append(r.items, j.wire), l.N
	}
	es := make([]entry, len(runs))
	for i, r := range runs {
		es[i] = entry{name: EventJournal, agent: r.agent, data: joinItems(`{"lines":[`, r.items, `]}`), jmax: r.jmax}
	}
	h.feed.mu.Lock()
	h.feed.journal = append(h.feed.journal, js...)
	h.feed.groups += groups
	if len(es) > 0 {
		h.feed.appendLocked(es...)
	}
	h.feed.mu.Unlock()
	h.trimJournal()
}

// jlineOf is a journal line as the feed log holds it: the agent it
// names (see journalAgent), the decision it is a record of, and whether
// it is kept whatever its age (a line that is not a record, or a torn
// or ack record: damage and its resolution).
func (h *Hub) jlineOf(l approvals.JournalLine) jline {
	j := jline{line: l, agent: h.journalAgent(l.Raw), wire: encode(LineOf(l))}
	var r struct {
		Type, ID string
	}
	switch err := json.Unmarshal(l.Raw, &r); {
	case err != nil || l.Torn || r.Type == "torn" || r.Type == "ack" || r.Type == "":
		j.keep = true
	case r.ID == "":
		j.first = true // an observation
	default: // a vote is an entry of its own until its decision comes
		j.id, j.first = r.ID, r.Type == "decision" || r.Type == "vote"
	}
	return j
}

// journalAgent is the agent a journal line names, by its identity when
// the line has one (so a renamed agent keeps its lines), else by name;
// "" when the line names none or cannot be read.
func (h *Hub) journalAgent(raw []byte) string {
	var r struct {
		Agent, URL, Tenant string
	}
	if json.Unmarshal(raw, &r) != nil {
		return ""
	}
	if name, ok := h.byID[identity(r.URL, r.Tenant)]; ok && r.URL != "" {
		return name
	}
	return r.Agent
}

// identity is an agent's key as the journal keeps it: the base URL with
// scheme and host in lower case, no trailing slash, and the tenant.
func identity(raw, tenant string) string {
	id := strings.TrimRight(raw, "/")
	if u, err := url.Parse(strings.TrimSpace(raw)); err == nil && u.Host != "" {
		u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
		u.Path, u.RawPath = strings.TrimRight(u.Path, "/"), ""
		id = u.String()
	}
	if tenant != "" {
		id += "#tenant=" + tenant
	}
	return id
}
