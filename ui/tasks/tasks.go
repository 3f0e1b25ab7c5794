package tasks

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/model"
	"a2atop/ui/common"
)

// KeyMap is the keys of the tasks screen.
type KeyMap struct {
	common.ListKeys
	common.TaskKeys
	NextPane, PrevPane key.Binding
	Zoom               key.Binding // the focused pane alone, full screen
	New                key.Binding // a new message to an agent: a new task
	Open               key.Binding // the selected task's detail
	Filter             common.FilterKeys
	Marks              common.MarkKeys
	Sort               common.SortKeys
	SortBy             SortKeys
	Quit               key.Binding
	// Agents and Inbox are the global keys the footer names, Tasks and
	// Views those the tabs name; the root sets them from its KeyMap.
	Agents, Inbox, Tasks key.Binding   `keys:"-"`
	Views                []key.Binding `keys:"-"`
}

// DefaultKeyMap returns the tasks screen's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		ListKeys: common.DefaultListKeys(),
		TaskKeys: common.DefaultTaskKeys(),
		NextPane: common.Bind("tab", "next pane", "tab"),
		PrevPane: common.Bind("shift+tab", "prev pane", "shift+tab"),
		Zoom:     common.Bind("z", "zoom pane", "z"),
		New:      common.Bind("n", "new message", "n"),
		Open:     common.Bind("enter", "open", "enter"),
		Filter:   common.DefaultFilterKeys(),
		Marks:    common.DefaultMarkKeys(),
		Sort:     common.DefaultSortKeys(),
		SortBy:   DefaultSortKeys(),
		Quit:     common.Bind("q", "back/quit", "q"),
	}
}

// Screen is the first screen: one pane per class of task, the
// filter, and the actions on the selected task.
type Screen struct {
	ctx     *common.Context
	keys    KeyMap
	act     common.TaskActions
	panes   [4]*pane // active, interrupted, terminal, unknown
	focus   model.Class
	query   model.Query // the filter in effect
	sort    common.Sort // the column the panes are sorted by
	rows    rowSource   // the panes' rows in that order
	filter  common.Filter
	marks   common.Marks // marked for an action on all of them
	w, h    int
	isShown bool // on screen: only then does it say that the selected task left
	// seekRows is true while every pane is empty since the filter last
	// changed (or the screen was made) and the person has not chosen a
	// pane: the focus goes to the first pane the fleet then fills.
	seekRows bool
	side     bool
	zoomed   bool        // the focused pane alone
	shown    columnSet   // the columns drawn (a saved view may leave some out)
	view     string      // the saved view in effect, "" for none
	views    []SavedView // the saved views, drawn as tabs
	// hideAfter keeps off the Terminal pane what ended longer ago
	// (hide_terminal_after); 0 keeps everything.
	hideAfter time.Duration
	columns   [][]*pane // the panes of each column, top to bottom
	paint     rowPaint
}

// New is the tasks screen, with its keys, its task actions, the sort it
// starts with, hide_terminal_after (0 keeps every ended task), and the
// saved views drawn as tabs; the one with Default (the last, if several)
// is in effect.
func New(ctx *common.Context, keys KeyMap, act common.TaskActions, sort model.SortBy, hideAfter time.Duration, views []SavedView) *Screen {
	v := &Screen{ctx: ctx, keys: keys, act: act, focus: model.ClassActive, hideAfter: hideAfter,
		sort:   common.NewSortBy(keys.SortBy.columns(), sort),
		filter: common.NewFilter(ctx.Theme, keys.Filter, "tasks"), shown: showAll, isShown: true, seekRows: true} // the first screen
	v.filter.CheckAgents(common.FleetAgents(ctx))
	v.rows = v.source()
	for i, c := range []model.Class{model.ClassActive, model.ClassInterrupted, model.ClassTerminal, model.ClassUnknown} {
		v.panes[i] = &pane{class: c}
	}
	v.paint = newRowPaint(ctx.Theme)
	v.views = views
	for _, sv := range views {
		if sv.Default {
			v.apply(sv)
		}
	}
	return v
}

