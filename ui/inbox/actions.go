package inbox

import (
	"errors"
	"fmt"
	"slices"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/common"
)

// refresh rebuilds the queue from the fleet and keeps the selection on
// the same task. A selected task that left gets a notice while the inbox
// is shown; the task of an open editor or confirmation closes it (the
// draft is noted in the journal, nothing was sent).
func (m *Inbox) refresh() []tea.Cmd {
	selPrompt := ""
	if it := m.find(m.sel); it != nil {
		selPrompt = it.Prompt
	}
	m.all = m.ordered(m.queue.Queue(m.ctx.Fleet, m.queueSort()))
	m.byKey, m.finds = nil, 0
	m.items = m.filtered(m.all)
	m.agentW = m.agentWidth()
	m.fver = m.ctx.Fleet.Version()
	m.jver = m.svc.Version()
	m.marks.Keep(func(k model.TaskKey) bool { return m.find(k) != nil })
	var cmds []tea.Cmd
	followUp := m.conf != nil && m.conf.d.Kind == approvals.KindFollowUp
	dropped := false
	m.keepBatch()
	if m.mode != modeList && m.mode != modeResults && m.mode != modeBatch && !followUp && m.find(m.target) == nil {
		cmds = append(cmds, m.dropTarget())
		dropped = true
	}
	cmds = append(cmds, m.dropLeftDrafts()...)
	m.restoreDrafts()
	if i := m.index(m.sel); i >= 0 {
		m.cursor = i
	} else if m.sel != (model.TaskKey{}) {
		answered := m.results != nil && m.results.Has(m.sel) // one of an answer for many: its leaving is the effect
		if !dropped && m.sel != m.sentKey && m.sel != m.sentVia && !answered && m.shown {
			m.sayLeft(m.sel, selPrompt, fmt.Sprintf("%s left the inbox (now %s)", keyName(m.sel), m.stateOf(m.sel)), "", false)
		}
		m.cursor = min(m.cursor, len(m.items)-1)
	}
	m.cursor = max(min(m.cursor, len(m.items)-1), 0)
	if it := m.selected(); it != nil {
		m.sel = it.Key()
	} else {
		m.sel = model.TaskKey{}
	}
	return cmds
}

// filtered is the queue the filter shows: a chain whole when one of its
// tasks matches, so that the task that takes the answer is there.
func (m *Inbox) filtered(all []approvals.Item) []approvals.Item {
	if !m.filter.Active() {
		return all
	}
	q := m.filter.Query()
	shown := map[*model.Task]bool{}
	for _, it := range all {
		if q.Match(it.Task) {
			shown[it.Leaf] = true
		}
	}
	out := make([]approvals.Item, 0, len(shown))
	for _, it := range all {
		if shown[it.Leaf] {
			out = append(out, it)
		}
	}
	return out
}

// dropTarget closes the dialog of a task that left the inbox and notes
// the dropped draft in the journal.
func (m *Inbox) dropTarget() tea.Cmd {
	k, st, prompt, from := m.target, m.stateOf(m.target), m.tprompt, m.tstate
	hadDraft := m.mode == modeConfirm || m.mode == modeReason || m.ed.dirty()
	if m.via != (model.TaskKey{}) {
		m.sentVia = m.via // the chain's root leaving after its end is not news over this notice
	}
	delete(m.drafts, k)
	m.closeDialog()
	drop := dropDraftCmd(m.svc, k)
	if !hadDraft {
		m.sayLeft(k, prompt, fmt.Sprintf("%s left the inbox (now %s); nothing was sent", keyName(k), st), "nothing was sent", false)
		return drop
	}
	m.sayLeft(k, prompt, fmt.Sprintf("%s left the inbox (now %s) while you were answering: draft dropped, nothing was sent", keyName(k), st),
		"draft dropped, nothing was sent", true)
	svc := m.svc
	to := model.NormalizeState(m.taskState(k))
	return tea.Batch(drop, func() tea.Msg {
		return NotedMsg{Err: svc.NoteLeft(k.Agent, k.ID, from, to, "left the inbox while an answer was being written; the draft was dropped, nothing was sent")}
	})
}

// dropLeftDrafts drops the kept drafts of tasks that left the inbox,
// says so, and notes in the journal that nothing was sent.
func (m *Inbox) dropLeftDrafts() []tea.Cmd {
	var cmds []tea.Cmd
	for k, d := range m.drafts {
		if m.find(k) != nil || k == m.target {
			continue
		}
		delete(m.drafts, k)
		m.sayLeft(k, d.prompt, fmt.Sprintf("%s left the inbox (now %s): its kept draft is dropped, nothing was sent", keyName(k), m.stateOf(k)),
			"its kept draft is dropped, nothing was sent", true)
		svc, from, to := m.svc, d.from, model.NormalizeState(m.taskState(k))
		cmds = append(cmds, dropDraftCmd(m.svc, k), func() tea.Msg {
			return NotedMsg{Err: svc.NoteLeft(k.Agent, k.ID, from, to, "left the inbox with a kept draft; the draft was dropped, nothing was sent")}
		})
	}
	return cmds
}

