package ui

import (
	"io"
	"log/slog"
	"time"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/common"
	"a2atop/ui/theme"
)

// DefaultBatchInterval is the shortest time between two batches of
// watcher events that follow closely: a burst of thousands costs a few
// frames, not thousands. The four batches right after a lone one (the
// first, one after a quiet spell of two intervals) are not held back.
const DefaultBatchInterval = 30 * time.Millisecond

// Options configure New. Fleet is required; everything else has a usable
// zero value.
type Options struct {
	// Fleet is the data the screens show. The Model owns it from New on:
	// nothing else may touch it while the program runs.
	Fleet *model.Fleet
	// Events are the watchers' events (a2aclient.Manager.Events). nil
	// means a still picture of Fleet.
	Events <-chan model.Event
	// Backend answers GetTask, CancelTask and the raw capture. nil
	// disables the detail history, cancel and the agents' capture.
	Backend common.Backend
	// ReadOnly hides and disables every key that writes to an agent.
	ReadOnly bool
	// Bell rings the terminal bell when a task enters the inbox.
	Bell bool
	// Notify writes a desktop notification (OSC 9 or OSC 777) to Output
	// when a task starts waiting for a person, and keeps the count of
	// waiting tasks in the terminal's title; never in ReadOnly, where
	// nothing can be done about them. The zero value does neither.
	Notify Notify
	// Theme is nil for theme.New(theme.Options{}).
	Theme *theme.Theme
	// Logger receives what the UI did and why something failed; nil
	// discards. The UI never prints.
	Logger *slog.Logger
	// Now is the clock (ages, timestamps); nil is time.Now.
	Now func() time.Time
	// Inbox and Journal build the screens shown on `2` and `4`
	// (inbox.InboxFactory and inbox.JournalFactory) with the root's
	// Context. nil leaves those keys and commands disabled.
	Inbox, Journal func(common.Context) common.Component
	// Compose builds the screen that writes a new message to an agent
	// (n) or a follow-up of an ended task (f) (inbox.ComposeFactory).
	// nil leaves those keys disabled.
	Compose func(common.Context) common.Component
	// Approvals is the journal the inbox and the journal view show (the
	// one their factories were built over). The root follows it: on the
	// clock it reads what other processes appended and hands every screen
	// a common.JournalRefreshedMsg, and after each batch it records the
	// states decided tasks went on to. nil follows nothing.
	Approvals *approvals.Service
	// Decisions is the journal the other screens read (a task's votes in
	// its detail, whether its agent's decisions are blocked) when
	// Approvals is nil: a dashboard attached to a hub, whose journal the
	// hub's feed brings, not the root. Approvals, when set, is it.
	Decisions *approvals.Service
	// JournalChanges tells when the journal file was written
	// (approvals.Service.Watch): the root reads what others appended when
	// it fires instead of on the clock. nil, or once closed, reads it on
	// the clock.
	JournalChanges <-chan struct{}
	// Output receives the bell and the OSC 52 clipboard sequence; nil is
	// os.Stdout. It must be the terminal the program draws on.
	Output io.Writer
	// AskBackground asks the terminal (Output) for its background colour
	// once the program runs, and switches the theme to its answer
	// (theme mode auto; background.go). The first frame does not wait.
	AskBackground bool
	// HistoryLength is passed to GetTask when the detail view opens;
	// 0 asks for the server's default.
	HistoryLength int
	// BatchInterval is the shortest time between event batches; 0 is
	// DefaultBatchInterval.
	BatchInterval time.Duration
	// Sort orders the rows of every pane; the zero value is newest first.
	Sort model.SortBy
	// HideTerminalAfter keeps off the Terminal pane the tasks that ended
	// longer ago than this (hide_terminal_after); they stay counted in
	// the header and the pane's title says how many it hides. 0 keeps
	// every terminal task on the pane.
	HideTerminalAfter time.Duration
	// QuietPeriod is how long the cancel confirmation waits with no
	// keypress before y counts (type-ahead protection); 0 is
	// approvals.DefaultQuietPeriod, which the inbox's dialogs use too.
	QuietPeriod time.Duration
	// KeyMap overrides DefaultKeyMap when non-nil.
	KeyMap *KeyMap
	// Views are the saved views ([[view]]), checked with CheckViews.
	Views []SavedView
	// Export writes the journal for an audit into dir ("" for the
	// working directory) and returns the file it wrote (:export). nil
	// leaves :export saying there is no journal to export.
	Export func(dir string) (path string, err error)
	// Team is the hub the dashboard is attached to (a2atop --hub;
	// *hubclient.Client): the header names it and the operator, a banner
	// says when it is unreachable, keys follow the operator's roles and
	// the inbox shows and takes claims. nil for a local dashboard.
	Team Team
	// Start is the screen the dashboard opens on ("tasks", "inbox",
	// "agents", "journal"; one not wired, or "", is tasks).
	Start string
	// Via says in the footer who is at the keys and how ("alice via
	// ssh"); "" says nothing.
	Via string
}