// Update follows the fleet, takes its cancels' answers, keys and the
// mouse.
func (v *Screen) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case common.FleetChangedMsg:
		v.fleetChanged()
		v.marks.Keep(func(k model.TaskKey) bool { return v.ctx.Fleet.Task(k) != nil })
	case common.ShownMsg, common.HiddenMsg:
		v.isShown = msg == common.ShownMsg{}
	case common.TickMsg:
		v.clockTick()
	case common.CancelDoneMsg:
		v.act.Done(msg)
	case common.ThemeChangedMsg:
		v.paint = newRowPaint(v.ctx.Theme)
	case tea.KeyMsg:
		return v, v.onKey(msg)
	case tea.MouseMsg:
		v.mouse(msg)
	case common.ShowTasksMsg:
		v.setFilter(msg.Filter)
	case ApplyViewMsg:
		v.apply(msg.View)
	case PlainMsg:
		v.plain()
	case SortMsg:
		v.sort.Set(msg.Col, msg.Desc)
		v.sortChanged()
	case ActMsg:
		return v, msg.Do(&v.act, msg.Task)
	}
	return v, nil
}

// fleetChanged follows the fleet and, while on screen, says so when the
// task selected in the focused pane left it: the cursor is then on its
// neighbour, and an action must not land there unnoticed.
func (v *Screen) fleetChanged() {
	closed := v.act.FleetChanged() // it said what became of the task
	left := v.sync()
	if v.seekRows {
		v.focusRows()
	}
	if left == (model.TaskKey{}) || !v.isShown || closed {
		return
	}
	why := "no longer held"
	if t := v.ctx.Fleet.Task(left); t != nil && t.Class != v.focus {
		why = "now " + common.StateText(t.State)
	} else if t != nil {
		why = "it no longer matches the filter"
	}
	next := paneName(v.focus) + " is empty now"
	if sel := v.selected(); sel != nil {
		next = "the cursor is on " + common.TaskName(sel.Key)
	}
	v.ctx.Aside(common.TaskName(left) + " left " + paneName(v.focus) + " (" + why + "); " + next)
}

// onKey handles, in order, the confirmation (and the outcomes of a
// cancel of several), the filter being typed, the marks, the filter's
// clear, the actions on the marked or selected tasks, then moving.
func (v *Screen) onKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case v.act.Confirming():
		return v.act.ConfirmKey(msg)
	case v.act.ShowingResults():
		v.act.ResultsKey(msg)
		return nil
	}
	if !v.filter.Editing() && v.marks.Key(msg, v.keys.Marks, v.selectedKey(), v.paneKeys) {
		return nil
	}
	if handled, changed, cmd := v.filter.Key(msg); handled {
		if changed {
			v.filterChanged()
		}
		return cmd
	}
	if v.sort.Key(msg, v.keys.Sort) {
		v.sortChanged()
		return nil
	}
	k := v.keys
	sel := v.selected()
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.New):
		v.ctx.Out.Send(common.ComposeMsg{})
	case key.Matches(msg, k.Zoom):
		v.zoomed = !v.zoomed
		v.sync()
	case key.Matches(msg, k.Open):
		if sel != nil {
			v.ctx.Out.Send(common.OpenTaskMsg{Key: sel.Key})
		}
	default:
		marked := v.marks.Keys()
		if cmd, ok := v.act.Key(msg, sel, marked); ok {
			if len(marked) > 0 && !key.Matches(msg, v.keys.Cancel, v.keys.Copy) {
				v.marks.Clear() // handed to the inbox, which marks them
			}
			return cmd
		}
		v.move(msg)
	}
	return nil
}

// selectedKey is the task under the cursor of the focused pane, or the
// zero key.
func (v *Screen) selectedKey() model.TaskKey {
	if t := v.selected(); t != nil {
		return t.Key
	}
	return model.TaskKey{}
}

// paneKeys are every task the focused pane shows under the filter: what
// ctrl+a marks.
func (v *Screen) paneKeys() []model.TaskKey {
	p := v.focused()
	rows := v.rows.page(v.ctx.Fleet, p.class, 0, p.count)
	keys := make([]model.TaskKey, len(rows))
	for i, t := range rows {
		keys[i] = t.Key
	}
	return keys
}

// filterChanged shows the rows of the filter in effect. When it leaves
// the focused pane empty, focus moves to the first pane with rows.
func (v *Screen) filterChanged() {
	v.query.Filter = v.filter.Query()
	v.rows = v.source()
	v.sync()
	v.seekRows = true
	v.focusRows()
}

// focusRows moves the focus, when its pane is empty, to the first pane
// with rows; seekRows stays true while there is none.
func (v *Screen) focusRows() {
	if v.focused().count > 0 {
		v.seekRows = false
		return
	}
	for _, p := range v.unzoomed() {
		if p.count > 0 {
			v.focus = p.class
			v.seekRows = false
			v.sync()
			return
		}
	}
}

