package tasks

import (
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
	"a2atop/ui/theme"
)

// paint is common.Paint, as the rows use it.
type paint = common.Paint

func newPaint(s lipgloss.Style) paint { return common.NewPaint(s) }

// rowPaint holds the paints rows are drawn with.
type rowPaint struct {
	muted, warn, text, selected, marked paint
	check                               paint    // the gutter of a row marked for an action on many
	failed                              paint    // failed and rejected
	class                               [4]paint // the other states, by model.Class
}

func newRowPaint(t *theme.Theme) rowPaint {
	rp := rowPaint{
		muted: newPaint(t.Muted), warn: newPaint(t.Warn), text: newPaint(t.Text),
		selected: newPaint(t.RowSelected), marked: newPaint(t.RowMarked), failed: newPaint(t.StateFailed),
		check: newPaint(t.Marked),
	}
	for _, c := range []model.Class{model.ClassUnknown, model.ClassActive, model.ClassInterrupted, model.ClassTerminal} {
		rp.class[c] = newPaint(t.Class(c))
	}
	return rp
}

// state returns the paint for a task state, as theme.Theme.State styles
// it.
func (rp rowPaint) state(s a2a.TaskState) paint {
	n := model.NormalizeState(s)
	if n == a2a.TaskStateFailed || n == a2a.TaskStateRejected {
		return rp.failed
	}
	return rp.class[model.ClassOf(n)]
}

// panesView draws the panes, column by column.
func (v *Screen) panesView() string {
	aw := common.AgentWidth(v.ctx.Fleet)
	blocks := make([][]string, len(v.columns))
	for i, col := range v.columns {
		for _, p := range col {
			blocks[i] = append(blocks[i], v.paneLines(p, aw)...)
		}
	}
	if len(blocks) == 1 {
		return strings.Join(blocks[0], "\n")
	}
	sep := v.paint.muted.On("│")
	lines := make([]string, v.h)
	for y := range lines {
		var b strings.Builder
		for i, blk := range blocks {
			if i > 0 {
				b.WriteString(sep)
			}
			if y < len(blk) {
				b.WriteString(blk[y])
			}
		}
		lines[y] = b.String()
	}
	return strings.Join(lines, "\n")
}

// paneLines draws one pane as exactly rect.h lines of rect.w cells.
func (v *Screen) paneLines(p *pane, aw int) []string {
	w := p.rect.w
	hints := v.hints(p)
	cw := w
	if v.side {
		cw-- // a blank cell before the next pane's rule
	}
	cols := columnsFor(cw, aw, stateWidthOf(p), widest(hints), v.shown)
	lines := make([]string, 0, p.rect.h)
	lines = append(lines, v.title(p, w))
	if p.header {
		lines = append(lines, v.paint.muted.On(common.Pad(headerRow(cols, v.sort, v.ageHeader()), w)))
	}
	now := v.ctx.Now()
	focused := p.class == v.focus
	for i, t := range p.rows {
		if len(lines) >= p.rect.h {
			break
		}
		sel := p.offset+i == p.cursor
		lines = append(lines, v.row(t, hints[i], cols, w, now, sel, focused))
	}
	if p.count == 0 && len(lines) < p.rect.h {
		msg := "  no tasks"
		if problem := v.filter.Problem(); problem != "" {
			msg = "  " + problem
		} else if v.filter.Active() {
			msg = "  no tasks match the filter"
		}
		lines = append(lines, v.paint.muted.On(common.Pad(msg, w)))
	}
	for len(lines) < p.rect.h {
		lines = append(lines, strings.Repeat(" ", w))
	}
	return lines
}

// title is "Active 12 ──── 3/12", in the focus style when focused.
func (v *Screen) title(p *pane, w int) string {
	t := v.ctx.Theme
	head := " " + paneName(p.class) + " " + strconv.Itoa(p.count) + " "
	pos := ""
	if p.count > 0 {
		pos = " " + strconv.Itoa(p.cursor+1) + "/" + strconv.Itoa(p.count) + " "
	}
	style := t.PaneTitle
	if p.class == v.focus {
		head = "▸" + head
		style = t.PaneTitleFocused
	} else {
		head = " " + head
	}
	if p.class == model.ClassUnknown {
		style = t.StateUnknown
	}
	if r, ok := v.rows.(*recentTerminal); ok && p.class == model.ClassTerminal {
		if n := r.hidden(v.ctx.Fleet); n > 0 {
			head += "(+" + strconv.Itoa(n) + " older than " + shortDuration(v.hideAfter) + " hidden) "
		}
	}
	if v.zoomed {
		pos += "· " + v.keys.Zoom.Help().Key + ": all panes "
	}
	rule := max(w-ansi.StringWidth(head)-ansi.StringWidth(pos), 0)
	return ansi.Truncate(style.Render(head)+v.paint.muted.On(strings.Repeat("─", rule)+pos), w, "")
}

// paneName is the title of the pane of class c.
func paneName(c model.Class) string {
	switch c {
	case model.ClassActive:
		return "Active"
	case model.ClassInterrupted:
		return "Interrupted"
	case model.ClassTerminal:
		return "Terminal"
	}
	return "Unknown state"
}

// ageOf is the time the age column counts from: when the task began
// (Since) when the panes are sorted by age, else its last status change
// (Updated), so the column reads in the order the rows are sorted.
func (v *Screen) ageOf(t *model.Task) time.Time {
	if v.sort.Col() == colAge {
		return t.Since
	}
	return t.Updated
}

