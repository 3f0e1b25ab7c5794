package ui

import (
	"cmp"
	"log/slog"
	"os"
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/agents"
	"a2atop/ui/common"
	"a2atop/ui/detail"
	uihelp "a2atop/ui/help"
	"a2atop/ui/tasks"
	"a2atop/ui/theme"
)

// view names a screen the body shows; it indexes Model.screens.
type view uint8

const (
	viewTasks view = iota
	viewInbox
	viewAgents
	viewJournal
	viewDetail
	viewCompose
	viewCount
)

// viewNames are the header's word for each view, and for the views on
// 1-4 the command that shows them.
var viewNames = [viewCount]string{"tasks", "inbox", "agents", "journal", "task", "new message"}

// viewNamed is the view a command shows.
func viewNamed(name string) (view, bool) {
	for v, n := range viewNames[:viewDetail] {
		if n == name {
			return view(v), true
		}
	}
	return 0, false
}

// overlay is what sits on top of the screen and gets keys first.
type overlay uint8

const (
	overlayNone overlay = iota
	overlayHelp
	overlayCommand
)

// Model is the root of the dashboard. Build it with New and run it with
// tea.NewProgram. It is driven by one goroutine (Bubble Tea's) and is not
// safe for concurrent use.
//
// The root owns what every screen shares: the size, the watchers' events
// and the fleet they are applied to, the clock, which screen is shown,
// the command line, the help, the notice in the footer and the global
// keys. Everything else belongs to a screen (a common.Component in
// screens): the root hands it keys and messages and does what it asks
// through the outbox.
type Model struct {
	ctx      common.Context
	keys     KeyMap
	log      *slog.Logger
	events   <-chan model.Event
	interval time.Duration
	bell     bool
	notify   Notify            // the desktop notification of a task that starts waiting
	clip     *common.Clipboard // the terminal: the bell, OSC 52 and the notifications

	width, height int
	view, from    view // from: the view the detail was opened from
	overlay       overlay

	screens [viewCount]common.Component // nil: not wired (inbox, journal)
	// answerFrom is the view an answer asked of the inbox came from
	// (ReplyToMsg, DecideMsg); 0 when the inbox was not opened for one.
	answerFrom view
	help       *uihelp.Screen
	prompt     promptModel // the command line
	hm         help.Model  // draws the footer's keys
	status     statusLine

	views []SavedView // Options.Views
	cmds  []command   // what the command line runs
	// titleCount is the count of waiting tasks the terminal's title shows
	// (-1: not set yet).
	titleCount int
	export0    func(dir string) (string, error)

	// The approvals journal the root follows (see journal_follow.go);
	// nil when the dashboard has none.
	svc                     *approvals.Service
	refreshing              bool // a Refresh is under way
	observing, observeAgain bool // an Observe is under way; a batch came meanwhile
	refreshErr, observeErr  string
	// jchanges is Options.JournalChanges (nil: the journal is read on the
	// clock); refreshAgain says it was written while a Refresh was under way.
	jchanges     <-chan struct{}
	refreshAgain bool
	// lastBatch is when the last batch of events was applied, quick how
	// many since the last lone one were applied at once (batchDelay).
	lastBatch time.Time
	quick     int
	// banner says, while damaged journal lines refuse decisions, which
	// (common.JournalDamage: long to short); it takes the line under the
	// header. bannerVer is the journal's version it was read at.
	banner    []string
	bannerVer uint64
	team      teamState // the hub attached to (team.go); zero without one
	via       string    // Options.Via (session.go)
	bg        bgAnswer  // the terminal's background being awaited (background.go)
	askBg     bool      // Options.AskBackground

	alarm   *alarm // when the clock wakes next (clock.go)
	dirty   bool   // something changed since the last View
	cache   string // the last View
	renders int    // how many times View rendered (BenchmarkBurst)
	closed  bool   // the events channel is closed
}

// New builds the dashboard. It does no I/O; Init starts the event batches
// and the 1 Hz clock.
func New(o Options) *Model {
	o = o.withDefaults()
	keys := DefaultKeyMap()
	if o.KeyMap != nil {
		keys = *o.KeyMap
	}
	keys.settle(o.ReadOnly, o.Backend != nil, o.Inbox != nil, o.Journal != nil, o.Compose != nil, o.Views)
	m := &Model{
		ctx: common.Context{Fleet: o.Fleet, Theme: o.Theme, ReadOnly: o.ReadOnly,
			Now: o.Now, Backend: o.Backend, Log: o.Logger, Out: &common.Outbox{}, Activity: &common.Activity{}, Team: o.Team,
			Clock: &common.Clock{}},
		keys: keys, log: o.Logger, events: o.Events, interval: o.BatchInterval, bell: o.Bell, notify: o.Notify, titleCount: -1,
		svc:  o.Approvals,
		clip: &common.Clipboard{Out: o.Output, Tmux: os.Getenv("TMUX") != "", Log: o.Logger}, dirty: true,
		width: 80, height: 24, alarm: newAlarm(),
	}
	m.jchanges, m.askBg = o.JournalChanges, o.AskBackground
	m.hm = common.NewHelpModel(o.Theme)
	m.views, m.cmds, m.export0 = o.Views, commandList(), o.Export
	m.prompt = newPrompt(o.Theme)
	m.help = uihelp.New(&m.ctx, keys.HelpView, keys.globalHelp())
	m.newScreens(o)
	m.readBanner()
	m.readTeam()
	m.startOn(o.Start, o.Via)
	m.layout()
	return m
}

