package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
)

// maxExchanges is how many captured exchanges the agents view shows.
const maxExchanges = 10

// captureLoadedMsg carries an agent's raw capture, read in a tea.Cmd.
type captureLoadedMsg struct {
	Agent     string
	Exchanges []model.Exchange
}

// agentsView lists the agents and shows the selected one in full: card,
// binding, capabilities, health, task counts and the raw capture.
type agentsView struct {
	ctx      *common.Context
	keys     *KeyMap
	vp       viewport.Model
	w, h     int
	cursor   int
	name     string // the selected agent, kept when agents are added
	captures map[string][]model.Exchange
	listTop  int // first listed agent (the list scrolls)
}

func newAgentsView(ctx *common.Context, keys *KeyMap) agentsView {
	return agentsView{ctx: ctx, keys: keys, vp: viewport.New(80, 10), captures: map[string][]model.Exchange{}}
}

// listHeight is how many agents are listed at once.
func (v *agentsView) listHeight() int {
	n := len(v.ctx.Fleet.Agents())
	return clamp(n, 1, max(v.h/3, 3))
}

func (v *agentsView) setSize(w, h int) {
	v.w, v.h = w, h
	v.vp.Width = w
	v.vp.Height = max(h-v.listHeight()-2, 1)
	v.sync()
}

// sync keeps the selected agent selected and refreshes its card.
func (v *agentsView) sync() {
	as := v.ctx.Fleet.Agents()
	for i, a := range as {
		if a.Name == v.name {
			v.cursor = i
		}
	}
	v.cursor = clamp(v.cursor, 0, len(as)-1)
	if v.cursor >= 0 && v.cursor < len(as) {
		v.name = as[v.cursor].Name
	}
	lh := v.listHeight()
	v.vp.Height = max(v.h-lh-2, 1)
	if v.cursor < v.listTop {
		v.listTop = v.cursor
	}
	if v.cursor >= v.listTop+lh {
		v.listTop = v.cursor - lh + 1
	}
	off := v.vp.YOffset
	v.vp.SetContent(v.card())
	v.vp.SetYOffset(off)
}

// selected is the agent under the cursor, or nil.
func (v *agentsView) selected() *model.Agent {
	return v.ctx.Fleet.Agent(v.name)
}

// fetchCapture reads the selected agent's raw capture in a Cmd.
func (v *agentsView) fetchCapture() tea.Cmd {
	b, name := v.ctx.Backend, v.name
	if b == nil || name == "" {
		return nil
	}
	return func() tea.Msg { return captureLoadedMsg{Agent: name, Exchanges: b.Capture(name)} }
}

// loaded stores a capture.
func (v *agentsView) loaded(msg captureLoadedMsg) {
	v.captures[msg.Agent] = msg.Exchanges
	if msg.Agent == v.name {
		v.sync()
	}
}

// update moves the selection (j/k) and scrolls the card (pgup/pgdn, g/G).
func (v *agentsView) update(msg tea.KeyMsg) tea.Cmd {
	k := v.keys
	prev := v.cursor
	switch {
	case key.Matches(msg, k.Up):
		v.cursor--
	case key.Matches(msg, k.Down):
		v.cursor++
	default:
		k.page(&v.vp, msg)
	}
	return v.reselect(prev)
}

// reselect settles a cursor move and fetches the new agent's capture.
func (v *agentsView) reselect(prev int) tea.Cmd {
	as := v.ctx.Fleet.Agents()
	v.cursor = clamp(v.cursor, 0, len(as)-1)
	if v.cursor == prev || v.cursor < 0 {
		return nil
	}
	v.name = as[v.cursor].Name
	v.vp.GotoTop()
	v.sync()
	return v.fetchCapture()
}

// click selects the agent listed at body row y.
func (v *agentsView) click(y int) tea.Cmd {
	i := y - 1
	if i < 0 || i >= v.listHeight() {
		return nil
	}
	prev := v.cursor
	v.cursor = v.listTop + i
	return v.reselect(prev)
}

// view is the list, a rule, and the selected agent's card.
func (v *agentsView) view() string {
	th := v.ctx.Theme
	as := v.ctx.Fleet.Agents()
	lines := []string{th.PaneTitleFocused.Render(" Agents " + strconv.Itoa(len(as)))}
	if len(as) == 0 {
		lines = append(lines, th.Muted.Render("  no agents configured"))
	}
	lh := v.listHeight()
	for i := v.listTop; i < len(as) && i < v.listTop+lh; i++ {
		lines = append(lines, v.listRow(as[i], i == v.cursor))
	}
	for len(lines) < lh+1 {
		lines = append(lines, "")
	}
	lines = append(lines, th.Muted.Render(strings.Repeat("─", max(v.w, 1))))
	return strings.Join(lines, "\n") + "\n" + v.vp.View()
}

// listRow is one agent: name, health, counts, the last error.
func (v *agentsView) listRow(a *model.Agent, sel bool) string {
	th := v.ctx.Theme
	gutter := " "
	if sel {
		gutter = "›"
	}
	nw := agentWidth(v.ctx.Fleet)
	counts := "A" + strconv.Itoa(a.Counts[model.ClassActive]) + " I" + strconv.Itoa(a.Counts[model.ClassInterrupted]) +
		" T" + strconv.Itoa(a.Counts[model.ClassTerminal])
	if n := a.Counts[model.ClassUnknown]; n > 0 {
		counts += " ?" + strconv.Itoa(n)
	}
	plain := gutter + pad(sanitize.Line(a.Name, nw), nw) + " " + pad(a.Health.State.String(), 12) + " " + pad(counts, 18)
	errText := sanitize.Line(a.Health.Err, max(v.w-len(plain)-1, 0))
	if sel {
		return th.RowSelected.Render(pad(plain+" "+errText, v.w))
	}
	return gutter + pad(sanitize.Line(a.Name, nw), nw) + " " + healthStyle(v.ctx, a.Health.State).Render(pad(a.Health.State.String(), 12)) +
		" " + pad(counts, 18) + " " + th.Error.Render(errText)
}

// futureIn writes how far ahead t is: "in 3s".
func futureIn(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	if !t.After(now) {
		return t.UTC().Format("15:04:05Z") + " (due)"
	}
	return t.UTC().Format("15:04:05Z") + " (in " + common.Age(t, now) + ")"
}

// help is the footer and help screen of the agents view.
func (v *agentsView) help() bindingHelp {
	k := v.keys
	return bindingHelp{
		short: []key.Binding{k.Down, k.Up, k.PageDown, k.PageUp, k.Tasks, k.Back, k.Help},
		full:  [][]key.Binding{{k.Up, k.Down}, {k.PageUp, k.PageDown, k.Top, k.Bottom}, {k.Back}},
	}
}
