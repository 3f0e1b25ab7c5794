package ui

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/aymanbagabas/go-osc52/v2"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
)

// cancelTimeout bounds a CancelTask and the GetTask after it.
const cancelTimeout = 20 * time.Second

// taskActions are what the tasks and the detail screens do to one task:
// cancel it (after an armed confirmation), hand it to the inbox's reply
// editor, copy its id. Each screen has its own; an answer to a cancel is
// taken by the one that sent it.
type taskActions struct {
	ctx     *common.Context
	keys    TaskKeys
	quiet   time.Duration          // before the cancel confirmation arms
	dialog  *cancelDialog          // open while asking
	pending map[model.TaskKey]bool // cancels sent, not yet answered
	// journal, when set, refuses a reply to an agent a damaged line of
	// it blocks (the inbox would refuse it): r is not offered there.
	journal *approvals.Service
}

func newTaskActions(ctx *common.Context, keys TaskKeys, quiet time.Duration) taskActions {
	return taskActions{ctx: ctx, keys: keys, quiet: quiet, pending: map[model.TaskKey]bool{}}
}

// key handles cancel, reply and copy on t, and reports whether msg was
// one of them.
func (a *taskActions) key(msg tea.KeyMsg, t *model.Task) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, a.keys.Cancel):
		return a.askCancel(t), true
	case key.Matches(msg, a.keys.Reply):
		a.reply(t)
		return nil, true
	case key.Matches(msg, a.keys.Copy):
		if t != nil {
			a.ctx.Out.Send(common.CopyMsg{Text: string(t.Key.ID)})
		}
		return nil, true
	}
	return nil, false
}

// reply asks the root for the inbox's editor on an interrupted task.
func (a *taskActions) reply(t *model.Task) {
	switch {
	case t == nil || t.Class != model.ClassInterrupted:
		a.ctx.Warn("only interrupted tasks (input-required, auth-required) take a reply")
	case a.ctx.Refusal(t.Key.Agent, common.RoleFor(t.State)) != "":
		a.ctx.Warn(a.ctx.Refusal(t.Key.Agent, common.RoleFor(t.State)))
	case !a.decidable(t.Key.Agent):
		a.ctx.Warn(common.BlockedWords(a.journal, t.Key.Agent, footerWords))
	default:
		a.ctx.Out.Send(common.ReplyToMsg{Key: t.Key})
	}
}

// footerWords is the width the refusals of a blocked agent are worded
// for: the footer of the narrowest screen the dashboard is drawn for.
const footerWords = 80

// decidable reports whether a decision on agent may be sent: no damaged
// line of the journal refuses it.
func (a *taskActions) decidable(agent string) bool {
	return a.journal == nil || a.journal.Blocked(agent) == nil
}

// askCancel opens the confirmation for t, or says why it cannot be
// canceled.
func (a *taskActions) askCancel(t *model.Task) tea.Cmd {
	switch {
	case t == nil:
		a.ctx.Warn("no task selected")
	case t.Class == model.ClassTerminal:
		a.ctx.Warn("the task is already " + stateText(t.State) + "; there is nothing to cancel")
	case a.ctx.Refusal(t.Key.Agent, common.RoleCancel) != "":
		a.ctx.Warn(a.ctx.Refusal(t.Key.Agent, common.RoleCancel))
	default:
		d := &cancelDialog{key: t.Key, state: t.State, text: t.Text}
		var wake tea.Cmd
		d.answer, wake = common.NewConfirm(a.keys.Confirm, a.keys.Decline, a.quiet, a.ctx.Now())
		a.dialog = d
		return wake
	}
	return nil
}

