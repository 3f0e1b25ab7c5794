package inbox

import (
	"errors"
	"fmt"
	"slices"

	"github.com/a2aproject/a2a-go/v2/a2a"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/common"
)

// One answer for many: with tasks marked (space, ctrl+a) approve, deny
// and reply act on all of them. The reason or the reply is written once;
// one confirmation lists every task it goes to (agent, id, question),
// the tasks it skips and why, and the exact payload; on y each decision
// is prepared, journaled and sent on its own through approvals.Service
// (the at-most-once path of a single answer, one journal record per
// task), and its outcome is shown on its own row.

// planned is one decision of an answer for many.
type planned struct {
	key model.TaskKey // the task it goes to (the end of its chain)
	via model.TaskKey // the marked row it was taken on, when another
	d   *approvals.Decision
	ask *a2a.Message
}

// batchPlan is an answer for many, prepared and waiting for its y.
type batchPlan struct {
	kind    approvals.Kind
	plans   []planned
	skipped []common.Skip
	reach   []string // for each agent of plans that cannot be reached now, the warning (reachWords)
	answer  common.Confirm
	from    mode // where n/esc returns to
}

// batching reports whether the dialog open answers the marked tasks.
func (m *Inbox) batching() bool { return len(m.batch) > 0 }

// startBatch opens the answer for the marked tasks keys: approve goes
// straight to the confirmation, deny asks its one reason first, a reply
// its one editor. Tasks marked elsewhere may not wait in the inbox: the
// confirmation lists them as skipped, and when none waits nothing opens.
func (m *Inbox) startBatch(kind approvals.Kind, keys []model.TaskKey) tea.Cmd {
	if m.ctx.ReadOnly {
		m.ctx.Warn(m.ctx.ReadOnlyWords(""))
		return nil
	}
	i := slices.IndexFunc(keys, func(k model.TaskKey) bool { return m.find(k) != nil })
	if i < 0 {
		m.ctx.Warn(fmt.Sprintf("none of the %d marked tasks waits for a person: nothing to %s", len(keys), kind))
		return nil
	}
	m.batch = keys
	m.target = keys[i]
	if it := m.find(m.target); it != nil {
		m.tstate, m.tprompt = it.Task.State, it.Prompt
	}
	switch kind {
	case approvals.KindApprove:
		if voted, required := m.batchVotes(keys); voted {
			m.openReasonAs(approvals.KindApprove, required)
			return nil
		}
		return m.prepareBatch(approvals.Input{Kind: approvals.KindApprove}, modeList)
	case approvals.KindDeny:
		m.openReasonFor()
	default:
		m.mode, m.ed = modeEditor, newEditor()
		m.ed.setWidth(m.w)
	}
	return nil
}

// decideFor takes tasks marked on another screen: they become the
// inbox's marks, and the answer opens on them (one task: as if chosen
// here).
func (m *Inbox) decideFor(msg common.DecideMsg) tea.Cmd {
	m.refresh()
	m.marks.Clear()
	if len(msg.Keys) == 1 {
		k := msg.Keys[0]
		if m.find(k) == nil { // else the answer would go to the row under the cursor
			m.ctx.Warn(fmt.Sprintf("%s does not wait for a person (now %s): nothing to %s", keyName(k), m.stateOf(k), msg.Kind))
			return nil
		}
		m.selectKey(k)
		switch msg.Kind {
		case approvals.KindApprove:
			return m.approve()
		case approvals.KindDeny:
			return m.openReason()
		}
		return m.openEditor()
	}
	for _, k := range msg.Keys {
		m.marks.Toggle(k)
	}
	if len(msg.Keys) > 0 {
		m.selectKey(msg.Keys[0])
	}
	return m.startBatch(msg.Kind, msg.Keys)
}

