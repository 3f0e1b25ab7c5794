package detail

import (
	"strconv"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
)

// KeyMap is the keys of the detail screen.
type KeyMap struct {
	common.ListKeys
	common.TaskKeys
	NextLink, PrevLink key.Binding // select a referenceTaskIds link
	Open               key.Binding // follow the selected link
	Raw                key.Binding // the raw JSON of the snapshot
	Search             SearchKeys  // / in the text, n and N between matches
	// Back and Quit leave the raw JSON, then the linked task, then the
	// screen.
	Back key.Binding `keys:"layered"`
	Quit key.Binding
}

// DefaultKeyMap returns the detail screen's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		ListKeys: common.DefaultListKeys(),
		TaskKeys: common.DefaultTaskKeys(),
		NextLink: common.Bind("tab", "next link", "tab"),
		PrevLink: common.Bind("shift+tab", "prev link", "shift+tab"),
		Open:     common.Bind("enter", "open", "enter"),
		Raw:      common.Bind("J", "raw json", "J"),
		Search:   DefaultSearchKeys(),
		Back:     common.Bind("esc", "back", "esc"),
		Quit:     common.Bind("q", "back/quit", "q"),
	}
}

// Screen shows one task: state, timestamps, status message, links,
// history (fetched on demand), artifacts, and the raw JSON on J.
type Screen struct {
	ctx     *common.Context
	keys    KeyMap
	act     common.TaskActions
	history int  // GetTask's historyLength
	shown   bool // on screen: the clock redraws the ages
	vp      viewport.Model
	w, h    int

	key     model.TaskKey
	stack   []model.TaskKey // tasks left by following links; esc returns
	seq     int
	loading bool
	fetched *a2a.Task
	// fetchRev is the fleet task's Rev when the GetTask was asked: once
	// it moves the fleet holds what came after (streamed chunks do not
	// move the status timestamp).
	fetchRev uint64
	err      error
	raw      bool
	links    []a2a.TaskID
	link     int
	built    builtFrom // what of the fleet's task the content was built from

	bodyKey    bodyKey // what bodyText was built from
	bodyText   string  // references, history and artifacts (or the raw JSON)
	cached     bool
	bodyBuilds int // how often the body was built (tests)

	search textSearch // / in the text shown (the task, or its raw JSON)
}

// New is the detail screen, with its keys, its task actions and the
// history length its GetTask asks for (0: the server's default).
func New(ctx *common.Context, keys KeyMap, act common.TaskActions, history int) *Screen {
	return &Screen{ctx: ctx, keys: keys, act: act, history: history, vp: viewport.New(80, 20),
		search: newTextSearch(ctx.Theme, keys.Search)}
}

// Update opens the task asked for and follows the fleet, the clock, its
// fetches' and cancels' answers, keys and the mouse.
func (v *Screen) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case common.OpenTaskMsg:
		v.stack = nil
		return v, v.open(msg.Key)
	case common.FleetChangedMsg:
		v.act.FleetChanged()
		return v, v.sync()
	case common.TickMsg:
		if v.shown {
			v.rebuild(false) // the ages
		}
	case common.ClaimsChangedMsg:
		v.rebuild(false) // its claim line
	case common.JournalRefreshedMsg:
		if msg.Changed {
			v.rebuild(false) // its votes
		}
	case common.JournalChangedMsg:
		v.rebuild(false)
	case common.ShownMsg, common.HiddenMsg:
		v.shown = msg == common.ShownMsg{}
		if v.shown {
			v.rebuild(false) // what changed while another screen was shown (a vote cast in the inbox)
		}
	case TaskLoadedMsg:
		v.loaded(msg)
	case common.CancelDoneMsg:
		v.act.Done(msg)
	case tea.KeyMsg:
		return v, v.onKey(msg)
	case tea.MouseMsg:
		if !v.Capturing() {
			common.ScrollViewport(&v.vp, common.Wheel(msg))
		}
	}
	return v, nil
}

// onKey handles the confirmation, leaving, links, the actions on the
// task, then scrolling.
func (v *Screen) onKey(msg tea.KeyMsg) tea.Cmd {
	if v.act.Confirming() {
		return v.act.ConfirmKey(msg)
	}
	if handled, changed, moved, cmd := v.search.key(msg); handled {
		if changed {
			v.rebuild(false)
		}
		if moved || changed {
			v.toMatch()
		}
		return cmd
	}
	k := v.keys
	switch {
	case key.Matches(msg, k.Back, k.Quit):
		return v.back()
	case key.Matches(msg, k.Open):
		return v.followLink()
	}
	if cmd, ok := v.act.Key(msg, v.ctx.Fleet.Task(v.key), nil); ok {
		return cmd
	}
	v.scroll(msg)
	return nil
}

// back leaves the raw JSON for the task (not the list), then a followed
// link for the task it was followed from, then the screen.
func (v *Screen) back() tea.Cmd {
	if v.raw {
		v.toggleRaw()
		return nil
	}
	if cmd, ok := v.pop(); ok {
		return cmd
	}
	v.ctx.Out.Send(common.BackMsg{})
	return nil
}

