package ui

import (
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/model"
	"a2atop/ui/common"
	"a2atop/ui/theme"
)

// view names the screen the body shows.
type view uint8

const (
	viewTasks view = iota
	viewInbox
	viewAgents
	viewJournal
	viewDetail
)

// overlay is what sits on top of the view and gets keys first.
type overlay uint8

const (
	overlayNone overlay = iota
	overlayHelp
	overlayFilter
	overlayCommand
	overlayConfirm
)

// Model is the root of the dashboard. Build it with New and run it with
// tea.NewProgram. It is driven by one goroutine (Bubble Tea's) and is not
// safe for concurrent use.
type Model struct {
	ctx      common.Context
	keys     KeyMap
	log      *slog.Logger
	out      io.Writer
	events   <-chan model.Event
	interval time.Duration
	bell     bool
	history  int
	tmux     bool

	width, height int
	view, prev    view
	overlay       overlay

	tasks   tasksView
	detail  detailView
	agents  agentsView
	inbox   common.Component
	journal common.Component
	prompt  promptModel
	help    help.Model
	confirm *confirmCancel
	status  statusLine

	dirty   bool   // something changed since the last View
	cache   string // the last View
	renders int    // how many times View rendered (BenchmarkBurst)
	closed  bool   // the events channel is closed
}

// New builds the dashboard. It does no I/O; Init starts the event batches
// and the 1 Hz clock.
func New(o Options) *Model {
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
	keys := DefaultKeyMap()
	if o.KeyMap != nil {
		keys = *o.KeyMap
	}
	keys.apply(o.ReadOnly, o.Backend != nil, o.Inbox != nil, o.Journal != nil)
	m := &Model{
		ctx: common.Context{Fleet: o.Fleet, Theme: o.Theme, ReadOnly: o.ReadOnly,
			Now: o.Now, Backend: o.Backend, Log: o.Logger, Out: &common.Outbox{}},
		keys: keys, log: o.Logger, out: o.Output, events: o.Events,
		interval: o.BatchInterval, bell: o.Bell, history: o.HistoryLength,
		tmux: os.Getenv("TMUX") != "", dirty: true,
		width: 80, height: 24,
	}
	m.help = newHelp(o.Theme)
	m.tasks = newTasksView(&m.ctx, &m.keys, o.Sort)
	m.detail = newDetailView(&m.ctx, &m.keys)
	m.agents = newAgentsView(&m.ctx, &m.keys)
	m.prompt = newPrompt(o.Theme)
	if o.Inbox != nil {
		m.inbox = o.Inbox(m.ctx)
	}
	if o.Journal != nil {
		m.journal = o.Journal(m.ctx)
	}
	m.layout()
	return m
}

// Init starts the event batches and the clock.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.waitEvents(0), tick(m.ctx.Now))
}

// Update is the dispatcher: each case calls one method.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	wasDirty := m.dirty
	m.dirty = true
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case eventsMsg:
		return m, m.applyEvents(msg, wasDirty)
	case tickMsg:
		return m, m.onTick(msg)
	case tea.KeyMsg:
		return m, m.onKey(msg)
	case tea.MouseMsg:
		cmd, handled := m.onMouse(msg)
		if !handled {
			m.dirty = wasDirty
		}
		return m, cmd
	case taskLoadedMsg:
		m.taskLoaded(msg)
		return m, nil
	case cancelDoneMsg:
		return m, m.cancelDone(msg)
	case captureLoadedMsg:
		m.agents.loaded(msg)
		return m, nil
	case copiedMsg:
		m.copied(msg)
		return m, nil
	case common.StatusMsg, common.OpenTaskMsg, common.BackMsg:
		return m, m.request(msg)
	}
	return m, m.broadcast(msg)
}

// request does what a component asked for, in a message or through the
// outbox.
func (m *Model) request(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.StatusMsg:
		m.status.set(msg.Text, msg.Err, m.ctx.Now())
	case common.OpenTaskMsg:
		return m.openDetail(msg.Key)
	case common.BackMsg:
		m.back()
	}
	return nil
}

// drain does what components asked for through the outbox, in order.
func (m *Model) drain() tea.Cmd {
	var cmds []tea.Cmd
	for _, msg := range m.ctx.Out.Take() {
		cmds = append(cmds, m.request(msg))
	}
	return tea.Batch(cmds...)
}

// View draws the screen, or returns the last drawing when nothing changed.
func (m *Model) View() string {
	if !m.dirty && m.cache != "" {
		return m.cache
	}
	m.dirty = false
	m.renders++
	m.cache = m.render()
	return m.cache
}

// taskLoaded gives a GetTask answer to the detail view, logging failures.
func (m *Model) taskLoaded(msg taskLoadedMsg) {
	if msg.Err != nil {
		m.log.Warn("get task failed", logKeyAgent, msg.Key.Agent, logKeyTask, string(msg.Key.ID), logKeyErr, msg.Err)
	}
	m.detail.loaded(msg)
}

// forward hands a message the root does not know to the component shown.
func (m *Model) forward(msg tea.Msg) tea.Cmd {
	c := m.component()
	if c == nil {
		return nil
	}
	next, cmd := c.Update(msg)
	m.setComponent(next)
	return tea.Batch(cmd, m.drain())
}

// broadcast hands a message the root does not know (the answer to a
// component's own Cmd) to every component, shown or not: an answer must
// reach the inbox even when the person has switched to another view.
func (m *Model) broadcast(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for _, c := range []*common.Component{&m.inbox, &m.journal} {
		if *c == nil {
			continue
		}
		next, cmd := (*c).Update(msg)
		*c = next
		cmds = append(cmds, cmd)
	}
	return tea.Batch(append(cmds, m.drain())...)
}

// component is the Component the body shows, or nil for our own views.
func (m *Model) component() common.Component {
	switch m.view {
	case viewInbox:
		return m.inbox
	case viewJournal:
		return m.journal
	}
	return nil
}

// setComponent stores what a Component's Update returned.
func (m *Model) setComponent(c common.Component) {
	switch m.view {
	case viewInbox:
		m.inbox = c
	case viewJournal:
		m.journal = c
	}
}
