package common

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
	"a2atop/model"
)

// cancelTimeout bounds a CancelTask and the GetTask after it.
const cancelTimeout = 20 * time.Second

// TaskActions are what the tasks and the detail screens do to tasks:
// cancel them (after an armed confirmation), hand them to the inbox
// (reply, approve, deny) or to the follow-up editor, copy an id. On the
// tasks screen they act on every marked task when any is marked. Each
// screen has its own; an answer to a cancel is taken by the one that
// sent it.
type TaskActions struct {
	ctx     *Context
	keys    TaskKeys
	quiet   time.Duration          // before the cancel confirmation arms
	dialog  *cancelDialog          // open while asking
	pending map[model.TaskKey]bool // cancels sent, not yet answered
	// results are the outcomes of a cancel of several tasks, task by
	// task, shown until closed; nil when none.
	results    *Results
	resultKeys ResultKeys
	// journal, when set, refuses a reply to an agent a damaged line of
	// it blocks (the inbox would refuse it): r is not offered there.
	journal *approvals.Service
}

// NewTaskActions are the actions of one screen, on its keys: the cancel
// confirmation arms after quiet; journal, when not nil, refuses a reply
// to an agent a damaged line of it blocks.
func NewTaskActions(ctx *Context, keys TaskKeys, quiet time.Duration, journal *approvals.Service) TaskActions {
	return TaskActions{ctx: ctx, keys: keys, quiet: quiet, pending: map[model.TaskKey]bool{},
		resultKeys: keys.Results, journal: journal}
}

// Journal is the approvals journal the actions consult (nil without
// one): the detail lists a task's votes from it.
func (a *TaskActions) Journal() *approvals.Service { return a.journal }

// Targets are the tasks the open cancel confirmation asks to stop; none
// when it is not open.
func (a *TaskActions) Targets() []model.TaskKey {
	if a.dialog == nil {
		return nil
	}
	keys := make([]model.TaskKey, len(a.dialog.targets))
	for i, t := range a.dialog.targets {
		keys[i] = t.key
	}
	return keys
}

// Key handles the task keys on the marked tasks (when marked is not
// empty) or on t, and reports whether msg was one of them.
func (a *TaskActions) Key(msg tea.KeyMsg, t *model.Task, marked []model.TaskKey) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, a.keys.Cancel):
		if len(marked) > 0 {
			return a.AskCancelMany(marked), true
		}
		return a.AskCancel(t), true
	case key.Matches(msg, a.keys.Reply):
		a.Decide(approvals.KindReply, t, marked)
	case key.Matches(msg, a.keys.Approve):
		a.Decide(approvals.KindApprove, t, marked)
	case key.Matches(msg, a.keys.Deny):
		a.Decide(approvals.KindDeny, t, marked)
	case key.Matches(msg, a.keys.FollowUp):
		a.FollowUp(t)
	case key.Matches(msg, a.keys.Copy):
		if t != nil {
			a.ctx.Out.Send(CopyMsg{Text: string(t.Key.ID)})
		}
	default:
		return nil, false
	}
	return nil, true
}

// Decide hands the marked tasks, or t, to the inbox to answer: one
// reply, one approval, one denial for all of them. A single task that
// cannot take the answer says why here; of several, the inbox's
// confirmation lists those it skips and why.
func (a *TaskActions) Decide(kind approvals.Kind, t *model.Task, marked []model.TaskKey) {
	if len(marked) > 0 {
		a.ctx.Out.Send(DecideMsg{Kind: kind, Keys: marked})
		return
	}
	switch {
	case t == nil || t.Class != model.ClassInterrupted:
		a.ctx.Warn("only interrupted tasks (input-required, auth-required) take a reply, an approval or a denial")
	case kind != approvals.KindReply && t.State != a2a.TaskStateAuthRequired:
		a.ctx.Warn(string(kind) + " answers auth-required; this task asks for input: reply with " + a.keys.Reply.Help().Key)
	case a.ctx.Refusal(t.Key.Agent, RoleFor(t.State)) != "":
		a.ctx.Warn(a.ctx.Refusal(t.Key.Agent, RoleFor(t.State)))
	case !a.decidable(t.Key.Agent):
		a.ctx.Warn(BlockedWords(a.journal, t.Key.Agent, footerWords))
	case kind == approvals.KindReply:
		a.ctx.Out.Send(ReplyToMsg{Key: t.Key})
	default:
		a.ctx.Out.Send(DecideMsg{Kind: kind, Keys: []model.TaskKey{t.Key}})
	}
}