func (m *Inbox) closeDialog() {
	m.mode, m.conf, m.rerr, m.target, m.tstate, m.via = modeList, nil, "", model.TaskKey{}, "", model.TaskKey{}
	m.tprompt, m.elsewhere = "", ""
	m.ed, m.savedEd = editor{}, draft{}
	m.batch, m.plan = nil, nil
}

// keepBatch drops from the marked tasks a reason or a reply is being
// written for those that left the inbox, and moves the dialog's task to
// the first that is left. Its confirmation keeps its tasks: Send checks
// each before it goes, and its outcome says what became of it.
func (m *Inbox) keepBatch() {
	if !m.batching() || m.mode == modeBatch {
		return
	}
	kept := m.batch[:0]
	for _, k := range m.batch {
		if m.find(k) != nil {
			kept = append(kept, k)
		}
	}
	m.batch = kept
	if len(kept) > 0 {
		m.target = kept[0]
	}
}

func (m *Inbox) index(k model.TaskKey) int {
	if k == (model.TaskKey{}) {
		return -1
	}
	return m.scan(m.items, k)
}

// scan is the index of task k in items, or -1. Items built at the
// fleet's version hold its tasks, so pointers compare without reading
// each task; older items (the task may since have been evicted and
// heard of again) are compared by key when the pointer is not there.
func (m *Inbox) scan(items []approvals.Item, k model.TaskKey) int {
	if t := m.ctx.Fleet.Task(k); t != nil {
		if i := slices.IndexFunc(items, func(it approvals.Item) bool { return it.Task == t }); i >= 0 || m.fver == m.ctx.Fleet.Version() {
			return i
		}
	} else if m.fver == m.ctx.Fleet.Version() {
		return -1
	}
	return slices.IndexFunc(items, func(it approvals.Item) bool { return it.Key() == k })
}

// find is the queue's item of task k, shown or not, or nil: a dialog
// stays on its task whatever the filter shows. The first few lookups
// after a refresh scan the queue (a frame asks one or two); more build
// the index, once.
func (m *Inbox) find(k model.TaskKey) *approvals.Item {
	if m.byKey == nil && m.finds < 4 {
		m.finds++
		if i := m.scan(m.all, k); i >= 0 {
			return &m.all[i]
		}
		return nil
	}
	if m.byKey == nil {
		m.byKey = make(map[model.TaskKey]int, len(m.all))
		for i := range m.all {
			m.byKey[m.all[i].Key()] = i
		}
	}
	if i, ok := m.byKey[k]; ok {
		return &m.all[i]
	}
	return nil
}

// agentWidth is the agent column's width: the longest name with its tree
// indent among the items shown, at least 8, at most 24. Computed here,
// not in View (a View costs the visible rows only). Unfiltered, the
// queue holds every waiting task: the names are those of the agents with
// a task waiting, and only the items drawn indented (few: chains) are
// read one by one.
func (m *Inbox) agentWidth() int {
	w := 8
	if m.filter.Active() {
		for _, it := range m.items {
			w = max(w, min(len(it.Task.Key.Agent)+2*it.Depth, 24))
		}
		return w
	}
	for _, a := range m.ctx.Fleet.Agents() {
		if a.Counts[model.ClassInterrupted] > 0 {
			w = max(w, min(len(a.Name), 24))
		}
	}
	for _, it := range m.items {
		if it.Depth > 0 {
			w = max(w, min(len(it.Task.Key.Agent)+2*it.Depth, 24))
		}
	}
	return w
}

func (m *Inbox) taskState(k model.TaskKey) a2a.TaskState {
	if t := m.ctx.Fleet.Task(k); t != nil {
		return t.State
	}
	return ""
}

func (m *Inbox) stateOf(k model.TaskKey) string {
	if t := m.ctx.Fleet.Task(k); t != nil {
		return model.ShortState(t.State)
	}
	return "gone"
}

func keyName(k model.TaskKey) string { return k.Agent + " · " + model.ShortID(k.ID) }

