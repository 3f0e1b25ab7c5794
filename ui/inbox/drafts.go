package inbox

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/model"
)

// Drafts outlive the dashboard: every way out of the reply editor keeps
// what was typed (esc at once; ctrl+c and a signal through the drafts
// file, written on the clock while the editor is open and when the
// dashboard quits), and a dashboard started again restores each draft
// once its task waits in the inbox at the same prompt.

// DraftSavedMsg reports a change of the drafts file.
type DraftSavedMsg struct{ Err error }

// keepDraftCmd writes the task's draft to the drafts file.
func keepDraftCmd(svc *approvals.Service, k model.TaskKey, d draft) tea.Cmd {
	ad := approvals.Draft{Agent: k.Agent, TaskID: k.ID, Prompt: d.prompt, From: d.from, Text: d.text, JSON: d.data}
	return func() tea.Msg { return DraftSavedMsg{Err: svc.KeepDraft(ad)} }
}

// dropDraftCmd removes the task's draft from the drafts file.
func dropDraftCmd(svc *approvals.Service, k model.TaskKey) tea.Cmd {
	return func() tea.Msg { return DraftSavedMsg{Err: svc.DropDraft(k.Agent, k.ID)} }
}

// loadDrafts reads the drafts an earlier run kept; they wait in restored
// until their tasks are in the inbox.
func (m *Inbox) loadDrafts() {
	ds, err := m.svc.Drafts()
	if err != nil {
		m.ctx.Warn(err.Error())
	}
	for _, d := range ds {
		if m.restored == nil {
			m.restored = map[model.TaskKey]approvals.Draft{}
		}
		m.restored[model.TaskKey{Agent: d.Agent, ID: d.TaskID}] = d
	}
}

// restoreDrafts makes the drafts an earlier run kept the inbox's once
// their tasks wait at the prompt they answer; one whose task the fleet
// shows gone on, or asking something else, is dropped, saying so (from
// the file on the next tick: a refresh's Cmds may be dropped).
func (m *Inbox) restoreDrafts() {
	for k, d := range m.restored {
		it := m.find(k)
		t := m.ctx.Fleet.Task(k)
		switch {
		case it != nil && it.Prompt == d.Prompt:
			if _, ok := m.drafts[k]; !ok {
				m.drafts[k] = draft{text: d.Text, data: d.JSON, from: d.From, prompt: d.Prompt}
			}
		case it != nil || (t != nil && t.Class != model.ClassUnknown):
			m.ctx.Warn(fmt.Sprintf("the draft kept for %s is dropped: the task moved on (now %s) since it was written; nothing was sent", keyName(k), m.stateOf(k)))
			m.dropLater = append(m.dropLater, k)
		default:
			continue // the fleet has not heard of the task yet
		}
		delete(m.restored, k)
	}
}

// dropped removes from the drafts file the restored drafts found stale.
func (m *Inbox) dropped() []tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(m.dropLater))
	for _, k := range m.dropLater {
		cmds = append(cmds, dropDraftCmd(m.svc, k))
	}
	m.dropLater = nil
	return cmds
}

// saveEditing keeps what the open reply editor holds in the drafts file
// when it changed since it was last kept, so that quitting (or a
// signal) with the editor open loses nothing.
func (m *Inbox) saveEditing() tea.Cmd {
	if m.mode != modeEditor || m.batching() || m.target == (model.TaskKey{}) {
		return nil
	}
	d := m.ed.draft(m.tstate, m.tprompt)
	if d == m.savedEd {
		return nil
	}
	m.savedEd = d
	if !m.ed.dirty() {
		return dropDraftCmd(m.svc, m.target)
	}
	return keepDraftCmd(m.svc, m.target, d)
}

// Quitting keeps the open editor's text before the dashboard quits
// (common.Quitter): the root runs the Cmd before it ends.
func (m *Inbox) Quitting() tea.Cmd { return m.saveEditing() }
