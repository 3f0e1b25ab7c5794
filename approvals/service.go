package approvals

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/user"
	"sort"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// Options configure a Service. JournalPath is required.
type Options struct {
	JournalPath string              // the JSONL journal in the state dir; created 0600
	Sender      Sender              // *a2aclient.Manager; nil: Send refuses and Reconcile does nothing
	Approver    string              // "user@host"; "" = DefaultApprover()
	Templates   map[string]Template // agent name -> approve/deny shape; missing = default
	// Agents are the configured agents, by the name the fleet and the
	// Sender use and by identity (URL, tenant). Decisions are keyed by
	// identity; entries show the name an agent has now. An agent not
	// listed is known by its name alone.
	Agents []Agent
	Now    func() time.Time // nil = time.Now
	Logger *slog.Logger     // nil discards: once the TUI runs nothing may print
	// QuietPeriod is how long a confirmation waits with no keypress before
	// it can be confirmed (see Arming). 0 = DefaultQuietPeriod.
	QuietPeriod time.Duration
	// ReadOnly opens the journal for reading only (a2atop journal check, a
	// --read-only dashboard: a viewer records nothing): nothing is
	// recorded, so nothing is decided or sent (every such call fails with
	// ErrJournalReadOnly). It is not the refusal to send to a read-only
	// agent: that is the a2aclient Manager's alone, and the screens only
	// hide the keys that would ask it.
	ReadOnly bool
	// SendTimeout bounds each Reply and GetTask call. 0 = 30s.
	SendTimeout time.Duration
	// ReconcileHistory is the historyLength asked for when looking for our
	// messageId in a task's history. 0 = the server's default (often all).
	ReconcileHistory int
	// NewID makes messageIds. nil = a2a.NewMessageID (UUID).
	NewID func() string
	// Memory is how many entries (decisions and observations) the Service
	// keeps in memory, the newest, besides the open decisions (pending,
	// unknown, being sent), which it always keeps; up to a quarter more
	// are held before the oldest are let go. What leaves memory stays in
	// the journal file: History reads it back. 0 = DefaultMemory;
	// MemoryAll keeps every one.
	Memory int
	// Check reads the whole journal, every segment from the oldest, as
	// MemoryAll does, while it holds in memory no more entries than
	// Memory says: a record of a decision no readable line holds is found
	// all the same, from the ids of the decisions read (16 bytes each).
	// For a2atop journal check, which would otherwise hold every entry.
	Check bool
	// DraftsPath is the file replies written and kept, not sent, are kept
	// in (see Draft), so that they outlive the dashboard. "" = the
	// journal's path + ".drafts"; attached to a hub, none unless set.
	DraftsPath string
	// Segment says when the journal file is closed and a new segment
	// begun (see SegmentPolicy); the zero policy keeps one file. With
	// MemoryAll every segment is read, oldest first.
	Segment SegmentPolicy

	// Team mode (see Hub). Hub, when set, attaches the Service to a
	// team's hub: it keeps the hub's journal as Follow delivers it
	// (JournalPath and Sender are not used), and Send, Reconcile and
	// NoteLeft go to the hub; Observe is the hub's own work.
	Hub Hub
	// Policies are the agents' approval policies, by agent name (see
	// Policy): under one, approve and deny are votes. Missing: one click.
	Policies map[string]Policy
	// Groups are the groups of each approver (the [[operator]] groups),
	// for a Policy's Approvers.
	Groups map[string][]string

	// OnJournal, when set, receives every line of the journal as it is
	// read or written, in the journal's order, for a hub to publish. It
	// runs under the journal's hold: it must not block or call back.
	OnJournal func([]JournalLine)
	// OnAppend, when set, is told of every append to the journal's store:
	// how many records, how long it took (the store's hold, write and
	// sync) and its error. It must not block or call back.
	OnAppend func(records int, took time.Duration, err error)
	// Checkpoints, when set, make this Service sign the chain's head
	// every Every records and on Checkpoint (a hub's journal; chain.go).
	Checkpoints *Checkpoints
	// HubRecord, for a Service attached to a hub (Hub) whose journal is a
	// shared record, is what the hub says holds its lines instead of the
	// hash chain (hub.Me.Record): the Service then walks no chain and its
	// Chain says so, as the hub's does (chain_shared.go).
	HubRecord string
	// Shared, when set, keeps the journal in a store several hubs share
	// (see SharedLog) instead of the file at JournalPath. The Service
	// closes it.
	Shared SharedLog
}