// key routes a key by mode.
func (m *Inbox) key(msg tea.KeyMsg) tea.Cmd {
	switch m.mode {
	case modeEditor:
		return m.editorKey(msg)
	case modeReason:
		return m.reasonKey(msg)
	case modeConfirm:
		return m.confirmKey(msg)
	case modeBatch:
		return m.batchKey(msg)
	case modeResults:
		return m.resultsKey(msg)
	}
	return m.listKey(msg)
}

func (m *Inbox) listKey(msg tea.KeyMsg) tea.Cmd {
	if !m.filter.Editing() && m.marks.Key(msg, m.keys.Marks, m.sel, m.shownKeys) {
		return nil
	}
	if !m.filter.Editing() && readOnlyKey(m.ctx.ReadOnly, msg,
		[]key.Binding{m.keys.Reply, m.keys.Approve, m.keys.Deny, m.keys.Marks.Mark, m.keys.Marks.All}, m.sel.Agent, m.ctx.Warn, m.ctx.ReadOnlyWords) {
		return nil
	}
	if m.marks.Len() > 0 && !m.filter.Editing() {
		switch k := m.keys; {
		case key.Matches(msg, k.Approve):
			return m.startBatch(approvals.KindApprove, m.marks.Keys())
		case key.Matches(msg, k.Deny):
			return m.startBatch(approvals.KindDeny, m.marks.Keys())
		case key.Matches(msg, k.Reply):
			return m.startBatch(approvals.KindReply, m.marks.Keys())
		}
	}
	if handled, changed, cmd := m.filter.Key(msg); handled {
		if changed {
			m.refresh()
		}
		return cmd
	}
	if m.order.Key(msg, m.keys.Order) {
		m.refresh()
		return nil
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Up):
		m.move(-1)
	case key.Matches(msg, k.Down):
		m.move(1)
	case key.Matches(msg, k.PageUp):
		m.move(-m.listRows())
	case key.Matches(msg, k.PageDown):
		m.move(m.listRows())
	case key.Matches(msg, k.Top):
		m.move(-len(m.items))
	case key.Matches(msg, k.Bottom):
		m.move(len(m.items))
	case key.Matches(msg, k.Sort):
		m.nextOrder()
		m.refresh()
	case key.Matches(msg, k.Open):
		if it := m.selected(); it != nil {
			m.ctx.Out.Send(common.OpenTaskMsg{Key: it.Key()})
		}
	case key.Matches(msg, k.Copy):
		if it := m.selected(); it != nil {
			m.ctx.Out.Send(common.CopyMsg{Text: string(it.Key().ID)})
		}
	case key.Matches(msg, k.Reply):
		return m.openEditor()
	case key.Matches(msg, k.Approve):
		return m.approve()
	case key.Matches(msg, k.Deny):
		return m.openReason()
	case key.Matches(msg, k.Back, k.Quit):
		m.ctx.Out.Send(common.BackMsg{})
	}
	return nil
}

// shownKeys are the tasks the inbox shows under its filter: what ctrl+a
// marks.
func (m *Inbox) shownKeys() []model.TaskKey {
	keys := make([]model.TaskKey, len(m.items))
	for i, it := range m.items {
		keys[i] = it.Key()
	}
	return keys
}

func (m *Inbox) move(d int) {
	if len(m.items) == 0 {
		return
	}
	m.cursor = max(min(m.cursor+d, len(m.items)-1), 0)
	m.sel = m.items[m.cursor].Key()
}

// actionable returns the item an answer from the selected row goes to,
// or says why there is none: the selected item, or for a chain's root or
// middle the task at the end of its chain, the one that asks (m.via then
// names the row the answer was started from, so every step says so).
func (m *Inbox) actionable() *approvals.Item {
	it := m.selected()
	m.via = model.TaskKey{}
	switch {
	case m.ctx.ReadOnly:
		m.ctx.Warn(m.ctx.ReadOnlyWords(""))
		return nil
	case it == nil:
		return nil
	case !it.Actionable:
		leaf := m.find(it.Leaf.Key)
		if leaf == nil {
			m.ctx.Warn(fmt.Sprintf("%s waits on %s, which is not in the inbox now", keyName(it.Key()), keyName(it.Leaf.Key)))
			return nil
		}
		m.via, it = it.Key(), leaf
	}
	if w := m.ctx.Refusal(it.Key().Agent, common.RoleFor(it.Task.State)); w != "" {
		m.ctx.Warn(w)
		return nil
	}
	if w := m.blockedWords(it.Key().Agent); w != "" {
		m.ctx.Warn(w)
		return nil
	}
	if w := m.decidedWords(it); w != "" {
		m.ctx.Warn(w)
		return nil
	}
	return it
}

