package agents

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

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

// KeyMap is the keys of the agents screen.
type KeyMap struct {
	common.ListKeys // Up, Down, Top and Bottom select an agent, as in every list; PageUp and PageDown scroll its card
	Filter          common.FilterKeys
	Open            key.Binding // the selected agent's tasks (filter agent:NAME)
	Zoom            key.Binding // the card alone, full screen
	New             key.Binding // a new message to the selected agent
	Sort            common.SortKeys
	SortBy          AgentSortKeys
	Back            key.Binding `keys:"layered"`
	Quit            key.Binding
	// SignIn opens the device sign-in of an agent that signs a person in;
	// SignInDialog are the keys of that dialog while it is open.
	SignIn       key.Binding
	SignInDialog SignInKeyMap `keys:"sign_in"`
	// Tasks is the global key the footer names; New sets it from
	// KeyMap.Tasks.
	Tasks key.Binding `keys:"-"`
}

// DefaultKeyMap returns the agents screen's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		ListKeys:     common.DefaultListKeys(),
		Filter:       common.DefaultFilterKeys(),
		Open:         common.Bind("enter", "its tasks", "enter"),
		Zoom:         common.Bind("z", "zoom card", "z"),
		New:          common.Bind("n", "new message", "n"),
		Sort:         common.DefaultSortKeys(),
		SortBy:       DefaultAgentSortKeys(),
		Back:         common.Bind("esc", "back", "esc"),
		Quit:         common.Bind("q", "back/quit", "q"),
		SignIn:       common.Bind("L", "sign in", "L"),
		SignInDialog: DefaultSignInKeyMap(),
	}
}

// Screen lists the agents and shows the selected one in full:
// card, binding, capabilities, health, task counts and the raw capture,
// read again every second while shown.
type Screen struct {
	ctx      *common.Context
	keys     KeyMap
	shown    bool
	vp       viewport.Model
	w, h     int
	cursor   int
	name     string         // the selected agent, kept when agents are added
	list     []*model.Agent // the agents shown: all, or those the filter matches
	filter   common.Filter
	captures map[string][]model.Exchange
	listTop  int               // first listed agent (the list scrolls)
	clip     *common.Clipboard // for the sign-in dialog's copies
	dialog   *signInDialog     // the device sign-in, when open (signin.go)
	zoomed   bool              // the card alone
	sort     common.Sort       // the column the list is sorted by
}

// New is the agents screen, with its keys and the terminal's clipboard
// (the sign-in copies the page and the code with it).
func New(ctx *common.Context, keys KeyMap, clip *common.Clipboard) *Screen {
	v := &Screen{ctx: ctx, keys: keys, vp: viewport.New(80, 10), captures: map[string][]model.Exchange{},
		clip: clip, filter: common.NewFilter(ctx.Theme, keys.Filter, "agents"), sort: common.NewSort(keys.SortBy.columns(), agentColConfig)}
	v.filter.CheckAgents(common.FleetAgents(ctx))
	return v
}

// Update follows the fleet and the capture while shown, keys and the
// mouse.
func (v *Screen) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg.(type) {
	case tea.KeyMsg, signInStartedMsg, signInDoneMsg:
		if v.dialog != nil {
			return v, v.updateDialog(msg)
		}
	}
	switch msg := msg.(type) {
	case common.ShownMsg:
		v.shown = true
		v.sync()
		v.ctx.Clock.EverySecond(v.ctx.Now()) // agents_clock.go
		return v, v.fetchCapture()
	case common.HiddenMsg:
		v.shown = false
	case common.TickMsg:
		if v.shown {
			v.sync()
			v.ctx.Clock.EverySecond(v.ctx.Now()) // agents_clock.go
			return v, v.fetchCapture()
		}
	case common.FleetChangedMsg:
		if v.shown {
			v.sync()
		}
	case captureLoadedMsg:
		v.loaded(msg)
	case tea.KeyMsg:
		return v, v.onKey(msg)
	case tea.MouseMsg:
		return v, v.mouse(msg)
	}
	return v, nil
}

// onKey handles the filter, leaving, then moving.
func (v *Screen) onKey(msg tea.KeyMsg) tea.Cmd {
	if handled, changed, cmd := v.filter.Key(msg); handled {
		if changed {
			prev := v.name
			v.sync()
			if v.name != prev {
				return tea.Batch(cmd, v.fetchCapture())
			}
		}
		return cmd
	}
	if v.sort.Key(msg, v.keys.Sort) {
		v.sync()
		return nil
	}
	if key.Matches(msg, v.keys.Back, v.keys.Quit) {
		v.ctx.Out.Send(common.BackMsg{})
		return nil
	}
	if key.Matches(msg, v.keys.SignIn) {
		return v.signIn()
	}
	switch {
	case key.Matches(msg, v.keys.Open):
		if v.name != "" {
			v.ctx.Out.Send(common.ShowTasksMsg{Filter: "agent:" + v.name})
		}
		return nil
	case key.Matches(msg, v.keys.New):
		if v.name != "" {
			v.ctx.Out.Send(common.ComposeMsg{Agent: v.name})
		}
		return nil
	case key.Matches(msg, v.keys.Zoom):
		v.zoomed = !v.zoomed
		v.sync()
		return nil
	}
	return v.move(msg)
}