// DefaultQuietPeriod is the quiet period used when Options leave it 0.
const DefaultQuietPeriod = 600 * time.Millisecond

// DefaultApprover returns "user@host" for the journal and the approve/deny
// payload.
func DefaultApprover() string {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	if name == "" {
		name = "unknown"
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return name + "@" + host
}

// Service owns the journal and the sending of decisions. All methods are
// safe for concurrent use; the ones that touch the network or the disk
// block and belong in a tea.Cmd. Several Services, in one process or in
// several, may share one journal: each check-and-record is made under the
// store's exclusive hold, after reading what the others appended.
type Service struct {
	o    Options
	log  *slog.Logger
	st   store
	book agentBook
	host string // os.Hostname, recorded with each decision
	id   string // this Service's id in its process, recorded with each decision (see sendingElsewhere)

	mu       sync.Mutex
	entries  map[string]*Entry   // decisions by messageId
	order    []*Entry            // decisions and observations, in journal order
	byPrompt map[string][]string // promptKey -> messageIds, oldest first
	tracked  map[taskRef]*Entry  // the last decision on each task the journal has not seen end
	inFlight map[string]bool
	// inFlightPrompt holds, per promptKey, the decision being sent on it.
	inFlightPrompt map[string]string
	damage         map[int]*Damage // lines that are not records, by line number
	acks           map[ackKey]ack
	votes          map[taskRef]*taskVotes // the votes on each task's latest prompt voted on, until decided
	voteIDs        map[string]bool        // the ids of the votes in votes (Holds)
	loaded         bool                   // the journal as it was at Open is folded in: later lines come from other writers
	fresh          []string               // decisions other writers journaled since the last Refresh
	freshDamage    []int
	version        uint64   // increments on every line folded in
	touched        touchLog // the tasks whose decisions changed, for QueueCache
	refreshed      uint64   // version at the last Refresh
	forgotten      int      // entries let go from memory (see forget)
	// seen holds, with Options.Check, the ids of the decisions read and
	// seenAgents the agents they name, so that a record of a decision let
	// go from memory is told from one of a decision no line holds. nil
	// otherwise, and once a segment says entries before it are not read.
	seen       map[idKey]struct{}
	seenAgents map[string]bool

	walk chainWalk // the chain, checked as lines fold in (chain_service.go)
	segs segView   // the journal's files as of the last fold, to name the walk's lines (segment_chain.go)

	draftMu sync.Mutex // one change of the drafts file at a time in this process
	unsent  unsent     // decisions refused for a shared record out of reach (shared.go)
}

// taskRef is a task of an agent, by the agent's identity.
type taskRef struct {
	agent string
	task  a2a.TaskID
}

// Open opens (or creates) the journal and loads it. It does not contact
// any agent: call Reconcile to resolve what a crash left open.
func Open(o Options) (*Service, error) {
	if o.JournalPath == "" && o.Hub == nil && o.Shared == nil {
		return nil, errors.New("approvals: no journal path; set the state directory")
	}
	o = o.withDefaults()
	for agent, t := range o.Templates {
		if err := t.Validate(); err != nil {
			return nil, fmt.Errorf("approvals: agent %q: %w", agent, err)
		}
	}
	st, err := openStore(o)
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	s := &Service{o: o, log: o.Logger, st: st, book: newAgentBook(o.Agents), host: host, id: newServiceID(), entries: map[string]*Entry{},
		byPrompt: map[string][]string{}, tracked: map[taskRef]*Entry{}, inFlight: map[string]bool{},
		inFlightPrompt: map[string]string{}, damage: map[int]*Damage{}, acks: map[ackKey]ack{}, votes: map[taskRef]*taskVotes{}, voteIDs: map[string]bool{}}
	if o.Check {
		s.seen, s.seenAgents = map[idKey]struct{}{}, map[string]bool{}
	}
	if err := s.useSegments(); err != nil {
		st.close()
		return nil, err
	}
	s.walk = newChainWalk(st.where(), o.chainKey())
	s.walk.partial, s.walk.st.Partial = o.Hub != nil, o.Hub != nil
	s.expectHead()
	if err := st.follow(s.foldFrom); err != nil {
		st.close()
		return nil, err
	}
	s.mu.Lock()
	s.loaded, s.fresh, s.freshDamage, s.refreshed = true, nil, nil, s.version
	s.mu.Unlock()
	markServiceOpen(s.id)
	return s, nil
}

// withDefaults fills in what the options leave zero.
func (o Options) withDefaults() Options {
	if o.Approver == "" {
		o.Approver = DefaultApprover()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.QuietPeriod <= 0 {
		o.QuietPeriod = DefaultQuietPeriod
	}
	if o.SendTimeout <= 0 {
		o.SendTimeout = 30 * time.Second
	}
	if o.NewID == nil {
		o.NewID = a2a.NewMessageID
	}
	return o
}

// Close closes the journal file.
func (s *Service) Close() error {
	closeService(s.id)
	return s.st.close()
}

// ReadOnly reports whether the journal was opened for reading only.
func (s *Service) ReadOnly() bool { return s.o.ReadOnly }

// QuietPeriod is the quiet period confirmations use (see Arming).
func (s *Service) QuietPeriod() time.Duration { return s.o.QuietPeriod }

// Approver is the "user@host" recorded with each decision.
func (s *Service) Approver() string { return s.o.Approver }

// Path is where the journal is, for messages.
func (s *Service) Path() string { return s.st.where() }

func promptKey(agentID string, id a2a.TaskID, prompt string) string {
	return agentID + "\x00" + string(id) + "\x00" + prompt
}

// foldFrom folds lines the store read or wrote, and hands them to
// Options.OnJournal.
func (s *Service) foldFrom(lines []line, mine bool) {
	s.mu.Lock()
	s.noteFiles()
	for _, l := range lines {
		cl := chainLineOf(l)
		if s.walkLine(l, cl) {
			continue
		}
		if l.err != nil {
			s.noteDamage(l)
			continue
		}
		s.fold(l, mine)
		s.noteLine(l, cl)
	}
	s.mu.Unlock()
	s.publish(lines)
}

// fold applies one record to the in-memory view. mine is true for a
// record this Service wrote. Callers hold s.mu.
func (s *Service) fold(l line, mine bool) {
	r := l.rec
	s.version++
	switch r.Type {
	case recTorn:
		s.markTorn(r)
		return
	case recAck:
		s.noteAck(r)
		return
	case recVote:
		s.noteVote(r)
		return
	case recSegment:
		s.noteSegment(r)
		return
	case recCheckpoint, recChainAccept: // the chain's own (Service.Chain)
		return
	}
	if r.ID == "" {
		e := &Entry{}
		s.resolveAgent(e, r)
		e.applyRecord(r)
		s.order = append(s.order, e)
		s.forget()
		return
	}
	e := s.entries[r.ID]
	if e == nil {
		if r.Type != recDecision {
			if s.orphan(r.ID) {
				s.noteOrphan(l)
			}
			return
		}
		e = &Entry{self: mine, Elsewhere: !mine && (s.loaded || r.Approver != s.o.Approver)}
		if s.o.Hub != nil { // every record is the hub's: another approver is elsewhere
			e.Elsewhere = r.Approver != s.o.Approver
		}
		s.resolveAgent(e, r)
		s.entries[r.ID] = e
		s.noteSeen(r.ID, e.agentID)
		s.order = append(s.order, e)
		k := promptKey(e.agentID, r.Task, r.Prompt)
		s.byPrompt[k] = append(s.byPrompt[k], r.ID)
		defer s.dropVotes(e)
		if e.Elsewhere && s.loaded {
			s.fresh = append(s.fresh, r.ID)
		}
	} else if e.Elsewhere && !mine && s.loaded {
		s.fresh = append(s.fresh, r.ID) // its outcome, its states: reported again as it stands (Refresh drops repeats)
	}
	e.applyRecord(r)
	s.touched.add(e.TaskID)
	s.track(e, r)
	s.forget()
}

// resolveAgent sets the entry's agent: its identity and the name it has now.
func (s *Service) resolveAgent(e *Entry, r record) {
	rs := s.book.resolve(r.Agent, r.URL, r.Tenant)
	e.agentID, e.Agent, e.AgentNote = rs.id, rs.name, rs.note
	e.AgentURL, e.Tenant = r.URL, r.Tenant
	if e.AgentURL == "" {
		e.AgentURL, e.Tenant = s.book.urlOf(rs.name)
	}
	if r.Agent != rs.name {
		e.RecordedAs = r.Agent
	}
}

// track keeps, per task, the last decision on it until the journal
// records that the task ended (see Observations).
func (s *Service) track(e *Entry, r record) {
	if e.Kind.startsTask() {
		return
	}
	ref := taskRef{e.agentID, e.TaskID}
	ended := (r.Type == recState && model.ClassOf(r.To) == model.ClassTerminal) ||
		(r.Type == recOutcome && model.ClassOf(r.State) == model.ClassTerminal)
	switch {
	case r.Type == recDecision && !ended:
		s.tracked[ref] = e
	case ended && s.tracked[ref] == e:
		delete(s.tracked, ref)
	}
}

// appendChecked appends, under the store's exclusive hold and after
// folding in what other writers appended, the records check returns.
// check runs with s.mu held and sees the journal as it is in the file; it
// returns no records to write nothing.
func (s *Service) appendChecked(check func() ([]record, error)) error {
	if s.o.ReadOnly {
		return ErrJournalReadOnly
	}
	start, n := time.Now(), 0
	err := s.st.update(s.foldFrom, func() ([]record, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		recs, err := check()
		n = 0 // a shared store checks again after another hub came first: a refusal then writes nothing
		if err == nil {
			n = len(recs)
		}
		for i := range recs {
			if recs[i].Agent != "" && recs[i].URL == "" { // the agent's identity, beside the name it has now
				recs[i].URL, recs[i].Tenant = s.book.urlOf(recs[i].Agent)
			}
			if recs[i].At.IsZero() {
				recs[i].At = s.o.Now().UTC()
			}
			if recs[i].Parts != nil { // the journal keeps its own parts, apart from the message sent
				recs[i].Parts = clonePart(recs[i].Parts)
			}
		}
		return recs, err
	})
	if s.o.OnAppend != nil && n > 0 { // records were to be written: written, or the store failed
		s.o.OnAppend(n, time.Since(start), err)
	}
	return err
}

// write appends a record to the journal and folds it in.
func (s *Service) write(r record) error {
	return s.appendChecked(func() ([]record, error) { return []record{r}, nil })
}

// Journal returns every entry, newest first (by decision or observation
// time).
func (s *Service) Journal() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Entry, 0, len(s.order))
	for i := len(s.order) - 1; i >= 0; i-- {
		out = append(out, copyEntry(s.order[i]))
	}
	sort.SliceStable(out, func(a, b int) bool { return entryTime(out[a]).After(entryTime(out[b])) })
	return out
}