// fleetChanged closes the cancel confirmation when its task ended (or
// left the fleet) while it asked: there is nothing left to cancel, and
// nothing was sent. It reports whether it closed the dialog.
func (a *taskActions) fleetChanged() bool {
	if a.dialog == nil {
		return false
	}
	k := a.dialog.key
	t := a.ctx.Fleet.Task(k)
	switch {
	case t == nil:
		a.dialog = nil
		a.ctx.Warn(taskName(k) + " left the fleet while the cancel asked; nothing was sent")
	case t.Class == model.ClassTerminal:
		a.dialog = nil
		a.ctx.Warn(taskName(k) + " is " + stateText(t.State) + " already; nothing was sent")
	default:
		return false
	}
	return true
}

// confirming reports whether the cancel confirmation is open: it takes
// every key then.
func (a *taskActions) confirming() bool { return a.dialog != nil }

// confirmKey sends the cancel on y once the dialog is armed; n or esc
// keeps the task.
func (a *taskActions) confirmKey(msg tea.KeyMsg) tea.Cmd {
	answer, wake := a.dialog.answer.Key(msg, a.ctx.Now())
	switch answer {
	case common.No:
		a.dialog = nil
	case common.Yes:
		k := a.dialog.key
		a.dialog = nil
		a.pending[k] = true
		a.ctx.Say("canceling " + taskName(k) + "…")
		a.ctx.Logger().Info("cancel requested", logKeyAgent, k.Agent, logKeyTask, string(k.ID))
		return cancelCmd(a.ctx.Backend, k)
	}
	return wake
}

// shortHelp is a screen's footer: the confirmation's answers while it
// asks, else the screen's keys.
func (a *taskActions) shortHelp(keys ...key.Binding) []key.Binding {
	if a.confirming() {
		return []key.Binding{a.keys.Confirm, a.keys.Decline}
	}
	return keys
}

// offered are the task keys as the footer shows them for t: only what t
// takes (cancel while it runs or waits, reply while it waits on a
// person, copy when there is a task) and nothing that writes to an agent
// that is read-only here. Pressing a key that is not offered still says
// why nothing happens; the a2aclient Manager alone refuses sends.
func (a *taskActions) offered(t *model.Task) (cancel, reply, copyID key.Binding) {
	cancels := t != nil && a.ctx.May(t.Key.Agent, common.RoleCancel)
	answers := t != nil && a.ctx.May(t.Key.Agent, common.RoleFor(t.State))
	return common.Offer(a.keys.Cancel, cancels && t.Class != model.ClassTerminal),
		common.Offer(a.keys.Reply, answers && t.Class == model.ClassInterrupted && a.decidable(t.Key.Agent)),
		common.Offer(a.keys.Copy, t != nil)
}

// view is the confirmation centred in w×h cells.
func (a *taskActions) view(w, h int) string { return a.dialog.view(a.ctx, w, h) }

// cancelDoneMsg is what CancelTask (then GetTask) says happened.
type cancelDoneMsg struct {
	Key  model.TaskKey
	Task *a2a.Task
	Err  error
}

// cancelCmd runs CancelTask through the backend.
func cancelCmd(b common.Backend, k model.TaskKey) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), cancelTimeout)
		defer cancel()
		t, err := b.Cancel(ctx, k.Agent, k.ID)
		return cancelDoneMsg{Key: k, Task: t, Err: err}
	}
}

// done takes the answer to a cancel this screen sent: the root applies
// the task the agent returned, and the footer says what happened.
func (a *taskActions) done(msg cancelDoneMsg) {
	if !a.pending[msg.Key] {
		return
	}
	delete(a.pending, msg.Key)
	log := a.ctx.Logger()
	state := ""
	if msg.Task != nil {
		a.ctx.Out.Send(common.ApplyMsg{Events: []model.Event{{Kind: model.EventTask, Agent: msg.Key.Agent,
			Source: model.SourceReply, At: a.ctx.Now(), Task: msg.Task}}})
		state = "it is now " + stateText(msg.Task.Status.State)
	}
	if msg.Err != nil {
		log.Warn("cancel failed", logKeyAgent, msg.Key.Agent, logKeyTask, string(msg.Key.ID), logKeyErr, msg.Err)
		text := "cancel " + taskName(msg.Key) + " failed: " + sanitize.Line(describe(msg.Err), 200)
		if state != "" {
			text += "; " + state
		}
		a.ctx.Warn(text)
		return
	}
	log.Info("cancel done", logKeyAgent, msg.Key.Agent, logKeyTask, string(msg.Key.ID), logKeyState, state)
	if state == "" {
		state = "the agent did not say what happened"
	}
	a.ctx.Say("canceled " + taskName(msg.Key) + ": " + state)
}

