package common

import (
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/lipgloss"

	"a2atop/internal/sanitize"
	"a2atop/model"
)

// cancelTarget is a task the cancel will ask to stop, as it was when
// the dialog opened.
type cancelTarget struct {
	key   model.TaskKey
	state a2a.TaskState
	text  string
}

func targetOf(t *model.Task) cancelTarget {
	return cancelTarget{key: t.Key, state: t.State, text: t.Text}
}

// cancelDialog is the question asked before CancelTask: of one task, or
// of every marked one (many), with the marked tasks it skips.
type cancelDialog struct {
	targets []cancelTarget
	skipped []Skip
	many    bool
	answer  Confirm
}

func (c *cancelDialog) skip(k model.TaskKey, why string) {
	c.skipped = append(c.skipped, Skip{Key: k, Why: why})
}

// view is the dialog centred in w×h cells.
func (c *cancelDialog) view(ctx *Context, w, h int) string {
	if c.many {
		return c.manyView(ctx, w, h)
	}
	return c.oneView(ctx, w, h)
}

// oneView names the task it acts on (agent · short id, then the whole
// id), its state and its status text, so that a cursor moved under the
// finger could not go unnoticed.
func (c *cancelDialog) oneView(ctx *Context, w, h int) string {
	th := ctx.Theme
	t := c.targets[0]
	inner := min(max(w-8, 20), 70)
	text := "(no status message)"
	if t.text != "" {
		text = sanitize.Line(t.text, MaxLineText)
	}
	status := strings.Split(Wrap(text, inner), "\n")
	if len(status) > 4 {
		status = append(status[:3], "…")
	}
	body := th.DialogTitle.Render("Cancel "+TaskName(t.key)+"?") + "\n\n" +
		th.State(t.state).Render(StateText(t.state)) + "  " + th.Muted.Render(sanitize.Line("id "+string(t.key.ID), max(inner-18, 1))) + "\n" +
		strings.Join(status, "\n") + "\n\n" +
		"The agent is asked to stop (CancelTask); what it says happened is shown afterwards.\n\n" +
		c.answer.Hint(th, ctx.Now(), "cancel the task", "keep it")
	box := th.Dialog.Width(inner).Render(body)
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, box)
}

// manyView lists every task the cancel will ask to stop (agent, id,
// state, status) and those it skips, within h lines: when they do not
// all fit, the list is cut with a line that says how many more there
// are, and the answer keys stay on screen.
func (c *cancelDialog) manyView(ctx *Context, w, h int) string {
	th := ctx.Theme
	inner := max(min(w-4, 110), 20)
	aw := 8
	for _, t := range c.targets {
		aw = max(aw, min(lipgloss.Width(sanitize.Line(t.key.Agent, 20)), 20))
	}
	rows := make([]string, 0, len(c.targets)+len(c.skipped)+1)
	for _, t := range c.targets {
		head := Pad(sanitize.Line(t.key.Agent, aw), aw) + " " + Pad(ShortIDText(t.key.ID), 8) + " "
		state := Pad(StateText(t.state), 14)
		rest := max(inner-lipgloss.Width(head)-16, 1)
		rows = append(rows, head+th.State(t.state).Render(state)+" "+sanitize.Line(t.text, rest))
	}
	if len(c.skipped) > 0 {
		rows = append(rows, th.Warn.Render("skipped ("+strconv.Itoa(len(c.skipped))+"): nothing is sent to them"))
		for _, s := range c.skipped {
			rows = append(rows, th.Muted.Render(sanitize.Line(Pad(s.Key.Agent, aw)+" "+Pad(ShortIDText(s.Key.ID), 8)+" "+s.Why, inner)))
		}
	}
	head := []string{th.DialogTitle.Render("Cancel " + Plural(len(c.targets), "task") + "?"), ""}
	tail := []string{"", "Each agent is asked to stop its task (CancelTask); every answer is shown task by task.", "",
		c.answer.Hint(th, ctx.Now(), "cancel them all", "keep them")}
	if room := h - 2 - len(head) - len(tail); len(rows) > room {
		more := len(rows) - max(room-1, 1)
		rows = append(rows[:max(room-1, 1)], th.Warn.Render("… "+strconv.Itoa(more)+" more rows; every task listed is canceled"))
	}
	body := strings.Join(append(append(head, rows...), tail...), "\n")
	box := th.Dialog.Width(inner).Render(body)
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, box)
}