// prepareBatch prepares one decision per marked task from the one input
// and opens the confirmation; a task that cannot take it is skipped, and
// the confirmation says why. A reply that does not build (empty, invalid
// JSON) stays in the editor with its error.
func (m *Inbox) prepareBatch(in approvals.Input, from mode) tea.Cmd {
	p := &batchPlan{kind: in.Kind, from: from}
	// Each marked task is in exactly one list: a chain's end that is
	// marked itself takes the answer, and the marked rows that lead to
	// it are skipped, named as such; of two rows that lead to one end
	// the first takes it.
	marked := make(map[model.TaskKey]bool, len(m.batch))
	for _, k := range m.batch {
		marked[k] = true
	}
	taken := map[model.TaskKey]model.TaskKey{} // the end of a chain -> the marked row that took it
	for _, k := range m.batch {
		it, via, why := m.leafFor(k, in.Kind)
		switch {
		case why != "":
		case it.Key() != k && marked[it.Key()]:
			why = "its chain's end, " + keyName(it.Key()) + ", is marked too and gets the one answer"
		default:
			if first, dup := taken[it.Key()]; dup {
				why = "the same chain as " + keyName(first) + ": it gets one answer"
			}
		}
		if why != "" {
			p.skipped = append(p.skipped, common.Skip{Key: k, Why: why})
			continue
		}
		d, err := m.svc.Prepare(*it, in)
		switch {
		case err != nil && (errors.Is(err, approvals.ErrInvalidJSON) || errors.Is(err, approvals.ErrEmptyReply)):
			m.ed.err = err.Error()
			return nil
		case err != nil && from == modeReason && (errors.Is(err, approvals.ErrReasonRequired) || errors.Is(err, approvals.ErrApprovalReason)):
			m.rerr = err.Error()
			return nil
		case err != nil:
			p.skipped = append(p.skipped, common.Skip{Key: k, Why: err.Error()})
			continue
		}
		taken[it.Key()] = k
		p.plans = append(p.plans, planned{key: it.Key(), via: via, d: d, ask: it.Question()})
	}
	if len(p.plans) == 0 {
		m.ctx.Warn(fmt.Sprintf("none of the %d marked tasks takes this %s: %s", len(m.batch), in.Kind, skippedWords(p.skipped)))
		if from == modeList {
			m.closeDialog()
		}
		return nil
	}
	seen := map[string]bool{}
	for _, pl := range p.plans {
		if w := reachWords(m.ctx.Fleet, pl.key.Agent, in.Kind); w != "" && !seen[pl.key.Agent] {
			seen[pl.key.Agent] = true
			p.reach = append(p.reach, w)
		}
	}
	var wake tea.Cmd
	p.answer, wake = common.NewConfirm(m.keys.Confirm, m.keys.Decline, m.svc.QuietPeriod(), m.ctx.Now())
	m.plan, m.mode = p, modeBatch
	return wake
}

// leafFor is the item an answer for the marked task k goes to (the end
// of its chain), with the marked row when that is another task, or why
// k is skipped.
func (m *Inbox) leafFor(k model.TaskKey, kind approvals.Kind) (*approvals.Item, model.TaskKey, string) {
	it := m.find(k)
	if it == nil {
		return nil, model.TaskKey{}, "does not wait for a person (now " + m.stateOf(k) + ")"
	}
	var via model.TaskKey
	if !it.Actionable {
		leaf := m.find(it.Leaf.Key)
		if leaf == nil {
			return nil, model.TaskKey{}, "waits on " + keyName(it.Leaf.Key) + ", which is not in the inbox now"
		}
		via, it = k, leaf
	}
	switch {
	case !m.ctx.Writable(it.Key().Agent):
		return nil, via, "agent " + it.Key().Agent + " is read-only: nothing is sent to it"
	case m.ctx.Refusal(it.Key().Agent, common.RoleFor(it.Task.State)) != "": // the operator's roles, the hub down
		return nil, via, m.ctx.Refusal(it.Key().Agent, common.RoleFor(it.Task.State))
	case kind != approvals.KindReply && it.Task.State != a2a.TaskStateAuthRequired:
		return nil, via, "asks for input, not an authorization: reply instead"
	}
	if p, ok := m.svc.Prior(it.Task.Key.Agent, it.Task.Key.ID, it.Prompt); ok {
		c := *it
		c.Prior = &p
		if w := m.decidedWords(&c); w != "" { // no answer goes over it, alone or not
			return nil, via, w
		}
		return nil, via, "already decided (" + string(p.Kind) + " by " + p.Approver + ": " + string(p.Result) + "); answer it alone to decide again"
	}
	return it, via, ""
}

