package inbox

import (
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
)

// Compose writes a message that starts a new task, as the A2A Inspector
// does: to an agent chosen from the fleet (n), or as a follow-up of a
// task that ended (f), in its context and naming it in referenceTaskIds.
// Text, JSON data or both, in the reply editor (ctrl+e: $EDITOR); an
// armed confirmation shows exactly what is sent; the message is
// journaled and sent once through approvals.Service, like a decision,
// and the new task opens when the agent answers. A common.Component,
// shown by the root on a common.ComposeMsg.
type Compose struct {
	ctx  common.Context
	svc  *approvals.Service
	keys KeyMap
	w, h int

	step   composeStep
	agents []string // to choose from
	cursor int
	agent  string
	after  *a2a.Task // the ended task a follow-up names, nil for a new message
	ed     editor
	conf   *confirm
	sent   string // the messageId sent last: its answer opens the new task
}

type composeStep uint8

const (
	stepAgent   composeStep = iota // choosing the agent
	stepEditor                     // writing the message
	stepConfirm                    // confirming it
)

// ComposeFactory returns what ui.Options.Compose expects.
func ComposeFactory(svc *approvals.Service, o Options) func(common.Context) common.Component {
	return func(ctx common.Context) common.Component { return NewCompose(ctx, svc, o) }
}

// NewCompose builds the compose screen.
func NewCompose(ctx common.Context, svc *approvals.Service, o Options) *Compose {
	ctx.ReadOnly = ctx.ReadOnly || svc.ReadOnly()
	return &Compose{ctx: ctx, svc: svc, keys: o.keyMap(ctx.ReadOnly), w: 80, h: 20}
}

// Capturing is true while text is typed or the confirmation asks: then
// every key is the screen's. While an agent is chosen the global keys
// work (and keys that arrive together are taken one by one).
func (c *Compose) Capturing() bool { return c.step != stepAgent }

// Title is the header's name of the screen.
func (c *Compose) Title() string {
	if c.after != nil {
		return "follow-up"
	}
	return "new message"
}

// SetSize gives the screen its cells.
func (c *Compose) SetSize(w, h int) {
	c.w, c.h = max(w, 20), max(h, 5)
	if c.step == stepEditor {
		c.ed.setWidth(c.w)
	}
}

// Update opens on a ComposeMsg and answers keys, the editor and the send.
func (c *Compose) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case common.ComposeMsg:
		return c, c.open(msg)
	case SentMsg:
		return c, c.answered(msg)
	case tea.KeyMsg:
		return c, c.key(msg)
	}
	if c.step == stepEditor {
		if cmd, ok := c.ed.external(msg, c.ctx.Warn); ok {
			return c, cmd
		}
		return c, c.ed.update(msg)
	}
	return c, nil
}

// open starts a message to msg.Agent, or lets the person choose one;
// with msg.After, a follow-up of that ended task.
func (c *Compose) open(msg common.ComposeMsg) tea.Cmd {
	c.after, c.conf, c.agent, c.cursor = nil, nil, msg.Agent, 0
	if msg.After != (model.TaskKey{}) {
		t := c.ctx.Fleet.Task(msg.After)
		if t == nil || t.Snapshot == nil {
			return c.leave("no such task in the fleet: " + msg.After.Agent + " · " + model.ShortID(msg.After.ID))
		}
		snap := *t.Snapshot
		snap.Status.State = t.State
		c.after, c.agent = &snap, t.Key.Agent
	}
	if c.agent != "" {
		if c.ctx.Fleet.Agent(c.agent) == nil {
			return c.leave("no agent " + sanitize.Line(c.agent, 40) + " in the fleet")
		}
		return c.write()
	}
	c.agents = c.agents[:0]
	for _, a := range c.ctx.Fleet.Agents() {
		c.agents = append(c.agents, a.Name)
	}
	if len(c.agents) == 0 {
		return c.leave("no agents to write to")
	}
	c.step = stepAgent
	return nil
}

// write opens the editor for the chosen agent, or says why not.
func (c *Compose) write() tea.Cmd {
	if !c.ctx.Writable(c.agent) || c.ctx.ReadOnly {
		return c.leave(c.ctx.ReadOnlyWords(c.agent))
	}
	c.step, c.ed = stepEditor, newEditor()
	c.ed.text.Placeholder = "the message (optional when you send data)"
	c.ed.setWidth(c.w)
	return nil
}

// leave says why and goes back to where it was opened from.
func (c *Compose) leave(why string) tea.Cmd {
	if why != "" {
		c.ctx.Warn(why)
	}
	c.step, c.conf = stepAgent, nil
	c.ctx.Out.Send(common.BackMsg{})
	return nil
}

func (c *Compose) key(msg tea.KeyMsg) tea.Cmd {
	k := c.keys
	switch c.step {
	case stepAgent:
		switch {
		case key.Matches(msg, k.Up):
			c.cursor = max(c.cursor-1, 0)
		case key.Matches(msg, k.Down):
			c.cursor = min(c.cursor+1, len(c.agents)-1)
		case key.Matches(msg, k.Open, k.Continue):
			c.agent = c.agents[c.cursor]
			return c.write()
		case key.Matches(msg, k.Back, k.Quit):
			return c.leave("")
		}
		return nil
	case stepConfirm:
		answer, wake := c.conf.answer.Key(msg, c.ctx.Now())
		switch answer {
		case common.No:
			c.step, c.conf = stepEditor, nil
		case common.Yes:
			d := c.conf.d
			c.sent, c.conf = d.MessageID, nil
			c.ctx.Say(fmt.Sprintf("sending the %s to %s…", d.Kind, d.Agent))
			c.leave("")
			return sendCmd(c.svc, model.TaskKey{Agent: d.Agent, ID: d.TaskID}, d, fromCompose)
		}
		return wake
	}
	switch {
	case key.Matches(msg, k.Keep, k.Discard):
		c.ctx.Say("the message is closed; nothing was sent")
		return c.leave("")
	case key.Matches(msg, k.Switch):
		c.ed.toggle()
		return nil
	case key.Matches(msg, k.External):
		return c.ed.openExternal()
	case key.Matches(msg, k.Send):
		return c.prepare()
	}
	return c.ed.update(msg)
}