// Version increments whenever the journal gains a record, so a view can
// tell whether it must read Journal again.
func (s *Service) Version() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// Entry returns the decision with this messageId.
func (s *Service) Entry(messageID string) (Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[messageID]
	if !ok {
		return Entry{}, false
	}
	return copyEntry(e), true
}

// Prior returns the latest decision recorded for this prompt of this task
// (see PromptOf). The UI shows it and asks the operator to confirm again
// before a second decision; Prepare and Send refuse without that.
func (s *Service) Prior(agent string, id a2a.TaskID, prompt string) (Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := s.byPrompt[promptKey(s.book.idOf(agent), id, prompt)]
	if len(ids) == 0 {
		return Entry{}, false
	}
	return copyEntry(s.entries[ids[len(ids)-1]]), true
}

func entryTime(e Entry) time.Time {
	if !e.DecidedAt.IsZero() {
		return e.DecidedAt
	}
	if len(e.States) > 0 {
		return e.States[0].At
	}
	return time.Time{}
}

// copyEntry copies an entry's fields and slices. The parts themselves are
// shared: they were cloned once when the record was written or read back
// and nothing changes them afterwards (see Entry). Cloning them on every
// call made Journal cost ~80 ms with 10,000 decisions (BenchmarkJournal10k).
func copyEntry(e *Entry) Entry {
	c := *e
	c.Parts = append([]*a2a.Part(nil), e.Parts...)
	c.Refs = append([]a2a.TaskID(nil), e.Refs...)
	c.States = append([]StateChange(nil), e.States...)
	c.Lines = append([]LineRef(nil), e.Lines...)
	return c
}
