package inbox

import (
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/common"
)

// mode is what the inbox is doing: browsing, or one of the dialogs.
type mode uint8

const (
	modeList    mode = iota
	modeEditor       // writing a reply
	modeReason       // writing a deny reason
	modeConfirm      // confirming a send
	modeBatch        // confirming one answer for the marked tasks
	modeResults      // the outcomes of an answer for many, task by task
)

// Options configure the inbox and journal views. The zero value is
// usable.
type Options struct {
	// Sort is the initial queue order; the zero value is
	// model.SortUpdated, so pass model.SortAge for oldest first.
	Sort model.SortBy
	// KeyMap overrides DefaultKeyMap when non-nil.
	KeyMap *KeyMap
	// JournalNote is said under the journal view's title: where the
	// journal is kept, and for the demo that it is a temporary file.
	// "" says nothing.
	JournalNote string
}

// Inbox is the approvals inbox: a common.Component. Build it with New.
type Inbox struct {
	ctx   common.Context
	svc   *approvals.Service
	keys  KeyMap
	order common.Sort // the column the queue is sorted by
	w, h  int

	queue  *approvals.QueueCache // the queue, rebuilt where the fleet or the journal changed
	all    []approvals.Item      // the queue
	byKey  map[model.TaskKey]int // the index in all of each task; nil until finds asks for it
	finds  int                   // lookups in all since it was built, without byKey
	items  []approvals.Item      // what is shown of it: all, or the chains the filter shows
	filter common.Filter
	agentW int        // the agent column: the longest name with its tree indent
	rp     *rowPaints // the rows' paints, made on first use
	fver   uint64     // fleet version the items were built at
	jver   uint64     // journal version they were built at (Item.Prior)
	cursor int
	sel    model.TaskKey // the selected task: kept when rows move
	top    int           // first visible row

	shown   bool          // on screen: only then does it say that the selected task left
	sentKey model.TaskKey // the task of the last send
	sentVia model.TaskKey // the chain root it was sent from, if any

	mode   mode
	target model.TaskKey // the task the editor, reason or confirmation is about
	via    model.TaskKey // the chain's root it was opened on, when target is the end of its chain
	tstate a2a.TaskState // its state when the dialog opened
	ed     editor
	drafts map[model.TaskKey]draft // replies written and kept (esc), by task, until sent or discarded
	// restored are the drafts an earlier run kept, until their tasks are
	// in the inbox; savedEd is what the open editor held when last kept.
	restored map[model.TaskKey]approvals.Draft
	savedEd  draft
	// dropLater are restored drafts found stale, to drop from the file.
	dropLater []model.TaskKey
	reason    textinput.Model
	rerr      string // deny reason error, in place
	// reasonKind is what the reason is for: a deny, or an approve under
	// an approval policy (votes.go).
	reasonKind approvals.Kind
	conf       *confirm

	marks      common.Marks    // marked for one answer to all of them
	batch      []model.TaskKey // the marked tasks the open dialog answers
	plan       *batchPlan      // the answer for many, waiting for its y
	results    *common.Results // its outcomes, task by task
	resultKeys common.ResultKeys

	// tprompt is the prompt the dialog answers (approvals.PromptOf);
	// elsewhere says who answered it from another process while the
	// dialog was open: the dialog then sends nothing. leftNotes are the
	// tasks that left the inbox whose notices wait for the next read of
	// the journal (see sayLeft).
	tprompt, elsewhere string
	leftNotes          []leftNote

	team teamInbox // claims and refusals on a team's hub (claims.go)

	reconciled bool // the start-up reconcile was asked for
	// answering is true while a dialog asked from another screen
	// (ReplyToMsg, DecideMsg) is open: when it closes, the inbox asks
	// the root to go back there.
	answering bool
}

// InboxFactory returns what ui.Options.Inbox expects: a function that
// builds the inbox over svc with the root's Context.
func InboxFactory(svc *approvals.Service, o Options) func(common.Context) common.Component {
	return func(ctx common.Context) common.Component { return NewInbox(ctx, svc, o) }
}

// NewInbox builds the inbox component.
func NewInbox(ctx common.Context, svc *approvals.Service, o Options) *Inbox {
	ctx.ReadOnly = ctx.ReadOnly || svc.ReadOnly()
	m := &Inbox{ctx: ctx, svc: svc, queue: svc.NewQueueCache(), keys: o.keyMap(ctx.ReadOnly), w: 80, h: 20, drafts: map[model.TaskKey]draft{}}
	m.resultKeys = m.keys.Results
	m.filter = common.NewFilter(ctx.Theme, m.keys.Filter, "the inbox")
	m.filter.CheckAgents(common.FleetAgents(&m.ctx))
	m.order = common.NewSortBy(m.keys.SortBy.columns(), o.Sort)
	m.loadDrafts()
	m.refresh()
	return m
}

