package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/model"
	"a2atop/ui/common"
)

// TasksKeyMap is the keys of the tasks screen.
type TasksKeyMap struct {
	ListKeys
	TaskKeys
	NextPane, PrevPane key.Binding
	Open               key.Binding // the selected task's detail
	Filter             common.FilterKeys
	Quit               key.Binding
	// Agents and Inbox are the global keys the footer names; New sets
	// them from KeyMap.Agents and KeyMap.Inbox.
	Agents, Inbox key.Binding
}

// DefaultTasksKeyMap returns the tasks screen's keys.
func DefaultTasksKeyMap() TasksKeyMap {
	return TasksKeyMap{
		ListKeys: DefaultListKeys(),
		TaskKeys: DefaultTaskKeys(),
		NextPane: bind("tab", "next pane", "tab"),
		PrevPane: bind("shift+tab", "prev pane", "shift+tab"),
		Open:     bind("enter", "open", "enter"),
		Filter:   common.DefaultFilterKeys(),
		Quit:     bind("q", "back/quit", "q"),
	}
}

// tasksScreen is the first screen: one pane per class of task, the
// filter, and the actions on the selected task.
type tasksScreen struct {
	ctx     *common.Context
	keys    TasksKeyMap
	act     taskActions
	panes   [4]*pane // active, interrupted, terminal, unknown
	focus   model.Class
	query   model.Query
	filter  common.Filter
	w, h    int
	shown   bool // on screen: only then does it say that the selected task left
	side    bool
	columns [][]*pane // the panes of each column, top to bottom
	paint   rowPaint
}

func newTasks(ctx *common.Context, keys TasksKeyMap, act taskActions, sort model.SortBy) *tasksScreen {
	v := &tasksScreen{ctx: ctx, keys: keys, act: act, focus: model.ClassActive, query: model.Query{Sort: sort},
		filter: common.NewFilter(ctx.Theme, keys.Filter, "tasks"), shown: true} // the first screen
	for i, c := range []model.Class{model.ClassActive, model.ClassInterrupted, model.ClassTerminal, model.ClassUnknown} {
		v.panes[i] = &pane{class: c}
	}
	v.paint = newRowPaint(ctx.Theme)
	return v
}

// Update follows the fleet, takes its cancels' answers, keys and the
// mouse.
func (v *tasksScreen) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case common.FleetChangedMsg:
		v.fleetChanged()
	case common.ShownMsg, common.HiddenMsg:
		v.shown = msg == common.ShownMsg{}
	case cancelDoneMsg:
		v.act.done(msg)
	case tea.KeyMsg:
		return v, v.onKey(msg)
	case tea.MouseMsg:
		v.mouse(msg)
	}
	return v, nil
}

// fleetChanged follows the fleet and, while on screen, says so when the
// task selected in the focused pane left it: the cursor is then on its
// neighbour, and an action must not land there unnoticed.
func (v *tasksScreen) fleetChanged() {
	closed := v.act.fleetChanged() // it said what became of the task
	left := v.sync()
	if left == (model.TaskKey{}) || !v.shown || closed {
		return
	}
	why := "no longer held"
	if t := v.ctx.Fleet.Task(left); t != nil && t.Class != v.focus {
		why = "now " + stateText(t.State)
	} else if t != nil {
		why = "it no longer matches the filter"
	}
	next := paneName(v.focus) + " is empty now"
	if sel := v.selected(); sel != nil {
		next = "the cursor is on " + taskName(sel.Key)
	}
	v.ctx.Say(taskName(left) + " left " + paneName(v.focus) + " (" + why + "); " + next)
}

// onKey handles, in order, the confirmation, the filter, the actions on
// the selected task, then moving.
func (v *tasksScreen) onKey(msg tea.KeyMsg) tea.Cmd {
	if v.act.confirming() {
		return v.act.confirmKey(msg)
	}
	if handled, changed, cmd := v.filter.Key(msg); handled {
		if changed {
			v.filterChanged()
		}
		return cmd
	}
	k := v.keys
	sel := v.selected()
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Open):
		if sel != nil {
			v.ctx.Out.Send(common.OpenTaskMsg{Key: sel.Key})
		}
	default:
		if cmd, ok := v.act.key(msg, sel); ok {
			return cmd
		}
		v.move(msg)
	}
	return nil
}

// filterChanged shows the rows of the filter in effect. When it leaves
// the focused pane empty, focus moves to the first pane with rows.
func (v *tasksScreen) filterChanged() {
	v.query.Filter = v.filter.Query()
	v.sync()
	if v.focused().count > 0 {
		return
	}
	for _, p := range v.visible() {
		if p.count > 0 {
			v.focus = p.class
			v.sync()
			return
		}
	}
}

// mouse scrolls the pane under the wheel and selects the row clicked;
// dialogs and the filter ignore the mouse.
func (v *tasksScreen) mouse(msg tea.MouseMsg) {
	if v.Capturing() {
		return
	}
	switch n := wheel(msg); {
	case n != 0:
		v.scroll(v.paneAt(msg.X, msg.Y), n)
	case msg.Button == tea.MouseButtonLeft:
		v.click(msg.X, msg.Y)
	}
}

// View draws the panes, or the cancel confirmation over them.
func (v *tasksScreen) View() string {
	if v.act.confirming() {
		return v.act.view(v.w, v.h)
	}
	return v.panesView()
}

// SetSize gives the panes their cells.
func (v *tasksScreen) SetSize(w, h int) {
	v.w, v.h = w, h
	v.filter.SetWidth(w)
	v.sync()
}

// Capturing is true while the filter is typed or the cancel asks.
func (v *tasksScreen) Capturing() bool { return v.filter.Editing() || v.act.confirming() }

// Title is the header's name of the screen.
func (v *tasksScreen) Title() string { return "tasks" }

// OpensText reports whether msg opens the filter, so that a paste
// starting with it is typed into it.
func (v *tasksScreen) OpensText(msg tea.KeyMsg) bool {
	return !v.act.confirming() && v.filter.Opens(msg)
}

// Footnote is the filter: being typed (with what its keys do), or kept
// ("/dep filters tasks (esc clears)" and what in it matches nothing).
func (v *tasksScreen) Footnote(w int) (string, bool) { return v.filter.Footnote(w) }

// HelpNote is the filter's syntax.
func (v *tasksScreen) HelpNote() string { return common.FilterNote }

// ShortHelp is the footer of the tasks screen.
func (v *tasksScreen) ShortHelp() []key.Binding {
	k := v.keys
	sel := v.selected()
	cancel, reply, copyID := v.act.offered(sel)
	return v.act.shortHelp(common.Offer(k.Open, sel != nil), k.NextPane, k.Filter.Open, cancel, reply, copyID, k.Agents, k.Inbox, k.Quit)
}

// FullHelp is every key of the tasks screen, grouped.
func (v *tasksScreen) FullHelp() [][]key.Binding {
	k := v.keys
	return [][]key.Binding{
		k.ListKeys.all(),
		{k.NextPane, k.PrevPane, k.Open, k.Filter.Open, keyHint(k.Filter.Clear, "clear filter")},
		v.act.teamHelp(k.TaskKeys.all()),
	}
}

// setFilter puts a filter in effect, as if typed and kept.
func (v *tasksScreen) setFilter(s string) {
	if v.filter.Set(s) {
		v.filterChanged()
	}
}

func (v *tasksScreen) filterText() string { return v.filter.Text() }