// skippedWords names the first reasons a batch was skipped for.
func skippedWords(s []common.Skip) string {
	if len(s) == 0 {
		return "nothing was marked"
	}
	text := keyName(s[0].Key) + ": " + s[0].Why
	if len(s) > 1 {
		text += fmt.Sprintf(" (and %d more)", len(s)-1)
	}
	return text
}

// batchKey answers the confirmation: on y every decision is sent at
// once, each on its own at-most-once path; n or esc returns to where it
// was opened from.
func (m *Inbox) batchKey(msg tea.KeyMsg) tea.Cmd {
	p := m.plan
	answer, wake := p.answer.Key(msg, m.ctx.Now())
	switch answer {
	case common.No:
		m.plan, m.mode = nil, p.from
		if m.mode == modeList {
			m.closeDialog()
		}
	case common.Yes:
		return m.sendBatch(p)
	}
	return wake
}

// sendBatch sends every decision of p and shows their outcomes task by
// task as they come in.
func (m *Inbox) sendBatch(p *batchPlan) tea.Cmd {
	keys := make([]model.TaskKey, 0, len(p.plans))
	cmds := make([]tea.Cmd, 0, len(p.plans))
	for _, pl := range p.plans {
		keys = append(keys, pl.key)
		cmds = append(cmds, sendCmd(m.svc, pl.key, pl.d, fromInbox))
	}
	res := common.NewResultsSkipping(string(p.kind), keys, p.skipped)
	res.Note = "each decision is in the journal (4)"
	if p.kind == approvals.KindReply {
		m.draftsSent(keys)
		for _, k := range keys {
			cmds = append(cmds, dropDraftCmd(m.svc, k))
		}
	}
	m.closeDialog()
	m.marks.Clear()
	m.results = res
	m.mode = modeResults
	m.ctx.Say(fmt.Sprintf("sending %s to %d tasks…", p.kind, len(keys)))
	return tea.Batch(cmds...)
}

// draftsSent drops the kept drafts of tasks a reply was sent to.
func (m *Inbox) draftsSent(keys []model.TaskKey) {
	for _, k := range keys {
		delete(m.drafts, k)
	}
}

// batchSent records one outcome of an answer for many on its row, and
// once every outcome is in, counts them in the footer. It reports
// whether the outcome was one of the list's.
func (m *Inbox) batchSent(msg SentMsg) bool {
	if m.results == nil || msg.from != fromInbox || !m.results.Has(msg.Key) {
		return false
	}
	o := msg.Outcome
	words := o.Words()
	if n := o.Next(); n != "" && o.Result != approvals.ResultAccepted {
		words += " — " + n
	}
	m.results.Set(msg.Key, outcomeOf(o.Result), words)
	if m.results.Done() {
		text, failed := m.results.Summary()
		m.ctx.Out.Send(common.StatusMsg{Text: text, Err: failed})
	}
	return true
}

// outcomeOf is a decision's result as the list of outcomes counts it.
func outcomeOf(r approvals.Result) common.Outcome {
	switch r {
	case approvals.ResultAccepted:
		return common.Sent
	case approvals.ResultUnknown, approvals.ResultPending:
		return common.Unknown
	}
	return common.Refused
}

// resultsKey scrolls or closes the outcomes.
func (m *Inbox) resultsKey(msg tea.KeyMsg) tea.Cmd {
	if m.results.Key(msg, m.resultKeys) {
		m.results, m.mode = nil, modeList
		m.refresh()
	}
	return nil
}