// Capturing reports whether typed keys belong to the inbox (the filter,
// the editor, the reason, a confirmation), so the root does not take "q"
// or "2".
func (m *Inbox) Capturing() bool { return m.mode != modeList || m.filter.Editing() }

// OpensText reports whether msg opens the filter, so that a paste
// starting with it is typed into it.
func (m *Inbox) OpensText(msg tea.KeyMsg) bool { return m.mode == modeList && m.filter.Opens(msg) }

// Footnote is the count of marked tasks and the filter's line in the
// footer.
func (m *Inbox) Footnote(w int) (string, bool) {
	if m.mode != modeList {
		return "", false
	}
	note, editing := m.filter.Footnote(w)
	if editing {
		return note, true
	}
	return m.marks.Footnote(m.ctx.Theme, m.keys.Marks) + note, false
}

// HelpNote is the filter's syntax.
func (m *Inbox) HelpNote() string { return common.FilterNote }

// Title is the header's view name.
func (m *Inbox) Title() string { return "inbox" }

// SetSize gives the inbox its cells.
func (m *Inbox) SetSize(w, h int) {
	m.w, m.h = max(w, 20), max(h, 5)
	m.filter.SetWidth(w)
	if m.mode == modeEditor {
		m.ed.setWidth(m.w)
	}
	m.reason.Width = max(m.w-12, 10)
}

// update handles fleet changes, the clock, results and keys (Update
// adds the claims of a team's hub).
func (m *Inbox) update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case common.FleetChangedMsg:
		return m, m.fleetChanged(msg.Result)
	case common.TickMsg:
		return m, m.tick()
	case common.JournalRefreshedMsg:
		return m, m.journalRefreshed(msg)
	case common.JournalChangedMsg:
		return m, m.journalChanged()
	case common.ShownMsg, common.HiddenMsg:
		m.shown = msg == common.ShownMsg{}
		return m, nil
	case common.ReplyToMsg:
		m.selectKey(msg.Key)
		return m, m.openEditor()
	case common.DecideMsg:
		return m, m.decideFor(msg)
	case common.ThemeChangedMsg:
		m.rp = nil // the row paints are made again from the theme
		return m, nil
	case SentMsg:
		if m.batchSent(msg) {
			m.sentKey = msg.Key
			m.refresh()
			return m, nil
		}
		return m, m.sent(msg)
	case ReconciledMsg:
		if msg.from == fromInbox && len(msg.Outcomes) > 0 {
			m.ctx.Out.Send(reconciledNotice(msg.Outcomes))
		}
		return m, nil
	case NotedMsg:
		if msg.Err != nil {
			m.ctx.Warn("journal: " + msg.Err.Error())
		}
		return m, nil
	case DraftSavedMsg:
		if msg.Err != nil {
			m.ctx.Warn("the draft is kept here only: " + msg.Err.Error())
		}
		return m, nil
	case tea.KeyMsg:
		m.ensure()
		return m, m.key(msg)
	case tea.MouseMsg:
		m.ensure()
		m.mouse(msg)
		return m, nil
	}
	if m.mode == modeEditor { // the external editor, the cursor and other textarea messages
		if cmd, ok := m.ed.external(msg, m.ctx.Warn); ok {
			return m, cmd
		}
		return m, m.ed.update(msg)
	}
	return m, nil
}

// ensure rebuilds the queue when the fleet or the journal changed since
// it was built. In a dialog the queue is always current (fleetChanged).
func (m *Inbox) ensure() {
	if m.mode == modeList && (m.ctx.Fleet.Version() != m.fver || m.svc.Version() != m.jver) {
		m.refresh()
	}
}

// tick refreshes a dialog's queue when the journal changed and, once,
// reconciles what the journal left open (a crash, a timeout) in the
// background. A browsing queue waits for ensure.
func (m *Inbox) tick() tea.Cmd {
	var cmds []tea.Cmd
	if m.mode != modeList && (m.ctx.Fleet.Version() != m.fver || m.svc.Version() != m.jver) {
		cmds = m.refresh()
	}
	cmds = append(append(cmds, m.saveEditing()), m.dropped()...)
	if m.reconciled || m.ctx.ReadOnly {
		return tea.Batch(cmds...)
	}
	m.reconciled = true
	return tea.Batch(append(cmds, reconcileCmd(m.svc, fromInbox))...)
}

