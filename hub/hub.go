package hub

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/r3labs/sse/v2"

	"a2atop/approvals"
	"a2atop/model"
)

// Watchers are the hub's watchers and what it asks the agents through
// them: *a2aclient.Manager satisfies it. Run runs them until ctx ends;
// every watcher event arrives on Events.
type Watchers interface {
	Run(ctx context.Context)
	Events() <-chan model.Event
	Get(ctx context.Context, agent string, id a2a.TaskID, historyLength int, withArtifacts bool) (*a2a.Task, error)
	Cancel(ctx context.Context, agent string, id a2a.TaskID) (*a2a.Task, error)
	Capture(agent string) []model.Exchange
}

// Options configure a Hub. Watchers, Journal and Operators are required.
type Options struct {
	// Watchers watch the agents; the hub alone holds their credentials.
	Watchers Watchers
	// Agents are the agents the watchers watch, in config order.
	Agents []Agent
	// Fleet bounds the hub's fleet, as a dashboard's.
	Fleet model.Options
	// Journal opens the hub's approvals Service: the team's one journal
	// (a file, JournalPath) and its sends (Sender). OnJournal is the
	// hub's; Approver (the hub's own name, for what it journals itself)
	// defaults to "a2atop serve".
	Journal approvals.Options
	// Operators are the people the hub serves, with their roles.
	Operators []Operator
	// Claims, when set, shares the claims with the team's other hubs
	// (claims_shared.go); nil keeps them in this hub alone.
	Claims SharedClaims
	// Team, when set, has this hub watch only the agents it holds a
	// watch lease on, and apply the other hubs' watchers' events to its
	// fleet (leases.go, team.go); Watchers must then be AgentWatchers.
	// nil watches every agent here.
	Team *Team
	// Logger receives what the hub did; nil discards. Tokens never reach it.
	Logger *slog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time

	// Heartbeat is how often an idle feed sends a comment. 0 = 15s.
	Heartbeat time.Duration
	// StallTimeout is how long a subscriber's connection may take no
	// bytes while the hub has some for it before the hub closes it (it
	// reconnects and resumes, or gets a snapshot). 0 = 30s.
	StallTimeout time.Duration
	// Window is how many events the log keeps for subscribers that
	// resume; WindowBytes bounds their data. 0 = 10,000 and 64 MiB. The
	// window is held in memory (about 0.8 KB an event in the soak): a
	// dashboard away for longer gets a snapshot, which is whole.
	Window, WindowBytes int
	// ChunkBytes is the size a snapshot chunk or a batch of events
	// stays under. 0 = 32 KiB (an SSE event of r3labs' server is formatted
	// in a pooled buffer up to 64 KiB; larger ones allocate their own).
	ChunkBytes int
	// ClaimTTL is how long a claim lasts without being renewed. 0 = 2m.
	ClaimTTL time.Duration
	// ReconcileEvery is how often the hub reconciles the decisions left
	// pending by a send that is over (a process that wrote the journal
	// and died; see approvals.Service.ReconcileAbandoned). 0 = 30s.
	ReconcileEvery time.Duration
	// ClockSkew is how far the time of a dashboard's decision may be from
	// the hub's clock. 0 = 5m.
	ClockSkew time.Duration
	// Coalesce is how long the hub gathers watcher events after the
	// first of a batch before it applies them and puts them on the feed
	// (a dashboard draws at most every 30 ms anyway): fewer, larger feed
	// events for every subscriber. 0 = 10ms; negative: none.
	Coalesce time.Duration

	// MaxClaimsPerOperator is how many claims one operator may hold at
	// once. 0 = 8 (a dashboard holds one).
	MaxClaimsPerOperator int
	// MaxRequestsPerOperator is how many requests of one operator the
	// hub serves at once, the feed aside; more are refused (429). 0 = 16.
	MaxRequestsPerOperator int
	// MaxFeedsPerOperator is how many feed connections one operator may
	// have open at once (one a dashboard); more are refused (429). 0 = 16.
	MaxFeedsPerOperator int
	// AcceptBrokenChain starts the hub on a journal whose hash chain is
	// broken, and records in the journal that it did (chain.go).
	AcceptBrokenChain bool

	// DecisionBodyBytes bounds the decision bodies (up to 16 MiB each)
	// the hub holds at once, every operator's together; a decision past
	// it is refused (503) until others end. 0 = 32 MiB.
	DecisionBodyBytes int64
}

