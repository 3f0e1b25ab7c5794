package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/internal/sanitize"
	"a2atop/ui/common"
)

// command is one thing the command line does: its name, what its
// argument is (for the help and the error when it is missing), what tab
// completes the argument from, and what it does.
type command struct {
	name, arg, desc string
	// roles are the roles (common.RoleAnswer, …) of a command that
	// writes to agents: the help and the list leave it out unless one of
	// them is allowed on some agent (common.Context.MayAnywhere), as the
	// keys are hidden.
	roles []string
	// key is the key that does the same, where one does: the help and the
	// list leave the command out while that key is disabled (read-only,
	// no inbox, no editor of new messages in this build).
	key func(k *KeyMap) key.Binding
	// complete lists the arguments tab offers; nil for none.
	complete func(m *Model) []string
	// run does it; arg is what followed the name, trimmed.
	run func(m *Model, arg string) tea.Cmd
}

// maxCompletions bounds the arguments one command offers (task ids of a
// large fleet).
const maxCompletions = 500

// commandList is every command. The views come first: a unique start of
// a name is enough, and "t" is the tasks.
func commandList() []command {
	view := func(v view) func(*Model, string) tea.Cmd {
		return func(m *Model, _ string) tea.Cmd { return m.show(v) }
	}
	return []command{
		{name: "tasks", desc: "the tasks panes", run: view(viewTasks)},
		{name: "inbox", key: func(k *KeyMap) key.Binding { return k.Inbox }, desc: "what waits for a person", run: view(viewInbox)},
		{name: "agents", desc: "the agents", run: view(viewAgents)},
		{name: "journal", key: func(k *KeyMap) key.Binding { return k.Journal }, desc: "the decisions journal", run: view(viewJournal)},
		{name: "agent", arg: "NAME", desc: "the tasks of one agent", complete: agentNames, run: runAgent},
		{name: "state", arg: "STATE", desc: "the tasks in one state", complete: stateNames, run: runState},
		{name: "filter", arg: "EXPR", desc: "filter the tasks (as /)", run: runFilter},
		{name: "sort", arg: "COLUMN [asc|desc]", desc: "sort the tasks by a column", complete: sortNames, run: runSort},
		{name: "cancel", key: func(k *KeyMap) key.Binding { return k.TasksView.Cancel }, roles: []string{common.RoleCancel}, arg: "ID", desc: "cancel a task (asks first)", complete: idsOf(cancelable), run: runCancel},
		{name: "reply", key: func(k *KeyMap) key.Binding { return k.TasksView.Reply }, roles: []string{common.RoleAnswer, common.RoleApprove}, arg: "ID", desc: "reply to a waiting task", complete: idsOf(waiting), run: runReply},
		{name: "follow-up", key: func(k *KeyMap) key.Binding { return k.TasksView.FollowUp }, roles: []string{common.RoleAnswer}, arg: "ID", desc: "a new task after an ended one", complete: idsOf(ended), run: runFollowUp},
		{name: "new", key: func(k *KeyMap) key.Binding { return k.TasksView.New }, roles: []string{common.RoleAnswer}, arg: "[AGENT]", desc: "a new message to an agent", complete: agentNames, run: runNew},
		{name: "view", arg: "NAME", desc: "a saved view", complete: viewNamesOf, run: runView},
		{name: "export", arg: "[DIR]", desc: "write the journal as CSV for an audit", run: runExport},
		{name: "theme", arg: "[dark|light]", desc: "switch the colours", complete: themeNames, run: runTheme},
		{name: "help", desc: "every key and command of the screen shown", run: func(m *Model, _ string) tea.Cmd { m.openHelp(); return nil }},
		{name: "quit", desc: "leave a2atop", run: func(*Model, string) tea.Cmd { return tea.Quit }},
	}
}

// openCommand starts the command line; tab lists and completes from
// the commands and the fleet as they are when it is pressed.
func (m *Model) openCommand() tea.Cmd {
	m.overlay = overlayCommand
	return m.prompt.open(":", "")
}

// commandKey edits the command line: Accept runs it (or the line chosen
// in the list), Back closes it, tab completes and lists (command_list.go),
// ↓ ↑ choose in the list.
func (m *Model) commandKey(msg tea.KeyMsg) tea.Cmd {
	in := m.prompt.input.KeyMap
	switch {
	case key.Matches(msg, m.keys.Back):
		m.overlay = overlayNone
		m.prompt.close()
		return nil
	case key.Matches(msg, m.keys.Accept):
		if cands := m.candidates(m.prompt.value()); m.prompt.listing && m.prompt.sel >= 0 && m.prompt.sel < len(cands) {
			m.prompt.set(cands[m.prompt.sel].line)
		}
		m.overlay = overlayNone
		m.prompt.close()
		return m.runCommand(m.prompt.value())
	case key.Matches(msg, in.AcceptSuggestion):
		m.tab()
		return nil
	case key.Matches(msg, in.NextSuggestion):
		m.choose(1)
		return nil
	case key.Matches(msg, in.PrevSuggestion):
		m.choose(-1)
		return nil
	}
	m.prompt.sel = -1
	return m.prompt.update(msg)
}

// commandLine is the footer while the command line is open.
func (m *Model) commandLine() string {
	in := m.prompt.input.KeyMap
	next := key.NewBinding(key.WithKeys(in.NextSuggestion.Keys()...), key.WithHelp("↓", "next"))
	hint := shortKeys(m.hm, []key.Binding{common.KeyHint(in.AcceptSuggestion, "complete"), next, common.KeyHint(m.keys.Accept, "run"),
		common.KeyHint(m.keys.Back, "close")}, promptHintWidth)
	return m.prompt.line(hint, m.width)
}

// runCommand runs a command line: "name argument". A unique start of a
// name is enough ("q" is quit); an unknown name says so and names the
// nearest command.
func (m *Model) runCommand(line string) tea.Cmd {
	line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), ":"))
	if line == "" {
		return nil
	}
	m.status = statusLine{} // a new command: what the last one said goes
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	c, ok := m.findCommand(strings.ToLower(name))
	if !ok {
		return nil
	}
	if c.arg != "" && !strings.HasPrefix(c.arg, "[") && arg == "" {
		m.fail(":" + c.name + " needs " + c.arg + " (tab completes it)")
		return nil
	}
	return c.run(m, arg)
}

// findCommand is the command name names: itself, or the one command it
// starts. It says why when there is none.
func (m *Model) findCommand(name string) (command, bool) {
	if name == "q" {
		name = "quit"
	}
	var match []command
	for _, c := range m.cmds { // those that write too: refused, they say why
		if c.name == name {
			return c, true
		}
		if strings.HasPrefix(c.name, name) {
			match = append(match, c)
		}
	}
	switch len(match) {
	case 1:
		return match[0], true
	case 0:
		m.fail("unknown command :" + sanitize.Line(name, 40) + " — did you mean :" + m.nearest(name) + "? (: then tab lists them)")
	default:
		names := make([]string, len(match))
		for i, c := range match {
			names[i] = ":" + c.name
		}
		m.fail(":" + sanitize.Line(name, 40) + " could be " + strings.Join(names, ", "))
	}
	return command{}, false
}

// nearest is the command whose name is closest to name (fewest edits).
func (m *Model) nearest(name string) string {
	best, bestD := "", 1<<30
	for _, c := range m.cmds {
		if d := editDistance(name, c.name); d < bestD {
			best, bestD = c.name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// fail shows a refusal in the footer.
func (m *Model) fail(text string) { m.status.set(text, true, m.ctx.Now()) }
