package ui

import (
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
	"a2atop/ui/tasks"
)

// What the commands that take an argument complete from and do.

func agentNames(m *Model) []string { return common.FleetAgents(&m.ctx)() }

func stateNames(*Model) []string {
	return []string{"submitted", "working", "input-required", "auth-required", "completed", "failed", "canceled", "rejected", "unknown"}
}

func sortNames(m *Model) []string {
	var out []string
	for _, n := range tasks.SortNames() {
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
	name, ok := m.findAgent(strings.Fields(arg)[0])
	if !ok {
		return nil
	}
	return m.showTasksWith("agent:" + name)
}

// findAgent is the agent a typed name names, as model.ResolveName reads
// it (the name, or a unique start of one). It says why when there is
// none, or several.
func (m *Model) findAgent(typed string) (string, bool) {
	names := agentNames(m)
	found := model.ResolveName(names, typed)
	switch len(found) {
	case 1:
		return found[0], true
	case 0:
		m.fail("no agent " + sanitize.Line(typed, 40) + "; the agents: " + sanitize.Line(strings.Join(names, ", "), 120))
	default:
		m.fail(sanitize.Line(typed, 40) + " could be " + sanitize.Line(strings.Join(found, ", "), 120) + "; give more of the name")
	}
	return "", false
}

func runState(m *Model, arg string) tea.Cmd {
	return m.showTasksWith("state:" + strings.Fields(arg)[0])
}

func runFilter(m *Model, arg string) tea.Cmd { return m.showTasksWith(arg) }

// showTasksWith shows the tasks with filter in effect.
func (m *Model) showTasksWith(filter string) tea.Cmd {
	m.tellTasks(common.ShowTasksMsg{Filter: filter})
	return m.show(viewTasks)
}

// runSort sorts the tasks: "state", "id desc", "upd asc".
func runSort(m *Model, arg string) tea.Cmd {
	f := strings.Fields(arg)
	col, desc, ok := tasks.SortNamed(f[0])
	if !ok {
		m.fail(":sort " + sanitize.Line(f[0], 20) + ": no such column; use one of " + strings.Join(tasks.SortNames(), ", "))
		return nil
	}
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
	m.tellTasks(tasks.SortMsg{Col: col, Desc: desc})
	return m.show(viewTasks)
}

// findTask is the task an id names, as model.ResolveID reads it: the
// whole id, a start of it, or a start of the short id the rows show. It
// says why when there is none, and lists the candidates by agent and
// short id when there are several.
func (m *Model) findTask(id string) *model.Task {
	f := m.ctx.Fleet
	var all []*model.Task
	var ids []a2a.TaskID
	for _, c := range []model.Class{model.ClassActive, model.ClassInterrupted, model.ClassTerminal, model.ClassUnknown} {
		for _, t := range f.Page(c, model.Query{}, 0, f.Count(c, model.Query{})) {
			all = append(all, t)
			ids = append(ids, t.Key.ID)
		}
	}
	named := model.ResolveID(ids, id)
	var found []*model.Task
	for _, t := range all {
		if slices.Contains(named, t.Key.ID) {
			found = append(found, t)
		}
	}
	switch len(found) {
	case 1:
		return found[0]
	case 0:
		m.fail("no task " + sanitize.Line(id, 40) + " in the fleet (tab completes the ids)")
	default:
		m.fail(sanitize.Line(id, 40) + " could be " + taskNames(found) + "; give more of it")
	}
	return nil
}

// maxNamedTasks bounds the candidates a message names.
const maxNamedTasks = 4

// taskNames names tasks for a message: "deployer · 2b42aa01, …", at
// most maxNamedTasks of them, then how many more.
func taskNames(ts []*model.Task) string {
	slices.SortFunc(ts, func(a, b *model.Task) int {
		return strings.Compare(a.Key.Agent+" "+model.ShortID(a.Key.ID), b.Key.Agent+" "+model.ShortID(b.Key.ID))
	})
	var names []string
	for i, t := range ts {
		if i == maxNamedTasks {
			names = append(names, "and "+itoa(len(ts)-i)+" more")
			break
		}
		names = append(names, sanitize.Line(t.Key.Agent, 24)+" · "+sanitize.Line(model.ShortID(t.Key.ID), 16))
	}
	return strings.Join(names, ", ")
}

// runOnTask runs do on the task arg names, through the tasks screen's
// actions, and does what they ask.
func (m *Model) runOnTask(arg string, do func(a *common.TaskActions, t *model.Task) tea.Cmd) tea.Cmd {
	t := m.findTask(strings.Fields(arg)[0])
	if t == nil {
		return nil
	}
	cmd := m.tellTasks(tasks.ActMsg{Task: t, Do: do})
	return tea.Batch(cmd, m.show(viewTasks), m.drain())
}

func runCancel(m *Model, arg string) tea.Cmd {
	return m.runOnTask(arg, func(a *common.TaskActions, t *model.Task) tea.Cmd { return a.AskCancel(t) })
}

func runReply(m *Model, arg string) tea.Cmd {
	return m.runOnTask(arg, func(a *common.TaskActions, t *model.Task) tea.Cmd {
		a.Decide(approvals.KindReply, t, nil)
		return nil
	})
}

func runFollowUp(m *Model, arg string) tea.Cmd {
	return m.runOnTask(arg, func(a *common.TaskActions, t *model.Task) tea.Cmd {
		a.FollowUp(t)
		return nil
	})
}

// runNew opens the editor of a new message, to the agent arg names (a
// start of its name is enough) or to one chosen there. A refusal is the
// context's (Refusal: the flag, the config or the hub's roles).
func runNew(m *Model, arg string) tea.Cmd {
	name := ""
	if arg = strings.TrimSpace(arg); arg != "" {
		var ok bool
		if name, ok = m.findAgent(strings.Fields(arg)[0]); !ok {
			return nil
		}
		if why := m.ctx.Refusal(name, common.RoleAnswer); why != "" {
			m.fail(why)
			return nil
		}
	}
	if m.ctx.ReadOnly {
		m.fail(m.ctx.ReadOnlyWords(""))
		return nil
	}
	return m.request(common.ComposeMsg{Agent: name})
}

func runView(m *Model, arg string) tea.Cmd { return m.openView(arg) }

func runExport(m *Model, arg string) tea.Cmd { return m.export(arg) }

func runTheme(m *Model, arg string) tea.Cmd { return m.switchTheme(arg) }