// prepare builds the message and opens its confirmation, or shows why
// it cannot be sent under the editor.
func (c *Compose) prepare() tea.Cmd {
	d, err := c.svc.PrepareNew(c.agent, c.after, approvals.Input{Text: c.ed.text.Value(), JSON: c.ed.data.Value()})
	if err != nil {
		c.ed.err = err.Error()
		return nil
	}
	var wake tea.Cmd
	c.conf, wake = newConfirm(c.svc, c.keys, d, model.TaskKey{Agent: d.Agent, ID: d.TaskID}, nil, c.ctx.Now())
	c.conf.warnReach(c.ctx.Fleet)
	c.conf.from = modeEditor
	c.step = stepConfirm
	return wake
}

// answered says what the send achieved and opens the task it started.
func (c *Compose) answered(msg SentMsg) tea.Cmd {
	o := msg.Outcome
	if msg.from != fromCompose || o.MessageID != c.sent {
		return nil
	}
	if o.Task != nil {
		msg.Key = model.TaskKey{Agent: o.Agent, ID: o.Task.ID} // the task it started
	}
	c.ctx.Out.Send(outcomeNotice(msg))
	if o.Result == approvals.ResultAccepted && o.Task != nil {
		c.ctx.Out.Send(common.ApplyMsg{Events: []model.Event{{Kind: model.EventTask, Agent: o.Agent, Source: model.SourceReply,
			At: c.ctx.Now(), Task: o.Task}}})
		c.ctx.Out.Send(common.OpenTaskMsg{Key: model.TaskKey{Agent: o.Agent, ID: o.Task.ID}})
	}
	return nil
}

// View draws the step: the agents to choose from, the editor under what
// it starts, or the confirmation.
func (c *Compose) View() string {
	th := c.ctx.Theme
	lines := []string{th.Title.Render(c.heading())}
	switch c.step {
	case stepAgent:
		lines = append(lines, th.Muted.Render("Choose the agent the message goes to (enter); it starts a new task there."), "")
		aw := 8
		for _, a := range c.agents {
			aw = max(aw, min(len(a), 40))
		}
		for i, a := range c.agents {
			mark, style := "  ", th.Text
			if i == c.cursor {
				mark, style = "▸ ", th.RowSelected
			}
			state := ""
			if ag := c.ctx.Fleet.Agent(a); ag != nil {
				state = "  " + ag.Health.State.String()
				if !c.ctx.Writable(a) {
					state += " · read-only"
				}
			}
			lines = append(lines, style.Render(mark+common.Pad(sanitize.Line(a, 40), aw))+th.Muted.Render(state))
		}
	case stepEditor:
		lines = append(lines, th.Muted.Render(wrapText(line(c.what()), c.w)), "")
		c.ed.setFieldHeight(max(min((c.h-8)/2, fieldMost), 1))
		lines = append(lines, strings.Split(c.ed.view(th, c.w), "\n")...)
	case stepConfirm:
		lines = append(lines, strings.Split(c.conf.view(th, c.w, c.h-1, c.ctx.Now()), "\n")...)
	}
	return fit(lines, c.w, c.h)
}

// heading names what is being written.
func (c *Compose) heading() string {
	if c.after != nil {
		return "Follow-up of " + sanitize.Line(c.agent, 40) + " · " + model.ShortID(c.after.ID) + " (" + model.ShortState(c.after.Status.State) + ")"
	}
	if c.agent == "" {
		return "New message"
	}
	return "New message to " + sanitize.Line(c.agent, 40)
}

// what says what the message will start.
func (c *Compose) what() string {
	if c.after != nil {
		return "A new task in context " + c.after.ContextID + ", naming " + string(c.after.ID) +
			" in referenceTaskIds. Journaled before it is sent, sent once."
	}
	return "A new task on " + c.agent + ", in a new context. Journaled before it is sent, sent once; the task opens when the agent answers."
}

// ShortHelp is the footer's keys for the step.
func (c *Compose) ShortHelp() []key.Binding {
	k := c.keys
	switch c.step {
	case stepAgent:
		return []key.Binding{k.Up, k.Down, keyAs(k.Open, "choose"), k.Back}
	case stepConfirm:
		return []key.Binding{k.Confirm, k.Decline}
	}
	return []key.Binding{k.Switch, k.Send, k.External, keyAs(k.Keep, "close")}
}

// FullHelp is every key of the screen.
func (c *Compose) FullHelp() [][]key.Binding {
	k := c.keys
	return [][]key.Binding{{k.Up, k.Down, keyAs(k.Open, "choose the agent"), k.Back}, {k.Switch, k.Send, k.External, keyAs(k.Keep, "close")},
		{k.Confirm, k.Decline}}
}

// keyAs is b with another description.
func keyAs(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}
