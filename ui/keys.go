package ui

import (
	"github.com/charmbracelet/bubbles/key"

	"a2atop/ui/agents"
	"a2atop/ui/common"
	"a2atop/ui/detail"
	uihelp "a2atop/ui/help"
	"a2atop/ui/tasks"
)

// KeyMap is every key of the dashboard's own screens: the global keys,
// which the root answers on every screen, and one KeyMap per screen. The
// help screen and the footers are built from these same bindings, so what
// the help says is what the keys do. People and scripts rely on the
// defaults: change one only together with the help and the README.
type KeyMap struct {
	// Views the root shows, from any screen; Views are the saved views'
	// keys, after the built-in ones.
	Tasks, Inbox, Agents, Journal key.Binding
	Views                         [maxViewKeys]key.Binding
	// Command opens the command line; there Accept runs it and Back
	// closes it.
	Command      key.Binding
	Accept, Back key.Binding `keys:"prompt"`
	// Help opens the help screen; Force quits from anywhere, even from a
	// field taking text. Quit is listed in the help: each screen answers
	// it itself (back, and quit on the tasks).
	Help, Force key.Binding
	Quit        key.Binding `keys:"help"`

	// Each screen's own keys.
	TasksView  tasks.KeyMap  `keys:"-"`
	DetailView detail.KeyMap `keys:"-"`
	AgentsView agents.KeyMap `keys:"-"`
	HelpView   uihelp.KeyMap `keys:"-"`
}

// Actions are every key of the dashboard's own screens as [keys] names
// them: "global.help", "tasks.cancel", "detail.raw", "agents.sign_in",
// "help.close" (common.Actions).
func (k *KeyMap) Actions() []common.Action {
	var out []common.Action
	out = append(out, common.Actions("global", k)...)
	out = append(out, common.Actions("tasks", &k.TasksView)...)
	out = append(out, common.Actions("detail", &k.DetailView)...)
	out = append(out, common.Actions("agents", &k.AgentsView)...)
	return append(out, common.Actions("help", &k.HelpView)...)
}

// DefaultKeyMap returns the keys of every screen of this package.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Tasks:   common.Bind("1", "tasks", "1"),
		Inbox:   common.Bind("2", "inbox", "2"),
		Agents:  common.Bind("3", "agents", "3"),
		Journal: common.Bind("4", "journal", "4"),
		Views: [maxViewKeys]key.Binding{common.Bind("5", "saved view 1", "5"), common.Bind("6", "saved view 2", "6"),
			common.Bind("7", "saved view 3", "7"), common.Bind("8", "saved view 4", "8"), common.Bind("9", "saved view 5", "9")},
		Command:    common.Bind(":", "command", ":"),
		Accept:     common.Bind("enter", "run/keep", "enter"),
		Back:       common.Bind("esc", "back", "esc"),
		Help:       common.Bind("?", "help", "?"),
		Quit:       common.Bind("q", "back/quit", "q"),
		Force:      common.Bind("ctrl+c", "quit", "ctrl+c"),
		TasksView:  tasks.DefaultKeyMap(),
		DetailView: detail.DefaultKeyMap(),
		AgentsView: agents.DefaultKeyMap(),
		HelpView:   uihelp.DefaultKeyMap(),
	}
}

// settle disables what cannot work here (the keys that write to agents in
// read-only or without a backend, the views that are not wired) and puts
// the global keys a screen's footer names into that screen's KeyMap.
func (k *KeyMap) settle(readOnly, backend, inbox, journal, compose bool, views []SavedView) {
	for i := range k.Views {
		k.Views[i].SetEnabled(i < len(views))
		if i < len(views) {
			k.Views[i].SetHelp(k.Views[i].Help().Key, "view "+views[i].Name)
		}
	}
	k.Inbox.SetEnabled(inbox)
	k.Journal.SetEnabled(journal)
	for _, t := range []*common.TaskKeys{&k.TasksView.TaskKeys, &k.DetailView.TaskKeys} {
		t.Cancel.SetEnabled(!readOnly && backend)
		for _, b := range []*key.Binding{&t.Reply, &t.Approve, &t.Deny} {
			b.SetEnabled(!readOnly && inbox)
		}
		t.FollowUp.SetEnabled(!readOnly && compose)
		// The cancel's confirmation and its outcomes: only after a cancel.
		for _, b := range []*key.Binding{&t.Confirm, &t.Decline, &t.Results.Close} {
			b.SetEnabled(!readOnly && backend)
		}
	}
	k.TasksView.New.SetEnabled(!readOnly && compose)
	k.AgentsView.New.SetEnabled(!readOnly && compose)
	// Marks serve the actions on many, which all write.
	for _, b := range []*key.Binding{&k.TasksView.Marks.Mark, &k.TasksView.Marks.All, &k.TasksView.Marks.Clear} {
		b.SetEnabled(!readOnly)
	}
	k.TasksView.Agents, k.TasksView.Inbox, k.TasksView.Tasks = k.Agents, k.Inbox, k.Tasks
	k.TasksView.Views = k.Views[:]
	k.AgentsView.Tasks = k.Tasks
}

// globalHelp is the group every help screen ends with.
func (k KeyMap) globalHelp() []key.Binding {
	return append([]key.Binding{k.Tasks, k.Inbox, k.Agents, k.Journal}, append(k.Views[:], k.Command, k.Help, k.Quit, k.Force)...)
}