// SetSize gives the title line and the content their cells.
func (v *Screen) SetSize(w, h int) {
	v.w, v.h = w, h
	v.vp.Width, v.vp.Height = w, max(h-1, 1)
	v.rebuild(false)
}

// Capturing is true while the cancel asks or the search is typed.
func (v *Screen) Capturing() bool { return v.act.Confirming() || v.search.typed.Editing() }

// OpensText reports whether msg opens the search, so that a paste
// starting with it is typed into it.
func (v *Screen) OpensText(msg tea.KeyMsg) bool {
	return !v.act.Confirming() && !v.search.typed.Editing() && key.Matches(msg, v.keys.Search.Open)
}

// Footnote is the search: being typed, or kept with its matches.
func (v *Screen) Footnote(w int) (string, bool) {
	of := "this task"
	if v.raw {
		of = "the raw JSON"
	}
	return v.search.footnote(v.ctx.Theme, w, of)
}

// HelpNote says what / does here.
func (v *Screen) HelpNote() string {
	return "/ searches the text shown (the task, or its raw JSON with J): every line stays, n and N move between matches; in a list / filters its rows"
}

// toMatch scrolls the current match into view, a few lines from the top.
func (v *Screen) toMatch() {
	if l := v.search.line(); l >= 0 {
		v.vp.SetYOffset(max(l-2, 0))
	}
}

// Title is the header's name of the screen.
func (v *Screen) Title() string { return "task" }

// scroll handles scrolling, links and J.
func (v *Screen) scroll(msg tea.KeyMsg) {
	k := v.keys
	switch {
	case key.Matches(msg, k.Up):
		v.vp.ScrollUp(1)
	case key.Matches(msg, k.Down):
		v.vp.ScrollDown(1)
	case k.Page(&v.vp, msg):
	case key.Matches(msg, k.Raw):
		v.toggleRaw()
	case key.Matches(msg, k.NextLink) && len(v.links) > 0:
		v.link = (v.link + 1) % len(v.links)
		v.rebuild(false)
	case key.Matches(msg, k.PrevLink) && len(v.links) > 0:
		v.link = (v.link - 1 + len(v.links)) % len(v.links)
		v.rebuild(false)
	}
}

// toggleRaw switches between the task and the raw JSON of its snapshot.
func (v *Screen) toggleRaw() {
	v.raw = !v.raw
	v.rebuild(true)
}

// View is a title line and the scrollable content, or the cancel
// confirmation.
func (v *Screen) View() string {
	if v.act.Confirming() {
		return v.act.View(v.w, v.h)
	}
	t := v.ctx.Theme
	title := v.key.Agent + " · " + string(v.key.ID)
	mode := ""
	if v.raw {
		mode = "  raw JSON (J or esc: back)"
	}
	pct := ""
	if v.vp.TotalLineCount() > v.vp.Height {
		pct = " " + strconv.Itoa(int(v.vp.ScrollPercent()*100)) + "%"
	}
	line := t.Title.Render(sanitize.Line(title, max(v.w-len(mode)-len(pct)-1, 1))) + t.Muted.Render(mode+pct)
	return line + "\n" + v.vp.View()
}

// ShortHelp is the footer of the detail screen.
func (v *Screen) ShortHelp() []key.Binding {
	k := v.keys
	if v.raw {
		back := key.NewBinding(key.WithKeys(append(k.Raw.Keys(), k.Back.Keys()...)...),
			key.WithHelp(k.Raw.Help().Key+"/"+k.Back.Help().Key, "back to the task"))
		return v.act.ShortHelp(back, k.Down, k.Up, k.Search.Open, v.searchMove(k.Search.Next), v.searchMove(k.Search.Prev), k.PageDown, k.PageUp)
	}
	links := len(v.links) > 0
	keys := []key.Binding{k.Back, k.Down, k.Up, common.Offer(k.NextLink, links), common.Offer(k.Open, links), k.Raw,
		k.Search.Open, v.searchMove(k.Search.Next), v.searchMove(k.Search.Prev)}
	return v.act.ShortHelp(append(keys, v.act.Offered(v.ctx.Fleet.Task(v.key), 0).List()...)...)
}

// searchMove is n or N as the footer offers it: while a search has
// matches.
func (v *Screen) searchMove(b key.Binding) key.Binding {
	return common.Offer(b, len(v.search.lines) > 0)
}

// FullHelp is every key of the detail screen, grouped.
func (v *Screen) FullHelp() [][]key.Binding {
	k := v.keys
	return [][]key.Binding{
		k.ListKeys.All(),
		{k.NextLink, k.PrevLink, k.Open, k.Raw, k.Back},
		{k.Search.Open, k.Search.Next, k.Search.Prev, common.KeyHint(k.Search.Clear, "clear search")},
		v.act.TeamHelp(k.TaskKeys.All()),
	}
}