// FollowUp asks the root for the follow-up editor on an ended task: a
// new task in its context that names it.
func (a *TaskActions) FollowUp(t *model.Task) {
	switch {
	case t == nil:
		a.ctx.Warn("no task selected")
	case t.Class != model.ClassTerminal:
		a.ctx.Warn("a follow-up starts a new task after one that ended; this one is " + StateText(t.State) +
			" (reply with " + a.keys.Reply.Help().Key + " while it waits)")
	case a.ctx.Refusal(t.Key.Agent, RoleAnswer) != "":
		a.ctx.Warn(a.ctx.Refusal(t.Key.Agent, RoleAnswer))
	case !a.decidable(t.Key.Agent):
		a.ctx.Warn(BlockedWords(a.journal, t.Key.Agent, footerWords))
	default:
		a.ctx.Out.Send(ComposeMsg{Agent: t.Key.Agent, After: t.Key})
	}
}

// footerWords is the width the refusals of a blocked agent are worded
// for: the footer of the narrowest screen the dashboard is drawn for.
const footerWords = 80

// decidable reports whether a decision on agent may be sent: no damaged
// line of the journal refuses it.
func (a *TaskActions) decidable(agent string) bool {
	return a.journal == nil || a.journal.Blocked(agent) == nil
}

// AskCancel opens the confirmation for t, or says why it cannot be
// canceled.
func (a *TaskActions) AskCancel(t *model.Task) tea.Cmd {
	switch {
	case t == nil:
		a.ctx.Warn("no task selected")
	case t.Class == model.ClassTerminal:
		a.ctx.Warn("the task is already " + StateText(t.State) + "; there is nothing to cancel")
	case a.ctx.Refusal(t.Key.Agent, RoleCancel) != "":
		a.ctx.Warn(a.ctx.Refusal(t.Key.Agent, RoleCancel))
	default:
		return a.open(&cancelDialog{targets: []cancelTarget{targetOf(t)}})
	}
	return nil
}

// AskCancelMany opens one confirmation for every marked task that can be
// canceled, listing the others as skipped with why.
func (a *TaskActions) AskCancelMany(keys []model.TaskKey) tea.Cmd {
	d := &cancelDialog{many: true}
	for _, k := range keys {
		t := a.ctx.Fleet.Task(k)
		switch {
		case t == nil:
			d.skip(k, "no longer in the fleet")
		case t.Class == model.ClassTerminal:
			d.skip(k, "already "+StateText(t.State))
		case a.ctx.Refusal(k.Agent, RoleCancel) != "":
			d.skip(k, a.ctx.Refusal(k.Agent, RoleCancel))
		default:
			d.targets = append(d.targets, targetOf(t))
		}
	}
	if len(d.targets) == 0 {
		a.ctx.Warn("none of the " + Plural(len(keys), "marked task") + " can be canceled (they ended, or nothing may be sent to their agents)")
		return nil
	}
	return a.open(d)
}

func (a *TaskActions) open(d *cancelDialog) tea.Cmd {
	var wake tea.Cmd
	d.answer, wake = NewConfirm(a.keys.Confirm, a.keys.Decline, a.quiet, a.ctx.Now())
	a.dialog = d
	return wake
}

// FleetChanged closes the cancel confirmation when its tasks ended (or
// left the fleet) while it asked: there is nothing left to cancel, and
// nothing was sent. Of several, those that ended move to the skipped.
// It reports whether it closed the dialog.
func (a *TaskActions) FleetChanged() bool {
	d := a.dialog
	if d == nil {
		return false
	}
	if d.many {
		return a.dropEnded(d)
	}
	k := d.targets[0].key
	t := a.ctx.Fleet.Task(k)
	switch {
	case t == nil:
		a.dialog = nil
		a.ctx.Warn(TaskName(k) + " left the fleet while the cancel asked; nothing was sent")
	case t.Class == model.ClassTerminal:
		a.dialog = nil
		a.ctx.Warn(TaskName(k) + " is " + StateText(t.State) + " already; nothing was sent")
	default:
		return false
	}
	return true
}

// dropEnded moves the targets of a cancel of several that ended to the
// skipped, and closes the dialog when none is left.
func (a *TaskActions) dropEnded(d *cancelDialog) bool {
	kept := d.targets[:0]
	for _, c := range d.targets {
		switch t := a.ctx.Fleet.Task(c.key); {
		case t == nil:
			d.skip(c.key, "left the fleet while the cancel asked")
		case t.Class == model.ClassTerminal:
			d.skip(c.key, "became "+StateText(t.State)+" while the cancel asked")
		default:
			kept = append(kept, c)
		}
	}
	d.targets = kept
	if len(kept) > 0 {
		return false
	}
	a.dialog = nil
	a.ctx.Warn("every marked task ended while the cancel asked; nothing was sent")
	return true
}