// fleetChanged rebuilds the queue; items that left the interrupted set
// leave at once, with a notice when they were selected, being answered or
// had a kept draft.
// While the person only browses and the selected task stayed, the
// rebuild waits for the next View, key or click (ensure): a batch then
// costs nothing while the inbox is not on screen, however many wait.
// (The root records in the journal the states decided tasks went on to.)
func (m *Inbox) fleetChanged(res model.ApplyResult) tea.Cmd {
	left, drafted := map[model.TaskKey]bool{}, false
	for _, k := range res.Left {
		left[k] = true
		_, ok := m.drafts[k]
		drafted = drafted || ok
	}
	if m.mode != modeList || left[m.sel] || drafted {
		return tea.Batch(m.refresh()...)
	}
	return nil
}

// journalChanged brings a dialog's queue up to date with the journal (the
// prompts' earlier decisions); a browsing queue waits for ensure.
func (m *Inbox) journalChanged() tea.Cmd {
	if m.mode != modeList && m.svc.Version() != m.jver {
		return tea.Batch(m.refresh()...)
	}
	return nil
}

// mouse scrolls the queue with the wheel and selects the row clicked.
// Dialogs ignore the mouse: a stray click must not change what is being
// answered.
func (m *Inbox) mouse(msg tea.MouseMsg) {
	if m.mode != modeList || msg.Action != tea.MouseActionPress {
		return
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		m.move(-1)
	case tea.MouseButtonWheelDown:
		m.move(1)
	case tea.MouseButtonLeft:
		if i := m.rowAt(msg.Y); i >= 0 {
			m.move(i - m.cursor)
		}
	}
}

// rowAt is the queue index drawn at line y of the view, or -1. It follows
// View: the title, then the rows from top.
func (m *Inbox) rowAt(y int) int {
	const first = 1
	i := m.top + y - first
	if y < first || i >= min(m.top+m.listRows(), len(m.items)) {
		return -1
	}
	return i
}

// selected is the item under the cursor, or nil.
func (m *Inbox) selected() *approvals.Item {
	if m.cursor < 0 || m.cursor >= len(m.items) {
		return nil
	}
	return &m.items[m.cursor]
}

// filterClear is the filter's clear key as the help names it.
func filterClear(k common.FilterKeys) key.Binding {
	return key.NewBinding(key.WithKeys(k.Clear.Keys()...), key.WithHelp(k.Clear.Help().Key, "clear filter"))
}

func (m *Inbox) selectKey(k model.TaskKey) {
	m.refresh()
	for i, it := range m.items {
		if it.Key() == k {
			m.cursor, m.sel = i, k
			return
		}
	}
}

// ShortHelp is the footer's keys for the current mode.
func (m *Inbox) ShortHelp() []key.Binding {
	k := m.keys
	switch m.mode {
	case modeEditor:
		return []key.Binding{k.Switch, k.Send, k.External, k.Keep, k.Discard}
	case modeReason:
		return []key.Binding{k.Continue, k.Back}
	case modeConfirm, modeBatch:
		return []key.Binding{k.Confirm, k.Decline}
	case modeResults:
		return []key.Binding{m.resultKeys.Close, m.resultKeys.Down, m.resultKeys.Up}
	}
	if m.marks.Len() > 0 {
		return []key.Binding{k.Up, k.Down, k.Marks.Mark, k.Marks.All, k.Reply, k.Approve, k.Deny, k.Marks.Clear, k.Filter.Open}
	}
	// What the selected row takes: an answer goes to the end of its
	// chain, approve and deny answer an authorization.
	it := m.selected()
	var leaf *approvals.Item
	if it != nil {
		leaf = m.find(it.Leaf.Key)
	}
	can := leaf != nil && !m.ctx.ReadOnly && m.ctx.May(leaf.Key().Agent, common.RoleFor(leaf.Task.State)) && m.svc.Blocked(leaf.Key().Agent) == nil &&
		m.decidedWords(leaf) == ""
	auth := can && leaf.Task.State == a2a.TaskStateAuthRequired
	return []key.Binding{k.Up, k.Down, common.Offer(k.Reply, can), common.Offer(k.Approve, auth), common.Offer(k.Deny, auth),
		common.Offer(k.Open, it != nil), k.Filter.Open, common.Offer(k.Marks.Mark, it != nil), common.Offer(k.Copy, it != nil), k.Sort}
}

// FullHelp is every inbox key, grouped.
func (m *Inbox) FullHelp() [][]key.Binding {
	k := m.keys
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Open, k.Copy, k.Sort, k.Filter.Open, filterClear(k.Filter)},
		append(append([]key.Binding{k.Marks.Mark, k.Marks.All, k.Marks.Clear}, m.teamAnswerHelp()...), keyAs(k.Results.Close, "close outcomes")),
		append([]key.Binding{k.Order.Prev, k.Order.Next}, m.order.Keys()...),
		{k.Switch, k.Send, k.External, k.Keep, k.Discard, k.Continue, k.Confirm, k.Decline, k.Back},
	}
}