// newScreens builds every screen, ours and the ones Options supplies.
func (m *Model) newScreens(o Options) {
	act := func(k common.TaskKeys) common.TaskActions {
		return common.NewTaskActions(&m.ctx, k, o.QuietPeriod, cmp.Or(o.Approvals, o.Decisions))
	}
	m.screens[viewTasks] = tasks.New(&m.ctx, m.keys.TasksView, act(m.keys.TasksView.TaskKeys), o.Sort, o.HideTerminalAfter, o.Views)
	m.screens[viewDetail] = detail.New(&m.ctx, m.keys.DetailView, act(m.keys.DetailView.TaskKeys), o.HistoryLength)
	m.screens[viewAgents] = agents.New(&m.ctx, m.keys.AgentsView, m.clip)
	if o.Inbox != nil {
		m.screens[viewInbox] = o.Inbox(m.ctx)
	}
	if o.Journal != nil {
		m.screens[viewJournal] = o.Journal(m.ctx)
	}
	if o.Compose != nil {
		m.screens[viewCompose] = o.Compose(m.ctx)
	}
}

// Init starts the event batches and the clock, and tells the first
// screen it is on screen.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.waitEvents(0), m.waitClock(), m.waitJournal(), m.waitTeam(), m.updateScreen(m.view, common.ShownMsg{}), m.titleCmd(),
		m.askBackground(m.askBg))
}

// Update is the dispatcher: each case calls one method. What the root
// does not know is the answer to a screen's own Cmd: every screen gets it.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if cmd, ok := m.backgroundAnswer(msg); ok {
		return m, cmd
	}
	wasDirty := m.dirty
	m.dirty = true
	m.checkBanner()
	m.checkTeam()
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case eventsMsg:
		return m, m.applyEvents(msg, wasDirty)
	case tickMsg:
		return m, m.onTick()
	case teamChangedMsg:
		return m, m.onTeamChanged(msg)
	case journalWrittenMsg:
		m.dirty = wasDirty // nothing shows until the Refresh answers
		return m, m.onJournalWritten(msg)
	case common.JournalRefreshedMsg:
		return m, m.onJournalRefreshed(msg)
	case journalObservedMsg:
		return m, m.onJournalObserved(msg)
	case tea.KeyMsg:
		m.status.pressed = true
		return m, m.onKey(msg)
	case tea.MouseMsg:
		m.status.pressed = m.status.pressed || msg.Action == tea.MouseActionPress
		return m, m.onMouse(msg, wasDirty)
	case common.StatusMsg, common.OpenTaskMsg, common.ReplyToMsg, common.DecideMsg, common.ComposeMsg,
		common.BackMsg, common.ApplyMsg, common.CopyMsg, common.ShowTasksMsg:
		return m, m.request(msg)
	}
	return m, m.broadcast(msg)
}

// View draws the screen, or returns the last drawing when nothing
// changed, and sets the clock to wake when the drawing next changes by
// the clock alone (clock.go).
func (m *Model) View() string {
	if m.dirty || m.cache == "" {
		m.dirty = false
		m.renders++
		m.cache = m.render()
		m.askClock(m.ctx.Now())
	}
	m.alarm.set(wakeAt(m.ctx.Clock.Next(), m.ctx.Now()))
	return m.cache
}

// request does what a screen asked for, through the outbox or in a
// message.
func (m *Model) request(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.StatusMsg:
		if msg.Aside {
			m.status.aside(msg.Text, m.ctx.Now())
		} else {
			m.status.set(msg.Text, msg.Err, m.ctx.Now())
		}
	case common.OpenTaskMsg:
		return m.showWith(viewDetail, msg)
	case common.ReplyToMsg, common.DecideMsg:
		from := m.view
		cmd := m.showWith(viewInbox, msg)
		if from != viewInbox && m.view == viewInbox {
			m.answerFrom = from // the inbox's BackMsg, once answered, returns there
		}
		return cmd
	case common.ComposeMsg:
		return m.showWith(viewCompose, msg)
	case common.BackMsg:
		return m.back()
	case common.ApplyMsg:
		cmd, _ := m.apply(msg.Events)
		return cmd
	case common.CopyMsg:
		return m.clip.Copy(msg.Text, "")
	case common.ShowTasksMsg:
		m.tellTasks(msg)
		return m.show(viewTasks)
	}
	return nil
}

// Options with their zero values filled in.
func (o Options) withDefaults() Options {
	if o.Theme == nil {
		o.Theme = theme.New(theme.Options{})
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Output == nil {
		o.Output = os.Stdout
	}
	if o.BatchInterval <= 0 {
		o.BatchInterval = DefaultBatchInterval
	}
	if o.QuietPeriod <= 0 {
		o.QuietPeriod = approvals.DefaultQuietPeriod
	}
	return o
}