// taskName is "agent · short id" for a notice, sanitized.
func taskName(k model.TaskKey) string { return sanitize.Line(k.Agent, 32) + " · " + shortIDText(k.ID) }

// describe is an error in words, with the JSON-RPC code when there is one.
func describe(err error) string {
	var rpc interface{ RPCCode() int }
	s := err.Error()
	if errors.As(err, &rpc) && rpc.RPCCode() != 0 && !strings.Contains(s, "-3") {
		s += " (JSON-RPC " + itoa(rpc.RPCCode()) + ")"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		s = "the agent did not answer in time: " + s
	}
	return s
}

// cancelDialog is the question asked before CancelTask.
type cancelDialog struct {
	key    model.TaskKey
	state  a2a.TaskState
	text   string
	answer common.Confirm
}

// view is the dialog centred in w×h cells: the task it acts on by name
// (agent · short id, then the whole id), its state and its status text,
// so that a cursor moved under the finger could not go unnoticed.
func (c *cancelDialog) view(ctx *common.Context, w, h int) string {
	th := ctx.Theme
	inner := min(max(w-8, 20), 70)
	text := "(no status message)"
	if c.text != "" {
		text = sanitize.Line(c.text, maxLineText)
	}
	status := strings.Split(wrap(text, inner), "\n")
	if len(status) > 4 {
		status = append(status[:3], "…")
	}
	body := th.DialogTitle.Render("Cancel "+taskName(c.key)+"?") + "\n\n" +
		th.State(c.state).Render(stateText(c.state)) + "  " + th.Muted.Render(sanitize.Line("id "+string(c.key.ID), max(inner-18, 1))) + "\n" +
		strings.Join(status, "\n") + "\n\n" +
		"The agent is asked to stop (CancelTask); what it says happened is shown afterwards.\n\n" +
		c.answer.Hint(th, ctx.Now(), "cancel the task", "keep it")
	box := th.Dialog.Width(inner).Render(body)
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, box)
}

// clipboard writes to the terminal's clipboard with OSC 52.
type clipboard struct {
	out  io.Writer // the terminal the program draws on
	tmux bool      // inside tmux: write the sequence for tmux too
	log  *slog.Logger
}

// copy writes text (a task id, a sign-in code) to the clipboard with OSC
// 52: our own escape sequence, through the program's output, with the
// text sanitized. Inside tmux it is written twice: plain, which tmux
// takes itself when set-clipboard is on, and wrapped for passthrough,
// which reaches the outer terminal when allow-passthrough is on (off by
// default since tmux 3.3, which then drops the wrapped one: wrapped
// alone, y copied nothing). The Cmd's answer is the notice of what it
// did, naming what ("the code"), or the text itself when what is "".
func (c *clipboard) copy(text, what string) tea.Cmd {
	out, tmux, log := c.out, c.tmux, c.log
	text = sanitize.Line(text, 2048)
	if what == "" {
		what = text
	}
	return func() tea.Msg {
		seqs := []osc52.Sequence{osc52.New(text)}
		if tmux {
			seqs = append(seqs, osc52.New(text).Tmux())
		}
		for _, seq := range seqs {
			if _, err := seq.WriteTo(out); err != nil {
				log.Warn("copy to clipboard failed", logKeyErr, err)
				return common.StatusMsg{Text: "copy failed: " + err.Error(), Err: true}
			}
		}
		return common.StatusMsg{Text: "copied " + what + " (OSC 52; your terminal decides whether to accept it)"}
	}
}