// blockedWords says, while a damaged journal line refuses decisions on
// agent (Service.Blocked), which line and what to do, in the inbox's
// width; "" when decisions on agent may be sent.
func (m *Inbox) blockedWords(agent string) string {
	return common.BlockedWords(m.svc, agent, m.w)
}

func (m *Inbox) openEditor() tea.Cmd {
	it := m.actionable()
	if it == nil {
		return nil
	}
	m.mode, m.target, m.tstate, m.tprompt, m.ed = modeEditor, it.Key(), it.Task.State, it.Prompt, newEditor()
	m.ed.setWidth(m.w)
	if d, ok := m.drafts[it.Key()]; ok {
		m.ed.restore(d)
		m.savedEd = d
	}
	return nil
}

func (m *Inbox) openReason() tea.Cmd {
	it := m.actionable()
	if it == nil {
		return nil
	}
	if it.Task.State != a2a.TaskStateAuthRequired {
		m.ctx.Warn("deny answers auth-required; this task asks for input: reply with r")
		return nil
	}
	if m.votedAlready(*it) {
		return nil
	}
	m.target, m.tstate, m.tprompt = it.Key(), it.Task.State, it.Prompt
	m.openReasonFor()
	return nil
}

// openReasonFor opens the deny reason for m.target (or the marked tasks).
func (m *Inbox) openReasonFor() {
	ti := newReasonInput(m.w, "why? (required: the agent and the journal keep it)")
	m.mode, m.reason, m.rerr, m.reasonKind = modeReason, ti, "", approvals.KindDeny
}

func (m *Inbox) approve() tea.Cmd {
	it := m.actionable()
	if it == nil {
		return nil
	}
	if cmd, voted := m.approveVote(*it); voted {
		return cmd
	}
	return m.prepare(*it, approvals.Input{Kind: approvals.KindApprove}, modeList)
}

// prepare builds the decision and opens the confirmation, or shows why
// it cannot be built.
func (m *Inbox) prepare(it approvals.Item, in approvals.Input, from mode) tea.Cmd {
	if p, ok := m.svc.Prior(it.Task.Key.Agent, it.Task.Key.ID, it.Prompt); ok {
		it.Prior = &p // the journal may be newer than the queue
	}
	in.Again = it.Prior != nil // the confirmation below names the earlier decision
	d, err := m.svc.Prepare(it, in)
	if err != nil {
		switch {
		case errors.Is(err, approvals.ErrInvalidJSON) || errors.Is(err, approvals.ErrEmptyReply):
			m.ed.err = err.Error()
		case from == modeReason:
			m.rerr = err.Error()
		default:
			m.ctx.Warn(err.Error())
		}
		return nil
	}
	var wake tea.Cmd
	m.conf, wake = newConfirm(m.svc, m.keys, d, it.Key(), it.Prior, m.ctx.Now())
	m.conf.warnReach(m.ctx.Fleet)
	m.conf.from, m.conf.ask, m.conf.via, m.conf.elsewhere = from, it.Question(), m.via, m.elsewhere
	m.mode, m.target, m.tstate, m.tprompt = modeConfirm, it.Key(), it.Task.State, it.Prompt
	return wake
}

func (m *Inbox) editorKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Keep) && m.batching():
		m.ctx.Say(fmt.Sprintf("reply to %d marked tasks closed; nothing was sent (they stay marked)", len(m.batch)))
		m.closeDialog()
		return nil
	case key.Matches(msg, k.Keep):
		tk := m.target
		cmd := dropDraftCmd(m.svc, tk)
		if m.ed.dirty() {
			m.drafts[tk] = m.ed.draft(m.tstate, m.tprompt)
			cmd = keepDraftCmd(m.svc, tk, m.drafts[tk])
			m.ctx.Say("draft kept for " + keyName(tk) + ": r opens it again, ctrl+x in the editor discards it; nothing was sent")
		} else {
			delete(m.drafts, tk)
			m.ctx.Say("reply closed; nothing was sent")
		}
		m.closeDialog()
		return cmd
	case key.Matches(msg, k.Discard):
		tk := m.target
		delete(m.drafts, tk)
		m.ctx.Say("draft discarded for " + keyName(tk) + "; nothing was sent")
		m.closeDialog()
		return dropDraftCmd(m.svc, tk)
	case key.Matches(msg, k.Switch):
		m.ed.toggle()
		return nil
	case key.Matches(msg, k.External):
		return m.ed.openExternal()
	case key.Matches(msg, k.Send) && m.batching():
		return m.prepareBatch(approvals.Input{Kind: approvals.KindReply, Text: m.ed.text.Value(), JSON: m.ed.data.Value()}, modeEditor)
	case key.Matches(msg, k.Send):
		it := m.find(m.target)
		if it == nil || m.refusedElsewhere(k.Keep.Help().Key+" keeps your draft") {
			return nil
		}
		return m.prepare(*it, approvals.Input{Kind: approvals.KindReply, Text: m.ed.text.Value(), JSON: m.ed.data.Value()}, modeEditor)
	}
	return m.ed.update(msg)
}