// Confirming reports whether the cancel confirmation is open: it takes
// every key then.
func (a *TaskActions) Confirming() bool { return a.dialog != nil }

// ShowingResults reports whether the outcomes of a cancel of several
// are on screen: they take every key then.
func (a *TaskActions) ShowingResults() bool { return a.results != nil }

// ResultsKey scrolls or closes the outcomes.
func (a *TaskActions) ResultsKey(msg tea.KeyMsg) {
	if a.results.Key(msg, a.resultKeys) {
		a.results = nil
	}
}

// ConfirmKey sends the cancels on y once the dialog is armed; n or esc
// keeps the tasks.
func (a *TaskActions) ConfirmKey(msg tea.KeyMsg) tea.Cmd {
	d := a.dialog
	answer, wake := d.answer.Key(msg, a.ctx.Now())
	switch answer {
	case No:
		a.dialog = nil
	case Yes:
		a.dialog = nil
		return a.send(d)
	}
	return wake
}

// send asks for every cancel at once; of several, the outcomes are
// listed task by task as they come in.
func (a *TaskActions) send(d *cancelDialog) tea.Cmd {
	keys := make([]model.TaskKey, 0, len(d.targets))
	cmds := make([]tea.Cmd, 0, len(d.targets))
	for _, c := range d.targets {
		keys = append(keys, c.key)
		a.pending[c.key] = true
		a.ctx.Logger().Info("cancel requested", LogKeyAgent, c.key.Agent, LogKeyTask, string(c.key.ID))
		cmds = append(cmds, cancelCmd(a.ctx.Backend, c.key))
	}
	if !d.many {
		a.ctx.Say("canceling " + TaskName(keys[0]) + "…")
		return cmds[0]
	}
	a.results = NewResultsSkipping("cancel", keys, d.skipped)
	a.ctx.Say("canceling " + Plural(len(keys), "task") + "…")
	return tea.Batch(cmds...)
}

// ShortHelp is a screen's footer: the confirmation's answers while it
// asks, the results' keys while they show, else the screen's keys.
func (a *TaskActions) ShortHelp(keys ...key.Binding) []key.Binding {
	switch {
	case a.Confirming():
		return []key.Binding{a.keys.Confirm, a.keys.Decline}
	case a.ShowingResults():
		return []key.Binding{a.resultKeys.Close, a.resultKeys.Down, a.resultKeys.Up}
	}
	return keys
}

// Offered are the task keys as the footer shows them for t, or for the
// marked tasks when any is marked: only what they take (cancel while
// they run or wait, reply while they wait on a person, approve and deny
// while they wait on an authorization, a follow-up once ended, copy when
// there is a task) and nothing that writes to an agent that is read-only
// here or, attached to a hub, that the operator's roles do not allow.
// Pressing a key that is not offered still says why nothing happens;
// the a2aclient Manager alone refuses sends.
func (a *TaskActions) Offered(t *model.Task, marked int) Offers {
	k := a.keys
	if marked > 0 { // what some of them may take; the confirmation says which
		approves := a.ctx.MayAnywhere(RoleApprove)
		return Offers{cancel: Offer(k.Cancel, a.ctx.MayAnywhere(RoleCancel)),
			reply:   Offer(k.Reply, approves || a.ctx.MayAnywhere(RoleAnswer)),
			approve: Offer(k.Approve, approves), deny: Offer(k.Deny, approves),
			copyID: Offer(k.Copy, t != nil)}
	}
	cancels := t != nil && a.ctx.May(t.Key.Agent, RoleCancel)
	answers := t != nil && a.ctx.May(t.Key.Agent, RoleFor(t.State)) && a.decidable(t.Key.Agent)
	waits := answers && t.Class == model.ClassInterrupted
	auth := waits && t.State == a2a.TaskStateAuthRequired
	return Offers{
		cancel:   Offer(k.Cancel, cancels && t.Class != model.ClassTerminal),
		reply:    Offer(k.Reply, waits),
		approve:  Offer(k.Approve, auth),
		deny:     Offer(k.Deny, auth),
		followUp: Offer(k.FollowUp, t != nil && a.ctx.May(t.Key.Agent, RoleAnswer) && t.Class == model.ClassTerminal),
		copyID:   Offer(k.Copy, t != nil),
	}
}

