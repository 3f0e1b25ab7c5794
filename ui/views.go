package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
	"a2atop/ui/tasks"
)

// SavedView is a view of the tasks kept in the config ([[view]]), the
// tasks screen's (tasks.SavedView): its name, filter, sort, columns and
// whether it is open when the dashboard starts.
type SavedView = tasks.SavedView

// maxViewKeys is how many views have a numbered key (5-9).
const maxViewKeys = 5

// ViewError is what CheckViews finds wrong with a saved view: which
// view (its index in the list), which field, and why.
type ViewError struct {
	Index int
	Field string // "name", "filter", "sort", "columns", "default"
	Msg   string
}

func (e *ViewError) Error() string { return e.Field + ": " + e.Msg }

// CheckViews checks saved views before the dashboard starts: names that
// are unique and not a built-in view, a filter every token of which
// names something (model.Filter.Check: a known key, state and class, and
// an agent: that starts one of agents when any are known), a sort by a
// known column, known columns, one default at most.
func CheckViews(views []SavedView, agents []string) error {
	seen := map[string]bool{}
	defaults := 0
	for i, v := range views {
		fail := func(field, format string, a ...any) error {
			return &ViewError{Index: i, Field: field, Msg: fmt.Sprintf(format, a...)}
		}
		switch name := strings.TrimSpace(v.Name); {
		case name == "":
			return fail("name", "every view needs a name")
		case seen[name]:
			return fail("name", "%q names two views", name)
		case strings.ContainsAny(name, " \t"):
			return fail("name", "%q holds a space; :view takes one word", name)
		default:
			if _, ok := viewNamed(name); ok {
				return fail("name", "%q is a built-in view", name)
			}
			seen[name] = true
		}
		if err := model.ParseFilter(v.Filter).Check(agents); err != nil {
			return fail("filter", "%v", err)
		}
		if v.Sort != "" {
			f := strings.Fields(v.Sort)
			if _, _, ok := tasks.SortNamed(f[0]); !ok || len(f) > 2 || len(f) == 2 && f[1] != "asc" && f[1] != "desc" {
				return fail("sort", "%q: use a column (%s), then asc or desc", v.Sort, strings.Join(tasks.SortNames(), ", "))
			}
		}
		for _, c := range v.Columns {
			if !tasks.IsColumn(c) {
				return fail("columns", "%q is not a column: use agent, id, state, age, status, hint", c)
			}
		}
		if v.Default {
			if defaults++; defaults > 1 {
				return fail("default", "only one view can be the default")
			}
		}
	}
	return nil
}

// viewKeyOf is the view a numbered key opens, or -1.
func (m *Model) viewKeyOf(msg tea.KeyMsg) int {
	for i := range m.views {
		if i < maxViewKeys && key.Matches(msg, m.keys.Views[i]) {
			return i
		}
	}
	return -1
}

// openView applies the saved view named (a unique start of a name) to
// the tasks and shows them.
func (m *Model) openView(name string) tea.Cmd {
	var match []int
	for i, v := range m.views {
		if v.Name == name {
			match = []int{i}
			break
		}
		if strings.HasPrefix(v.Name, name) {
			match = append(match, i)
		}
	}
	if len(match) != 1 {
		names := viewNamesOf(m)
		if len(names) == 0 {
			m.fail("no saved views: add [[view]] tables to the config")
		} else {
			m.fail("no view " + sanitize.Line(name, 40) + "; the views: " + strings.Join(names, ", "))
		}
		return nil
	}
	m.tellTasks(tasks.ApplyViewMsg{View: m.views[match[0]]})
	return m.show(viewTasks)
}

// export writes the journal for an audit (:export) in a Cmd and says
// where.
func (m *Model) export(dir string) tea.Cmd {
	if m.export0 == nil {
		m.fail(":export: no journal in this build (ui.Options.Export is not set)")
		return nil
	}
	do := m.export0
	m.status.set("writing the journal…", false, m.ctx.Now())
	return func() tea.Msg {
		path, err := do(dir)
		if err != nil {
			return common.StatusMsg{Text: "export: " + err.Error(), Err: true}
		}
		return common.StatusMsg{Text: "the journal is in " + path + " (CSV: who, what, when, outcome, later states)"}
	}
}

// switchTheme switches the colours (:theme dark, :theme light, :theme
// alone the other one) and tells every screen.
func (m *Model) switchTheme(arg string) tea.Cmd {
	th := m.ctx.Theme
	switch strings.ToLower(arg) {
	case "":
		th.SetDark(!th.Dark)
	case "dark":
		th.SetDark(true)
	case "light":
		th.SetDark(false)
	default:
		m.fail(":theme " + sanitize.Line(arg, 20) + ": use dark or light")
		return nil
	}
	m.hm = common.NewHelpModel(th)
	m.help.Restyle(th)
	name := "light"
	if th.Dark {
		name = "dark"
	}
	m.status.set("theme: "+name, false, m.ctx.Now())
	return m.broadcast(common.ThemeChangedMsg{})
}