// The defaults of Options' zero fields.
const (
	DefaultHeartbeat    = 15 * time.Second
	DefaultStallTimeout = 30 * time.Second
	DefaultWindow       = 10_000
	DefaultWindowBytes  = 64 << 20
	DefaultChunkBytes   = 32 << 10
	DefaultClaimTTL     = 2 * time.Minute
	DefaultReconcile    = 30 * time.Second
	DefaultClockSkew    = 5 * time.Minute
	DefaultCoalesce     = 10 * time.Millisecond
	DefaultMaxClaims    = 8
	DefaultMaxRequests  = 16
	DefaultMaxFeeds     = 16
	DefaultDecisionBody = 32 << 20
	// MaxEventBytes is the largest event the hub puts on the feed; a
	// larger watcher event goes out as the task the fleet holds (whose
	// content the fleet bounds). Clients accept events of twice as much.
	MaxEventBytes = 16 << 20
)

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Heartbeat, DefaultHeartbeat)
	def(&o.StallTimeout, DefaultStallTimeout)
	def(&o.ClaimTTL, DefaultClaimTTL)
	def(&o.ReconcileEvery, DefaultReconcile)
	def(&o.ClockSkew, DefaultClockSkew)
	if o.Coalesce == 0 {
		o.Coalesce = DefaultCoalesce
	}
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if o.WindowBytes <= 0 {
		o.WindowBytes = DefaultWindowBytes
	}
	if o.ChunkBytes <= 0 {
		o.ChunkBytes = DefaultChunkBytes
	}
	defInt := func(n *int, v int) {
		if *n <= 0 {
			*n = v
		}
	}
	defInt(&o.MaxClaimsPerOperator, DefaultMaxClaims)
	defInt(&o.MaxRequestsPerOperator, DefaultMaxRequests)
	defInt(&o.MaxFeedsPerOperator, DefaultMaxFeeds)
	if o.DecisionBodyBytes <= 0 {
		o.DecisionBodyBytes = DefaultDecisionBody
	}
	if o.Journal.Approver == "" {
		o.Journal.Approver = "a2atop serve"
	}
	return o
}

// Hub is a2atop's team server: the watchers and the fleet, run once; the
// journal; the feed every dashboard reads; the decisions, cancels and
// claims every operator asks for. Build it with Open, serve Handler and
// call Run. All methods are safe for concurrent use.
//
// The fleet is owned by Run's goroutine (the loop): events are applied
// there, and everything that reads the fleet (a snapshot, the checks of
// a decision) runs there too, through call.
type Hub struct {
	o    Options
	log  *slog.Logger
	ops  operators
	svc  *approvals.Service
	feed *feedLog
	sse  *sse.Server

	fleet *model.Fleet         // owned by the loop
	cache *taskCache           // owned by the loop
	noted map[noteKey]struct{} // the notes journaled (loop)
	snap  *snapshot            // the last snapshot built, reused while the log has not moved (loop)
	calls chan func()
	obs   chan []approvals.Observation

	byID   map[string]string // agent identity -> name
	agents map[string]bool

	subs subscribers
	gate gate

	team *team // nil for a hub that watches every agent itself

	metrics *metrics  // GET /metrics (metrics.go)
	ready   readiness // GET /readyz (health.go)

	mu       sync.Mutex
	deciding map[string]*deciding // prompt -> the decision being sent on it
	running  bool
	done     chan struct{} // closed when Run returns
	base     context.Context
}