// Offers are the task keys a footer shows now.
type Offers struct{ cancel, reply, approve, deny, followUp, copyID key.Binding }

// List is the offers in footer order.
func (o Offers) List() []key.Binding {
	return []key.Binding{o.approve, o.deny, o.reply, o.cancel, o.followUp, o.copyID}
}

// View is the confirmation centred in w×h cells, or the outcomes of a
// cancel of several.
func (a *TaskActions) View(w, h int) string {
	if a.results != nil && a.dialog == nil {
		return a.results.View(a.ctx.Theme, a.resultKeys, w, h)
	}
	return a.dialog.view(a.ctx, w, h)
}

// CancelDoneMsg is what CancelTask (then GetTask) says happened.
type CancelDoneMsg struct {
	Key  model.TaskKey
	Task *a2a.Task
	Err  error
}

// cancelCmd runs CancelTask through the backend.
func cancelCmd(b Backend, k model.TaskKey) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), cancelTimeout)
		defer cancel()
		t, err := b.Cancel(ctx, k.Agent, k.ID)
		return CancelDoneMsg{Key: k, Task: t, Err: err}
	}
}

// Done takes the answer to a cancel this screen sent: the root applies
// the task the agent returned, and the footer says what happened.
func (a *TaskActions) Done(msg CancelDoneMsg) {
	if !a.pending[msg.Key] {
		return
	}
	delete(a.pending, msg.Key)
	log := a.ctx.Logger()
	state := ""
	if msg.Task != nil {
		a.ctx.Out.Send(ApplyMsg{Events: []model.Event{{Kind: model.EventTask, Agent: msg.Key.Agent,
			Source: model.SourceReply, At: a.ctx.Now(), Task: msg.Task}}})
		state = "it is now " + StateText(msg.Task.Status.State)
	}
	if a.results != nil && a.results.Has(msg.Key) {
		a.batchDone(msg, state)
		return
	}
	if msg.Err != nil {
		log.Warn("cancel failed", LogKeyAgent, msg.Key.Agent, LogKeyTask, string(msg.Key.ID), LogKeyErr, msg.Err)
		text := "cancel " + TaskName(msg.Key) + " failed: " + sanitize.Line(describe(msg.Err), 200)
		if state != "" {
			text += "; " + state
		}
		a.ctx.Warn(text)
		return
	}
	log.Info("cancel done", LogKeyAgent, msg.Key.Agent, LogKeyTask, string(msg.Key.ID), LogKeyState, state)
	if state == "" {
		state = "the agent did not say what happened"
	}
	a.ctx.Say("canceled " + TaskName(msg.Key) + ": " + state)
}

// batchDone records one answer of a cancel of several on its row, and
// once every answer is in, counts them in the footer.
func (a *TaskActions) batchDone(msg CancelDoneMsg, state string) {
	log := a.ctx.Logger()
	switch {
	case msg.Err == nil:
		log.Info("cancel done", LogKeyAgent, msg.Key.Agent, LogKeyTask, string(msg.Key.ID), LogKeyState, state)
		if state == "" {
			state = "the agent did not say what happened"
		}
		a.results.Set(msg.Key, Sent, "canceled: "+state)
	default:
		log.Warn("cancel failed", LogKeyAgent, msg.Key.Agent, LogKeyTask, string(msg.Key.ID), LogKeyErr, msg.Err)
		o := Refused
		if errors.Is(msg.Err, context.DeadlineExceeded) {
			o = Unknown
		}
		text := describe(msg.Err)
		if state != "" {
			text += "; " + state
		}
		a.results.Set(msg.Key, o, text)
	}
	if a.results.Done() {
		text, failed := a.results.Summary()
		a.ctx.Out.Send(StatusMsg{Text: text, Err: failed})
	}
}

// TaskName is "agent · short id" for a notice, sanitized.
func TaskName(k model.TaskKey) string { return sanitize.Line(k.Agent, 32) + " · " + ShortIDText(k.ID) }

// describe is an error in words, with the JSON-RPC code when there is one.
func describe(err error) string {
	var rpc interface{ RPCCode() int }
	s := err.Error()
	if errors.As(err, &rpc) && rpc.RPCCode() != 0 && !strings.Contains(s, "-3") {
		s += " (JSON-RPC " + strconv.Itoa(rpc.RPCCode()) + ")"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		s = "the agent did not answer in time: " + s
	}
	return s
}