// source is where the panes' rows come from for the sort and the filter
// in effect, and hide_terminal_after.
func (v *Screen) source() rowSource {
	return timedRows(withRecent(sourceFor(v.sort, v.query, v.ctx.Now), sortState{v.sort.Col(), v.sort.Desc()}, v.query, v.hideAfter, v.ctx.Now), v.ctx.Clock)
}

// sortChanged reads the panes in the new order; the selection stays on
// its task.
func (v *Screen) sortChanged() {
	v.rows = v.source()
	v.sync()
}

// setSort sorts by the column named (a unique start of it), desc from
// the last; it reports whether there is such a column.
func (v *Screen) setSort(name string, desc bool) bool {
	col, ok := v.sort.Named(name)
	if ok {
		v.sort.Set(col, desc)
		v.sortChanged()
	}
	return ok
}

// mouse scrolls the pane under the wheel and selects the row clicked;
// dialogs and the filter ignore the mouse.
func (v *Screen) mouse(msg tea.MouseMsg) {
	if v.Capturing() {
		return
	}
	msg.Y -= v.tabsHeight()
	switch n := common.Wheel(msg); {
	case n != 0:
		v.scroll(v.paneAt(msg.X, msg.Y), n)
	case msg.Button == tea.MouseButtonLeft:
		v.click(msg.X, msg.Y)
	}
}

// View draws the panes (under the tabs of the saved views), or the
// cancel confirmation (or the outcomes of a cancel of several) over
// them.
func (v *Screen) View() string {
	if v.act.Confirming() || v.act.ShowingResults() {
		return v.act.View(v.w, v.h+v.tabsHeight())
	}
	if v.tabsHeight() > 0 {
		return v.tabsLine() + "\n" + v.panesView()
	}
	return v.panesView()
}

// tabsHeight is the line the tabs take: one when views are saved.
func (v *Screen) tabsHeight() int {
	if len(v.views) > 0 {
		return 1
	}
	return 0
}

// SetSize gives the panes their cells, under the tabs.
func (v *Screen) SetSize(w, h int) {
	v.w, v.h = w, max(h-v.tabsHeight(), 1)
	v.filter.SetWidth(w)
	v.sync()
}

// Capturing is true while the filter is typed, the cancel asks or its
// outcomes show.
func (v *Screen) Capturing() bool {
	return v.filter.Editing() || v.act.Confirming() || v.act.ShowingResults()
}

// Title is the header's name of the screen.
func (v *Screen) Title() string { return "tasks" }

// OpensText reports whether msg opens the filter, so that a paste
// starting with it is typed into it.
func (v *Screen) OpensText(msg tea.KeyMsg) bool {
	return !v.act.Confirming() && !v.act.ShowingResults() && v.filter.Opens(msg)
}

// Footnote is the filter: being typed (with what its keys do), or kept
// ("/dep filters tasks (esc clears)" and what in it matches nothing),
// after the count of marked tasks.
func (v *Screen) Footnote(w int) (string, bool) {
	note, editing := v.filter.Footnote(w)
	if editing || v.Capturing() {
		return note, editing
	}
	return v.marks.Footnote(v.ctx.Theme, v.keys.Marks) + note, false
}

// HelpNote is the filter's syntax.
func (v *Screen) HelpNote() string { return common.FilterNote }

// ShortHelp is the footer of the tasks screen.
func (v *Screen) ShortHelp() []key.Binding {
	k := v.keys
	sel := v.selected()
	keys := []key.Binding{common.Offer(k.Open, sel != nil), k.NextPane, k.Filter.Open, common.Offer(k.Marks.Mark, sel != nil)}
	keys = append(keys, v.act.Offered(sel, v.marks.Len()).List()...)
	return v.act.ShortHelp(append(keys, k.New, k.Agents, k.Inbox, k.Quit)...)
}

// FullHelp is every key of the tasks screen, grouped.
func (v *Screen) FullHelp() [][]key.Binding {
	k := v.keys
	return [][]key.Binding{
		k.ListKeys.All(),
		{k.NextPane, k.PrevPane, k.Zoom, k.Open, k.New, k.Filter.Open, common.KeyHint(k.Filter.Clear, "clear filter")},
		{k.Marks.Mark, k.Marks.All, k.Marks.Clear},
		v.act.TeamHelp(k.TaskKeys.All()),
		append([]key.Binding{k.Sort.Prev, k.Sort.Next}, v.sort.Keys()...),
	}
}

// setFilter puts a filter in effect, as if typed and kept.
func (v *Screen) setFilter(s string) {
	if v.filter.Set(s) {
		v.filterChanged()
	}
}

func (v *Screen) filterText() string { return v.filter.Text() }
