package tasks

import (
	"a2atop/model"
	"a2atop/ui/common"
)

// What the screen shows and where its panes stand, read by the root's
// tests through the model they drive (the screen is built and updated by
// the root only).

// ResortEvery is how often a pane sorted here (id, status, hint) is
// sorted again while the fleet changes.
const ResortEvery = resortEvery

// Pane is what one pane holds and where it is drawn.
type Pane struct {
	Class model.Class
	// Count is its tasks under the filter; Cursor is the index among them
	// of the row selected; Rows are the rows drawn, from the first shown.
	Count, Cursor int
	Rows          []*model.Task
	// X, Y, W and H are its cells in the screen's body (under the tabs);
	// RowsHeight is the lines under its title (and column header).
	X, Y, W, H, RowsHeight int
}

func paneState(p *pane) Pane {
	return Pane{Class: p.class, Count: p.count, Cursor: p.cursor, Rows: p.rows,
		X: p.rect.x, Y: p.rect.y, W: p.rect.w, H: p.rect.h, RowsHeight: p.rowsHeight()}
}

// PaneOf is the pane of class c.
func (v *Screen) PaneOf(c model.Class) Pane { return paneState(v.paneOf(c)) }

// Focused is the pane the keys move in.
func (v *Screen) Focused() Pane { return paneState(v.focused()) }

// Focus is the class of the focused pane.
func (v *Screen) Focus() model.Class { return v.focus }

// Visible are the panes drawn, top to bottom and left to right (zoomed:
// the focused one alone).
func (v *Screen) Visible() []Pane {
	var out []Pane
	for _, p := range v.visible() {
		out = append(out, paneState(p))
	}
	return out
}

// Height is the lines the panes take (the screen's less the tabs).
func (v *Screen) Height() int { return v.h }

// PaneLines are the drawn lines of the pane of class c.
func (v *Screen) PaneLines(c model.Class) []string {
	return v.paneLines(v.paneOf(c), common.AgentWidth(v.ctx.Fleet))
}

// StatusWidth is the width of the status text in the pane of class c
// with every column, beside another pane.
func (v *Screen) StatusWidth(c model.Class) int {
	p := v.paneOf(c)
	return columnsFor(p.rect.w-1, common.AgentWidth(v.ctx.Fleet), stateWidthOf(p), widest(v.hints(p)), showAll).text
}

// Selected is the task under the cursor of the focused pane, or nil.
func (v *Screen) Selected() *model.Task { return v.selected() }

// Marked is how many tasks are marked.
func (v *Screen) Marked() int { return v.marks.Len() }

// Filter is the filter in effect (or being typed).
func (v *Screen) Filter() string { return v.filterText() }

// Sort is the sort in effect.
func (v *Screen) Sort() common.Sort { return v.sort }

// ViewName is the saved view in effect, "" for none.
func (v *Screen) ViewName() string { return v.view }

// Shows reports whether the panes draw the column a saved view names so
// (agent, id, state, age, hint).
func (v *Screen) Shows(column string) bool { return v.shown&columnNames[column] != 0 }

// ShowsAll reports whether the panes draw every column.
func (v *Screen) ShowsAll() bool { return v.shown == showAll }

// Confirming reports whether the cancel confirmation is open.
func (v *Screen) Confirming() bool { return v.act.Confirming() }

// ShowingResults reports whether the outcomes of a cancel of several
// are shown.
func (v *Screen) ShowingResults() bool { return v.act.ShowingResults() }

// Targets are the tasks the open confirmation is about.
func (v *Screen) Targets() []model.TaskKey { return v.act.Targets() }

// PaneName is the title of the pane of class c: "Active", "Interrupted",
// "Terminal", "Unknown".
func PaneName(c model.Class) string { return paneName(c) }