// ageHeader names the age column for the sort in use.
func (v *Screen) ageHeader() string {
	if v.sort.Col() == colAge {
		return v.sort.Mark(colAge, "AGE")
	}
	return v.sort.Mark(colUpdated, "UPD")
}

// rowCells are a row's cells, cut and padded to their columns.
type rowCells struct {
	agent, id, state, age, status, hint string
	statePaint, hintPaint               paint
	hintInStatus                        bool // merged column led by a hint
}

// cells cuts a task into its columns. Agent text is sanitized here.
func (v *Screen) cells(t *model.Task, h rowHint, c columns, now time.Time) rowCells {
	hint, hp := h.text, h.paint
	r := rowCells{
		agent:      common.Pad(sanitize.Line(t.Key.Agent, c.agent), c.agent),
		state:      common.Pad(sanitize.Line(rowStateText(t), c.state), c.state),
		statePaint: v.paint.state(t.State),
		hintPaint:  hp,
	}
	if c.id > 0 {
		r.id = common.Pad(common.ShortIDText(t.Key.ID), c.id)
	}
	if c.age > 0 {
		r.age = common.PadLeft(v.ctx.Clock.Age(now, v.ageOf(t)), c.age)
	}
	if c.merged {
		s := t.Text
		if hint != "" {
			s, r.hintInStatus = hint+" · "+t.Text, true
		}
		r.status = common.Pad(sanitize.Line(s, c.text), c.text)
	} else {
		r.status = common.Pad(sanitize.Line(t.Text, c.text), c.text)
		if c.hint > 0 {
			r.hint = common.Pad(sanitize.Line(hint, c.hint), c.hint)
		}
	}
	return r
}

// join writes the cells in column order; with paints, each in its colour.
func (r rowCells) join(b *strings.Builder, c columns, rp *rowPaint) {
	on := func(p paint, s string) string {
		if rp == nil {
			return s
		}
		return p.On(s)
	}
	var muted paint
	if rp != nil {
		muted = rp.muted
	}
	sep := false // a cell was written: the next one needs a space
	cell := func(s string) {
		if sep {
			b.WriteByte(' ')
		}
		b.WriteString(s)
		sep = true
	}
	if c.agent > 0 {
		cell(r.agent)
	}
	if c.id > 0 {
		cell(r.id)
	}
	if c.state > 0 {
		cell(on(r.statePaint, r.state))
	}
	if c.age > 0 {
		cell(on(muted, r.age))
	}
	if r.hintInStatus {
		cell(on(r.hintPaint, r.status))
	} else {
		cell(r.status)
	}
	if !c.merged && c.hint > 0 {
		b.WriteByte(' ')
		b.WriteString(on(r.hintPaint, r.hint))
	}
}

// row draws one task: the selected row of the focused pane in the
// selection style, others with each cell in its colour.
func (v *Screen) row(t *model.Task, h rowHint, c columns, w int, now time.Time, sel, focused bool) string {
	r := v.cells(t, h, c, now)
	var b strings.Builder
	b.Grow(w + 64)
	marked := v.marks.Len() > 0 && v.marks.Has(t.Key)
	switch {
	case marked && sel && focused:
		b.WriteString(common.MarkGutter)
	case marked:
		b.WriteString(v.paint.check.On(common.MarkGutter))
	case sel:
		b.WriteString("›")
	default:
		b.WriteByte(' ')
	}
	if sel && focused {
		r.join(&b, c, nil)
		return v.paint.selected.On(common.Pad(b.String(), w))
	}
	r.join(&b, c, &v.paint)
	line := b.String()
	if sel {
		line = v.paint.marked.On(line)
	}
	return line + strings.Repeat(" ", max(w-1-c.total(), 0))
}

// rowHint is a row's last column, sanitized, and how to paint it.
type rowHint struct {
	text  string
	paint paint
}

// hints are the hints of a pane's visible rows (Fleet.RowHint: the
// result summary, gone, stale, or what the task waits on).
func (v *Screen) hints(p *pane) []rowHint {
	out := make([]rowHint, len(p.rows))
	for i, t := range p.rows {
		out[i] = v.hint(t)
	}
	return out
}

// hint is one row's hint and its paint.
func (v *Screen) hint(t *model.Task) rowHint {
	h := sanitize.Line(v.ctx.Fleet.RowHint(t), maxHintWidth)
	switch {
	case h == "":
		return rowHint{paint: v.paint.muted}
	case t.Stale || t.Gone || (t.Class == model.ClassTerminal && t.Hint != ""):
		return rowHint{text: h, paint: v.paint.warn}
	}
	return rowHint{text: h, paint: v.paint.muted}
}

// widest is the width of the longest hint, 0 when no row has one.
func widest(hs []rowHint) int {
	w := 0
	for _, h := range hs {
		w = max(w, ansi.StringWidth(h.text))
	}
	return w
}

// shortDuration writes a duration as a config would: "1h", "90m", "30s".
func shortDuration(d time.Duration) string {
	s := d.String()
	for _, unit := range []string{"h", "m"} {
		s = strings.Replace(s, unit+"0m0s", unit, 1)
		s = strings.Replace(s, unit+"0s", unit, 1)
	}
	return s
}