// Capturing is true while the filter is typed or the sign-in dialog is
// open: either takes every key.
func (v *Screen) Capturing() bool { return v.dialog != nil || v.filter.Editing() }

// OpensText reports whether msg opens the filter, so that a paste
// starting with it is typed into it.
func (v *Screen) OpensText(msg tea.KeyMsg) bool { return v.filter.Opens(msg) }

// Footnote is the filter's line in the footer.
func (v *Screen) Footnote(w int) (string, bool) { return v.filter.Footnote(w) }

// HelpNote is the filter's syntax: state: and class: keep the agents
// that hold such a task.
func (v *Screen) HelpNote() string {
	return common.FilterNote + " (agents holding such a task)"
}

// shownAgents is the fleet's agents the filter keeps.
func (v *Screen) shownAgents() []*model.Agent {
	as := v.sorted(v.ctx.Fleet.Agents())
	if !v.filter.Active() {
		return as
	}
	q := v.filter.Query()
	out := as[:0]
	for _, a := range as {
		r := model.Row{Agent: a.Name, Text: []string{a.URL, a.Info.CardName, a.Info.InterfaceURL, a.Info.Binding,
			a.Info.ProtocolVersion, a.Health.State.String(), a.Health.Err}}
		for c, n := range a.Counts {
			if n > 0 {
				r.Classes = append(r.Classes, model.Class(c))
			}
		}
		if len(q.States) > 0 {
			r.States = v.ctx.Fleet.AgentStates(a.Name)
		}
		if q.MatchRow(r) {
			out = append(out, a)
		}
	}
	return out
}

// mouse scrolls the card with the wheel and selects the agent clicked.
func (v *Screen) mouse(msg tea.MouseMsg) tea.Cmd {
	if n := common.Wheel(msg); n != 0 {
		common.ScrollViewport(&v.vp, n)
		return nil
	}
	if msg.Button == tea.MouseButtonLeft {
		return v.click(msg.Y)
	}
	return nil
}

// Title is the header's name of the screen.
func (v *Screen) Title() string { return "agents" }

// listHeight is how many agents are listed at once.
func (v *Screen) listHeight() int {
	return common.Clamp(len(v.list), 1, max(v.h/3, 3))
}

// SetSize gives the list and the card their cells.
func (v *Screen) SetSize(w, h int) {
	v.w, v.h = w, h
	v.vp.Width = w
	v.filter.SetWidth(w)
	v.sync()
}