// Open opens the hub's journal and builds the hub. It contacts no agent:
// Run starts the watchers.
func Open(o Options) (*Hub, error) {
	o = o.withDefaults()
	if o.Watchers == nil {
		return nil, errors.New("hub: no watchers")
	}
	if len(o.Operators) == 0 {
		return nil, errors.New("hub: no operators: add [[operator]] tables to the config (see config.example.toml)")
	}
	h := &Hub{o: o, log: o.Logger, ops: operators(o.Operators), feed: newFeedLog(o.Window, o.WindowBytes, feedMemory(o.Journal.Memory)),
		fleet: model.NewFleet(o.Fleet), cache: newTaskCache(), noted: map[noteKey]struct{}{}, calls: make(chan func()),
		obs: make(chan []approvals.Observation, 16), byID: map[string]string{}, agents: map[string]bool{},
		deciding: map[string]*deciding{}, done: make(chan struct{}), base: context.Background()}
	for _, a := range o.Agents {
		h.fleet.AddAgent(a.Name, a.URL)
		h.byID[identity(a.URL, a.Tenant)] = a.Name
		h.agents[a.Name] = true
	}
	if o.Team != nil {
		tm, err := newTeam(h, o.Team)
		if err != nil {
			return nil, err
		}
		h.team = tm
	}
	h.metrics = newMetrics(h)
	jo := o.Journal
	jo.OnJournal = h.journalLines
	jo.OnAppend = h.metrics.appended
	jo.Groups = operatorGroups(o.Operators, jo.Groups)
	svc, err := approvals.Open(jo)
	if err != nil {
		return nil, err
	}
	h.svc = svc
	if err := h.checkChain(); err != nil {
		svc.Close()
		return nil, err
	}
	h.feed.mu.Lock() // the Service may publish from a goroutine of its own already
	h.feed.holds = svc.Holds
	h.feed.mu.Unlock()
	h.trimJournal() // the lines read at Open, of entries the Service let go
	h.sse = newSSEServer(h)
	return h, nil
}

// Service is the hub's approvals Service: the team's journal.
func (h *Hub) Service() *approvals.Service { return h.svc }

// Epoch names this run of the hub; every feed id starts with it.
func (h *Hub) Epoch() string { return h.feed.epoch }

// Close closes the feed's connections, signs a last checkpoint of the
// journal's chain (with Journal.Checkpoints) and closes the journal.
// Call it after Run has returned (or instead of Run).
func (h *Hub) Close() error {
	h.sse.Close()
	h.checkpoint()
	return h.svc.Close()
}

// Run runs the watchers and the loop until ctx ends, then closes every
// feed connection. It reconciles what the journal left open (a crash
// while a decision was in flight) once the watchers run, and then every
// ReconcileEvery the decisions left pending by a writer that is gone
// since. It may be called once.
func (h *Hub) Run(ctx context.Context) error {
	h.mu.Lock()
	if h.running {
		h.mu.Unlock()
		return errors.New("hub: Run called twice")
	}
	h.running, h.base = true, ctx
	h.mu.Unlock()
	defer close(h.done)

	wctx, stopWatchers := context.WithCancel(ctx)
	watched := make(chan struct{})
	if h.team != nil {
		go func() { h.team.run(wctx); close(watched) }()
	} else {
		go func() { h.o.Watchers.Run(wctx); close(watched) }()
	}
	var bg sync.WaitGroup
	bg.Add(4)
	go func() { defer bg.Done(); h.followClaims(ctx) }()
	go func() { defer bg.Done(); h.background(ctx) }()
	go func() { defer bg.Done(); h.observer(ctx) }()
	go func() { defer bg.Done(); h.reconciler(ctx) }()
	bg.Add(1)
	go func() { defer bg.Done(); h.watchRecord(ctx) }() // record.go
	h.log.Info("hub running", "agents", len(h.o.Agents), "operators", people(h.o.Operators), "epoch", h.feed.epoch)

	h.loop(ctx)
	stopWatchers()
	for {
		select {
		case <-watched:
			h.subs.closeAll()
			bg.Wait()
			h.log.Info("hub stopped")
			return nil
		case <-h.o.Watchers.Events():
		case <-h.remote():
		case f := <-h.calls:
			f()
		}
	}
}

// remote is where the other hubs' events arrive; nil for a hub alone.
func (h *Hub) remote() <-chan []remoteMsg {
	if h.team == nil {
		return nil
	}
	return h.team.in
}

