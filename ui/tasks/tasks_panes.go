package tasks

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/model"
	"a2atop/ui/common"
)

// sideBySideWidth is the terminal width from which the panes stand side
// by side instead of stacked.
const sideBySideWidth = 160

// rect is where something was drawn, in body coordinates.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool {
	return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h
}

// pane is one class of tasks: its count, the cursor, and the visible page.
// The selection is a TaskKey: it stays on its task whatever arrives
// above or below it, on the first row as on any other. When the task
// leaves the pane the cursor stays where it was, on the neighbour that
// took its row.
type pane struct {
	class          model.Class
	count          int
	cursor, offset int
	sel            model.TaskKey
	rows           []*model.Task // the visible page, from offset
	rect           rect
	header         bool // a column header line is drawn
}

// rowsHeight is how many rows fit under the title (and column header).
func (p *pane) rowsHeight() int {
	h := p.rect.h - 1
	if p.header {
		h--
	}
	return max(h, 0)
}

// visible returns the panes drawn: the three classes, and Unknown when it
// holds anything (unknown states are shown, never dropped); zoomed, the
// focused pane alone.
func (v *Screen) visible() []*pane {
	if v.zoomed {
		return []*pane{v.focused()}
	}
	return v.unzoomed()
}

// unzoomed are the panes drawn when none is zoomed.
func (v *Screen) unzoomed() []*pane {
	if v.panes[3].count > 0 {
		return v.panes[:]
	}
	return v.panes[:3]
}

// paneOf returns the pane of a class.
func (v *Screen) paneOf(c model.Class) *pane {
	for _, p := range v.panes {
		if p.class == c {
			return p
		}
	}
	return v.panes[0]
}

// counts is the number of rows a class shows under the current filter.
func (v *Screen) counts(c model.Class) int { return v.paneOf(c).count }

// sync re-reads counts and visible pages from the fleet, keeping each
// pane's selected task selected wherever it moved. It returns the task
// that was selected in the focused pane and is no longer in it (the zero
// key if none).
func (v *Screen) sync() model.TaskKey {
	f := v.ctx.Fleet
	for _, p := range v.panes {
		p.count = v.rows.count(f, p.class)
	}
	if v.focus == model.ClassUnknown && v.panes[3].count == 0 {
		v.focus = model.ClassActive
	}
	v.arrange()
	var left model.TaskKey
	for _, p := range v.visible() {
		sel := p.sel
		v.place(p)
		if sel == (model.TaskKey{}) || p.sel == sel {
			continue
		}
		// The rows moved: find the selected task on the page read
		// (rows move by a few when tasks arrive), else in the pane.
		if j := indexOf(p.rows, sel); j >= 0 {
			p.cursor, p.sel = p.offset+j, sel
			continue
		}
		if i := v.rows.index(f, p.class, sel); i >= 0 {
			p.cursor = i
			v.place(p)
		} else if p.class == v.focus {
			left = sel
		}
	}
	return left
}

// indexOf is the row of rows that holds task k, or -1.
func indexOf(rows []*model.Task, k model.TaskKey) int {
	for i, t := range rows {
		if t.Key == k {
			return i
		}
	}
	return -1
}

// place clamps the cursor, scrolls it into view and reads the page.
func (v *Screen) place(p *pane) {
	n := p.rowsHeight()
	p.cursor = common.Clamp(p.cursor, 0, p.count-1)
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if n > 0 && p.cursor >= p.offset+n {
		p.offset = p.cursor - n + 1
	}
	p.offset = common.Clamp(p.offset, 0, max(p.count-n, 0))
	p.rows = v.rows.page(v.ctx.Fleet, p.class, p.offset, n)
	p.sel = model.TaskKey{}
	if i := p.cursor - p.offset; i >= 0 && i < len(p.rows) {
		p.sel = p.rows[i].Key
	}
}

// arrange lays the visible panes out: three columns side by side (the
// Unknown pane under Active), or stacked.
func (v *Screen) arrange() {
	ps := v.visible()
	v.side = v.w >= sideBySideWidth && !v.zoomed
	if !v.side {
		v.columns = [][]*pane{ps}
		v.stack(ps, 0, v.w)
		return
	}
	first := []*pane{v.panes[0]}
	if len(ps) == 4 {
		first = append(first, v.panes[3])
	}
	v.columns = [][]*pane{first, {v.panes[1]}, {v.panes[2]}}
	// The Interrupted column is wider by what its longer states take, so
	// every pane shows as much status text.
	extra := stateWidthOf(v.panes[1]) - stateWidthOf(v.panes[0])
	pw := (v.w - 2 - extra) / 3
	x := 0
	for i, col := range v.columns {
		w := pw
		switch i {
		case 1:
			w = pw + extra
		case 2:
			w = v.w - x
		}
		v.stack(col, x, w)
		x += w + 1
	}
}