// sync keeps the selected agent selected and refreshes its card.
func (v *Screen) sync() {
	v.list = v.shownAgents()
	as := v.list
	for i, a := range as {
		if a.Name == v.name {
			v.cursor = i
		}
	}
	v.cursor = common.Clamp(v.cursor, 0, len(as)-1)
	v.name = ""
	if v.cursor >= 0 && v.cursor < len(as) {
		v.name = as[v.cursor].Name
	}
	lh := v.listHeight()
	v.vp.Height = max(v.h-lh-2, 1)
	if v.zoomed {
		v.vp.Height = max(v.h-1, 1)
	}
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
func (v *Screen) selected() *model.Agent {
	return v.ctx.Fleet.Agent(v.name)
}

// fetchCapture reads the selected agent's raw capture in a Cmd.
func (v *Screen) fetchCapture() tea.Cmd {
	b, name := v.ctx.Backend, v.name
	if b == nil || name == "" {
		return nil
	}
	return func() tea.Msg { return captureLoadedMsg{Agent: name, Exchanges: b.Capture(name)} }
}

// loaded stores a capture.
func (v *Screen) loaded(msg captureLoadedMsg) {
	v.captures[msg.Agent] = msg.Exchanges
	if msg.Agent == v.name {
		v.sync()
	}
}

// move moves the selection (j/k) and scrolls the card (pgup/pgdn, g/G).
func (v *Screen) move(msg tea.KeyMsg) tea.Cmd {
	k := v.keys
	prev := v.cursor
	switch {
	case key.Matches(msg, k.Up):
		v.cursor--
	case key.Matches(msg, k.Down):
		v.cursor++
	case key.Matches(msg, k.Top, k.Bottom) && !v.zoomed: // zoomed, the card alone: its top and bottom
		v.cursor = 0
		if key.Matches(msg, k.Bottom) {
			v.cursor = len(v.list) - 1
		}
	default:
		k.Page(&v.vp, msg)
	}
	return v.reselect(prev)
}

// reselect settles a cursor move and fetches the new agent's capture.
func (v *Screen) reselect(prev int) tea.Cmd {
	as := v.list
	v.cursor = common.Clamp(v.cursor, 0, len(as)-1)
	if v.cursor == prev || v.cursor < 0 {
		return nil
	}
	v.name = as[v.cursor].Name
	v.vp.GotoTop()
	v.sync()
	return v.fetchCapture()
}

// click selects the agent listed at body row y.
func (v *Screen) click(y int) tea.Cmd {
	i := y - 1
	if v.zoomed || i < 0 || i >= v.listHeight() {
		return nil
	}
	prev := v.cursor
	v.cursor = v.listTop + i
	return v.reselect(prev)
}

// View is the list, a rule, and the selected agent's card; or the
// sign-in dialog.
func (v *Screen) View() string {
	if v.dialog != nil {
		return v.dialog.view(v.ctx, v.w, v.h)
	}
	th := v.ctx.Theme
	if v.zoomed {
		return th.PaneTitleFocused.Render(" "+sanitize.Line(v.name, 64)) + th.Muted.Render(" · "+v.keys.Zoom.Help().Key+": the list") + "\n" + v.vp.View()
	}
	as := v.list
	title := " Agents " + strconv.Itoa(len(v.ctx.Fleet.Agents()))
	if v.filter.Active() {
		title += " · " + strconv.Itoa(len(as)) + " shown"
	}
	if v.sort.Col() != agentColConfig || v.sort.Desc() {
		title += " · " + v.sort.Label()
	}
	lines := []string{th.PaneTitleFocused.Render(title)}
	switch {
	case len(as) == 0 && v.filter.Active():
		lines = append(lines, th.Muted.Render("  no agent matches the filter"))
	case len(as) == 0:
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
func (v *Screen) listRow(a *model.Agent, sel bool) string {
	th := v.ctx.Theme
	gutter := " "
	if sel {
		gutter = "›"
	}
	nw := common.AgentWidth(v.ctx.Fleet)
	counts := "A" + strconv.Itoa(a.Counts[model.ClassActive]) + " I" + strconv.Itoa(a.Counts[model.ClassInterrupted]) +
		" T" + strconv.Itoa(a.Counts[model.ClassTerminal])
	if n := a.Counts[model.ClassUnknown]; n > 0 {
		counts += " ?" + strconv.Itoa(n)
	}
	spark := ""
	if v.w >= 80 { // the last hour's events, five minutes a cell
		per := v.ctx.Activity.PerMinute(a.Name, v.ctx.Now())
		spark = common.Pad(common.Sparkline(per[:], sparkCells), sparkCells) + " "
	}
	plain := gutter + common.Pad(sanitize.Line(a.Name, nw), nw) + " " + common.Pad(a.Health.State.String(), 12) + " " + common.Pad(counts, 18)
	note, noteStyle := a.Health.Err, th.Error
	if note == "" { // no error: what the operator should know of how it is watched
		note, noteStyle = v.ctx.Fleet.AgentNote(a), th.Muted
	}
	errText := sanitize.Line(note, max(v.w-lipgloss.Width(plain)-lipgloss.Width(spark)-1, 0))
	if sel {
		return th.RowSelected.Render(common.Pad(plain+" "+spark+errText, v.w))
	}
	return gutter + common.Pad(sanitize.Line(a.Name, nw), nw) + " " + healthStyle(v.ctx, a.Health.State).Render(common.Pad(a.Health.State.String(), 12)) +
		" " + common.Pad(counts, 18) + " " + th.Title.Render(spark) + noteStyle.Render(errText)
}

// sparkCells is the width of a listed agent's sparkline: the hour in
// five-minute cells.
const sparkCells = 12

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

// ShortHelp is the footer of the agents screen.
func (v *Screen) ShortHelp() []key.Binding {
	k := v.keys
	if v.dialog != nil {
		d := v.dialog.keys
		return []key.Binding{d.CopyCode, d.CopyURL, d.Close}
	}
	if a := v.selected(); a != nil && a.Info.SignIn {
		return []key.Binding{k.Down, k.Up, common.Offer(k.Open, v.name != ""), k.SignIn, k.PageDown, k.PageUp, k.Filter.Open, k.Zoom, k.Tasks, k.Back}
	}
	return []key.Binding{k.Down, k.Up, common.Offer(k.Open, v.name != ""), common.Offer(k.New, v.name != ""), k.PageDown, k.PageUp, k.Filter.Open, k.Zoom, k.Tasks, k.Back}
}

// FullHelp is every key of the agents screen, grouped.
func (v *Screen) FullHelp() [][]key.Binding {
	k := v.keys
	return [][]key.Binding{{k.Up, k.Down, common.Relabel(k.Top, "first agent"), common.Relabel(k.Bottom, "last agent"), k.Open, k.New, k.Zoom},
		{common.Relabel(k.PageUp, "scroll card up"), common.Relabel(k.PageDown, "scroll card down")},
		{k.Filter.Open, common.KeyHint(k.Filter.Clear, "clear filter"), k.SignIn, common.Relabel(k.SignInDialog.CopyCode, "sign-in: copy code"),
			common.Relabel(k.SignInDialog.CopyURL, "sign-in: copy page"), common.Relabel(k.SignInDialog.Close, "sign-in: close"), k.Back},
		append([]key.Binding{k.Sort.Prev, k.Sort.Next}, v.sort.Keys()...)}
}