func (m *Inbox) reasonKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Back):
		m.closeDialog()
		return nil
	case key.Matches(msg, m.keys.Continue) && m.batching():
		return m.prepareBatch(approvals.Input{Kind: m.reasonKind, Reason: m.reason.Value()}, modeReason)
	case key.Matches(msg, m.keys.Continue):
		it := m.find(m.target)
		if it == nil || m.refusedElsewhere(m.keys.Back.Help().Key+" goes back") {
			return nil
		}
		return m.prepare(*it, approvals.Input{Kind: m.reasonKind, Reason: m.reason.Value()}, modeReason)
	}
	var cmd tea.Cmd
	m.reason, cmd = m.reason.Update(msg)
	m.rerr = ""
	return cmd
}

// confirmKey sends on "y" once the dialog is armed; n/esc returns to
// where the dialog was opened from.
func (m *Inbox) confirmKey(msg tea.KeyMsg) tea.Cmd {
	c := m.conf
	answer, wake := c.answer.Key(msg, m.ctx.Now())
	switch answer {
	case common.No:
		m.mode, m.conf = c.from, nil
		if m.mode == modeList {
			m.target = model.TaskKey{}
		}
	case common.Yes:
		if c.elsewhere != "" {
			m.ctx.Warn("not sent: " + c.elsewhere + " — " + m.keys.Decline.Help().Key + " goes back; to send a second decision, answer the task again")
			return nil
		}
		d, k := c.d, c.key
		m.sentVia = c.via // its root leaving with it is the expected effect too
		var drop tea.Cmd
		if d.Kind == approvals.KindReply {
			delete(m.drafts, k) // sent: the journal has it now
			drop = dropDraftCmd(m.svc, k)
		}
		m.closeDialog()
		m.ctx.Say(fmt.Sprintf("sending %s to %s…", d.Kind, keyName(k)))
		return tea.Batch(sendCmd(m.svc, k, d, fromInbox), drop)
	}
	return wake
}

// sent says what a send from the inbox achieved, and brings the queue up
// to date with any send; an ended task offers the follow-up.
func (m *Inbox) sent(msg SentMsg) tea.Cmd {
	o := msg.Outcome
	if msg.from == fromInbox {
		m.ctx.Out.Send(outcomeNotice(msg))
	}
	m.sentKey = msg.Key // its leaving the inbox is the expected effect, not news
	m.noteRefusal(msg)
	m.refresh()
	if !o.FollowUp || m.mode != modeList {
		return nil
	}
	d, err := m.svc.PrepareFollowUp(o.MessageID)
	if err != nil {
		m.ctx.Warn(err.Error())
		return nil
	}
	var wake tea.Cmd
	m.conf, wake = newConfirm(m.svc, m.keys, d, msg.Key, nil, m.ctx.Now())
	m.conf.warnReach(m.ctx.Fleet)
	m.mode, m.target = modeConfirm, model.TaskKey{}
	return wake
}

// outcomeNotice says what a send achieved and, when it was not taken,
// what to do next.
func outcomeNotice(msg SentMsg) common.StatusMsg {
	o := msg.Outcome
	text := fmt.Sprintf("%s → %s: %s", o.Kind, keyName(msg.Key), o.Words())
	if o.Votes != nil && o.Votes.Complete && o.Result == approvals.ResultAccepted {
		text += " · approvers: " + o.Votes.Names()
	}
	if n := o.Next(); n != "" && o.Result != approvals.ResultAccepted && o.Result != approvals.ResultVoted {
		text += " — " + n
	}
	return common.StatusMsg{Text: text, Err: o.Result != approvals.ResultAccepted && o.Result != approvals.ResultVoted}
}

// reconciledNotice says what a reconcile of the open decisions found.
func reconciledNotice(outs []approvals.Outcome) common.StatusMsg {
	text := fmt.Sprintf("reconciled %d open decision(s)", len(outs))
	if len(outs) == 0 {
		return common.StatusMsg{Text: text}
	}
	o := outs[0]
	text += fmt.Sprintf("; %s → %s: %s", o.Kind, keyName(model.TaskKey{Agent: o.Agent, ID: o.TaskID}), o.Words())
	return common.StatusMsg{Text: text, Err: o.Result != approvals.ResultAccepted}
}
