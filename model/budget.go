package model

import (
	"slices"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Each agent's tasks may hold at most Options.MaxAgentBytes of content
// (status messages, history, artifacts, metadata; by estimate, see
// contentSize), whatever the agent sends: the number of tasks is bounded
// (MaxTerminalPerAgent here, the open tasks by the watcher), and this
// bounds what they hold. Past it, Apply trims details at the end of the
// batch, least recently updated first, until the agent is back under
// three quarters of the budget (so a steady stream of large updates
// does not trim at every batch):
//  1. history, artifacts and metadata of terminal tasks;
//  2. the same of open tasks (a history message or the metadata key that
//     links a chain is kept, without its parts);
//  3. status messages cut to trimmedMessageBytes of text, terminal tasks
//     first.
//
// A trimmed task is Truncated (the detail view fetches it whole with
// GetTask) and keeps its state, timestamps, hint and the fingerprint of
// what the agent sent, so the same snapshot sent again is still a repeat.
// Agent.Trimmed counts trimmed tasks.
//
// All agents together may hold at most Options.MaxFleetBytes: past it,
// at the end of the batch, the agents are shared out max-min (an agent
// holding less than an even share keeps all it holds, the others an
// even share of the rest) and each agent above its share is trimmed, as
// above, to three quarters of it. One busy agent among quiet ones may
// use most of the fleet's budget; fifty busy agents each get a fiftieth.

// trimmedMessageBytes is the text a status message keeps in step 3.
const trimmedMessageBytes = 512

// contentSize estimates the bytes of content a snapshot holds besides
// artifacts and its status message: history and metadata.
func contentSize(s *a2a.Task) int {
	n := dataSize(s.Metadata, 0)
	for _, m := range s.History {
		n += messageSize(m)
	}
	return n
}

// messageSize estimates the bytes a message holds: its parts, reference
// ids and metadata.
func messageSize(m *a2a.Message) int {
	if m == nil {
		return 0
	}
	n := 64 + len(m.ID)
	for _, p := range m.Parts {
		n += 16 + partSize(p)
	}
	for _, id := range m.ReferenceTasks {
		n += 16 + len(id)
	}
	if len(m.Metadata) > 0 {
		n += dataSize(m.Metadata, 0)
	}
	return n
}

// statusSize is what t holds for its status message: the message and,
// when it has several text parts, the joined Text.
func statusSize(t *Task, m *a2a.Message) int {
	n := messageSize(m)
	if m != nil && len(m.Parts) > 1 {
		n += len(t.Text)
	}
	return n
}

// size is everything t holds, by estimate.
func (t *Task) size() int { return int(t.msgBytes) + int(t.restBytes) + t.artBytes }

// account records that t now holds msg, rest and artifact bytes, and
// marks its agent for trimming when it passes the budget.
func (f *Fleet) account(t *Task, msg, rest int) {
	f.addBytes(t.agent, msg+rest-int(t.msgBytes)-int(t.restBytes))
	t.msgBytes, t.restBytes = clampInt32(msg), clampInt32(rest)
	f.checkBudget(t.agent)
}

// accountArtifacts records a change of t's artifact bytes by delta.
func (f *Fleet) accountArtifacts(t *Task, delta int) {
	f.addBytes(t.agent, delta)
	f.checkBudget(t.agent)
}

func (f *Fleet) addBytes(a *Agent, delta int) {
	a.Bytes += delta
	f.bytes += delta
}

func (f *Fleet) checkBudget(a *Agent) {
	if max := f.opts.MaxAgentBytes; max >= 0 && a.Bytes > max && !a.over {
		a.over = true
		f.over = append(f.over, a)
	}
}

// fleetOver reports whether all agents together hold more than
// MaxFleetBytes.
func (f *Fleet) fleetOver() bool { return f.opts.MaxFleetBytes >= 0 && f.bytes > f.opts.MaxFleetBytes }

// fleetShare is the most an agent may hold of MaxFleetBytes, shared out
// max-min by what each holds now.
func (f *Fleet) fleetShare() int {
	held := make([]int, 0, len(f.agents))
	for _, a := range f.agents {
		if a.Bytes > 0 {
			held = append(held, a.Bytes)
		}
	}
	level, _, capped := MaxMinShare(f.opts.MaxFleetBytes, held)
	if !capped {
		return f.opts.MaxFleetBytes
	}
	return level
}

func clampInt32(n int) int32 { return int32(min(n, 1<<31-1)) }

// trimOverBudget trims the agents that passed MaxAgentBytes in this
// batch and, when all agents hold more than MaxFleetBytes, those above
// their share of it.
func (f *Fleet) trimOverBudget() {
	for i, a := range f.over {
		if a.Bytes > f.opts.MaxAgentBytes {
			a.shared = false
			f.trim(a, f.opts.MaxAgentBytes) // a.over stays set meanwhile: trimming does not list it again
		}
		a.over = false
		f.over[i] = nil
	}
	f.over = f.over[:0]
	if !f.fleetOver() {
		return
	}
	share := f.fleetShare()
	for _, a := range f.agents {
		if a.Bytes > share {
			a.shared = true
			f.trim(a, share)
		}
	}
}

// trim sheds details of a's tasks, in the order the budget rule says,
// until a holds at most three quarters of limit.
func (f *Fleet) trim(a *Agent, limit int) {
	target := limit / 4 * 3
	a.over = true // trimming does not list it again
	defer func() { a.over = false }()
	byAge := slices.Clone(a.held)
	slices.SortFunc(byAge, func(x, y *Task) int {
		if x.Class == ClassTerminal != (y.Class == ClassTerminal) {
			if x.Class == ClassTerminal {
				return -1
			}
			return 1
		}
		return x.Updated.Compare(y.Updated)
	})
	for _, step := range []func(*Task) bool{f.trimTerminalDetails, f.trimOpenDetails, f.trimStatus} {
		for _, t := range byAge {
			if a.Bytes <= target {
				return
			}
			if step(t) {
				if !t.trimmed {
					t.trimmed = true
					a.Trimmed++
				}
				t.Truncated = true
				f.changed(t)
			}
		}
	}
}

func (f *Fleet) trimTerminalDetails(t *Task) bool {
	return t.Class == ClassTerminal && f.trimDetails(t)
}

func (f *Fleet) trimOpenDetails(t *Task) bool {
	return t.Class != ClassTerminal && f.trimDetails(t)
}

// trimDetails drops t's history, artifact parts and metadata, keeping
// what links a chain. It reports whether anything was dropped.
func (f *Fleet) trimDetails(t *Task) bool {
	c := f.detailsCut(t)
	if c == nil {
		return false
	}
	t.Snapshot = c
	t.Partial = nil
	f.accountArtifacts(t, -t.artBytes)
	t.artBytes = 0
	f.account(t, int(t.msgBytes), contentSize(c))
	return true
}

// detailsCut is t's snapshot without history, artifact parts and
// metadata, but for what links a chain; nil when that would drop nothing.
func (f *Fleet) detailsCut(t *Task) *a2a.Task {
	s := t.Snapshot
	c := *s
	c.History = nil
	for _, m := range s.History {
		if f.msgRefs(t, m) {
			c.History = append(c.History, linkOnly(m, t.agent.chainKey))
		}
	}
	c.Metadata = nil
	if key := t.agent.chainKey; key != "" && s.Metadata[key] != nil {
		c.Metadata = map[string]any{key: s.Metadata[key]}
	}
	if t.artBytes == 0 && contentSize(&c) >= int(t.restBytes) {
		return nil
	}
	c.Artifacts = make([]*a2a.Artifact, 0, len(s.Artifacts))
	for _, art := range s.Artifacts {
		if art != nil {
			c.Artifacts = append(c.Artifacts, &a2a.Artifact{ID: art.ID, Name: art.Name, Description: art.Description})
		}
	}
	return &c
}

// trimStatus cuts t's status message to trimmedMessageBytes of text.
func (f *Fleet) trimStatus(t *Task) bool {
	cut := f.statusCut(t)
	if cut == nil {
		return false
	}
	c := *t.Snapshot
	c.Status.Message = cut
	t.Snapshot = &c
	t.Text = textOf(cut)
	f.account(t, statusSize(t, cut), int(t.restBytes))
	return true
}

// statusCut is t's status message cut to what links a chain and
// trimmedMessageBytes of its text; nil when that would drop nothing.
func (f *Fleet) statusCut(t *Task) *a2a.Message {
	m := t.Snapshot.Status.Message
	if m == nil {
		return nil
	}
	cut := linkOnly(m, t.agent.chainKey)
	if text := cutUTF8(textOf(m), trimmedMessageBytes); text != "" {
		cut.Parts = a2a.ContentParts{a2a.NewTextPart(text)}
	}
	if statusSize(t, cut) >= int(t.msgBytes) {
		return nil
	}
	return cut
}

// linkOnly is m without its parts: what names the task it waits on.
func linkOnly(m *a2a.Message, chainKey string) *a2a.Message {
	c := &a2a.Message{ID: m.ID, Role: m.Role, TaskID: m.TaskID, ContextID: m.ContextID, ReferenceTasks: m.ReferenceTasks}
	if chainKey != "" && m.Metadata[chainKey] != nil {
		c.Metadata = map[string]any{chainKey: m.Metadata[chainKey]}
	}
	return c
}