// loop applies the watchers' events in batches and runs what call hands
// it, until ctx ends.
func (h *Hub) loop(ctx context.Context) {
	events, remote := h.o.Watchers.Events(), h.remote()
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	batch := make([]model.Event, 0, 256)
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-events:
			batch = h.gather(append(batch[:0], ev), events)
			h.ingest(batch, true)
		case msgs := <-remote:
			h.ingestRemote(h.gatherRemote(msgs, remote))
		case f := <-h.calls:
			f()
		case <-tick.C:
			h.observe()
		}
	}
}

// maxBatch bounds the watcher events one ingest applies.
const maxBatch = 4096

// gather adds to batch the events that arrive within Coalesce of the
// first, at most maxBatch in all, running calls meanwhile (they see the
// fleet and the feed as they are: the batch is on neither yet).
func (h *Hub) gather(batch []model.Event, events <-chan model.Event) []model.Event {
	if h.o.Coalesce < 0 {
		for len(batch) < maxBatch {
			select {
			case ev := <-events:
				batch = append(batch, ev)
			default:
				return batch
			}
		}
		return batch
	}
	t := time.NewTimer(h.o.Coalesce)
	defer t.Stop()
	for len(batch) < maxBatch {
		select {
		case ev := <-events:
			batch = append(batch, ev)
		case f := <-h.calls:
			f()
		case <-t.C:
			return batch
		}
	}
	return batch
}

// gatherRemote adds to first the other hubs' batches waiting, at most
// maxBatch events in all.
func (h *Hub) gatherRemote(first []remoteMsg, remote <-chan []remoteMsg) []remoteMsg {
	for len(first) < maxBatch {
		select {
		case more := <-remote:
			first = append(first, more...)
		default:
			return first
		}
	}
	return first
}

// errStopped is what a call answers once the hub has stopped.
var errStopped = errors.New("the hub is stopping")

// call runs f on the loop, which owns the fleet, and waits for it.
func (h *Hub) call(ctx context.Context, f func()) error {
	done := make(chan struct{})
	select {
	case h.calls <- func() { f(); close(done) }:
	case <-ctx.Done():
		return ctx.Err()
	case <-h.done:
		return errStopped
	}
	<-done
	return nil
}

// Inspect runs f on the hub's fleet, on the loop, and waits: for tests
// and tools that compare a fleet with the hub's. f must not keep the
// fleet or its tasks.
func (h *Hub) Inspect(ctx context.Context, f func(*model.Fleet)) error {
	return h.call(ctx, func() { f(h.fleet) })
}

// ingest applies a batch of watcher events to the fleet and puts them
// on the feed, one entry per agent and chunk. The events are encoded
// before Apply: the fleet owns their pointers afterwards. own events are
// this hub's watchers': a hub of a team publishes them to the others
// (an event too large for the events' stream goes as the task the fleet
// holds, as one too large for the feed does).
func (h *Hub) ingest(batch []model.Event, own bool) {
	var c, p chunker
	c.max, p.max = h.o.ChunkBytes, h.o.ChunkBytes
	pub := own && h.team != nil
	var big, bigPub []model.TaskKey
	for i := range batch {
		ev := &batch[i]
		data := encode(EventOf(*ev))
		if len(data) > MaxEventBytes {
			big = append(big, keyOf(ev))
			h.log.Warn("an event too large for the feed goes out as the task the fleet holds", "agent", ev.Agent, "bytes", len(data))
			continue
		}
		c.add(ev.Agent, data)
		if pub && len(data) > h.team.pubMax() {
			bigPub = append(bigPub, keyOf(ev))
		} else if pub {
			p.add(ev.Agent, data)
		}
		h.cache.touch(ev)
	}
	res := h.fleet.Apply(batch)
	h.metrics.events.Add(float64(len(batch)))
	h.metrics.batches.Inc()
	for _, k := range big {
		h.cache.touch(&model.Event{Kind: model.EventTask, Agent: k.Agent, Task: &a2a.Task{ID: k.ID}})
		if t := h.fleet.Task(k); t != nil {
			if data := encode(taskEvent(t)); len(data) <= MaxEventBytes {
				c.add(k.Agent, data)
			}
		}
		if pub {
			bigPub = append(bigPub, k)
		}
	}
	for _, k := range bigPub {
		t := h.fleet.Task(k)
		if t == nil {
			continue
		}
		data := encode(taskEvent(t))
		if len(data) > h.team.pubMax() {
			data = encode(slim(t))
		}
		if len(data) > h.team.pubMax() {
			h.log.Warn("a task too large for the events' stream is left to the other hubs' next resync", "agent", k.Agent, "bytes", len(data))
			continue
		}
		p.add(k.Agent, data)
	}
	if res.Evicted > 0 {
		h.cache.sweep = true
	}
	if !pub || !h.team.shared.Load() { // a team's feed takes them from its stream (shared.go)
		h.feed.append(c.entries(EventEvents)...)
	}
	if pub {
		h.team.publish(p.entries(EventEvents))
	}
	if len(res.Left) > 0 {
		h.observe()
	}
}