// stack shares the height among panes drawn one above the other: each
// gets a title and a row, then lines go round, in pane order, to panes
// with rows still hidden (a pane needs its title, its column header and
// its rows; an empty one its title and "no tasks"), so the lines a pane
// does not need go to the panes that would be cut. When every pane has
// all its rows, what is left is blank under the last pane, at the bottom
// of the screen, never inside a pane above another. The layout does not
// depend on focus, so nothing jumps when tab moves.
func (v *Screen) stack(ps []*pane, x, w int) {
	need := make([]int, len(ps))
	alloc := make([]int, len(ps))
	left := v.h
	for i, p := range ps {
		need[i] = 2
		if p.count > 0 {
			need[i] = 2 + p.count
		}
		alloc[i] = min(2, left)
		left -= alloc[i]
	}
	for left > 0 {
		gave := false
		for i := range ps {
			if left > 0 && alloc[i] < need[i] {
				alloc[i]++
				left--
				gave = true
			}
		}
		if !gave {
			break
		}
	}
	if len(ps) > 0 {
		alloc[len(ps)-1] += left
	}
	y := 0
	for i, p := range ps {
		p.rect = rect{x: x, y: y, w: w, h: alloc[i]}
		p.header = alloc[i] >= 3 && p.count > 0
		y += alloc[i]
	}
}

// focused is the pane keys move in.
func (v *Screen) focused() *pane { return v.paneOf(v.focus) }

// selected is the task under the cursor of the focused pane, or nil.
func (v *Screen) selected() *model.Task {
	p := v.focused()
	if i := p.cursor - p.offset; i >= 0 && i < len(p.rows) {
		return p.rows[i]
	}
	return nil
}

// move handles the moving keys of the tasks screen.
func (v *Screen) move(msg tea.KeyMsg) {
	p := v.focused()
	k := v.keys
	switch {
	case key.Matches(msg, k.NextPane):
		v.cycle(1)
		return
	case key.Matches(msg, k.PrevPane):
		v.cycle(-1)
		return
	case key.Matches(msg, k.Up):
		p.cursor--
	case key.Matches(msg, k.Down):
		p.cursor++
	case key.Matches(msg, k.PageUp):
		p.cursor -= max(p.rowsHeight(), 1)
	case key.Matches(msg, k.PageDown):
		p.cursor += max(p.rowsHeight(), 1)
	case key.Matches(msg, k.Top):
		p.cursor = 0
	case key.Matches(msg, k.Bottom):
		p.cursor = p.count - 1
	default:
		return
	}
	v.place(p)
}

// scroll moves the cursor of a pane by n rows (mouse wheel).
func (v *Screen) scroll(p *pane, n int) {
	p.cursor += n
	v.place(p)
}

// cycle moves focus to the next (d=1) or previous (d=-1) pane drawn
// when none is zoomed; zoomed, the zoom moves with it.
func (v *Screen) cycle(d int) {
	v.seekRows = false // the person chose
	ps := v.unzoomed()
	for i, p := range ps {
		if p.class == v.focus {
			v.focus = ps[(i+d+len(ps))%len(ps)].class
			break
		}
	}
	v.sync()
}

// click focuses the pane at body coordinates (x, y) and selects the row
// there; it reports whether the click hit a row.
func (v *Screen) click(x, y int) bool {
	for _, p := range v.visible() {
		if !p.rect.contains(x, y) {
			continue
		}
		if v.focus != p.class {
			v.focus, v.seekRows = p.class, false
			v.sync()
		}
		top := p.rect.y + 1
		if p.header {
			top++
		}
		if i := y - top; i >= 0 && i < len(p.rows) {
			p.cursor = p.offset + i
			v.place(p)
			return true
		}
		return false
	}
	return false
}

// paneAt returns the pane at body coordinates, or the focused one.
func (v *Screen) paneAt(x, y int) *pane {
	for _, p := range v.visible() {
		if p.rect.contains(x, y) {
			return p
		}
	}
	return v.focused()
}
