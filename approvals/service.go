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
)

// Options configure a Service. JournalPath and Sender are required
// (Sender may be nil when ReadOnly).
type Options struct {
	JournalPath string              // the JSONL journal in the state dir; created 0600
	Sender      Sender              // *a2aclient.Manager
	Approver    string              // "user@host"; "" = DefaultApprover()
	Templates   map[string]Template // agent name -> approve/deny shape; missing = default
	Now         func() time.Time    // nil = time.Now
	Logger      *slog.Logger        // nil discards: once the TUI runs nothing may print
	// QuietPeriod is how long a confirmation waits with no keypress before
	// it can be confirmed (see Arming). 0 = DefaultQuietPeriod.
	QuietPeriod time.Duration
	// ReadOnly refuses every write: nothing is sent, nothing is journaled.
	ReadOnly bool
	// SendTimeout bounds each Reply and GetTask call. 0 = 30s.
	SendTimeout time.Duration
	// ReconcileHistory is the historyLength asked for when looking for our
	// messageId in a task's history. 0 = the server's default (often all).
	ReconcileHistory int
	// NewID makes messageIds. nil = a2a.NewMessageID (UUID).
	NewID func() string
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
// block and belong in a tea.Cmd.
type Service struct {
	o   Options
	log *slog.Logger
	j   *journal

	mu       sync.Mutex
	entries  map[string]*Entry   // decisions by messageId
	order    []*Entry            // decisions and observations, in journal order
	byPrompt map[string][]string // promptKey -> messageIds, oldest first
	inFlight map[string]bool
	// inFlightPrompt holds, per promptKey, the decision being sent on it.
	inFlightPrompt map[string]string
	version        uint64 // increments on every record folded in
}

// Open opens (or creates) the journal and loads it. It does not contact
// any agent: call Reconcile to resolve what a crash left open.
func Open(o Options) (*Service, error) {
	if o.JournalPath == "" {
		return nil, errors.New("approvals: no journal path; set the state directory")
	}
	if o.Sender == nil && !o.ReadOnly {
		return nil, errors.New("approvals: no sender to reach agents")
	}
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
	for agent, t := range o.Templates {
		if err := t.Validate(); err != nil {
			return nil, fmt.Errorf("approvals: agent %q: %w", agent, err)
		}
	}
	j, recs, err := openJournal(o.JournalPath, o.ReadOnly)
	if err != nil {
		return nil, err
	}
	s := &Service{o: o, log: o.Logger, j: j, entries: map[string]*Entry{},
		byPrompt: map[string][]string{}, inFlight: map[string]bool{}, inFlightPrompt: map[string]string{}}
	for _, r := range recs {
		s.fold(r)
	}
	if j.damaged > 0 {
		s.log.Warn("journal has unreadable lines; they were skipped", "path", o.JournalPath, "lines", j.damaged)
	}
	return s, nil
}

// Close closes the journal file.
func (s *Service) Close() error { return s.j.close() }

// ReadOnly reports whether the service refuses every write.
func (s *Service) ReadOnly() bool { return s.o.ReadOnly }

// QuietPeriod is the quiet period confirmations use (see Arming).
func (s *Service) QuietPeriod() time.Duration { return s.o.QuietPeriod }

// Approver is the "user@host" recorded with each decision.
func (s *Service) Approver() string { return s.o.Approver }

// Damaged is the number of journal lines that could not be read back
// (not counting a torn last line).
func (s *Service) Damaged() int { return s.j.damaged }

func promptKey(agent string, id a2a.TaskID, prompt string) string {
	return agent + "\x00" + string(id) + "\x00" + prompt
}

// fold applies one record to the in-memory view. Callers hold s.mu (or
// own s exclusively, as Open does).
func (s *Service) fold(r record) {
	s.version++
	if r.ID == "" {
		e := &Entry{}
		e.applyRecord(r)
		s.order = append(s.order, e)
		return
	}
	e := s.entries[r.ID]
	if e == nil {
		if r.Type != recDecision {
			s.log.Warn("journal record for an unknown decision skipped", "id", r.ID, "type", r.Type)
			return
		}
		e = &Entry{}
		s.entries[r.ID] = e
		s.order = append(s.order, e)
		k := promptKey(r.Agent, r.Task, r.Prompt)
		s.byPrompt[k] = append(s.byPrompt[k], r.ID)
	}
	e.applyRecord(r)
}

// write appends a record to the journal and folds it in.
func (s *Service) write(r record) error {
	if s.o.ReadOnly {
		return ErrReadOnly
	}
	if r.At.IsZero() {
		r.At = s.o.Now().UTC()
	}
	if err := s.j.append(r); err != nil {
		return err
	}
	if r.Parts != nil { // the journal keeps its own parts, apart from the message sent
		r.Parts = clonePart(r.Parts)
	}
	s.mu.Lock()
	s.fold(r)
	s.mu.Unlock()
	return nil
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
	ids := s.byPrompt[promptKey(agent, id, prompt)]
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
	return c
}
