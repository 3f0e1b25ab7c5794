package model

import (
	"hash/maphash"
	"slices"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TaskKey names one task in the fleet: task ids are unique only within
// one agent, so the key carries the agent's configured name.
type TaskKey struct {
	Agent string
	ID    a2a.TaskID
}

// Task is one task as the Fleet holds it. Callers read it and must not
// change it; the Fleet updates it in place when events arrive, so a
// *Task stays valid (and current) until the task is evicted. That holds
// for Snapshot too (status and artifact events change it in place): copy
// the fields a tea.Cmd needs before it runs on another goroutine.
type Task struct {
	// The fields a status event reads come first, in the first two cache
	// lines (a Task is 64-byte aligned): at 100,000 tasks every line an
	// event touches is a cache miss (BENCHMARKS.md, model).

	Key      TaskKey
	Snapshot *a2a.Task     // latest; history and artifacts capped by Options
	State    a2a.TaskState // normalized (NormalizeState); an unknown name is kept as sent
	// Updated is the status timestamp, or when we heard the status if
	// the agent gave none.
	Updated   time.Time
	LastHeard time.Time // when we last heard of it, even from an event that changed nothing (Version does not move for that alone)
	// Text is the status message's text parts joined on one line (raw).
	Text  string
	Class Class
	// Gone is set when the agent answered that it no longer knows the
	// task (TaskNotFound, which may also mean access was lost). The task
	// stays on screen in the terminal pane (Class is ClassTerminal while
	// State keeps the last state heard); a later event for it clears
	// Gone and puts it back in the pane of its state.
	Gone     bool
	dirty    bool // changed since the pane indexes last saw it (view.go)
	hasTS    bool // Updated is the agent's status timestamp
	hasRefs  bool // status message, history or metadata may name a blocker
	histRefs bool // some history message names a blocker
	metaRefs bool // the snapshot's metadata has the agent's chain key
	hasCtx   bool // Snapshot.ContextID is set

	// Written by every event, read rarely (stores need not wait).

	Source  Source // where the data we hold came from
	Stale   bool   // its agent is unreachable, unauthorized or backing off
	removed bool   // evicted; the indexes drop it at the next sync
	start   Class  // class at the start of the batch that last touched its class
	heapIdx int32  // position in the agent's terminal heap, -1 if none
	fp      uint64 // fingerprint of the last snapshot as received; 0 = unknown
	agent   *Agent
	mark    uint64 // the batch that last touched its class (apply.go)
	// Rev moves each time the task's data changes (its snapshot, state,
	// status or artifacts): a view that built something from the task
	// compares it to know whether that is still current.
	Rev uint64

	// Cold: read by queries, set on creation, or rarely changed. Keep
	// the Task within 320 bytes, a size class whose objects are 64-byte
	// aligned, so the two lines above are two lines.

	twin      *Task  // the next task in the same Fleet.byID chain
	slot      uint32 // index in Fleet.slots
	heldIdx   int32  // index in agent.held
	seq       uint64 // creation order, unique: the last sort tie-break
	ixUpd     int64  // -Updated in ns, as indexed
	ixSince   int64  // Since in ns, as indexed
	artBytes  int    // artifact bytes held (estimate), against MaxArtifactBytes
	msgBytes  int32  // bytes held by the status message (estimate), against MaxAgentBytes
	restBytes int32  // bytes held by history and metadata (estimate)
	indexed   bool   // the pane indexes hold it under ixClass, ixUpd, ixSince
	ixClass   Class
	trimmed   bool // details were trimmed for MaxAgentBytes (budget.go)
	// Truncated is set when history or artifact content was cut to the
	// Options caps; the detail view fetches the rest with GetTask.
	Truncated bool
	// Violations counts protocol violations seen on this task (states
	// stamped later than the terminal state it had reached), up to
	// math.MaxInt32. An int32, so that the Task stays within 320 bytes.
	Violations int32

	// Since is the earliest time we know for the task: the status
	// timestamp (or arrival time) of the first event we saw for it. It
	// does not change afterwards; it is the "age" column and SortAge.
	Since     time.Time
	FirstSeen time.Time // when we first heard of the task (local clock)
	// Hint is the task's own one-line result summary, for example
	// "1 failed / 11 passed" for a COMPLETED task whose data artifact
	// reports failures. Raw agent data: the UI sanitizes it. The hints
	// that depend on other tasks or on the agent ("waiting on …",
	// "stale: …") are computed by Fleet.RowHint.
	Hint string
	// Partial lists artifacts still being streamed: an append chunk
	// arrived and no lastChunk yet. Cleared when the task ends.
	Partial []a2a.ArtifactID
}

// Agent is one agent of the fleet: configured (AddAgent) or first heard
// of through an event. Callers read it and must not change it.
type Agent struct {
	Name       string
	URL        string
	Info       AgentInfo    // from the agent's card (EventAgent)
	Health     HealthUpdate // from the watcher (EventHealth)
	Violations int          // protocol violations seen on this agent's tasks
	Counts     [4]int       // tasks held, by Class
	// Configured is true for agents added with AddAgent.
	Configured bool
	// Bytes is the content its tasks hold, by estimate (budget.go), and
	// Trimmed how many of its tasks had details trimmed to keep Bytes
	// within Options.MaxAgentBytes.
	Bytes, Trimmed int

	pos      int      // index in Fleet.agents
	held     []*Task  // its tasks, in no order (Task.heldIdx), for health changes
	term     termHeap // terminal tasks, oldest Updated first, for eviction
	chainKey string   // Options.ChainKeys[Name]
	rank     uint32   // position by name, for SortAgent
	over     bool     // in Fleet.over: past MaxAgentBytes in this batch
	shared   bool     // its last trim was to its share of MaxFleetBytes, not to MaxAgentBytes
}

// Options bounds what a Fleet keeps in memory. A zero field takes its
// default; a negative one means no limit.
type Options struct {
	// MaxHistory is the number of history messages kept per task (the
	// newest). Default 20.
	MaxHistory int
	// MaxArtifactBytes caps the artifact content kept per task (text and
	// raw bytes, data parts by estimate). Default 64 KiB.
	MaxArtifactBytes int
	// MaxTerminalPerAgent caps the terminal tasks kept per agent, and
	// those the agent said it no longer knows (Gone); the oldest (by
	// Updated) are evicted first. Other active, interrupted and unknown
	// tasks are never evicted. Default 1000.
	MaxTerminalPerAgent int
	// MaxAgentBytes caps the content (status messages, history,
	// artifacts, metadata; by estimate) one agent's tasks hold together;
	// past it the least recently updated tasks lose details first
	// (budget.go). Default 32 MiB.
	MaxAgentBytes int
	// MaxFleetBytes caps the content all agents' tasks hold together;
	// past it the agents holding the most are trimmed to an even share
	// (budget.go). Default 32 MiB; negative for none.
	MaxFleetBytes int
	// ChainKeys names, per agent, a metadata key whose value (a task id
	// string, or a list of them) names the task this one waits on, for
	// agents that do not use referenceTaskIds.
	ChainKeys map[string]string
}

// The defaults for zero Options fields.
const (
	DefaultMaxHistory          = 20
	DefaultMaxArtifactBytes    = 64 << 10
	DefaultMaxTerminalPerAgent = 1000
	DefaultMaxAgentBytes       = 32 << 20
	DefaultMaxFleetBytes       = 32 << 20
)

// WithDefaults is o with every zero field given its default, as NewFleet
// applies them.
func (o Options) WithDefaults() Options {
	if o.MaxHistory == 0 {
		o.MaxHistory = DefaultMaxHistory
	}
	if o.MaxArtifactBytes == 0 {
		o.MaxArtifactBytes = DefaultMaxArtifactBytes
	}
	if o.MaxTerminalPerAgent == 0 {
		o.MaxTerminalPerAgent = DefaultMaxTerminalPerAgent
	}
	if o.MaxAgentBytes == 0 {
		o.MaxAgentBytes = DefaultMaxAgentBytes
	}
	if o.MaxFleetBytes == 0 {
		o.MaxFleetBytes = DefaultMaxFleetBytes
	}
	return o
}

// Fleet is everything the dashboard knows: agents, their tasks, and the
// indexes behind the panes. The zero value is not usable; call NewFleet.
// A Fleet is owned by one goroutine and is not safe for concurrent use.
type Fleet struct {
	opts   Options
	agents []*Agent
	byName map[string]*Agent
	// byID holds every task by idHash(Key.ID); tasks whose ids hash
	// alike (the same id at another agent, or a collision) follow twin.
	byID    map[uint64]*Task
	seed    maphash.Seed
	last    *Agent // the agent of the previous event: batches come per agent
	version uint64
	seq     uint64
	ntasks  int

	// batch bookkeeping (apply.go)
	batch   uint64
	touched []*Task
	res     ApplyResult
	over    []*Agent // agents past MaxAgentBytes in this batch (budget.go)
	bytes   int      // the content all agents hold, the sum of their Bytes

	// pane indexes (view.go)
	dirty []*Task
	views []*view
	tick  uint64
	slots []*Task  // the tasks by slot, as index entries name them
	free  []uint32 // slots to reuse

	// the states and streams of tasks that changed state or streamed
	// (trail.go)
	trails map[*Task]*trail

	changes changeLog // every task changed, for ChangedSince (changes.go)

	// chain cache (chain.go)
	referrers  map[*Task]struct{}
	waiters    map[*Task][]*Task
	waitersVer uint64
	waitersOK  bool
}

// NewFleet returns an empty fleet bounded by o.
func NewFleet(o Options) *Fleet {
	return &Fleet{
		opts:      o.WithDefaults(),
		byName:    make(map[string]*Agent),
		byID:      make(map[uint64]*Task),
		seed:      maphash.MakeSeed(),
		referrers: make(map[*Task]struct{}),
	}
}

// AddAgent adds a configured agent so that it shows before its first
// event. Adding a name again updates its URL.
func (f *Fleet) AddAgent(name, url string) {
	a := f.agent(name)
	a.Configured = true
	if url != "" && a.URL != url {
		a.URL = url
	}
	f.version++
}

// agent returns the named agent, creating it if needed.
func (f *Fleet) agent(name string) *Agent {
	if f.last != nil && f.last.Name == name {
		return f.last
	}
	if a, ok := f.byName[name]; ok {
		f.last = a
		return a
	}
	a := &Agent{Name: name, pos: len(f.agents), chainKey: f.opts.ChainKeys[name]}
	f.byName[name] = a
	f.agents = append(f.agents, a)
	f.rankAgents()
	f.version++
	return a
}

// Task returns the task with key k, or nil if the fleet does not hold it.
func (f *Fleet) Task(k TaskKey) *Task {
	return f.find(k.Agent, k.ID)
}

// Lookup returns every agent's task with this id, in agent order. Task
// ids are unique per agent only, so there may be more than one.
func (f *Fleet) Lookup(id a2a.TaskID) []*Task {
	var out []*Task
	for t := f.byID[f.idHash(id)]; t != nil; t = t.twin {
		if t.Key.ID == id {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *Task) int { return a.agent.pos - b.agent.pos })
	return out
}

// Agents returns the agents in AddAgent order, then in the order they
// were first heard of. The slice is the caller's; the agents are not.
func (f *Fleet) Agents() []*Agent {
	return append([]*Agent(nil), f.agents...)
}

// Agent returns the named agent, or nil.
func (f *Fleet) Agent(name string) *Agent {
	return f.byName[name]
}

// Len returns the number of tasks the fleet holds.
func (f *Fleet) Len() int { return f.ntasks }

// Version increments on every change, so a view can tell whether it must
// redraw.
func (f *Fleet) Version() uint64 { return f.version }

// Options returns the options in effect (defaults filled in).
func (f *Fleet) Options() Options { return f.opts }
