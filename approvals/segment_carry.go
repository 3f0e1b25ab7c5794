package approvals

import (
	"fmt"

	"a2atop/model"
)

// useSegments sets up the journal file's segments (Options.Segment):
// the policy, what a new segment restates, where a refused rotation is
// reported; a writer seals the closed segments a crash left writable,
// and a reader of the whole journal (MemoryAll) starts at the oldest
// closed segment. Before the first read.
func (s *Service) useSegments() error {
	fs, ok := s.st.(*fileStore)
	if !ok {
		return nil
	}
	fs.seg.policy = s.o.Segment
	fs.seg.carry = s.carryForward
	fs.seg.warn = func(err error) { s.log.Warn("journal segment", "path", fs.path, "err", err) }
	if fs.w != nil {
		if err := seal(fs.path); err != nil {
			fs.seg.warn(err)
		}
	}
	if s.o.memoryLimit() < 0 || s.o.Check {
		return fs.readFromFirst()
	}
	return nil
}

// noteSegment applies the header of the segment this Service started
// reading at: the entries of the segments before it are not in memory,
// as if they had left it (see forget), and History reads them back.
// Callers hold s.mu.
func (s *Service) noteSegment(r record) {
	if r.Seg != nil && r.Seg.Entries > 0 {
		s.forgotten += r.Seg.Entries
		s.seen, s.seenAgents = nil, nil // the decisions of those entries are not read: a record of one is no orphan
	}
}

// carryForward returns, for a new segment, the records that restate
// every open decision (pending or unknown: what at-most-once and
// Reconcile need of the journal) and the settled last decision on each
// task that may still wait at the prompt it answered (so that a second
// decision there is still asked to be confirmed again), and how many
// entries the journal holds besides them. It refuses while a damaged
// line that may hold a decision is not accepted: that line stays in the
// open segment, where every reader meets it.
func (s *Service) carryForward() ([]record, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.damage {
		if d.Open() {
			return nil, 0, fmt.Errorf("journal: the segment is not closed while line %d is damaged and not accepted (a2atop journal check); it is closed at a write after that", d.Line)
		}
	}
	var recs []record
	carried := 0
	for _, e := range s.order {
		if e.MessageID == "" || (!e.Result.Open() && !s.stillAsking(e)) {
			continue
		}
		recs = append(recs, restate(e)...)
		carried++
	}
	recs = append(recs, s.restateVotes()...)
	return recs, s.forgotten + len(s.order) - carried, nil
}

// stillAsking reports whether e is the last decision on a task the
// journal has not seen end or move on: no state recorded after it, or
// the task asked again (interrupted). Callers hold s.mu.
func (s *Service) stillAsking(e *Entry) bool {
	if s.tracked[taskRef{e.agentID, e.TaskID}] != e {
		return false
	}
	st := e.AgentState()
	return st == "" || model.ClassOf(st) == model.ClassInterrupted
}

// restate is a decision as records that fold to the same entry: its
// decision, its last retry (attempt and who sent it), its outcome unless
// it is pending, and the agent's state changes since. Folded again onto the
// entry (a reader that does not know segments and reads both), the
// decision sets attempt 1 and the retry the attempts it had: the
// decision is not counted as sent again.
func restate(e *Entry) []record {
	name := e.Agent
	if e.RecordedAs != "" {
		name = e.RecordedAs
	}
	base := record{ID: e.MessageID, Agent: name, URL: e.AgentURL, Tenant: e.Tenant, Task: e.TaskID}
	d := base
	d.Type, d.At, d.Context, d.Kind, d.Prompt, d.State = recDecision, e.DecidedAt, e.ContextID, e.Kind, e.Prompt, e.PromptState
	d.Parts, d.Reason, d.Approver, d.Refs, d.Attempt = e.Parts, e.Reason, e.Approver, e.Refs, 1
	d.Host, d.PID, d.Svc, d.Until, d.Votes = e.host, e.pid, e.svc, e.until, e.Votes
	out := []record{d}
	if e.Attempts > 1 {
		r := base
		r.Type, r.At, r.Approver, r.By, r.Attempt = recRetry, e.ResultAt, e.Approver, e.RetriedBy, e.Attempts
		r.Host, r.PID, r.Svc, r.Until = e.host, e.pid, e.svc, e.until
		out = append(out, r)
	}
	if e.Result != ResultPending {
		o := base
		o.Type, o.At, o.Result, o.Problem, o.Error, o.Via, o.Attempt = recOutcome, e.ResultAt, e.Result, e.Problem, e.Error, e.Via, e.Attempts
		out = append(out, o)
	}
	for _, st := range e.States {
		c := base
		c.Type, c.At, c.From, c.To, c.Source, c.Note = recState, st.At, st.From, st.To, st.Source, st.Note
		out = append(out, c)
	}
	return out
}

// Segments lists the files of the journal this Service read, oldest
// first: the closed segments (with MemoryAll) and the open one, the
// journal's path. Attached to a hub, none.
func (s *Service) Segments() []string {
	fs, ok := s.st.(*fileStore)
	if !ok {
		return nil
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make([]string, 0, len(fs.seg.files))
	for _, f := range fs.seg.files {
		if len(out) == 0 || out[len(out)-1] != f.path {
			out = append(out, f.path)
		}
	}
	return out
}

// fileLine names the file that holds line n of the journal (numbered in
// the whole journal, across segments) and the line's number there. For
// a caller that holds the store: fold, which the store calls under its
// hold (and s.mu).
func (s *Service) fileLine(n int) (string, int) {
	if fs, ok := s.st.(*fileStore); ok {
		return fs.lineIn(n)
	}
	return s.st.where(), n
}

// lineIn names the file that holds line n and its number there. Callers
// hold s.mu.
func (s *fileStore) lineIn(n int) (string, int) {
	for i := len(s.seg.files) - 1; i >= 0; i-- {
		if f := s.seg.files[i]; f.first <= n {
			return f.path, n - f.first + 1
		}
	}
	return s.path, n
}