// observe hands the observer the states the fleet shows for the tasks
// the journal follows (see approvals.Service.Observations).
func (h *Hub) observe() {
	obs := h.svc.Observations(h.fleet)
	if len(obs) == 0 {
		return
	}
	select {
	case h.obs <- obs:
	default: // the observer is busy; the next tick asks again
	}
}

// observer journals observations off the loop (the journal's disk).
func (h *Hub) observer(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case obs := <-h.obs:
			if err := h.svc.Observe(obs); err != nil {
				h.log.Error("journal: observing the fleet", "err", err)
			}
		}
	}
}

// reconciler resolves what the journal left open (a decision in flight
// when the hub stopped) at the start, then every ReconcileEvery the
// decisions left pending by a writer that died since (another a2atop on
// the journal, killed mid-send): with GetTask, never by sending again.
// Without it such a prompt stays refused until POST /v1/reconcile.
func (h *Hub) reconciler(ctx context.Context) {
	h.logReconciled(h.svc.Reconcile(ctx))
	t := time.NewTicker(h.o.ReconcileEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			h.logReconciled(h.svc.ReconcileAbandoned(ctx))
		}
	}
}

func (h *Hub) logReconciled(outs []approvals.Outcome) {
	for _, o := range outs {
		if o.Result.Open() {
			h.log.Debug("an open decision could not be reconciled yet", "id", o.MessageID, "agent", o.Agent, "err", o.Err)
			continue
		}
		h.log.Info("reconciled an open decision", "id", o.MessageID, "agent", o.Agent, "result", string(o.Result))
	}
}

// background follows what other processes append to the journal, ends
// idle claims and closes stalled subscribers, until ctx ends.
func (h *Hub) background(ctx context.Context) {
	every := min(time.Second, h.o.StallTimeout/4, h.o.ClaimTTL/4)
	t := time.NewTicker(every)
	defer t.Stop()
	changes := h.svc.Changes() // nil for a journal file: the clock reads it
	for {
		select {
		case <-ctx.Done():
			return
		case <-changes:
			if _, err := h.svc.Refresh(); err != nil {
				h.log.Error("journal: following", "err", err)
			}
		case <-t.C:
			_, err := h.svc.Refresh()
			if err != nil {
				h.log.Error("journal: following", "err", err)
			}
			h.ready.noteFollow(time.Now(), err)
			h.metrics.followed(err)
			h.expireClaims()
			h.subs.closeStalled(time.Now(), h.o.StallTimeout, h.log) // real time, whatever clock the journal uses
		}
	}
}

// context is the hub's lifetime: a send that a dashboard asked for goes
// on even when the dashboard hangs up.
func (h *Hub) context() context.Context {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.base
}

func keyOf(ev *model.Event) model.TaskKey {
	k := model.TaskKey{Agent: ev.Agent}
	switch {
	case ev.Task != nil:
		k.ID = ev.Task.ID
	case ev.Status != nil:
		k.ID = ev.Status.TaskID
	case ev.Artifact != nil:
		k.ID = ev.Artifact.TaskID
	}
	return k
}
