package tasks

import (
	"strings"

	"a2atop/internal/sanitize"
)

// SavedView is a view of the tasks kept in the config ([[view]]): its
// name, a filter (model.ParseFilter syntax), a sort ("state", "upd
// desc") and the columns the panes show (agent, id, state, age, status,
// hint; none listed is all of them). The views are on the numbered keys
// after the built-in ones (5, 6, …), in :view NAME, and as tabs above
// the panes; one with Default is open when the dashboard starts.
type SavedView struct {
	Name    string
	Filter  string
	Sort    string
	Columns []string
	Default bool
}

// apply puts a saved view in effect on the tasks panes.
func (v *Screen) apply(sv SavedView) {
	v.view = sv.Name
	v.shown = showAll
	if len(sv.Columns) > 0 {
		v.shown = 0
		for _, c := range sv.Columns {
			v.shown |= columnNames[strings.ToLower(c)]
		}
	}
	if f := strings.Fields(sv.Sort); len(f) > 0 {
		col, _ := v.sort.Named(f[0])
		desc := v.keys.SortBy.columns()[col].Desc
		if len(f) > 1 {
			desc = f[1] == "desc"
		}
		v.sort.Set(col, desc)
	} else {
		v.sort.Set(colUpdated, true)
	}
	v.filter.Set(sv.Filter)
	v.filterChanged()
}

// plain takes the saved view off: every column, newest first, no filter.
func (v *Screen) plain() {
	if v.view == "" {
		return
	}
	v.apply(SavedView{})
	v.view = ""
}

// tabsLine is the line above the panes when views are saved: the
// built-in tasks and each view with its key, the one in effect marked.
func (v *Screen) tabsLine() string {
	th := v.ctx.Theme
	tab := func(k, name string, on bool) string {
		s := k + " " + sanitize.Line(name, 24)
		if on {
			return th.RowSelected.Render("[" + s + "]")
		}
		return th.Muted.Render(" " + s + " ")
	}
	parts := []string{tab(v.keys.Tasks.Help().Key, "tasks", v.view == "")}
	for i, sv := range v.views {
		k := " "
		if i < len(v.keys.Views) {
			k = v.keys.Views[i].Help().Key
		}
		parts = append(parts, tab(k, sv.Name, sv.Name == v.view))
	}
	return strings.Join(parts, "")
}
