package ui

import (
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
)

// What the commands that take an argument complete from and do.

func agentNames(m *Model) []string {
	var out []string
	for _, a := range m.ctx.Fleet.Agents() {
		out = append(out, a.Name)
	}
	return out
}

func stateNames(*Model) []string {
	return []string{"submitted", "working", "input-required", "auth-required", "completed", "failed", "canceled", "rejected", "unknown"}
}

func sortNames(m *Model) []string {
	var out []string
	for _, n := range m.tasks().sort.Names() {
		out = append(out, n, n+" asc", n+" desc")
	}
	return out
}

func themeNames(*Model) []string { return []string{"dark", "light"} }

func viewNamesOf(m *Model) []string {
	out := make([]string, len(m.views))
	for i, v := range m.views {
		out[i] = v.Name
	}
	return out
}

// idsOf completes the short ids of the tasks of the classes keep takes,
// newest first, at most maxCompletions.
func idsOf(classes []model.Class) func(*Model) []string {
	return func(m *Model) []string {
		var out []string
		for _, c := range classes {
			for _, t := range m.ctx.Fleet.Page(c, model.Query{}, 0, maxCompletions-len(out)) {
				out = append(out, sanitize.Line(model.ShortID(t.Key.ID), 64))
			}
		}
		return out
	}
}

var (
	cancelable = []model.Class{model.ClassActive, model.ClassInterrupted, model.ClassUnknown}
	waiting    = []model.Class{model.ClassInterrupted}
	ended      = []model.Class{model.ClassTerminal}
)

func runAgent(m *Model, arg string) tea.Cmd {
	return m.showTasksWith("agent:" + strings.Fields(arg)[0])
}

func runState(m *Model, arg string) tea.Cmd {
	return m.showTasksWith("state:" + strings.Fields(arg)[0])
}

func runFilter(m *Model, arg string) tea.Cmd { return m.showTasksWith(arg) }

// showTasksWith shows the tasks with filter in effect.
func (m *Model) showTasksWith(filter string) tea.Cmd {
	m.tasks().setFilter(filter)
	return m.show(viewTasks)
}

// runSort sorts the tasks: "state", "id desc", "upd asc".
func runSort(m *Model, arg string) tea.Cmd {
	f := strings.Fields(arg)
	v := m.tasks()
	col, ok := v.sort.Named(f[0])
	if !ok {
		m.fail(":sort " + sanitize.Line(f[0], 20) + ": no such column; use one of " + strings.Join(v.sort.Names(), ", "))
		return nil
	}
	desc := v.keys.SortBy.columns()[col].Desc
	if len(f) > 1 {
		switch strings.ToLower(f[1]) {
		case "asc":
			desc = false
		case "desc":
			desc = true
		default:
			m.fail(":sort " + sanitize.Line(arg, 40) + ": the direction is asc or desc")
			return nil
		}
	}
	v.sort.Set(col, desc)
	v.sortChanged()
	return m.show(viewTasks)
}

// findTask is the task an id names: the whole id, or the start of one
// (a short id as the rows show it). It says why when there is none or
// more than one.
func (m *Model) findTask(id string) *model.Task {
	f := m.ctx.Fleet
	if ts := f.Lookup(a2a.TaskID(id)); len(ts) == 1 {
		return ts[0]
	}
	var found []*model.Task
	for _, c := range []model.Class{model.ClassActive, model.ClassInterrupted, model.ClassTerminal, model.ClassUnknown} {
		for _, t := range f.Page(c, model.Query{}, 0, f.Count(c, model.Query{})) {
			if strings.HasPrefix(string(t.Key.ID), id) || model.ShortID(t.Key.ID) == id {
				found = append(found, t)
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0]
	case 0:
		m.fail("no task " + sanitize.Line(id, 40) + " in the fleet (tab completes the ids)")
	default:
		m.fail(sanitize.Line(id, 40) + " starts " + itoa(len(found)) + " task ids; give more of it")
	}
	return nil
}

// runOnTask runs do on the task arg names, through the tasks screen's
// actions, and does what they ask.
func (m *Model) runOnTask(arg string, do func(a *taskActions, t *model.Task) tea.Cmd) tea.Cmd {
	t := m.findTask(strings.Fields(arg)[0])
	if t == nil {
		return nil
	}
	cmd := do(&m.tasks().act, t)
	return tea.Batch(cmd, m.show(viewTasks), m.drain())
}

func runCancel(m *Model, arg string) tea.Cmd {
	return m.runOnTask(arg, func(a *taskActions, t *model.Task) tea.Cmd { return a.askCancel(t) })
}

func runReply(m *Model, arg string) tea.Cmd {
	return m.runOnTask(arg, func(a *taskActions, t *model.Task) tea.Cmd {
		a.decide(approvals.KindReply, t, nil)
		return nil
	})
}

func runFollowUp(m *Model, arg string) tea.Cmd {
	return m.runOnTask(arg, func(a *taskActions, t *model.Task) tea.Cmd {
		a.followUp(t)
		return nil
	})
}

func runNew(m *Model, arg string) tea.Cmd {
	if m.ctx.ReadOnly {
		m.fail(m.ctx.ReadOnlyWords(""))
		return nil
	}
	return m.request(common.ComposeMsg{Agent: strings.TrimSpace(arg)})
}

func runView(m *Model, arg string) tea.Cmd { return m.openView(arg) }

func runExport(m *Model, arg string) tea.Cmd { return m.export(arg) }

func runTheme(m *Model, arg string) tea.Cmd { return m.switchTheme(arg) }
