package ui

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
	"a2atop/ui/theme"
)

// cancelTimeout bounds a CancelTask and the GetTask after it.
const cancelTimeout = 20 * time.Second

// newHelp is a bubbles help.Model in the theme's styles.
func newHelp(th *theme.Theme) help.Model {
	h := help.New()
	h.Styles.ShortKey, h.Styles.FullKey = th.HelpKey, th.HelpKey
	h.Styles.ShortDesc, h.Styles.FullDesc = th.HelpDesc, th.HelpDesc
	h.Styles.ShortSeparator, h.Styles.FullSeparator = th.HelpSep, th.HelpSep
	h.Styles.Ellipsis = th.HelpSep
	return h
}

// viewHelp is the key map of what the body shows.
func (m *Model) viewHelp() bindingHelp {
	switch m.view {
	case viewDetail:
		return m.detail.help()
	case viewAgents:
		return m.agents.help()
	case viewInbox, viewJournal:
		if c := m.component(); c != nil {
			return bindingHelp{short: c.ShortHelp(), full: c.FullHelp()}
		}
	}
	return m.tasks.help()
}

func (m *Model) shortHelp() []key.Binding { return m.viewHelp().short }

// helpView is the full key map of the current view plus the global keys.
func (m *Model) helpView() string {
	th := m.ctx.Theme
	groups := append(append([][]key.Binding{}, m.viewHelp().full...), m.keys.globalHelp())
	title := th.Title.Render("Keys — "+m.viewName()) + th.Muted.Render("   (? or esc closes)")
	h := m.help
	h.Width = m.width
	out := title + "\n\n" + h.FullHelpView(groups)
	if m.view == viewTasks {
		out += "\n\n" + th.Muted.Render("filter: free text, agent:NAME, state:input-required, class:terminal")
	}
	return out
}

// helpKey closes help on ?, esc or q.
func (m *Model) helpKey(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, m.keys.Help, m.keys.Back, m.keys.Quit) {
		m.overlay = overlayNone
	}
	return nil
}

// confirmCancel is the question asked before CancelTask.
type confirmCancel struct {
	key   model.TaskKey
	state a2a.TaskState
	text  string
}

// view is the dialog centred in the body.
func (c *confirmCancel) view(th *theme.Theme, w, h int) string {
	inner := min(max(w-8, 20), 70)
	body := th.DialogTitle.Render("Cancel this task?") + "\n\n" +
		sanitize.Line(c.key.Agent+" · "+string(c.key.ID), inner) + "\n" +
		th.State(c.state).Render(stateText(c.state)) + "  " + sanitize.Line(c.text, max(inner-16, 1)) + "\n\n" +
		"The agent is asked to stop (CancelTask); what it says\nhappened is shown afterwards.\n\n" +
		th.HelpKey.Render("y") + th.HelpDesc.Render(" cancel the task   ") +
		th.HelpKey.Render("n/esc") + th.HelpDesc.Render(" keep it running")
	box := th.Dialog.Width(inner).Render(body)
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, box)
}

// cancelDoneMsg is what CancelTask (then GetTask) says happened.
type cancelDoneMsg struct {
	Key  model.TaskKey
	Task *a2a.Task
	Err  error
}

// askCancel opens the confirmation for the selected task.
func (m *Model) askCancel(t *model.Task) {
	if t == nil {
		m.status.set("no task selected", true, m.ctx.Now())
		return
	}
	if t.Class == model.ClassTerminal {
		m.status.set("the task is already "+stateText(t.State)+"; there is nothing to cancel", true, m.ctx.Now())
		return
	}
	if !m.ctx.Writable(t.Key.Agent) {
		m.status.set(m.ctx.ReadOnlyWords(t.Key.Agent), true, m.ctx.Now())
		return
	}
	m.confirm = &confirmCancel{key: t.Key, state: t.State, text: t.Text}
	m.overlay = overlayConfirm
}

// confirmKey sends the cancel on y; n or esc keeps the task.
func (m *Model) confirmKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Confirm):
		c := m.confirm
		m.overlay, m.confirm = overlayNone, nil
		m.status.set("canceling "+sanitize.Line(c.key.Agent, 32)+" · "+shortIDText(c.key.ID)+"…", false, m.ctx.Now())
		m.log.Info("cancel requested", logKeyAgent, c.key.Agent, logKeyTask, string(c.key.ID))
		return cancelCmd(m.ctx.Backend, c.key)
	case key.Matches(msg, m.keys.Decline):
		m.overlay, m.confirm = overlayNone, nil
	}
	return nil
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

// cancelDone shows what the agent says happened and applies the task.
func (m *Model) cancelDone(msg cancelDoneMsg) tea.Cmd {
	who := sanitize.Line(msg.Key.Agent, 32) + " · " + shortIDText(msg.Key.ID)
	now := m.ctx.Now()
	if msg.Task != nil {
		m.ctx.Fleet.Apply([]model.Event{{Kind: model.EventTask, Agent: msg.Key.Agent, Source: model.SourceReply, At: now, Task: msg.Task}})
		m.syncViews()
	}
	state := ""
	if msg.Task != nil {
		state = "it is now " + stateText(msg.Task.Status.State)
	}
	if msg.Err != nil {
		m.log.Warn("cancel failed", logKeyAgent, msg.Key.Agent, logKeyTask, string(msg.Key.ID), logKeyErr, msg.Err)
		text := "cancel " + who + " failed: " + sanitize.Line(describe(msg.Err), 200)
		if state != "" {
			text += "; " + state
		}
		m.status.set(text, true, now)
		return nil
	}
	m.log.Info("cancel done", logKeyAgent, msg.Key.Agent, logKeyTask, string(msg.Key.ID), logKeyState, state)
	if state == "" {
		state = "the agent did not say what happened"
	}
	m.status.set("canceled "+who+": "+state, false, now)
	return nil
}

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
