package approvals

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// Refreshed is what Refresh found.
type Refreshed struct {
	// Changed is true when the journal gained anything since the last
	// Refresh (here or from another process): Journal, Queue and Prior
	// have something new.
	Changed bool
	// Decisions are the decisions other processes journaled, or
	// journaled more of (an outcome, a later state), since the last
	// Refresh, as they stand now (Entry.Elsewhere is true): the inbox says
	// "answered elsewhere" for a prompt it shows or drafts on. A decision
	// read while it was being sent comes again with its outcome.
	Decisions []Entry
	// Damage lists the damaged or torn lines found since the last Refresh.
	Damage []Damage
}

// Refresh reads what other processes (another dashboard, `a2atop reply`)
// appended to the journal since it was last read, and reports what is
// new since the last Refresh. It reads only the new bytes. It blocks on
// the disk: the UI calls it from a tea.Cmd, on its tick.
func (s *Service) Refresh() (Refreshed, error) {
	err := s.st.follow(s.foldFrom)
	s.settleUnsent()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := Refreshed{Changed: s.version != s.refreshed}
	seen := make(map[string]bool, len(s.fresh))
	for _, id := range s.fresh {
		if e := s.entries[id]; e != nil && !seen[id] {
			seen[id] = true
			r.Decisions = append(r.Decisions, copyEntry(e))
		}
	}
	for _, n := range s.freshDamage {
		if d := s.damage[n]; d != nil {
			r.Damage = append(r.Damage, *d)
		}
	}
	s.fresh, s.freshDamage, s.refreshed = nil, nil, s.version
	if err != nil {
		return r, fmt.Errorf("journal: following %s: %w", s.st.where(), err)
	}
	return r, nil
}

// Observation is a state the fleet shows for a task with a decision of
// ours, newer than the one the journal holds.
type Observation struct {
	Agent  string // the agent's name now
	TaskID a2a.TaskID
	State  a2a.TaskState
}

// Observations returns, for every task whose last decision the journal
// has not seen end, the state the fleet shows when it differs from the
// journal's (the task went on working, asked again, completed). A fleet
// that still shows the prompt that was answered has not heard of the
// answer yet, and is not an observation. It reads the fleet and does no
// I/O: call it on the UI goroutine after each batch, then Observe in a
// tea.Cmd. Its cost grows with the tasks decided on and not yet ended.
func (s *Service) Observations(f *model.Fleet) []Observation {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Observation
	for _, e := range s.tracked {
		t := f.Task(model.TaskKey{Agent: e.Agent, ID: e.TaskID})
		if t == nil || t.State == "" {
			continue
		}
		st := model.NormalizeState(t.State)
		if st == currentState(e) || (t.Class == model.ClassInterrupted && PromptOf(t.Snapshot) == e.Prompt) {
			continue
		}
		out = append(out, Observation{Agent: e.Agent, TaskID: e.TaskID, State: st})
	}
	slices.SortFunc(out, func(a, b Observation) int {
		return strings.Compare(a.Agent+"\x00"+string(a.TaskID), b.Agent+"\x00"+string(b.TaskID))
	})
	return out
}

// currentState is the task's latest state the journal holds for e.
func currentState(e *Entry) a2a.TaskState {
	if st := e.AgentState(); st != "" {
		return st
	}
	return e.PromptState
}

// Observe journals, each as a "state" record (source "fleet") on the last
// decision of its task, the observations whose state the journal does
// not hold yet (checked under the store's hold, so two dashboards do not
// both record one change). Tasks without a decision of ours are skipped.
func (s *Service) Observe(obs []Observation) error {
	if s.o.ReadOnly || s.o.Hub != nil || len(obs) == 0 { // attached to a hub: it observes its own fleet
		return nil
	}
	return s.appendChecked(func() ([]record, error) {
		var recs []record
		for _, o := range obs {
			e := s.lastOn(o.Agent, o.TaskID)
			state := model.NormalizeState(o.State)
			if e == nil || currentState(e) == state {
				continue
			}
			recs = append(recs, record{Type: recState, ID: e.MessageID, Agent: o.Agent, Task: o.TaskID,
				From: currentState(e), To: state, Source: "fleet"})
		}
		return recs, nil
	})
}

// lastOn is the last decision (not a follow-up) on a task. Callers hold s.mu.
func (s *Service) lastOn(agent string, id a2a.TaskID) *Entry {
	aid := s.book.idOf(agent)
	for i := len(s.order) - 1; i >= 0; i-- {
		if e := s.order[i]; e.MessageID != "" && e.agentID == aid && e.TaskID == id && e.Kind != KindFollowUp {
			return e
		}
	}
	return nil
}

// reconcileTorn settles the torn decision lines whose agent, task and
// messageId can be read, with GetTask: an agent that does not hold the
// messageId did not get the decision, and an "ack" record resolves the
// line; one that holds it got it (the line was cut after the send), and
// the line stays for an operator, marked Delivered. A line GetTask cannot
// check stays as it is.
func (s *Service) reconcileTorn(ctx context.Context) {
	for _, d := range s.Blocking() {
		if !d.Torn || d.Agent == "" || d.TaskID == "" || d.MessageID == "" || d.AllAgents {
			continue
		}
		t, err := s.get(ctx, d.Agent, d.TaskID, s.o.ReconcileHistory)
		if err != nil {
			s.log.Warn("journal: a torn decision could not be checked with GetTask", "line", d.Line, "err", err)
			continue
		}
		if holds(t, d.MessageID) {
			s.mu.Lock()
			if cur := s.damage[d.Line]; cur != nil && cur.Hash == d.Hash && !cur.Delivered {
				cur.Delivered = true
				s.version++
			}
			s.mu.Unlock()
			s.log.Error("journal: the agent holds the messageId of a torn decision line: it was delivered; an operator must look", "line", d.Line, "id", d.MessageID)
			continue
		}
		note := fmt.Sprintf("reconciled: not delivered; GetTask shows %s does not hold messageId %s", d.Agent, d.MessageID)
		err = s.appendChecked(func() ([]record, error) {
			if cur := s.damage[d.Line]; cur == nil || !cur.Open() || cur.Hash != d.Hash {
				return nil, nil
			}
			return []record{{Type: recAck, Line: d.Line, Hash: d.Hash, Approver: s.o.Approver, Note: note}}, nil
		})
		if err != nil {
			s.log.Error("journal: resolving a torn decision", "line", d.Line, "err", err)
		}
	}
}
